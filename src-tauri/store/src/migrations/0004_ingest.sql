-- smsdesk schema, version 4: the tables every receipt writes, rebuilt so that writing a row costs
-- less. Nothing about what is stored changes: the same columns in the same order, the same values,
-- the same ids, the same indexes and triggers.
--
-- - An enumeration CHECK written `col IN (a, b, c, ...)` makes SQLite build a temporary b-tree of
--   the list for every row written; the same check written as comparisons (`col = a OR col = b`)
--   costs a few comparisons. Lists of one or two values were already compared directly.
-- - receipt, logical_event and projection_input lose AUTOINCREMENT, which kept a counter row in
--   sqlite_sequence updated on every insert. Their ids stay increasing: new ids follow the largest
--   id in the table, and no row of them is ever deleted (receipts refuse DELETE by trigger).
--
-- The migration runs with foreign key enforcement off (so dropping a table that rows refer to
-- does not delete through them); `PRAGMA foreign_key_check` runs before it commits.

-- receipt ---------------------------------------------------------------------------------------
CREATE TABLE receipt_v4 (
    id                 INTEGER PRIMARY KEY,
    received_at        INTEGER NOT NULL,
    source             TEXT    NOT NULL CHECK (source = 'smpp_deliver_sm' OR source = 'smpp_data_sm'
                           OR source = 'http'),
    connection         TEXT    NOT NULL,
    session_id         TEXT,
    sequence_number    INTEGER,
    provider           TEXT,
    source_addr        TEXT,
    destination_addr   TEXT,
    pdu                BLOB,
    part               INTEGER NOT NULL DEFAULT 0,
    parts              INTEGER NOT NULL DEFAULT 1,
    raw                BLOB    NOT NULL,
    raw_text           TEXT,
    headers_json       TEXT,
    tlvs_json          TEXT,
    esm_class          INTEGER,
    data_coding        INTEGER,
    kind               TEXT    NOT NULL CHECK (kind = 'receipt' OR kind = 'intermediate'
                           OR kind = 'acknowledgement' OR kind = 'mo' OR kind = 'unparseable'),
    parser_version     INTEGER NOT NULL,
    parse_error        TEXT,
    message_id_raw     TEXT,
    text_id            TEXT,
    event_id           TEXT,
    stat               TEXT,
    stat_raw           TEXT,
    err                TEXT,
    sub                TEXT,
    dlvrd              TEXT,
    submit_date        TEXT,
    done_date          TEXT,
    submit_ts          TEXT,
    done_ts            TEXT,
    message_state      INTEGER,
    network_error_code TEXT
);
INSERT INTO receipt_v4 (id, received_at, source, connection, session_id, sequence_number, provider,
    source_addr, destination_addr, pdu, part, parts, raw, raw_text, headers_json, tlvs_json, esm_class,
    data_coding, kind, parser_version, parse_error, message_id_raw, text_id, event_id, stat, stat_raw, err,
    sub, dlvrd, submit_date, done_date, submit_ts, done_ts, message_state, network_error_code)
SELECT id, received_at, source, connection, session_id, sequence_number, provider,
    source_addr, destination_addr, pdu, part, parts, raw, raw_text, headers_json, tlvs_json, esm_class,
    data_coding, kind, parser_version, parse_error, message_id_raw, text_id, event_id, stat, stat_raw, err,
    sub, dlvrd, submit_date, done_date, submit_ts, done_ts, message_state, network_error_code
FROM receipt ORDER BY id;
DROP TABLE receipt;
ALTER TABLE receipt_v4 RENAME TO receipt;

CREATE TRIGGER receipt_refuses_update BEFORE UPDATE ON receipt
BEGIN
    SELECT RAISE(ABORT, 'receipt is append-only evidence: UPDATE refused');
END;
CREATE TRIGGER receipt_refuses_delete BEFORE DELETE ON receipt
BEGIN
    SELECT RAISE(ABORT, 'receipt is append-only evidence: DELETE refused');
END;

-- logical_event ---------------------------------------------------------------------------------
CREATE TABLE logical_event_v4 (
    id                INTEGER PRIMARY KEY,
    connection        TEXT    NOT NULL,
    dedup_key         TEXT    NOT NULL,
    key_source        TEXT    NOT NULL CHECK (key_source = 'provider_event_id' OR key_source = 'fingerprint'),
    receipted_id_norm TEXT,
    stat              TEXT,
    err               TEXT,
    done_date         TEXT,
    message_state     INTEGER,
    receipt_kind      TEXT    NOT NULL CHECK (receipt_kind = 'receipt' OR receipt_kind = 'intermediate'
                          OR receipt_kind = 'acknowledgement' OR receipt_kind = 'mo'
                          OR receipt_kind = 'unparseable'),
    first_receipt_id  INTEGER NOT NULL REFERENCES receipt (id),
    created_at        INTEGER NOT NULL,
    correlation       TEXT    NOT NULL CHECK (correlation = 'pending' OR correlation = 'matched'
                          OR correlation = 'none' OR correlation = 'ambiguous'),
    message_id        INTEGER REFERENCES message (id),
    correlated_at     INTEGER,
    -- 'system' when the provider id matched, 'operator' when a person attached it.
    correlated_by     TEXT    CHECK (correlated_by = 'system' OR correlated_by = 'operator'),
    UNIQUE (connection, dedup_key),
    CHECK ((correlation = 'matched') = (message_id IS NOT NULL))
);
INSERT INTO logical_event_v4 (id, connection, dedup_key, key_source, receipted_id_norm, stat, err, done_date,
    message_state, receipt_kind, first_receipt_id, created_at, correlation, message_id, correlated_at,
    correlated_by)
SELECT id, connection, dedup_key, key_source, receipted_id_norm, stat, err, done_date,
    message_state, receipt_kind, first_receipt_id, created_at, correlation, message_id, correlated_at,
    correlated_by
FROM logical_event ORDER BY id;
DROP TABLE logical_event;
ALTER TABLE logical_event_v4 RENAME TO logical_event;

CREATE INDEX logical_event_message ON logical_event (message_id) WHERE message_id IS NOT NULL;
CREATE INDEX logical_event_uncorrelated ON logical_event (connection, receipted_id_norm)
    WHERE correlation IN ('pending', 'none');

-- receipt_outcome -------------------------------------------------------------------------------
CREATE TABLE receipt_outcome_v4 (
    receipt_id       INTEGER PRIMARY KEY REFERENCES receipt (id),
    logical_event_id INTEGER REFERENCES logical_event (id),
    is_repeat        INTEGER NOT NULL CHECK (is_repeat = 0 OR is_repeat = 1),
    flags_json       TEXT,
    processed_at     INTEGER NOT NULL
);
INSERT INTO receipt_outcome_v4 (receipt_id, logical_event_id, is_repeat, flags_json, processed_at)
SELECT receipt_id, logical_event_id, is_repeat, flags_json, processed_at FROM receipt_outcome ORDER BY receipt_id;
DROP TABLE receipt_outcome;
ALTER TABLE receipt_outcome_v4 RENAME TO receipt_outcome;

CREATE INDEX receipt_outcome_event ON receipt_outcome (logical_event_id);

-- projection ------------------------------------------------------------------------------------
CREATE TABLE projection_v4 (
    message_id       INTEGER PRIMARY KEY REFERENCES message (id),
    state            TEXT    NOT NULL CHECK (state = 'pending' OR state = 'scheduled' OR state = 'enroute'
                         OR state = 'accepted' OR state = 'delivered' OR state = 'expired' OR state = 'deleted'
                         OR state = 'undeliverable' OR state = 'rejected' OR state = 'unknown'
                         OR state = 'skipped'),
    rule             TEXT    NOT NULL,
    supporting_json  TEXT    NOT NULL DEFAULT '[]',
    flag_late        INTEGER NOT NULL DEFAULT 0 CHECK (flag_late = 0 OR flag_late = 1),
    flag_conflict    INTEGER NOT NULL DEFAULT 0 CHECK (flag_conflict = 0 OR flag_conflict = 1),
    flag_no_receipt  INTEGER NOT NULL DEFAULT 0 CHECK (flag_no_receipt = 0 OR flag_no_receipt = 1),
    flag_mismatch    INTEGER NOT NULL DEFAULT 0 CHECK (flag_mismatch = 0 OR flag_mismatch = 1),
    flag_id_disagree INTEGER NOT NULL DEFAULT 0 CHECK (flag_id_disagree = 0 OR flag_id_disagree = 1),
    fold_json        TEXT    NOT NULL,
    rules_version    INTEGER NOT NULL,
    updated_at       INTEGER NOT NULL
);
INSERT INTO projection_v4 (message_id, state, rule, supporting_json, flag_late, flag_conflict, flag_no_receipt,
    flag_mismatch, flag_id_disagree, fold_json, rules_version, updated_at)
SELECT message_id, state, rule, supporting_json, flag_late, flag_conflict, flag_no_receipt,
    flag_mismatch, flag_id_disagree, fold_json, rules_version, updated_at
FROM projection ORDER BY message_id;
DROP TABLE projection;
ALTER TABLE projection_v4 RENAME TO projection;

CREATE INDEX projection_state ON projection (state, message_id);

-- The triggers of versions 2 and 3 on projection, unchanged (dropping the table dropped them).
CREATE TRIGGER webhook_on_state_insert AFTER INSERT ON projection
BEGIN
    INSERT INTO webhook_delivery (api_key_id, message_id, field, value, created_at, next_attempt_at)
    SELECT k.id, m.id, 'state', NEW.state, NEW.updated_at, NEW.updated_at
    FROM message m JOIN api_key k ON k.id = m.api_key_id
    WHERE m.id = NEW.message_id AND k.webhook_url IS NOT NULL AND k.revoked_at IS NULL;
END;

CREATE TRIGGER webhook_on_state_update AFTER UPDATE OF state ON projection
WHEN OLD.state IS NOT NEW.state
BEGIN
    INSERT INTO webhook_delivery (api_key_id, message_id, field, value, created_at, next_attempt_at)
    SELECT k.id, m.id, 'state', NEW.state, NEW.updated_at, NEW.updated_at
    FROM message m JOIN api_key k ON k.id = m.api_key_id
    WHERE m.id = NEW.message_id AND k.webhook_url IS NOT NULL AND k.revoked_at IS NULL;
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

-- projection_input ------------------------------------------------------------------------------
CREATE TABLE projection_input_v4 (
    seq              INTEGER PRIMARY KEY,
    message_id       INTEGER NOT NULL REFERENCES message (id),
    kind             TEXT    NOT NULL CHECK (kind = 'event' OR kind = 'decision' OR kind = 'deadline'),
    logical_event_id INTEGER REFERENCES logical_event (id),
    exception_id     INTEGER REFERENCES exception (id),
    applied_at       INTEGER NOT NULL,
    CHECK ((kind = 'event') = (logical_event_id IS NOT NULL))
);
INSERT INTO projection_input_v4 (seq, message_id, kind, logical_event_id, exception_id, applied_at)
SELECT seq, message_id, kind, logical_event_id, exception_id, applied_at FROM projection_input ORDER BY seq;
DROP TABLE projection_input;
ALTER TABLE projection_input_v4 RENAME TO projection_input;

CREATE INDEX projection_input_message ON projection_input (message_id, seq);

-- The counters AUTOINCREMENT kept for these tables are no longer read.
DELETE FROM sqlite_sequence WHERE name IN ('receipt', 'logical_event', 'projection_input');
