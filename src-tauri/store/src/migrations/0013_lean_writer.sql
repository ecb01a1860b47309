-- Schema 13: less work for the writer per message.
--
-- The text-search index is written once per transaction, by the writer just before it commits
-- (`store::search_index`), instead of by a trigger for each message inserted: FTS5 writes out
-- what it holds at every savepoint, and every write operation runs in one, so the trigger made a
-- new index segment (and rewrote the index's structure record) for every request, and merged
-- them again later. The index still changes in the transaction that inserts the messages.
DROP TRIGGER message_fts_insert;

-- How far the text-search index goes: every message up to this id is in it.
CREATE TABLE search_indexed (
    id   INTEGER PRIMARY KEY CHECK (id = 1),
    upto INTEGER NOT NULL
);
INSERT INTO search_indexed (id, upto) SELECT 1, coalesce(max(id), 0) FROM message;
