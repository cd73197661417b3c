"""Fetches the wheels the Pyodide suite (tests/pyodide) installs, at uv.lock's versions.

The Worker's runtime dependencies ([project.dependencies] and what they need) and the test
tools run inside Pyodide 314 (Python 3.14, ABI pyemscripten_2026_0). pydantic-core is the one
compiled package: PyPI carries its Pyodide wheel. Everything else must be pure Python.

    uv run python scripts/pyodide_wheels.py   (scripts/setup.sh --test runs it)

Writes `.pyodide-wheels/` and its `manifest.json` (the wheel files, in install order); does
nothing when the manifest already names exactly these versions.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

from packaging.markers import Marker
from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parent.parent
DEST = ROOT / ".pyodide-wheels"
MANIFEST = DEST / "manifest.json"
PYTHON_VERSION = "3.14"
PYODIDE_PLATFORM = "pyemscripten_2026_0_wasm32"
# Built for Pyodide, fetched with its platform tag; every other wheel must be pure.
COMPILED = {"pydantic-core"}
# What the suite needs besides the runtime dependencies: the Workers runtime SDK (the
# `workers` and `asgi` modules worker/entry.py imports), pytest and its plugins, and sqlglot
# (local/migrate.py, which turns the migrations into SQLite for the `db` fixture).
TEST_TOOLS = ["workers-runtime-sdk", "pytest", "pytest-asyncio", "respx", "hypothesis", "sqlglot"]
# hypothesis ships only compiled wheels since 6.156; 6.155.7 is its newest pure wheel.
PURE_FALLBACK = {"hypothesis": "6.155.7"}
# The environment markers of Pyodide 314 in Node (sys.platform is "emscripten").
PYODIDE_ENV = {"python_version": "3.14", "python_full_version": "3.14.2",
               "sys_platform": "emscripten", "platform_system": "Emscripten",
               "implementation_name": "cpython", "platform_python_implementation": "CPython",
               "os_name": "posix", "extra": ""}


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def runtime_dependencies() -> list[str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    return [_norm(Requirement(d).name) for d in project["dependencies"]]


def closure(roots: list[str], lock: dict) -> dict[str, str]:
    """name → version for `roots` and everything they need in Pyodide, from uv.lock."""
    packages = {_norm(p["name"]): p for p in lock["package"]}
    pinned: dict[str, str] = {}
    todo = [_norm(r) for r in roots]
    while todo:
        name = todo.pop()
        if name in pinned:
            continue
        package = packages[name]
        pinned[name] = PURE_FALLBACK.get(name, package["version"])
        for dep in package.get("dependencies", []):
            marker = dep.get("marker")
            if marker is None or Marker(marker).evaluate(PYODIDE_ENV):
                todo.append(_norm(dep["name"]))
    return pinned


def micropip_pin() -> str:
    """micropip at the version the npm pyodide package's lock names."""
    lock = json.loads((ROOT / "node_modules/pyodide/pyodide-lock.json").read_text())
    return lock["packages"]["micropip"]["version"]


def wanted() -> dict[str, str]:
    lock = tomllib.loads((ROOT / "uv.lock").read_text())
    pins = closure(runtime_dependencies() + TEST_TOOLS, lock)
    return {"micropip": micropip_pin(), **pins}


def _pip(*args: str) -> None:
    # PIP_CONSTRAINT is emptied so that a machine-wide constraints file cannot veto a pin.
    env = {**os.environ, "PIP_CONSTRAINT": "", "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    pip = [sys.executable, "-m", "pip"] if _has_pip() else ["uvx", "pip"]
    subprocess.run([*pip, "download", "--quiet", "--no-deps", "--only-binary", ":all:",
                    "--python-version", PYTHON_VERSION, "--dest", str(DEST), *args],
                   check=True, env=env)


def _has_pip() -> bool:
    return subprocess.run([sys.executable, "-m", "pip", "--version"],
                          capture_output=True).returncode == 0


def _wheel_of(name: str, version: str) -> str:
    stem = f"{re.sub(r'[-.]+', '_', name)}-{version}-"
    found = [p.name for p in DEST.glob("*.whl") if p.name.lower().startswith(stem.lower())]
    if len(found) != 1:
        raise SystemExit(f"pyodide_wheels: expected one wheel for {name}=={version}, "
                         f"found {found}")
    return found[0]


def main() -> int:
    pins = wanted()
    if MANIFEST.exists() and json.loads(MANIFEST.read_text()).get("pins") == pins:
        return 0
    shutil.rmtree(DEST, ignore_errors=True)
    DEST.mkdir()
    compiled = [f"{n}=={v}" for n, v in pins.items() if n in COMPILED]
    pure = [f"{n}=={v}" for n, v in pins.items() if n not in COMPILED]
    _pip("--platform", PYODIDE_PLATFORM, "--implementation", "cp", "--abi", "cp314",
         *compiled)
    _pip(*pure)
    wheels = {n: _wheel_of(n, v) for n, v in pins.items()}
    impure = [w for n, w in wheels.items() if n not in COMPILED and not w.endswith("none-any.whl")]
    if impure:
        raise SystemExit(f"pyodide_wheels: not pure Python, so not for Pyodide: {impure}")
    MANIFEST.write_text(json.dumps({"pins": pins, "wheels": wheels}, indent=1) + "\n")
    print(f"pyodide_wheels: {len(wheels)} wheels in {DEST.relative_to(ROOT)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
