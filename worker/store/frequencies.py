"""The note sections' document frequencies, folded once per sync batch (migrations/0014):
the sections a batch wrote and removed wait, indexed, in `note_sections_added` and
`note_sections_removed`; these statements, the batch's last, add and subtract their
terms' document counts in `note_sections_df`, drop the terms no section holds any more,
and empty both. In the batch's transaction, so no reader sees the counts behind the index.
Every statement that writes or deletes note sections (through vault_notes) ends its batch
with them."""

from __future__ import annotations

from worker.db.planned import Planned

ADD_SQL = """
INSERT INTO note_sections_df (term, doc)
SELECT term, doc FROM note_sections_added_vocab WHERE true
ON CONFLICT (term) DO UPDATE SET doc = doc + excluded.doc
"""
SUBTRACT_SQL = """
UPDATE note_sections_df
SET doc = doc - (SELECT r.doc FROM note_sections_removed_vocab AS r
                 WHERE r.term = note_sections_df.term)
WHERE term IN (SELECT term FROM note_sections_removed_vocab)
"""
DROP_SQL = """
DELETE FROM note_sections_df
WHERE doc <= 0 AND term IN (SELECT term FROM note_sections_removed_vocab)
"""
EMPTY_ADDED_SQL = "INSERT INTO note_sections_added (note_sections_added) VALUES ('delete-all')"
EMPTY_REMOVED_SQL = ("INSERT INTO note_sections_removed (note_sections_removed) "
                     "VALUES ('delete-all')")
FOLD = (ADD_SQL, SUBTRACT_SQL, DROP_SQL, EMPTY_ADDED_SQL, EMPTY_REMOVED_SQL)


def fold() -> list[Planned]:
    return [Planned(("fold_df", "", i), sql, ()) for i, sql in enumerate(FOLD)]
