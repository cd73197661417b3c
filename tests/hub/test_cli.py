"""`mallory-hub --help` answers without importing what only a run needs (its start-up time
is measured by `python -X importtime -m hub.cli --help`; see the README's Figures)."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.conftest import ROOT

HEAVY = ("httpx", "pydantic", "yaml", "markdown_it", "rich", "rapidfuzz", "hub.commands",
         "hub.sync")


def modules_after_help(module: str, heavy: tuple[str, ...]) -> list[str]:
    """The heavy modules loaded once `module`'s main has printed its --help."""
    probe = (f"import json, sys\nfrom {module} import main\n"
             "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
             f"print(json.dumps(sorted(m for m in sys.modules if m in {heavy!r} "
             f"or m.split('.')[0] in {heavy!r})))")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          timeout=60, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert "usage:" in done.stdout
    return json.loads(done.stdout.splitlines()[-1])


def test_help_imports_none_of_the_run_modules() -> None:
    assert modules_after_help("hub.cli", HEAVY) == []
