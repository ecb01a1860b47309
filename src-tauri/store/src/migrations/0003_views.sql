-- smsdesk schema, version 3: what the read models (message list and detail, exception queue,
-- dashboard) need to stay fast on a database of a million messages. Nothing here is evidence:
-- every object can be dropped and rebuilt from the tables of versions 1 and 2.

-- Newest-first pages of one queue status (queue_claim orders by priority instead).
CREATE INDEX queue_status_message ON queue (status, message_id);

-- A message's exceptions, and those about the logical events of its receipts.
CREATE INDEX exception_message ON exception (message_id) WHERE message_id IS NOT NULL;
CREATE INDEX exception_event ON exception (logical_event_id) WHERE logical_event_id IS NOT NULL;

-- Newest-first pages of the exception queue by status, by kind, or by both.
CREATE INDEX exception_status_id ON exception (status, id);
CREATE INDEX exception_kind_id ON exception (kind, id);
CREATE INDEX exception_status_kind_id ON exception (status, kind, id);

-- Text search over a message's text and client reference: an FTS5 index whose content is the
-- message table itself. Message rows are immutable, so inserting keeps it whole; the delete
-- trigger is there for completeness (nothing deletes messages today).
CREATE VIRTUAL TABLE message_fts USING fts5(
    body, client_ref,
    content = 'message', content_rowid = 'id',
    tokenize = 'unicode61 remove_diacritics 2'
);

CREATE TRIGGER message_fts_insert AFTER INSERT ON message
BEGIN
    INSERT INTO message_fts (rowid, body, client_ref) VALUES (NEW.id, NEW.body, NEW.client_ref);
END;

CREATE TRIGGER message_fts_delete AFTER DELETE ON message
BEGIN
    INSERT INTO message_fts (message_fts, rowid, body, client_ref) VALUES ('delete', OLD.id, OLD.body, OLD.client_ref);
END;

-- Index the messages written before this version.
INSERT INTO message_fts (message_fts) VALUES ('rebuild');

-- Running totals for the dashboard, kept in step by triggers in the same transaction as each
-- change: 'message'/'all' (messages), 'queue'/<status> (queue rows by status),
-- 'projection'/<state> (projections by state; messages without one are pending), and
-- 'clock'/'backwards' (see the end of this file).
CREATE TABLE view_count (
    scope TEXT    NOT NULL,
    value TEXT    NOT NULL,
    n     INTEGER NOT NULL,
    PRIMARY KEY (scope, value)
) WITHOUT ROWID;

INSERT INTO view_count (scope, value, n) SELECT 'message', 'all', count(*) FROM message;
INSERT INTO view_count (scope, value, n) SELECT 'queue', status, count(*) FROM queue GROUP BY status;
INSERT INTO view_count (scope, value, n) SELECT 'projection', state, count(*) FROM projection GROUP BY state;

CREATE TRIGGER view_count_message_insert AFTER INSERT ON message
BEGIN
    INSERT INTO view_count (scope, value, n) VALUES ('message', 'all', 1)
        ON CONFLICT (scope, value) DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER view_count_message_delete AFTER DELETE ON message
BEGIN
    UPDATE view_count SET n = n - 1 WHERE scope = 'message' AND value = 'all';
END;

CREATE TRIGGER view_count_queue_insert AFTER INSERT ON queue
BEGIN
    INSERT INTO view_count (scope, value, n) VALUES ('queue', NEW.status, 1)
        ON CONFLICT (scope, value) DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER view_count_queue_update AFTER UPDATE OF status ON queue
WHEN OLD.status IS NOT NEW.status
BEGIN
    UPDATE view_count SET n = n - 1 WHERE scope = 'queue' AND value = OLD.status;
    INSERT INTO view_count (scope, value, n) VALUES ('queue', NEW.status, 1)
        ON CONFLICT (scope, value) DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER view_count_queue_delete AFTER DELETE ON queue
BEGIN
    UPDATE view_count SET n = n - 1 WHERE scope = 'queue' AND value = OLD.status;
END;

CREATE TRIGGER view_count_projection_insert AFTER INSERT ON projection
BEGIN
    INSERT INTO view_count (scope, value, n) VALUES ('projection', NEW.state, 1)
        ON CONFLICT (scope, value) DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER view_count_projection_update AFTER UPDATE OF state ON projection
WHEN OLD.state IS NOT NEW.state
BEGIN
    UPDATE view_count SET n = n - 1 WHERE scope = 'projection' AND value = OLD.state;
    INSERT INTO view_count (scope, value, n) VALUES ('projection', NEW.state, 1)
        ON CONFLICT (scope, value) DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER view_count_projection_delete AFTER DELETE ON projection
BEGIN
    UPDATE view_count SET n = n - 1 WHERE scope = 'projection' AND value = OLD.state;
END;

-- Whether creation times ever went backwards in id order (the clock was set back): while they
-- have not, a created_at range is an id range, found with two lookups in message_created; after,
-- the list checks created_at row by row instead.
INSERT INTO view_count (scope, value, n)
SELECT 'clock', 'backwards', count(*) FROM (
    SELECT created_at,
           max(created_at) OVER (ORDER BY id ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS before
    FROM message
) WHERE created_at < before;

CREATE TRIGGER view_count_message_clock AFTER INSERT ON message
WHEN NEW.created_at < (SELECT max(created_at) FROM message)
BEGIN
    INSERT INTO view_count (scope, value, n) VALUES ('clock', 'backwards', 1)
        ON CONFLICT (scope, value) DO UPDATE SET n = n + 1;
END;
