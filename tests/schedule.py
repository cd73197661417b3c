"""The order in which pytest-xdist deals test files to its processes.

`scripts/test` runs `--dist loadfile --no-loadscope-reorder`: a file goes whole to one
worker, in collection order. xdist's own order (most tests first) dealt the few-test,
minute-long files last, so one worker ran them alone while the others sat idle. Here the
long poles go first, slowest first, and the many short files fill in behind them.
"""

from __future__ import annotations

from pathlib import Path

import pytest

# Slowest first, as measured with `--junitxml` (per-file totals) on 2 cores; a file not
# named keeps its collection order after these.
LONG_POLES = (
    "tests/pyodide/test_in_pyodide.py",
    "tests/e2e/test_vault_sync.py",
    "tests/local/test_reindex.py",
    "tests/e2e/test_hub_cli.py",
    "tests/e2e/test_hub_identity.py",
    "tests/e2e/test_hub_sync.py",
    "tests/local/test_archive_cli.py",
    "tests/e2e/test_web_manage.py",
    "tests/reliability/test_forget_during_indexing.py",
    "tests/contract/test_d1_contract.py",
    "tests/e2e/test_web.py",
    "tests/local/test_serve_logs.py",
    "tests/e2e/test_vault_switch.py",
    "tests/e2e/test_knowledge_http.py",
    "tests/e2e/test_web_search.py",
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


def long_poles_first(items: list[pytest.Item], root: Path) -> None:
    """Sort `items` in place: the LONG_POLES files first, in that order; the sort is
    stable, so each file's tests stay together and in their own order."""
    rank = {path: i for i, path in enumerate(LONG_POLES)}

    def key(item: pytest.Item) -> int:
        try:
            path = item.path.relative_to(root).as_posix()
        except ValueError:
            return len(rank)
        return rank.get(path, len(rank))

    items.sort(key=key)
