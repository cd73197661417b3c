"""Stage the Worker's Python modules for wrangler: `worker/` and `shared/` only.

wrangler bundles every `*.py` under the Worker's module root and its rules cannot narrow
that for Python, so the module root is a staging folder holding exactly the two packages
the Worker imports (hub/, local/, tests/ and bench/ never reach the bundle). wrangler
runs this as the custom build before `deploy` (see wrangler.toml [build]).
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
STAGE = ROOT / ".worker-build"
PACKAGES = ("worker", "shared")


def stage(target: Path = STAGE) -> list[str]:
    if target.exists():
        shutil.rmtree(target)
    staged = []
    for package in PACKAGES:
        for source in sorted((ROOT / package).rglob("*.py")):
            rel = source.relative_to(ROOT)
            destination = target / rel
            destination.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, destination)
            staged.append(rel.as_posix())
    return staged


if __name__ == "__main__":
    modules = stage()
    print(f"staged {len(modules)} modules into {STAGE.name}/", file=sys.stderr)
