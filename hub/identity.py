"""The vault's identity: a UUID kept in the vault folder, `<vault>/.mallory/vault.json`.

It lives in the vault, not in the hub's state, so it survives the loss of that state and
travels with the folder (another computer, a backup restore, a new state directory): the
Worker keys every note by (vault id, path), and a lost id would make the same vault look
like a new one whose notes duplicate the old. Obsidian ignores dot-folders and the hub's
walk skips them, so the file is never indexed. The hub's state keeps a copy: if the file
is deleted, the next run writes it back from the state rather than minting a new id.

Copying a vault folder copies its id; give the copy a new identity by deleting its
`.mallory/` folder before syncing it.
"""

from __future__ import annotations

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


def ensure_vault_id(vault: Path, remembered: str | None = None) -> str:
    """The vault's id, creating the identity file when missing (from `remembered`, the id
    the hub's state recorded, else a new UUID)."""
    found = read_vault_id(vault)
    if found:
        return found
    vault_id = remembered or str(uuid.uuid4())
    path = id_path(vault)
    try:
        path.parent.mkdir(exist_ok=True)
        tmp = path.with_suffix(".json.tmp")
        tmp.write_text(json.dumps({"vault_id": vault_id, "about": ABOUT}, indent=2) + "\n",
                       encoding="utf-8")
        os.replace(tmp, path)
    except OSError as exc:
        raise HubError(f"cannot write the vault identity file {path} ({exc.strerror or exc}): "
                       "the hub keeps the vault's id in the vault folder; make it writable"
                       ) from exc
    return vault_id
