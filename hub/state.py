"""The hub's local state: what it last pushed for each path, so a no-op run sends nothing.

Written atomically (temp file + rename) after every accepted batch, so a hub killed at
any moment resumes from the last batch the Worker confirmed.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path

STATE_VERSION = 1


@dataclass
class Entry:
    hash: str
    mtime_ns: int
    size: int
    pushed_at: int


@dataclass
class State:
    vault: str = ""
    url: str = ""
    notes: dict[str, Entry] = field(default_factory=dict)
    last_sync_at: int | None = None

    def to_json(self) -> str:
        return json.dumps({"version": STATE_VERSION, "vault": self.vault, "url": self.url,
                           "last_sync_at": self.last_sync_at,
                           "notes": {p: asdict(e) for p, e in sorted(self.notes.items())}})


def default_state_dir(vault: Path) -> Path:
    base = Path(os.environ.get("XDG_STATE_HOME") or Path.home() / ".local" / "state")
    digest = hashlib.sha256(str(vault.resolve()).encode()).hexdigest()[:12]
    return base / "mallory-hub" / f"{vault.resolve().name}-{digest}"


def load_state(state_dir: Path) -> State:
    path = state_dir / "state.json"
    if not path.is_file():
        return State()
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        notes = {p: Entry(**e) for p, e in data.get("notes", {}).items()}
        return State(vault=data.get("vault", ""), url=data.get("url", ""), notes=notes,
                     last_sync_at=data.get("last_sync_at"))
    except (OSError, ValueError, TypeError) as exc:
        raise ValueError(f"hub state {path} is unreadable ({exc}); delete it and run "
                         "`mallory-hub sync --full` to rebuild it from the Worker") from exc


def save_state(state_dir: Path, state: State) -> None:
    state_dir.mkdir(parents=True, exist_ok=True)
    tmp = state_dir / "state.json.tmp"
    tmp.write_text(state.to_json(), encoding="utf-8")
    os.replace(tmp, state_dir / "state.json")
