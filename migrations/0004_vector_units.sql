-- Semantic recall: which retrieval units have a vector, under which model.
--
-- The vectors themselves live in Vectorize at the edge (and in a local table in local
-- mode); this table is the D1 side of the bookkeeping:
-- - a unit is pending when it has no row here for the current model, so only new or
--   changed units are embedded (a unit's id changes with its content);
-- - a row whose unit is gone is an orphan, deleted from the index and from here;
-- - vector hits are resolved through this table back to live units, so a deleted note or
--   forgotten message can never come back through a vector that lingers in the index.

CREATE TABLE vector_units (
    vector_id    TEXT PRIMARY KEY,  -- the id in the vector index (≤ 64 bytes, hashed)
    corpus       TEXT NOT NULL,     -- 'notes' or 'messages'
    unit_id      TEXT NOT NULL UNIQUE,
    model        TEXT NOT NULL,     -- the embedder's identity when the vector was made
    embedded_at  INTEGER NOT NULL
);

CREATE INDEX vector_units_by_corpus ON vector_units (corpus, model);
