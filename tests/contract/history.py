"""The migrations folder as it stood before a given migration, for the tests that load
data the way an older schema held it and then migrate it."""

from __future__ import annotations

import shutil
from pathlib import Path

from local.migrate import MIGRATIONS_DIR


def migrations_before(tmp_path: Path, name: str) -> Path:
    """A copy of migrations/ holding only the files that sort before `name` ("0007")."""
    folder = tmp_path / f"migrations-before-{name}"
    folder.mkdir(exist_ok=True)
    for path in sorted(MIGRATIONS_DIR.glob("*.sql")):
        if path.name < name:
            shutil.copy(path, folder)
    return folder
