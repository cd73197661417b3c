-- The path an answer's Sources footer named for each note it cited. `path` follows the
-- note when it moves unchanged (worker/store/citations.py); `cited_path` stays what the
-- stored source's id is, so the footer's link is rebuilt for the note's current path
-- (worker/store/chats.py) instead of opening a file that is gone. Citations stored before
-- this migration named the path they still hold, unless their note moved since: those
-- keep the stored link, as before.

ALTER TABLE message_citations ADD COLUMN cited_path TEXT;
UPDATE message_citations SET cited_path = path;
