-- Schema 26: the delivery report's aggregates, kept by the writer in the transaction that changes
-- what they count, and rebuildable from the messages (store/src/reports.rs).
--
-- `report_entry` holds, for each message, where it stands in the report: the hour it was created
-- (UTC), its kind, the connection that took it (or last tried it), its route, the destination's
-- country, who handed it in, its outcome, the SMPP status of its last answered submit, the error
-- code of its final receipt, its parts and its receipt latency. `report_hour` sums the entries by
-- every one of those values: the report reads it, never the messages. The message list filters by
-- the entries, so a figure and the messages behind it cannot disagree.
--
-- Every write of the store that may move a message in the report (a try written or answered, a
-- queue status or route, a projection) notes the message; just before the transaction commits,
-- the writer takes what those messages counted out of `report_hour`, computes their entries again
-- and adds them back: one rule computes an entry, whatever wrote. (Not by triggers: a trigger on
-- those tables makes every write of them keep a statement journal, which made receipt ingestion
-- 80 % dearer.) A message written by intake gets its entry with it. The rare deletions, and the
-- messages stored before this version, are noted in `report_dirty`.
--
-- The destination's country as intake read it with the number (for the report), '' when the
-- numbering data does not tell; NULL for the messages written before, read when their entry is
-- computed.
ALTER TABLE message ADD COLUMN country TEXT;

CREATE TABLE report_entry (
    message_id     INTEGER PRIMARY KEY,
    hour           INTEGER NOT NULL,
    kind           TEXT    NOT NULL,
    connection     TEXT    NOT NULL,
    route          TEXT    NOT NULL,
    country        TEXT    NOT NULL,
    sender         TEXT    NOT NULL,
    outcome        TEXT    NOT NULL CHECK (outcome IN ('delivered', 'failed', 'expired', 'cancelled',
                       'no_receipt', 'unknown', 'pending')),
    command_status INTEGER NOT NULL,
    error_code     TEXT    NOT NULL,
    parts          INTEGER NOT NULL,
    latency_ms     INTEGER
);

CREATE TABLE report_hour (
    hour           INTEGER NOT NULL,
    kind           TEXT    NOT NULL,
    connection     TEXT    NOT NULL,
    route          TEXT    NOT NULL,
    country        TEXT    NOT NULL,
    sender         TEXT    NOT NULL,
    outcome        TEXT    NOT NULL,
    command_status INTEGER NOT NULL,
    error_code     TEXT    NOT NULL,
    messages       INTEGER NOT NULL,
    parts          INTEGER NOT NULL,
    -- Receipt latencies by bucket (the bounds are in store/src/reports.rs).
    l0 INTEGER NOT NULL DEFAULT 0, l1 INTEGER NOT NULL DEFAULT 0, l2 INTEGER NOT NULL DEFAULT 0,
    l3 INTEGER NOT NULL DEFAULT 0, l4 INTEGER NOT NULL DEFAULT 0, l5 INTEGER NOT NULL DEFAULT 0,
    l6 INTEGER NOT NULL DEFAULT 0, l7 INTEGER NOT NULL DEFAULT 0, l8 INTEGER NOT NULL DEFAULT 0,
    l9 INTEGER NOT NULL DEFAULT 0, l10 INTEGER NOT NULL DEFAULT 0, l11 INTEGER NOT NULL DEFAULT 0,
    l12 INTEGER NOT NULL DEFAULT 0, l13 INTEGER NOT NULL DEFAULT 0, l14 INTEGER NOT NULL DEFAULT 0,
    l15 INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (hour, kind, connection, route, country, sender, outcome, command_status, error_code)
) WITHOUT ROWID;

CREATE TABLE report_dirty (message_id INTEGER PRIMARY KEY);

CREATE TRIGGER report_message_delete AFTER DELETE ON message
BEGIN
    INSERT INTO report_dirty (message_id) SELECT OLD.id
    WHERE NOT EXISTS (SELECT 1 FROM report_dirty WHERE message_id = OLD.id);
END;
CREATE TRIGGER report_projection_delete AFTER DELETE ON projection
BEGIN
    INSERT INTO report_dirty (message_id) SELECT OLD.message_id
    WHERE NOT EXISTS (SELECT 1 FROM report_dirty WHERE message_id = OLD.message_id);
END;

-- Every message already stored has its entry computed when the database is next opened.
INSERT INTO report_dirty (message_id) SELECT id FROM message;
