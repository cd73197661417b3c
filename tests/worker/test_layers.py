"""The Worker's layers read top-down: no two packages of worker/ import each other, and
RetrievalMode is a leaf. Read from the source (ast), so an import inside a function or
under TYPE_CHECKING counts as much as one at the top."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
WORKER = ROOT / "worker"
LEAF = WORKER / "recall" / "retrieval_mode.py"


def module_of(path: Path, root: Path = ROOT) -> str:
    parts = path.relative_to(root).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported(path: Path, root: Path = ROOT) -> Iterator[str]:
    """Every module `path` imports, absolute (relative imports resolved)."""
    package = module_of(path, root).split(".")
    if path.name != "__init__.py":
        package = package[:-1]
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package[:len(package) - node.level + 1] if node.level else []
            module = ".".join([*base, *([node.module] if node.module else [])])
            yield module
            # `from worker.recall import vector`: a submodule is imported too.
            yield from (f"{module}.{alias.name}" for alias in node.names)


def package_of(module: str, root: Path = ROOT) -> str | None:
    """The worker/ package a module belongs to (None: worker/'s own modules, or outside)."""
    parts = module.split(".")
    if len(parts) < 2 or parts[0] != "worker" or not (root / "worker" / parts[1]).is_dir():
        return None
    return parts[1]


def package_imports(root: Path = ROOT) -> dict[tuple[str, str], list[str]]:
    """(importing package, imported package) → the files of the first that import the
    second."""
    edges: dict[tuple[str, str], list[str]] = {}
    for path in sorted((root / "worker").rglob("*.py")):
        if "static" in path.parts:
            continue
        source = package_of(module_of(path, root), root)
        if source is None:
            continue
        for module in imported(path, root):
            target = package_of(module, root)
            if target is not None and target != source:
                edges.setdefault((source, target), []).append(str(path.relative_to(root)))
    return edges


def mutual(edges: dict[tuple[str, str], list[str]]) -> list[str]:
    return sorted(f"{a} ↔ {b}: {sorted(set(edges[a, b]))} / {sorted(set(edges[b, a]))}"
                  for a, b in edges if a < b and (b, a) in edges)


def test_no_two_worker_packages_import_each_other() -> None:
    edges = package_imports()
    assert ("recall", "store") in edges  # the walk reads the real imports
    assert mutual(edges) == []


def test_the_walk_finds_a_mutual_import_relative_or_not(tmp_path: Path) -> None:
    for folder, text in (("a", "from worker.b.y import thing\n"),
                         ("b", "def f():\n    from ..a import x\n"), ("c", "import os\n")):
        (tmp_path / "worker" / folder).mkdir(parents=True)
        (tmp_path / "worker" / folder / "__init__.py").write_text("")
        (tmp_path / "worker" / folder / ("x.py" if folder == "a" else "y.py")).write_text(text)
    edges = package_imports(tmp_path)
    assert set(edges) == {("a", "b"), ("b", "a")}
    assert mutual(edges) == ["a ↔ b: ['worker/a/x.py'] / ['worker/b/y.py']"]


def test_retrieval_mode_imports_nothing_of_worker() -> None:
    assert [m for m in imported(LEAF) if m.split(".")[0] == "worker"] == []
