"""The hub's local state: what it last pushed for each path, so a no-op run sends nothing,
and what it believes the Worker holds, so every run can check that belief cheaply.

Written atomically (temp file + rename) at the start and end of a run that changes
anything; in between, every accepted batch appends one line to the state's journal (the
paths it recorded and removed), so a hub killed at any moment resumes from the last batch
the Worker confirmed without rewriting the whole state per batch (which made a first push
quadratic in the vault's size, bench.sync). A line torn by a kill is ignored: that batch
is then missing from the state, which the Worker's checksum reveals (below).

A state that disagrees with the Worker (a kill between a batch and its record, another
Worker, a lost database) is rebuilt from the Worker's manifest by `reconciled`, keeping
each file's recorded stat where the hashes agree so that only the files in question are
read again.
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from hub.client import HubError
from hub.identity import ensure_vault_id, read_vault_id
from hub.reading import settled
from hub.walk import FileStat
from shared.api.vault_digest import vault_checksum

# 2: vault ids, the Worker's id and stats recorded at read time. A version 1 state was
# written with stats taken after the run and is reconciled in full once.
STATE_VERSION = 2
UNKNOWN = -1  # the stat of a version the Worker holds but this hub has not read
# How the hub turns a page into what it sends (sections, fields): an entry recorded by an
# older parser is sent again, so the Worker gets every note as this parser reads it.
# 2: sections from markdown-it-py (hub/sections.py). 3: status, role and typed relations
# (hub/knowledge.py, hub/lint.py), and the dates frontmatter states (`days`, `times`:
# time-aware recall, migrations/0007). 4: frontmatter boundary, body tags and the H1 title
# from the parser (hub/markdown.py): a `#tag` in indented code or an HTML block is no
# longer a tag, an indented `# line` that is code is no longer a title.
PARSER_VERSION = 4
# A run that changed nothing appends its time to the journal; past this many lines it
# saves the whole state instead (a hub syncing every minute would grow it without end).
JOURNAL_MAX_LINES = 1_000


@dataclass
class Entry:
    hash: str
    mtime_ns: int
    size: int
    pushed_at: int
    read_ns: int = 0  # wall clock (ns) when the recorded version was read
    parser: int = 0  # PARSER_VERSION of the version the Worker holds
    # Its relations as sent, [target path, type] (the vault's relation cycles are found
    # without reading every page), and the targets that resolved to no page.
    relations: list[list[str]] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    # The change time when read (hub/walk.py); UNKNOWN in an entry from before it was
    # recorded, whose file is read (and its hash compared) once more.
    ctime_ns: int = UNKNOWN

    def matches(self, f: FileStat) -> bool:
        """The file still has the recorded stat (change time included: a rewrite that
        kept the size and the mtime is read, and its content hash decides), had it well
        before it was read, and was sent as the current parser reads it."""
        return (self.mtime_ns == f.mtime_ns and self.size == f.size
                and self.ctime_ns == f.ctime_ns
                and settled(self.mtime_ns, self.read_ns) and self.parser == PARSER_VERSION)


def new_hub_id() -> str:
    return "hub-" + secrets.token_hex(12)


@dataclass
class State:
    version: int = STATE_VERSION
    vault: str = ""  # the vault's name
    vault_id: str = ""
    url: str = ""
    worker_id: str = ""
    notes: dict[str, Entry] = field(default_factory=dict)
    last_sync_at: int | None = None
    # The folder this state describes (resolved): its id is never given to another folder.
    # Empty in a state written before the field.
    folder: str = ""
    # This state's hub, as the holder of the vault's lease (migrations/0010): a run killed
    # mid-sync is taken over at once by the next run from the same state.
    hub_id: str = field(default_factory=new_hub_id)
    # The journal of this saved state (journal-<token>.jsonl): lines appended since the
    # save and replayed on load, and how many it held when loaded. Not compared.
    journal: str = field(default="", compare=False)
    journal_lines: int = field(default=0, compare=False)

    def describes(self, vault: Path) -> bool:
        """Is this the state of `vault` (or one from before states named their folder)?"""
        return not self.folder or self.folder == str(vault.resolve())

    def checksum(self) -> int:
        return vault_checksum((path, e.hash) for path, e in self.notes.items())

    def to_json(self) -> str:
        return json.dumps({"version": self.version, "vault": self.vault,
                           "vault_id": self.vault_id, "url": self.url,
                           "worker_id": self.worker_id, "last_sync_at": self.last_sync_at,
                           "folder": self.folder, "hub_id": self.hub_id,
                           "journal": self.journal,
                           # an Entry's fields as asdict gives them, without its deep copy
                           # (asdict was most of a no-op run's time, bench.sync)
                           "notes": {p: vars(e) for p, e in sorted(self.notes.items())}})


def reconciled(state: State, remote: Mapping[str, str]) -> State:
    """The state rebuilt from the Worker's manifest (path → content hash): exactly the
    Worker's notes, with the recorded stat kept where the hash agrees."""
    notes = {}
    for path, digest in remote.items():
        known = state.notes.get(path)
        # A version the Worker holds but this hub never recorded is taken as current: it
        # was sent by a hub of this parser (a lost state) or will be sent again when the
        # file changes. Entries recorded by an older parser keep their version.
        notes[path] = known if known and known.hash == digest else Entry(
            hash=digest, mtime_ns=UNKNOWN, size=UNKNOWN, pushed_at=0, parser=PARSER_VERSION)
    return State(vault=state.vault, vault_id=state.vault_id, url=state.url,
                 worker_id=state.worker_id, notes=notes, last_sync_at=state.last_sync_at,
                 folder=state.folder, hub_id=state.hub_id)


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
        state = State(version=int(data.get("version", 1)), vault=data.get("vault", ""),
                      vault_id=data.get("vault_id", ""), url=data.get("url", ""),
                      worker_id=data.get("worker_id", ""), notes=notes,
                      last_sync_at=data.get("last_sync_at"), folder=data.get("folder", ""),
                      hub_id=data.get("hub_id") or new_hub_id(),
                      journal=str(data.get("journal") or ""))
    except (OSError, ValueError, TypeError) as exc:
        raise ValueError(f"hub state {path} is unreadable ({exc}); delete it: the next run "
                         "rebuilds it from the Worker's manifest") from exc
    if state.journal:
        _replay(state, _journal_path(state_dir, state.journal))
    return state


def _journal_path(state_dir: Path, token: str) -> Path:
    return state_dir / f"journal-{token}.jsonl"


def _replay(state: State, journal: Path) -> None:
    """Apply the journal's lines in order, up to the first that does not parse (torn by a
    kill while it was written: that batch and any after it are not recorded)."""
    try:
        lines = journal.read_bytes().split(b"\n")
    except FileNotFoundError:
        return
    for line in lines:
        try:
            change = json.loads(line)
            recorded = {p: Entry(**e) for p, e in change.get("set", {}).items()}
        except (ValueError, TypeError, AttributeError):
            if line:  # torn: nothing more is appended after it (the next change saves)
                state.journal = ""
            break
        state.notes.update(recorded)
        for gone in change.get("del", []):
            state.notes.pop(gone, None)
        if change.get("last_sync_at") is not None:
            state.last_sync_at = change["last_sync_at"]
        state.journal_lines += 1


def save_state(state_dir: Path, state: State) -> None:
    """The whole state, under a new journal (the old one's lines are in it)."""
    state_dir.mkdir(parents=True, exist_ok=True)
    state.journal, state.journal_lines = secrets.token_hex(8), 0
    tmp = state_dir / f"state.json.{os.getpid()}.tmp"
    tmp.write_text(state.to_json(), encoding="utf-8")
    os.replace(tmp, state_dir / "state.json")
    for old in state_dir.glob("journal-*.jsonl"):
        if old.name != _journal_path(state_dir, state.journal).name:
            old.unlink(missing_ok=True)


def record_changes(state_dir: Path, state: State, recorded: Iterable[str] = (),
                   removed: Iterable[str] = ()) -> None:
    """Append to the state's journal what `state` now holds for `recorded` and that it
    no longer holds `removed` (and its last_sync_at); a state never saved is saved."""
    if not state.journal or not (state_dir / "state.json").is_file():
        save_state(state_dir, state)
        return
    line = json.dumps({"set": {p: vars(state.notes[p]) for p in recorded},
                       "del": list(removed), "last_sync_at": state.last_sync_at})
    with open(_journal_path(state_dir, state.journal), "a", encoding="utf-8") as journal:
        journal.write(line + "\n")
    state.journal_lines += 1


def copied_from(vault: Path, vault_id: str, state_dir: Path) -> Path | None:
    """The folder whose identity `vault` holds, when `vault` looks like a copy of it: a state
    of this hub (`state_dir`, or one beside it) records `vault_id` for another folder that
    still exists and still holds that id. Synced under one id, the two would each undo the
    other's notes on the Worker. A folder moved (the recorded one is gone) is no copy.
    The sync asks only while the folder's own state does not describe it yet (hub/sync.py),
    so a folder's own runs read no other state."""
    here = str(vault.resolve())
    for path in [state_dir / "state.json",
                 *sorted(p for p in state_dir.parent.glob("*/state.json")
                         if p.parent != state_dir)]:
        try:
            known = load_state(path.parent) if path.is_file() else None
        except ValueError:
            continue
        if known is None or known.vault_id != vault_id or not known.folder \
                or known.folder == here:
            continue
        other = Path(known.folder)
        try:
            if read_vault_id(other) == vault_id:
                return other
        except HubError:  # its identity file is damaged: its own runs say so
            continue
    return None


def folder_state_dir(base: Path, vault: Path) -> Path:
    """`base/<the folder's vault id>`: one state per folder, however many folders one
    database (`mallory serve --sync-vault`) is synced from in turn, so that no folder is
    ever given another's id. A folder without an identity file gets the id a state under
    `base` recorded for it (the file was deleted), else a new one."""
    remembered = None
    if read_vault_id(vault) is None:
        for path in sorted(base.glob("*/state.json")):
            try:
                known = load_state(path.parent)
            except ValueError:
                continue
            if known.vault_id and known.folder == str(vault.resolve()):
                remembered = known.vault_id
                break
    return base / ensure_vault_id(vault, remembered)
