"""Runs inside Pyodide (tests/pyodide/runner.mjs): the import sweep, then pytest.

    main(["--sweep", "--pytest", <pytest args>...])

Prints one line `PYODIDE-REPORT <json>` at the end: the interpreter, the timings, the modules
that failed to import and every test's outcome, for tests/pyodide/test_in_pyodide.py.
"""

from __future__ import annotations

import asyncio
import importlib
import json
import pkgutil
import sys
import time
import traceback
from typing import Any

SWEPT_PACKAGES = ("shared", "worker")
REPORT_MARK = "PYODIDE-REPORT "
LONGREPR_CHARS = 3_000


def use_the_running_loop_in_asyncio_runner() -> None:
    """pytest-asyncio drives tests with asyncio.Runner, whose run() refuses to start while
    a loop runs; in Pyodide the WebLoop always runs (Pyodide patches asyncio.run, not
    Runner). With JSPI run_until_complete can block on it, so run() does just that."""

    def run(self: asyncio.Runner, coro: Any, *, context: Any = None) -> Any:
        self._lazy_init()  # type: ignore[attr-defined]
        task = self._loop.create_task(coro, context=context)  # type: ignore[attr-defined]
        return self._loop.run_until_complete(task)  # type: ignore[attr-defined]

    asyncio.Runner.run = run  # type: ignore[method-assign]


def sweep() -> dict[str, Any]:
    """Import every module of shared/ and worker/, worker.entry too: the runner stands in
    for workerd's own JS modules that the Workers SDK imports (tests/pyodide/bindings.mjs)."""
    started, imported, failed = time.perf_counter(), [], {}
    for package in SWEPT_PACKAGES:
        root = importlib.import_module(package)
        names = [package] + [m.name for m in pkgutil.walk_packages(root.__path__, package + ".")]
        for name in names:
            try:
                importlib.import_module(name)
                imported.append(name)
            except BaseException as exc:  # every failure is reported
                failed[name] = "".join(traceback.format_exception_only(exc)).strip()
    return {"imported": imported, "failed": failed, "seconds": time.perf_counter() - started}


class Outcomes:
    """A pytest plugin that records each test's outcome."""

    def __init__(self) -> None:
        self.tests: dict[str, dict[str, Any]] = {}

    def pytest_runtest_logreport(self, report: Any) -> None:
        entry = self.tests.setdefault(report.nodeid, {"outcome": "passed", "seconds": 0.0})
        entry["seconds"] = round(entry["seconds"] + report.duration, 4)
        if report.when == "call" or report.outcome != "passed":
            if report.outcome != "passed" or entry["outcome"] == "passed":
                outcome = report.outcome
                if report.when != "call" and report.outcome == "failed":
                    outcome = "error"
                entry["outcome"] = outcome
            if report.outcome != "passed":
                entry["longrepr"] = str(report.longrepr)[-LONGREPR_CHARS:]

    def pytest_collectreport(self, report: Any) -> None:
        if report.outcome == "failed":
            self.tests[report.nodeid or "<collection>"] = {
                "outcome": "error", "longrepr": str(report.longrepr)[-LONGREPR_CHARS:]}


def run_pytest(args: list[str]) -> dict[str, Any]:
    import pytest

    use_the_running_loop_in_asyncio_runner()
    outcomes = Outcomes()
    started = time.perf_counter()
    # The sweep has imported anyio already, so pytest cannot rewrite the asserts of its
    # plugin (a warning, made an error by filterwarnings); no test uses that plugin.
    code = pytest.main(["-p", "no:cacheprovider", "-W", "ignore::pytest.PytestAssertRewriteWarning",
                        *args], plugins=[outcomes])
    return {"exit_code": int(code), "tests": outcomes.tests,
            "seconds": time.perf_counter() - started}


def main(argv: Any, timings: Any) -> int:
    args = list(argv)
    report: dict[str, Any] = {"python": sys.version.split()[0], "platform": sys.platform,
                              **dict(timings)}
    try:
        import pyodide  # type: ignore[import-not-found]

        report["pyodide"] = pyodide.__version__
    except ImportError:
        report["pyodide"] = None
    if "--sweep" in args:
        args.remove("--sweep")
        report["sweep"] = sweep()
    if args[:1] == ["--pytest"]:
        report["pytest"] = run_pytest(args[1:])
    print(REPORT_MARK + json.dumps(report), flush=True)
    return 0
