"""The export formats import reads, by the name the CLI and `POST /api/import` take."""

from __future__ import annotations

from collections.abc import Callable

from shared.archive import chatgpt, claude, mallory, openwebui
from shared.archive.format_names import FORMATS
from shared.archive.records import Parsed

PARSERS: dict[str, Callable[[object], Parsed]] = {
    "chatgpt": chatgpt.parse,
    "claude": claude.parse,
    "openwebui": openwebui.parse,
    "mallory": mallory.parse,
}
assert tuple(PARSERS) == FORMATS, "shared/archive/format_names.py lists every parser"
