"""The vault's identity: a UUID kept in the vault folder, `<vault>/.mallory/vault.json`.

It lives in the vault, not in the hub's state, so it survives the loss of that state and
travels with the folder (another computer, a backup restore, a new state directory): the
Worker keys every note by (vault id, path), and a lost id would make the same vault look
like a new one whose notes duplicate the old. Obsidian ignores dot-folders and the hub's
walk skips them, so the file is never indexed. The hub's state keeps a copy: if the file
is deleted, the next run writes it back from the state rather than minting a new id.

Copying a vault folder copies its id; give the copy a new identity by deleting its
`.mallory/` folder before syncing it. Until then a run refuses a copy this hub can tell
from a move (hub/state.copied_from).
"""

from __future__ import annotations

import contextlib
import json
import os
import uuid
from pathlib import Path

from hub.client import HubError
from shared.api.fields import check_vault_id

ID_DIR = ".mallory"
ID_FILE = "vault.json"
ABOUT = ("Mallory Recall's id of this vault. Keep it with the vault; delete this folder in a "
         "copy of the vault that should sync as a vault of its own.")


def id_path(vault: Path) -> Path:
    return vault / ID_DIR / ID_FILE


def read_vault_id(vault: Path) -> str | None:
    """The vault's id, or None when it has none yet. A damaged file is an error: minting a
    new id would duplicate every note on the Worker."""
    path = id_path(vault)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return check_vault_id(str(data["vault_id"]))
    except FileNotFoundError:
        return None
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise HubError(f"the vault identity file {path} is damaged ({exc}); restore it, or "
                       "delete it to sync this folder as a new vault (its notes already on "
                       "the Worker would then stay under the old id)") from exc


def _id_text(vault_id: str) -> str:
    return json.dumps({"vault_id": vault_id, "about": ABOUT}, indent=2) + "\n"


def _unwritable(path: Path, exc: OSError) -> HubError:
    return HubError(f"cannot write the vault identity file {path} ({exc.strerror or exc}): "
                    "the hub keeps the vault's id in the vault folder; make it writable")


def ensure_vault_id(vault: Path, remembered: str | None = None) -> str:
    """The vault's id, creating the identity file when missing (from `remembered`, the id
    the hub's state recorded for this folder, else a new UUID).

    The file is created exclusively (written in full under a temporary name, then linked
    into place, which fails if the file exists), then read back: of two first runs at
    once, exactly one creates it and both go on with the id it holds."""
    found = read_vault_id(vault)
    if found:
        return found
    path = id_path(vault)
    tmp = path.with_name(f"{ID_FILE}.{uuid.uuid4().hex}.tmp")
    try:
        path.parent.mkdir(exist_ok=True)
        text = _id_text(remembered or str(uuid.uuid4()))
        tmp.write_text(text, encoding="utf-8")
        try:
            os.link(tmp, path)
        except FileExistsError:  # another run created it first: its id is the vault's
            pass
        except PermissionError:  # no hard links (FAT, exFAT): an exclusive create
            with contextlib.suppress(FileExistsError), open(path, "x", encoding="utf-8") as f:
                f.write(text)
    except OSError as exc:
        raise _unwritable(path, exc) from exc
    finally:
        with contextlib.suppress(OSError):
            tmp.unlink()
    made = read_vault_id(vault)
    if made is None:
        raise HubError(f"the vault identity file {path} vanished as it was created; run again")
    return made


def replace_vault_id(vault: Path, vault_id: str) -> None:
    """Point the identity file at `vault_id` (the id under which the Worker holds this
    folder's notes, hub/sync.py), atomically."""
    path = id_path(vault)
    tmp = path.with_name(f"{ID_FILE}.{uuid.uuid4().hex}.tmp")
    try:
        tmp.write_text(_id_text(vault_id), encoding="utf-8")
        os.replace(tmp, path)
    except OSError as exc:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise _unwritable(path, exc) from exc
