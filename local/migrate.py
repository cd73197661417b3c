"""Local migration runner: applies `migrations/NNNN_name.sql` the way wrangler does.

Applied migrations are recorded in wrangler's own tracking table (`d1_migrations`), so a
database migrated here and one migrated by `wrangler d1 migrations apply` agree. Each
migration runs as one D1 batch together with its tracking row: it applies whole or not
at all. Before anything runs, every file is checked (`check_migration`): it must split
into complete SQLite statements, tokenize and parse as SQLite (sqlglot), and hold no
statement D1 refuses (transaction control, ATTACH/DETACH, VACUUM, PRAGMA writes).
"""

from __future__ import annotations

import functools
import logging
import re
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from worker.db.errors import DatabaseError
from worker.db.port import Database

MIGRATIONS_DIR = Path(__file__).resolve().parent.parent / "migrations"
FILE_NAME = re.compile(r"^(\d{4})_[A-Za-z0-9_\-]+\.sql$")

TRACKING_TABLE_SQL = """
CREATE TABLE IF NOT EXISTS d1_migrations (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    name TEXT UNIQUE,
    applied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP NOT NULL
)"""
APPLIED_SQL = "SELECT name FROM d1_migrations ORDER BY id"
RECORD_SQL = "INSERT INTO d1_migrations (name) VALUES (?)"

# Statements D1 refuses or that break its model (no interactive transactions, one
# database per binding, PRAGMAs scoped to a transaction).
FORBIDDEN_LEADING = {"BEGIN", "COMMIT", "END", "ROLLBACK", "SAVEPOINT", "RELEASE",
                     "ATTACH", "DETACH", "VACUUM"}
# The one PRAGMA write D1 documents for migrations.
ALLOWED_PRAGMA_WRITES = {"defer_foreign_keys"}
# Statement kinds sqlglot cannot parse for SQLite; SQLite itself validates them when the
# migration runs inside its batch.
SQLGLOT_UNSUPPORTED = re.compile(
    r"^\s*CREATE\s+(TEMP\s+|TEMPORARY\s+)?(VIRTUAL\s+TABLE|TRIGGER)\b", re.IGNORECASE
)

logging.getLogger("sqlglot").setLevel(logging.ERROR)  # before its first import, too


class MigrationError(Exception):
    """A migration file is invalid or failed to apply; nothing of it was applied."""


@dataclass(frozen=True)
class Migration:
    name: str
    number: int
    text: str

    @property
    def statements(self) -> tuple[str, ...]:
        """The file's statements, checked (MigrationError when the file is invalid)."""
        return checked_statements(self.name, self.text)


def split_statements(sql: str) -> list[str]:
    """Split SQL text into complete statements (trigger bodies stay whole)."""
    statements, current = [], ""
    for line in sql.splitlines(keepends=True):
        current += line
        if sqlite3.complete_statement(current):
            stmt = re.sub(r"\A(\s*--[^\n]*\n)+", "", current).strip()
            # A comment after the closing `;` would reach D1 as a statement of its own,
            # which D1 refuses ("SQL code did not contain a statement").
            stmt = re.sub(r";[ \t]*--[^\n]*\Z", ";", stmt)
            if _strip_comments(stmt):
                statements.append(stmt.rstrip(";").strip())
            current = ""
    if _strip_comments(current).strip():
        raise MigrationError(f"incomplete statement at end of file: {current.strip()[:120]!r}")
    return statements


def _strip_comments(sql: str) -> str:
    return re.sub(r"--[^\n]*", "", sql).strip().strip(";").strip()


def check_statement(file_name: str, stmt: str) -> None:
    # Imported here: sqlglot costs about 0.3 s to import, and only pending migrations
    # are checked.
    import sqlglot
    from sqlglot.errors import ParseError, TokenError
    from sqlglot.tokens import TokenType

    where = f"{file_name}: statement {_strip_comments(stmt)[:80]!r}"
    try:
        tokens = sqlglot.tokenize(stmt, read="sqlite")
    except TokenError as exc:
        raise MigrationError(f"{where} does not tokenize as SQLite: {exc}") from exc
    words = [t.text.upper() for t in tokens if t.token_type != TokenType.SEMICOLON]
    if not words:
        return
    if words[0] in FORBIDDEN_LEADING:
        raise MigrationError(f"{where}: D1 does not allow {words[0]} in a migration")
    if words[0] == "PRAGMA" and ("=" in words or "(" in words[2:3]):
        name = words[1].lower() if len(words) > 1 else ""
        if name not in ALLOWED_PRAGMA_WRITES:
            raise MigrationError(f"{where}: D1 does not allow PRAGMA {name} writes")
    if SQLGLOT_UNSUPPORTED.match(_strip_comments(stmt)):
        return
    try:
        sqlglot.parse_one(stmt, read="sqlite")
    except ParseError as exc:
        raise MigrationError(f"{where} does not parse as SQLite: {exc}") from exc


@functools.lru_cache(maxsize=256)
def checked_statements(file_name: str, text: str) -> tuple[str, ...]:
    """The statements of one migration file, checked. Cached by name and text: the check
    parses every statement with sqlglot (about 0.17 s for the whole folder), and a test
    run migrates hundreds of fresh databases from the same unchanged files."""
    try:
        statements = split_statements(text)
    except MigrationError as exc:
        raise MigrationError(f"{file_name}: {exc}") from exc
    for stmt in statements:
        check_statement(file_name, stmt)
    return tuple(statements)


def load_migrations(directory: Path = MIGRATIONS_DIR, *, check: bool = True) -> list[Migration]:
    """The folder's migrations in order; with `check`, every file is checked now."""
    if not directory.is_dir():
        raise MigrationError(f"migrations folder {directory} does not exist")
    migrations = []
    for path in sorted(directory.glob("*.sql")):
        match = FILE_NAME.match(path.name)
        if not match:
            raise MigrationError(
                f"{path.name}: migration files are named NNNN_name.sql "
                "(what `wrangler d1 migrations create` writes)"
            )
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise MigrationError(f"{path.name}: cannot read: {exc}") from exc
        migrations.append(Migration(path.name, int(match.group(1)), text))
        if check:
            checked_statements(path.name, text)
    numbers = [m.number for m in migrations]
    if len(set(numbers)) != len(numbers):
        raise MigrationError(f"two migrations share a number in {directory}: {numbers}")
    return sorted(migrations, key=lambda m: m.number)


async def applied_migrations(db: Database) -> list[str]:
    await db.prepare(TRACKING_TABLE_SQL).run()
    rows = (await db.prepare(APPLIED_SQL).all()).results
    return [r["name"] for r in rows]


async def migrate(db: Database, directory: Path = MIGRATIONS_DIR) -> list[str]:
    """Apply pending migrations; return the names applied (empty when up to date)."""
    done = set(await applied_migrations(db))
    # Applied files were checked when they were applied; the pending ones are all checked
    # before the first of them runs. An up-to-date database so never loads sqlglot.
    pending = [m for m in load_migrations(directory, check=False) if m.name not in done]
    for migration in pending:
        migration.statements  # noqa: B018 (checks the file, raising MigrationError)
    applied = []
    for migration in pending:
        statements = [db.prepare(s) for s in migration.statements]
        statements.append(db.prepare(RECORD_SQL).bind(migration.name))
        try:
            await db.batch(statements)
        except DatabaseError as exc:
            raise MigrationError(
                f"{migration.name} failed and was rolled back: {exc}"
            ) from exc
        applied.append(migration.name)
    return applied
