"""The export formats import reads, by the name the CLI and `POST /api/import` take (no
imports: `mallory --help` lists them)."""

FORMATS = ("chatgpt", "claude", "openwebui", "mallory")
