"""The Worker bundle: what wrangler ships, and that all of it can run in Pyodide."""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
import tomllib
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement

from local.miniflare import node_binary
from tests.conftest import ROOT

WORKER_PACKAGES = ("worker", "shared")
# Provided by the Python Workers runtime itself.
RUNTIME_MODULES = {"workers", "asgi", "js", "pyodide"}
# Compiled packages with Pyodide wheels on PyPI (scripts/pyodide_wheels.py fetches them;
# tests/pyodide installs and runs them). cryptography has none, so it is not a runtime
# dependency: WebCrypto verifies Access JWTs at the edge (worker/security/rs256.py).
PYODIDE_BUILT = {"pydantic-core"}
# Imported only on CPython (the local runtime), inside functions, by these modules alone;
# the Pyodide suite's import sweep shows the modules load without them.
CPYTHON_ONLY = {"cryptography": {"worker/security/rs256.py"}}


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def runtime_dependencies() -> list[str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    return [re.split(r"[<>=!~;\[ ]", d, maxsplit=1)[0] for d in project["dependencies"]]


def test_wrangler_dry_run_bundles_worker_and_shared_only(tmp_path: Path) -> None:
    env = {**os.environ, "PATH": f"{Path(node_binary()).parent}:{os.environ['PATH']}",
           "WRANGLER_SEND_METRICS": "false", "NO_COLOR": "1", "CI": "1"}
    wrangler = ROOT / "node_modules" / ".bin" / "wrangler"
    result = subprocess.run([str(wrangler), "deploy", "--dry-run", "--outdir", str(tmp_path)],
                            cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    bundled = {p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*.py")}
    expected = {p.relative_to(ROOT).as_posix() for pkg in WORKER_PACKAGES
                for p in (ROOT / pkg).rglob("*.py")} - {"worker/entry.py"}
    assert expected <= bundled
    assert "entry.py" in bundled  # the main module
    assert not {p for p in bundled if p.split("/")[0] in ("hub", "local", "tests", "bench")}


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


def test_worker_imports_only_stdlib_runtime_and_declared_dependencies() -> None:
    declared = {_norm(d) for d in runtime_dependencies()}
    # Import names need not match distribution names (PyJWT is imported as `jwt`).
    allowed_third_party = {module for module, dists in metadata.packages_distributions().items()
                           if declared & {_norm(d) for d in dists}}
    offenders: dict[str, set[str]] = {}
    for pkg in WORKER_PACKAGES:
        for path in (ROOT / pkg).rglob("*.py"):
            for name in _imports(path):
                if str(path.relative_to(ROOT)) in CPYTHON_ONLY.get(name, ()):
                    continue
                if (name in sys.stdlib_module_names or name in WORKER_PACKAGES
                        or name in RUNTIME_MODULES or name in allowed_third_party):
                    continue
                offenders.setdefault(str(path.relative_to(ROOT)), set()).add(name)
    assert offenders == {}


def _requirement_closure(names: list[str]) -> set[str]:
    seen: set[str] = set()
    todo = [_norm(n) for n in names]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        for raw in metadata.requires(name) or []:
            req = Requirement(raw)
            if req.marker is None or req.marker.evaluate({"extra": ""}):
                todo.append(_norm(req.name))
    return seen


@pytest.mark.parametrize("dist", sorted(_requirement_closure(runtime_dependencies())))
def test_every_runtime_dependency_is_pure_python_or_built_for_pyodide(dist: str) -> None:
    wheel = metadata.distribution(dist).read_text("WHEEL") or ""
    tags = re.findall(r"^Tag: (.+)$", wheel, re.MULTILINE)
    pure = tags and all(t.endswith("-none-any") for t in tags)
    assert pure or dist in PYODIDE_BUILT, f"{dist} is compiled ({tags}) and not in Pyodide"
