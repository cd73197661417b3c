"""Size limits shared by the hub (which must never send more) and the Worker (which
refuses more). Derived from D1's limits: 2 MB per row or value, 100 bound parameters and
100 KB of SQL per statement, 1,000 queries per Worker invocation."""

from __future__ import annotations

from shared.api.errors import PayloadTooLarge

# D1 (and JavaScript) integers are exact only up to 2^53 - 1; a larger Python int becomes
# a BigInt in Pyodide, which D1 rejects (docs/platform.md, "D1 from Python").
MAX_SAFE_INTEGER = 2**53 - 1

# A note's body. D1 caps a row at 2 MB; the body shares its row with title, aliases and
# tags, so 1 MB leaves ample room and still holds a ~150,000-word page.
MAX_NOTE_BODY_BYTES = 1_000_000
MAX_TITLE_CHARS = 500
MAX_PATH_CHARS = 1_024
MAX_TAGS = 200
MAX_ALIASES = 100
MAX_PROPERTIES_CHARS = 8_000
# Sections of a note (hub/sections.py): a heading as linked, and how many sections a note
# may have (a 1 MB body cut into ~1,350-character parts makes about 750).
MAX_HEADING_CHARS = 200
MAX_HEADING_PATH_CHARS = 1_300  # six levels of headings
MAX_SECTIONS = 1_000
# Typed relations of a note (frontmatter `relations:`): how many a note may declare, and
# the longest type name and `applies_under` scope. A note linking 200 pages by type is
# already a map of content, not a claim.
MAX_RELATIONS = 200
MAX_RELATION_TYPE_CHARS = 40
MAX_RELATION_SCOPE_CHARS = 300

# One sync request. Each item costs 2 statements in the D1 batch (upsert and clear its
# tombstone, or delete and write one), plus at most 6 per batch (record, touch the vault,
# 4 for withdrawal: worker/store/citations.py), so 250 items stay far below 1,000 queries.
MAX_BATCH_ITEMS = 250
# The request body; the hub packs batches to stay under it (with headroom for JSON escapes).
MAX_SYNC_BODY_BYTES = 8_000_000
# POST /vault/heartbeat: a vault id, a name and a count.
MAX_HEARTBEAT_BODY_BYTES = 4_000



def check_declared_size(content_length: str | None, limit: int) -> None:
    """Refuse a body whose declared Content-Length is over `limit`, before reading it."""
    if content_length and content_length.isdigit() and int(content_length) > limit:
        raise PayloadTooLarge(f"body is {content_length} bytes; the limit is {limit}")


# Chat
MAX_CHAT_CHARS = 8_000
MAX_CONTEXT_BYTES = 16_000
MAX_CHAT_BODY_BYTES = 64_000

# Conversations: an owner-given title (trimmed), and the PATCH body that carries it (a
# 200-character title is at most 2,400 bytes of JSON even as \uXXXX surrogate pairs).
MAX_CONVERSATION_TITLE_CHARS = 200
MAX_RENAME_BODY_BYTES = 4_000

# POST /api/feedback: a message id, a source number and a word. Sources are numbered from 1;
# the Recall block holds a handful (shared/block/envelope.py), so 999 leaves ample room.
MAX_FEEDBACK_BODY_BYTES = 2_000
MAX_PAUSE_BODY_BYTES = 200
# A saved memory is a short fact (README, "Saved memories"); its body as JSON, even with
# every character a \uXXXX surrogate pair, stays under the body limit.
MAX_MEMORY_CHARS = 500
MAX_MEMORY_BODY_BYTES = 8_000
MAX_SOURCE_NUMBER = 999

# POST /api/import: one request's export file. Bigger exports go through `mallory import`.
IMPORT_PATH = "/api/import"
MAX_IMPORT_BODY_BYTES = 4_000_000

# Any other owner route's body (chat is the largest); the entry refuses a larger declared
# one before the Workers adapter buffers it (an import's, over MAX_IMPORT_BODY_BYTES).
MAX_OWNER_BODY_BYTES = MAX_CHAT_BODY_BYTES
