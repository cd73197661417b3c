"""The order in which pytest-xdist deals test files to its processes.

`scripts/test` runs `--dist loadfile --no-loadscope-reorder`: a file goes whole to one
worker, in collection order, and so does each folder of ONE_PROCESS (`scheduling`, put in
by tests/conftest.py). xdist's own order (most tests first) dealt the few-test,
minute-long files last, so one worker ran them alone while the others sat idle. Here the
long poles go first, slowest first, and the many short files fill in behind them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

# Folders that go whole to one process, as a file does: the browser tests share one
# Chromium there (tests/e2e/browser/conftest.py).
ONE_PROCESS = ("tests/e2e/browser",)

# Slowest first, as measured with `--junitxml` (per-file totals) on 2 cores; a file not
# named keeps its collection order after these.
LONG_POLES = (
    "tests/e2e/browser",
    "tests/pyodide/test_in_pyodide.py",
    "tests/e2e/test_vault_sync.py",
    "tests/local/test_reindex.py",
    "tests/e2e/test_hub_cli.py",
    "tests/e2e/test_hub_identity.py",
    "tests/e2e/test_hub_sync.py",
    "tests/local/test_archive_cli.py",
    "tests/reliability/test_forget_during_indexing.py",
    "tests/contract/test_d1_contract.py",
    "tests/local/test_serve_logs.py",
    "tests/e2e/test_vault_switch.py",
    "tests/e2e/test_knowledge_http.py",
    "tests/e2e/test_hub_url_change.py",
    "tests/shared/api/test_sync_payload.py",
    "tests/hub/test_identity.py",
    "tests/reliability/test_hub_race.py",
    "tests/e2e/test_sections_http.py",
    "tests/reliability/test_kill_hub.py",
    "tests/e2e/test_hub_vault_names.py",
    "tests/e2e/test_modes_http.py",
    "tests/contract/test_migration_0002.py",
)


def scope(path: str) -> str:
    """What goes whole to one process: the folder of ONE_PROCESS that holds `path` (a test
    file, or a node id), else the file itself."""
    file = path.split("::", 1)[0]
    return next((f for f in ONE_PROCESS if file.startswith(f + "/")), file)


def scheduling() -> Any:
    """pytest-xdist's `loadfile` scheduler class, with ONE_PROCESS's folders as single
    units. xdist is imported here, not at the top: pytest inside Pyodide loads
    tests/conftest.py too, and has no xdist."""
    from xdist.scheduler import LoadFileScheduling

    class Scheduling(LoadFileScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return scope(nodeid)

    return Scheduling


def long_poles_first(items: list[pytest.Item], root: Path) -> None:
    """Sort `items` in place: the LONG_POLES first, in that order, each ONE_PROCESS folder
    together; the sort is stable, so each file's tests stay together and in their own
    order."""
    rank = {path: i for i, path in enumerate(LONG_POLES)}

    def key(item: pytest.Item) -> tuple[int, str]:
        try:
            path = item.path.relative_to(root).as_posix()
        except ValueError:
            return len(rank), ""
        unit = scope(path)
        return rank.get(unit, len(rank)), unit if unit in ONE_PROCESS else ""

    items.sort(key=key)
