"""The hub installs alone (`uv tool install ".[hub]"`, README): everything it imports,
through the first-party modules it uses, comes with the package's own dependencies or its
[hub] extra, and nothing of the local embedder's group is needed."""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from importlib.metadata import packages_distributions

from tests.conftest import ROOT

FIRST_PARTY = {"hub", "shared", "worker", "local", "bench", "tests"}


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _names(requirements: list[str]) -> set[str]:
    return {_norm(re.split(r"[<>=!~;\[ ]", r, maxsplit=1)[0]) for r in requirements}


def imports_of(module: str) -> set[str]:
    path = ROOT / (module.replace(".", "/") + ".py")
    if not path.exists():
        path = ROOT / module.replace(".", "/") / "__init__.py"
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.add(node.module)
    return found


def hub_closure() -> tuple[set[str], set[str]]:
    """(first-party modules the hub loads, third-party top-level modules they import)."""
    todo = [f"hub.{p.stem}" for p in (ROOT / "hub").glob("*.py")]
    seen: set[str] = set()
    third: set[str] = set()
    while todo:
        module = todo.pop()
        if module in seen:
            continue
        seen.add(module)
        for name in imports_of(module):
            top = name.split(".")[0]
            if top in FIRST_PARTY:
                todo.append(name)
            elif top not in sys.stdlib_module_names and top != "__future__":
                third.add(top)
    return seen, third


def test_the_hub_extra_covers_every_import_of_the_hub() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    installed = (_names(project["project"]["dependencies"])
                 | _names(project["project"]["optional-dependencies"]["hub"]))
    modules, third = hub_closure()
    assert {m.split(".")[0] for m in modules} <= {"hub", "shared"}, modules
    dists = packages_distributions()
    needed = {_norm(d) for top in third for d in dists[top]}
    assert {"rich", "pyyaml", "markdown-it-py", "httpx", "pydantic"} <= needed
    assert needed <= installed, needed - installed
    embed = _names(project["dependency-groups"]["embed"])
    assert not needed & embed
    assert not _names(project["project"]["optional-dependencies"]["hub"]) & embed
