-- Document frequencies kept beside each FTS index, so recall reads a term's count with one
-- primary-key lookup instead of asking fts5vocab, which counts a term's documents by
-- reading its whole posting list on every query (a frequent word at 100k exchanges is
-- tens of thousands of entries), and scans a range of them for the typo step.
--
-- `<index>_df` holds, for every term of the index, the documents holding it in any
-- column: what the index's fts5vocab 'row' table answers, row for row (a term no document
-- holds any more has no row). Triggers keep it: every writer of the units and sections
-- (a chat turn, an import, a forget, a sync, a vault removal through its cascades) goes
-- through them. A unit's terms are the index's own: the row is indexed, with the same
-- tokenizer, into an empty contentless FTS table (`<index>_terms`), whose vocabulary is
-- then that row's distinct terms; the table is emptied again in the same trigger.
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
    tokenize = 'porter unicode61 remove_diacritics 2'
);

CREATE VIRTUAL TABLE conversation_units_terms_vocab
    USING fts5vocab (conversation_units_terms, 'row');

CREATE TABLE note_sections_df (
    term  TEXT PRIMARY KEY,
    doc   INTEGER NOT NULL
) WITHOUT ROWID;

CREATE VIRTUAL TABLE note_sections_terms USING fts5 (
    title,
    name,
    aliases,
    tags,
    folder,
    properties,
    heading,
    body,
    content = '',
    tokenize = 'porter unicode61 remove_diacritics 2'
);

CREATE VIRTUAL TABLE note_sections_terms_vocab USING fts5vocab (note_sections_terms, 'row');

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
    INSERT INTO note_sections_terms (rowid, title, name, aliases, tags, folder, properties,
                                     heading, body)
    VALUES (1, new.title, new.name, new.aliases, new.tags, new.folder, new.properties,
            new.heading_path, new.body);
    INSERT INTO note_sections_df (term, doc)
    SELECT term, 1 FROM note_sections_terms_vocab WHERE true
    ON CONFLICT (term) DO UPDATE SET doc = doc + 1;
    INSERT INTO note_sections_terms (note_sections_terms) VALUES ('delete-all');
END;

CREATE TRIGGER note_sections_ad_df AFTER DELETE ON note_sections BEGIN
    INSERT INTO note_sections_terms (rowid, title, name, aliases, tags, folder, properties,
                                     heading, body)
    VALUES (1, old.title, old.name, old.aliases, old.tags, old.folder, old.properties,
            old.heading_path, old.body);
    UPDATE note_sections_df SET doc = doc - 1
    WHERE term IN (SELECT term FROM note_sections_terms_vocab);
    DELETE FROM note_sections_df
    WHERE doc <= 0 AND term IN (SELECT term FROM note_sections_terms_vocab);
    INSERT INTO note_sections_terms (note_sections_terms) VALUES ('delete-all');
END;
