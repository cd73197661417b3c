-- Semantic recall bookkeeping, part 2: which model and how many dimensions
-- made each vector, and how many vectors each (corpus, model, dimensions) holds.
--
-- - `vector_units.dimensions` sits beside `model`: an OpenAI-compatible endpoint can serve
--   one model name at several sizes, and a vector of another size is as stale as one of
--   another model. 0 means "recorded before this migration": such a row counts as current
--   when its model is (the model's files fixed its size).
-- - `vector_stats` is kept by triggers, as corpus_stats is for documents, so /status
--   reads a few rows instead of counting every vector_units row (the web client polls it
--   every minute). A count that reaches 0 removes its row, so a model that no vector uses
--   any more disappears from it.

ALTER TABLE vector_units ADD COLUMN dimensions INTEGER NOT NULL DEFAULT 0;

CREATE TABLE vector_stats (
    corpus      TEXT NOT NULL,
    model       TEXT NOT NULL,
    dimensions  INTEGER NOT NULL,
    vectors     INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (corpus, model, dimensions)
);

INSERT INTO vector_stats (corpus, model, dimensions, vectors)
SELECT corpus, model, dimensions, count(*) FROM vector_units
GROUP BY corpus, model, dimensions;

CREATE TRIGGER vector_units_ai AFTER INSERT ON vector_units BEGIN
    INSERT INTO vector_stats (corpus, model, dimensions)
    SELECT new.corpus, new.model, new.dimensions WHERE NOT EXISTS (
        SELECT 1 FROM vector_stats
        WHERE corpus = new.corpus AND model = new.model AND dimensions = new.dimensions);
    UPDATE vector_stats SET vectors = vectors + 1
    WHERE corpus = new.corpus AND model = new.model AND dimensions = new.dimensions;
END;

CREATE TRIGGER vector_units_ad AFTER DELETE ON vector_units BEGIN
    UPDATE vector_stats SET vectors = vectors - 1
    WHERE corpus = old.corpus AND model = old.model AND dimensions = old.dimensions;
    DELETE FROM vector_stats WHERE vectors <= 0;
END;

-- The indexer's upsert (ON CONFLICT DO UPDATE) fires this one when a unit is re-embedded
-- under another model: the vector moves from the old count to the new. (No INSERT OR
-- IGNORE in these triggers: an outer statement's conflict handling overrides a trigger
-- statement's, and under the upsert's update a conflict there aborted the batch.)
CREATE TRIGGER vector_units_au AFTER UPDATE OF corpus, model, dimensions ON vector_units
BEGIN
    UPDATE vector_stats SET vectors = vectors - 1
    WHERE corpus = old.corpus AND model = old.model AND dimensions = old.dimensions;
    INSERT INTO vector_stats (corpus, model, dimensions)
    SELECT new.corpus, new.model, new.dimensions WHERE NOT EXISTS (
        SELECT 1 FROM vector_stats
        WHERE corpus = new.corpus AND model = new.model AND dimensions = new.dimensions);
    UPDATE vector_stats SET vectors = vectors + 1
    WHERE corpus = new.corpus AND model = new.model AND dimensions = new.dimensions;
    DELETE FROM vector_stats WHERE vectors <= 0;
END;
