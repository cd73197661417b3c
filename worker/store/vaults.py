"""The vault registry: which vaults the Worker holds, their sync sequence, counters and
contact times, and the Worker's own identity.

A vault is known by the id the hub keeps in the vault folder (`uuid`); `vid` is its key
inside D1. Every hub run starts and ends with a heartbeat (POST /vault/heartbeat), which
in one D1 batch:
- adopts a legacy vault (created by migrations/0002 from pre-0002 notes, uuid NULL) with
  the same name, if this id is new: the first hub run after the upgrade carries on with
  the notes it pushed before, instead of pushing them all again next to the old copies;
- registers the vault, or renames it (`--vault-name` may change), and records the contact;
- hands out the run's sync sequence: the next integer of the vault's `seq`.
A name already held by another vault id is refused (409, nothing stored): `?vault=Name`
and note links name one vault, never two merged.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from shared.api.errors import Conflict, VaultBusy, VaultNameTaken
from shared.api.protocol import LEASE_MS
from shared.api.vault_digest import note_digest
from worker.db import Database

WORKER_ID_SQL = "SELECT id FROM worker_identity WHERE singleton = 1"
# Another vault id holding the name ?2 (?1 the heartbeat's id). A legacy vault (uuid NULL)
# holds no name: the heartbeat adopts it.
NAME_HELD = "SELECT uuid FROM vaults WHERE name = ?2 AND uuid IS NOT NULL AND uuid != ?1"
HOLDER_SQL = f"{NAME_HELD} LIMIT 1"
ADOPT_SQL = f"""
UPDATE vaults SET uuid = ?1
WHERE vid = (SELECT min(vid) FROM vaults WHERE uuid IS NULL AND name = ?2)
  AND NOT EXISTS (SELECT 1 FROM vaults WHERE uuid = ?1)
  AND NOT EXISTS ({NAME_HELD})
RETURNING vid
"""
VAULT_COLUMNS = ("vid, uuid, name, seq, notes, checksum, last_sync_at, last_contact_at, "
                 "rejected, lease_holder, lease_until")
# A run's first heartbeat (?5, its sequence, NULL) is refused while another hub (?6) holds
# a live lease (migrations/0010); a run's last heartbeat (?5 given) never is.
LEASED_BY_OTHER = """
SELECT lease_holder, lease_until FROM vaults
WHERE uuid = ?1 AND ?5 IS NULL AND lease_holder IS NOT NULL AND lease_holder IS NOT ?6
  AND lease_until > ?3
"""
BUSY_SQL = LEASED_BY_OTHER
# ?1 id, ?2 name, ?3 now, ?4 rejected pages, ?5 the run's sequence (last heartbeat only),
# ?6 the hub's id (lease holder), ?7 LEASE_MS. A first heartbeat takes the next sequence,
# names the vault and takes the lease for that sequence; a last heartbeat renames only if
# no later run has started (the name is ordered by sync sequence, as notes are) and gives
# up its run's lease.
HEARTBEAT_SQL = f"""
INSERT INTO vaults (uuid, name, created_at, seq, last_contact_at, rejected, lease_holder,
                    lease_seq, lease_until)
SELECT ?1, ?2, ?3, 1, ?3, coalesce(?4, 0), ?6, iif(?6 IS NULL, NULL, 1),
       iif(?6 IS NULL, NULL, ?3 + ?7)
WHERE NOT EXISTS ({NAME_HELD})
ON CONFLICT (uuid) DO UPDATE SET
    name = iif(?5 IS NULL OR ?5 >= vaults.seq, excluded.name, vaults.name),
    seq = iif(?5 IS NULL, vaults.seq + 1, vaults.seq),
    last_contact_at = max(coalesce(vaults.last_contact_at, 0), excluded.last_contact_at),
    rejected = coalesce(?4, vaults.rejected),
    lease_holder = CASE WHEN ?5 IS NULL AND ?6 IS NOT NULL THEN ?6
                        WHEN ?5 IS NOT NULL AND vaults.lease_seq = ?5 THEN NULL
                        ELSE vaults.lease_holder END,
    lease_seq = CASE WHEN ?5 IS NULL AND ?6 IS NOT NULL THEN vaults.seq + 1
                     WHEN ?5 IS NOT NULL AND vaults.lease_seq = ?5 THEN NULL
                     ELSE vaults.lease_seq END,
    lease_until = CASE WHEN ?5 IS NULL AND ?6 IS NOT NULL THEN ?3 + ?7
                       WHEN ?5 IS NOT NULL AND vaults.lease_seq = ?5 THEN NULL
                       ELSE vaults.lease_until END
WHERE NOT EXISTS ({LEASED_BY_OTHER})
RETURNING {VAULT_COLUMNS}
"""
GET_VAULT_SQL = f"SELECT {VAULT_COLUMNS} FROM vaults WHERE uuid = ?"
LIST_VAULTS_SQL = f"SELECT {VAULT_COLUMNS} FROM vaults ORDER BY name, vid"
VAULT_NAMES_SQL = "SELECT DISTINCT name FROM vaults ORDER BY name"
# Rows written before 0002 have no digest (SQLite has no SHA-256): the Worker computes
# them, at most this many per heartbeat (one JSON value stays far below D1's 2 MB).
DIGEST_BACKFILL_ROWS = 20_000
MISSING_DIGESTS_SQL = """
SELECT rid, path, content_hash FROM vault_notes
WHERE vid = (SELECT vid FROM vaults WHERE uuid = ?1) AND digest IS NULL LIMIT ?2
"""
SET_DIGESTS_SQL = """
UPDATE vault_notes SET digest = d.digest
FROM (SELECT json_extract(value, '$[0]') AS rid, json_extract(value, '$[1]') AS digest
      FROM json_each(?1)) AS d
WHERE vault_notes.rid = d.rid
"""


@dataclass(frozen=True)
class Vault:
    vid: int
    uuid: str | None  # None: a legacy vault no hub has adopted yet
    name: str
    seq: int  # the last sync sequence handed out
    notes: int
    checksum: int
    last_sync_at: int | None
    last_contact_at: int | None
    rejected: int
    lease_holder: str | None = None  # the hub whose run holds the vault (migrations/0010)
    lease_until: int | None = None

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> Vault:
        def ms(key: str) -> int | None:
            return int(row[key]) if row[key] is not None else None

        return cls(vid=int(row["vid"]), uuid=row["uuid"], name=str(row["name"]),
                   seq=int(row["seq"]), notes=int(row["notes"]),
                   checksum=int(row["checksum"]), last_sync_at=ms("last_sync_at"),
                   last_contact_at=ms("last_contact_at"), rejected=int(row["rejected"]),
                   lease_holder=row["lease_holder"], lease_until=ms("lease_until"))


@dataclass(frozen=True)
class Contact:
    worker_id: str
    vault: Vault
    adopted: bool  # this heartbeat adopted a legacy vault


async def worker_id(db: Database) -> str:
    row = await db.prepare(WORKER_ID_SQL).first()
    if row is None:
        raise Conflict("the database has no worker identity: apply migrations/0002")
    return str(row["id"])


def name_taken(name: str, holder: str) -> VaultNameTaken:
    return VaultNameTaken(
        f"vault: the name {name!r} is already used by vault {holder} on this Worker; two "
        "vaults with one name would merge in ?vault= filters and links. Give this vault "
        "another name (mallory-hub --vault-name NAME), or, if it is that same vault, sync "
        f"it from the folder holding its id (.mallory/vault.json with id {holder}); "
        "nothing was stored", {"holder": holder})


def vault_busy(vault_id: str, until_ms: int, now_ms: int) -> VaultBusy:
    wait_s = max(1, (until_ms - now_ms + 999) // 1000)
    return VaultBusy(
        f"vault {vault_id} is being synced by another hub run right now; two runs at once "
        "could leave notes at an older version, so this one stops without sending anything "
        "(its next run syncs). If that other hub was killed, its hold lapses within "
        f"{wait_s} s; nothing was stored", {"lease_until": until_ms})


async def heartbeat(db: Database, vault_id: str, name: str, now_ms: int,
                    rejected: int | None = None, seq: int | None = None,
                    holder_id: str | None = None) -> Contact:
    """A hub run's first heartbeat (`seq` None) or last (`seq`: the run's sequence)."""
    params = (vault_id, name, now_ms, rejected, seq, holder_id, LEASE_MS)
    busy, holder, adopt, beat, identity, missing = await db.batch([
        db.prepare(BUSY_SQL).bind(*params[:6]),
        db.prepare(HOLDER_SQL).bind(vault_id, name),
        db.prepare(ADOPT_SQL).bind(vault_id, name),
        db.prepare(HEARTBEAT_SQL).bind(*params),
        db.prepare(WORKER_ID_SQL),
        db.prepare(MISSING_DIGESTS_SQL).bind(vault_id, DIGEST_BACKFILL_ROWS),
    ])
    if busy.results:  # the lease held the upsert back: nothing was stored
        raise vault_busy(vault_id, int(busy.results[0]["lease_until"]), now_ms)
    if not beat.results:  # every statement checked the name: nothing was stored
        raise name_taken(name, str(holder.results[0]["uuid"]) if holder.results else "?")
    vault = Vault.from_row(beat.results[0])
    if missing.results:  # an adopted legacy vault: a second round trip, once
        pairs = [[int(r["rid"]), note_digest(str(r["path"]), str(r["content_hash"]))]
                 for r in missing.results]
        await db.prepare(SET_DIGESTS_SQL).bind(json.dumps(pairs)).run()
        vault = await get(db, vault_id) or vault
    return Contact(worker_id=str(identity.results[0]["id"]), vault=vault,
                   adopted=bool(adopt.results))


async def get(db: Database, vault_id: str) -> Vault | None:
    row = await db.prepare(GET_VAULT_SQL).bind(vault_id).first()
    return Vault.from_row(row) if row else None


async def list_vaults(db: Database) -> list[Vault]:
    return [Vault.from_row(r) for r in (await db.prepare(LIST_VAULTS_SQL).all()).results]


async def names(db: Database) -> list[str]:
    return [str(r["name"]) for r in (await db.prepare(VAULT_NAMES_SQL).all()).results]
