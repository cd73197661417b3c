-- Document frequencies kept beside each FTS index, so recall reads a term's count with one
-- primary-key lookup instead of asking fts5vocab, which counts a term's documents by
-- reading its whole posting list on every query (a frequent word at 100k exchanges is
-- tens of thousands of entries), and scans a range of them for the typo step.
--
-- `<index>_df` holds, for every term of the index, the documents holding it in any
-- column: what the index's fts5vocab 'row' table answers, row for row (a term no document
-- holds any more has no row). A document's terms are the index's own: it is indexed, with
-- the same tokenizer, into a contentless FTS table (positions not kept), whose
-- vocabulary is then its distinct terms.
--
-- Conversation units are written a few at a time, by many writers (a chat turn, an
-- import, a forget, a withdrawal): their triggers count each unit at once, through an
-- empty table (`conversation_units_terms`) emptied again in the same trigger.
--
-- Note sections are written a sync batch at a time (hundreds per batch, their title,
-- aliases and tags repeated in each): their triggers only index them into
-- `note_sections_added` or `note_sections_removed`, and the sync batch ends with the
-- statements that fold both into `note_sections_df` and empty them
-- (worker/store/frequencies.py), in the same transaction: one upsert per distinct term of
-- the batch instead of one per term of every section.
--
-- The fts5vocab tables stay: they cost nothing stored, and tests compare against them.

CREATE TABLE conversation_units_df (
    term  TEXT PRIMARY KEY,
    doc   INTEGER NOT NULL
) WITHOUT ROWID;

CREATE VIRTUAL TABLE conversation_units_terms USING fts5 (
    question,
    answer,
    content = '',
    detail = none,
    tokenize = 'porter unicode61 remove_diacritics 2'
);

CREATE VIRTUAL TABLE conversation_units_terms_vocab
    USING fts5vocab (conversation_units_terms, 'row');

CREATE TABLE note_sections_df (
    term  TEXT PRIMARY KEY,
    doc   INTEGER NOT NULL
) WITHOUT ROWID;

CREATE VIRTUAL TABLE note_sections_added USING fts5 (
    title,
    name,
    aliases,
    tags,
    folder,
    properties,
    heading,
    body,
    content = '',
    detail = none,
    tokenize = 'porter unicode61 remove_diacritics 2'
);

CREATE VIRTUAL TABLE note_sections_added_vocab USING fts5vocab (note_sections_added, 'row');

CREATE VIRTUAL TABLE note_sections_removed USING fts5 (
    title,
    name,
    aliases,
    tags,
    folder,
    properties,
    heading,
    body,
    content = '',
    detail = none,
    tokenize = 'porter unicode61 remove_diacritics 2'
);

CREATE VIRTUAL TABLE note_sections_removed_vocab
    USING fts5vocab (note_sections_removed, 'row');

INSERT INTO conversation_units_df (term, doc)
SELECT term, doc FROM conversation_units_vocab WHERE doc > 0;

INSERT INTO note_sections_df (term, doc)
SELECT term, doc FROM note_sections_vocab WHERE doc > 0;

CREATE TRIGGER conversation_units_ai_df AFTER INSERT ON conversation_units BEGIN
    INSERT INTO conversation_units_terms (rowid, question, answer)
    VALUES (1, new.question, new.answer);
    INSERT INTO conversation_units_df (term, doc)
    SELECT term, 1 FROM conversation_units_terms_vocab WHERE true
    ON CONFLICT (term) DO UPDATE SET doc = doc + 1;
    INSERT INTO conversation_units_terms (conversation_units_terms) VALUES ('delete-all');
END;

CREATE TRIGGER conversation_units_ad_df AFTER DELETE ON conversation_units BEGIN
    INSERT INTO conversation_units_terms (rowid, question, answer)
    VALUES (1, old.question, old.answer);
    UPDATE conversation_units_df SET doc = doc - 1
    WHERE term IN (SELECT term FROM conversation_units_terms_vocab);
    DELETE FROM conversation_units_df
    WHERE doc <= 0 AND term IN (SELECT term FROM conversation_units_terms_vocab);
    INSERT INTO conversation_units_terms (conversation_units_terms) VALUES ('delete-all');
END;

CREATE TRIGGER conversation_units_au_df AFTER UPDATE OF question, answer
ON conversation_units BEGIN
    INSERT INTO conversation_units_terms (rowid, question, answer)
    VALUES (1, old.question, old.answer);
    UPDATE conversation_units_df SET doc = doc - 1
    WHERE term IN (SELECT term FROM conversation_units_terms_vocab);
    DELETE FROM conversation_units_df
    WHERE doc <= 0 AND term IN (SELECT term FROM conversation_units_terms_vocab);
    INSERT INTO conversation_units_terms (conversation_units_terms) VALUES ('delete-all');
    INSERT INTO conversation_units_terms (rowid, question, answer)
    VALUES (1, new.question, new.answer);
    INSERT INTO conversation_units_df (term, doc)
    SELECT term, 1 FROM conversation_units_terms_vocab WHERE true
    ON CONFLICT (term) DO UPDATE SET doc = doc + 1;
    INSERT INTO conversation_units_terms (conversation_units_terms) VALUES ('delete-all');
END;

CREATE TRIGGER note_sections_ai_df AFTER INSERT ON note_sections BEGIN
    INSERT INTO note_sections_added (title, name, aliases, tags, folder, properties, heading,
                                     body)
    VALUES (new.title, new.name, new.aliases, new.tags, new.folder, new.properties,
            new.heading_path, new.body);
END;

CREATE TRIGGER note_sections_ad_df AFTER DELETE ON note_sections BEGIN
    INSERT INTO note_sections_removed (title, name, aliases, tags, folder, properties,
                                       heading, body)
    VALUES (old.title, old.name, old.aliases, old.tags, old.folder, old.properties,
            old.heading_path, old.body);
END;
