"""Walking a vault: which files are pages."""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

# Obsidian's own folders are hidden (.obsidian, .trash); every hidden folder is skipped.
DEFAULT_EXCLUDES = (".obsidian/**", ".trash/**")


@dataclass(frozen=True)
class FileStat:
    path: str  # vault-relative, '/'-separated
    size: int
    mtime_ns: int
    # The inode's change time: set by the kernel on every write, so a rewrite that kept
    # the size and put the old mtime back (a sync tool, `touch -d`) still shows.
    ctime_ns: int = -1


def excluded(rel_path: str, globs: Sequence[str]) -> bool:
    return any(fnmatch.fnmatch(rel_path, g) for g in globs)


def walk_vault(vault: Path, exclude: Sequence[str] = ()) -> Iterator[FileStat]:
    """Every Markdown file in the vault, in a stable order, skipping hidden folders and
    files and the exclude globs (matched against the vault-relative path)."""
    if not vault.is_dir():
        raise FileNotFoundError(f"vault folder {vault} does not exist")
    # DEFAULT_EXCLUDES are hidden folders, pruned below without matching every file
    # against them (a stat walk of 10,000 files is most of a no-op run, bench.sync).
    globs = tuple(g for g in exclude if g not in DEFAULT_EXCLUDES)
    for root, dirs, files in os.walk(vault):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        rel_root = Path(root).relative_to(vault).as_posix()
        for name in sorted(files):
            if name.startswith(".") or not name.lower().endswith(".md"):
                continue
            rel = name if rel_root == "." else f"{rel_root}/{name}"
            if globs and excluded(rel, globs):
                continue
            try:
                st = os.stat(os.path.join(root, name))
            except OSError:
                continue
            yield FileStat(rel, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
