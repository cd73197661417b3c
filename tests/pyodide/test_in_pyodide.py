"""The Worker's code and tests in real Pyodide 314, the Python Workers' interpreter
(wrangler.toml's compat date selects Python 3.14): see tests/pyodide/conftest.py."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.conftest import ROOT
from tests.worker.security.test_access import TOKEN_TABLE

pytestmark = pytest.mark.pyodide

SWEPT = ("shared", "worker")


def _tests(report: dict[str, Any], prefix: str) -> dict[str, dict[str, str]]:
    found = {k: v for k, v in report["pytest"]["tests"].items() if k.startswith(prefix)}
    assert found, f"no test under {prefix} ran inside Pyodide:\n{report['output_tail']}"
    return found


def _all_passed(tests: dict[str, dict[str, str]], allow_skips: bool = False) -> None:
    fine = {"passed", "skipped"} if allow_skips else {"passed"}
    bad = {k: v for k, v in tests.items() if v["outcome"] not in fine}
    assert not bad, "\n\n".join(f"{k}: {v['outcome']}\n{v.get('longrepr', '')}"
                                for k, v in bad.items())


def test_it_is_the_pinned_pyodide_with_python_3_14(pyodide_report: dict[str, Any]) -> None:
    pinned = json.loads((ROOT / "package.json").read_text())["devDependencies"]["pyodide"]
    assert pyodide_report["platform"] == "emscripten"
    assert pyodide_report["pyodide"] == pinned
    assert pyodide_report["python"].startswith("3.14.")


def test_every_module_of_shared_and_worker_imports(pyodide_report: dict[str, Any]) -> None:
    sweep = pyodide_report["sweep"]
    assert sweep["failed"] == {}
    on_disk = set()
    for package in SWEPT:
        for path in (ROOT / package).rglob("*.py"):
            parts = path.relative_to(ROOT).with_suffix("").parts
            on_disk.add(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    assert on_disk <= set(sweep["imported"])
    assert "worker.entry" in sweep["imported"]


def test_the_app_journey_runs_in_pyodide(pyodide_report: dict[str, Any]) -> None:
    _all_passed(_tests(pyodide_report, "tests/pyodide/edge/test_journey.py"))


def test_the_entry_point_serves_javascript_requests_through_the_sdk(
        pyodide_report: dict[str, Any]) -> None:
    _all_passed(_tests(pyodide_report, "tests/pyodide/edge/test_entry.py"))


def test_the_ffi_bindings_work_against_javascript_objects(
        pyodide_report: dict[str, Any]) -> None:
    tests = _tests(pyodide_report, "tests/pyodide/edge/test_bindings.py")
    _all_passed(tests)


def test_the_access_token_table_passes_with_webcrypto(pyodide_report: dict[str, Any]) -> None:
    tests = _tests(pyodide_report, "tests/worker/security/test_access.py::test_the_token_table")
    assert len(tests) == len(TOKEN_TABLE)
    _all_passed(tests)


def test_every_test_run_inside_pyodide_passes(pyodide_report: dict[str, Any]) -> None:
    # A skip names what Pyodide lacks (the summary line counts them); nothing else passes.
    tests = pyodide_report["pytest"]["tests"]
    _all_passed(tests, allow_skips=True)
    assert pyodide_report["pytest"]["exit_code"] == 0, pyodide_report["output_tail"]
