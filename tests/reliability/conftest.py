"""Shared checks for the reliability suite: the JSON error shape, FTS integrity and the
document frequencies kept beside each index."""

from __future__ import annotations

import json
from dataclasses import replace

from tests.conftest import LOCAL_OWNER
from tests.reliability.hostile import TOKEN
from worker.config import Settings
from worker.db import Database

# Rate limits far above anything the suite sends: it is after 5xx, not 429s.
SETTINGS = Settings(sync_tokens=(TOKEN,), **LOCAL_OWNER, chat_per_minute=100_000,
                    search_per_minute=100_000)
FTS_TABLES_SQL = ("SELECT name FROM sqlite_master WHERE type = 'table' "
                  "AND sql LIKE 'CREATE VIRTUAL TABLE%USING fts5%' "
                  "AND sql NOT LIKE '%fts5vocab%' ORDER BY name")


def settings(**changes: object) -> Settings:
    return replace(SETTINGS, **changes)  # type: ignore[arg-type]


def error_shape_problem(status: int, body: bytes) -> str | None:
    """None when a 4xx/5xx body is `{"error": {"code", "message", "details"?}}`."""
    try:
        data = json.loads(body)
    except ValueError:
        return f"not JSON: {body[:100]!r}"
    if not isinstance(data, dict) or set(data) != {"error"} or not isinstance(data["error"], dict):
        return f"not an error object: {data!r:.200}"
    error = data["error"]
    if not ({"code", "message"} <= set(error) <= {"code", "message", "details"}):
        return f"error keys {sorted(error)}"
    if not isinstance(error["code"], str) or not isinstance(error["message"], str):
        return "code and message must be strings"
    return None


def integrity_check_sql(table: str) -> str:
    """FTS5's integrity-check command for `table` (a name read from sqlite_master)."""
    quoted = '"' + table.replace('"', '""') + '"'
    return f"INSERT INTO {quoted}({quoted}) VALUES('integrity-check')"


# The two indexes, and the tables their document frequencies are counted through
# (migrations/0014).
FTS_TABLES = ["conversation_units_fts", "conversation_units_terms", "note_sections_added",
              "note_sections_fts", "note_sections_removed"]
# Each index's document-frequency table and the fts5vocab table it must agree with.
FREQUENCIES = {"conversation_units_df": "conversation_units_vocab",
               "note_sections_df": "note_sections_vocab"}


async def _counts(db: Database, table: str) -> dict[str, int]:
    rows = (await db.prepare(f"SELECT term, doc FROM {table} WHERE doc > 0").all()).results
    return {str(r["term"]): int(r["doc"]) for r in rows}


async def fts_integrity(db: Database) -> list[str]:
    """Run FTS5's integrity-check on every FTS table, and hold each document-frequency
    table to its index's vocabulary; returns the FTS tables checked (a corrupt index
    raises, counts that drifted fail)."""
    tables = [r["name"] for r in (await db.prepare(FTS_TABLES_SQL).all()).results]
    for table in tables:
        await db.prepare(integrity_check_sql(table)).run()
    for kept, vocab in FREQUENCIES.items():
        assert await _counts(db, kept) == await _counts(db, vocab), kept
    return tables
