-- smsdesk schema, version 11: replies from handsets become an inbox, and numbers that opt out are
-- kept on a suppression list. A queued message to a number that opts out is held for a person.

-- The handset's type of number (TON) as the deliver_sm gave it: how its address is read.
ALTER TABLE receipt ADD COLUMN source_ton INTEGER;

-- One row per PDU from a handset (as before), now with its decoded text, its place in a long
-- message, and the inbox message it is part of (none while its other parts are awaited).
ALTER TABLE inbound_message ADD COLUMN text TEXT;
ALTER TABLE inbound_message ADD COLUMN alphabet TEXT;
ALTER TABLE inbound_message ADD COLUMN concat_ref INTEGER;
ALTER TABLE inbound_message ADD COLUMN concat_total INTEGER;
ALTER TABLE inbound_message ADD COLUMN concat_seq INTEGER;
ALTER TABLE inbound_message ADD COLUMN inbox_message_id INTEGER REFERENCES inbox_message (id);
CREATE INDEX inbound_message_waiting ON inbound_message (connection, source_addr, concat_ref)
    WHERE inbox_message_id IS NULL;
CREATE INDEX inbound_message_inbox ON inbound_message (inbox_message_id) WHERE inbox_message_id IS NOT NULL;
-- The PDUs stored before this version, read into the inbox at the next start (found by an index
-- probe at every start, not a scan).
CREATE INDEX inbound_message_unread_text ON inbound_message (id) WHERE text IS NULL;

-- A message from a handset, whole: one PDU, or the parts of a long one put back together (or, once
-- the wait for a missing part ran out, the parts that came). `thread` is the conversation it
-- belongs to: the sender's number in E.164 when its address reads as one, else the address.
CREATE TABLE inbox_message (
    id             INTEGER PRIMARY KEY AUTOINCREMENT,
    connection     TEXT    NOT NULL,
    thread         TEXT    NOT NULL,
    phone          TEXT,
    handset        TEXT    NOT NULL,
    recipient      TEXT,
    text           TEXT    NOT NULL,
    alphabet       TEXT    NOT NULL,
    parts          INTEGER NOT NULL CHECK (parts >= 1),
    parts_received INTEGER NOT NULL CHECK (parts_received >= 1),
    received_at    INTEGER NOT NULL,
    completed_at   INTEGER NOT NULL,
    -- What the reply asked for, when its whole text is an opt-out or opt-in keyword.
    intent         TEXT    CHECK (intent = 'opt_out' OR intent = 'opt_in'),
    keyword        TEXT,
    read_at        INTEGER,
    read_by        TEXT,
    CHECK ((intent IS NULL) = (keyword IS NULL)),
    CHECK ((read_at IS NULL) = (read_by IS NULL))
);
CREATE INDEX inbox_message_thread ON inbox_message (thread, id);
CREATE INDEX inbox_message_unread ON inbox_message (thread) WHERE read_at IS NULL;

-- The numbers not to send to. A row is never deleted: removing a number ends its row
-- (`removed_*`), and an opt-out again starts a new one, so the list keeps its history. At most one
-- current row per number. `kinds` lists the message kinds it stops ("bulk,transactional").
CREATE TABLE opt_out (
    id               INTEGER PRIMARY KEY AUTOINCREMENT,
    phone            TEXT    NOT NULL,
    kinds            TEXT    NOT NULL CHECK (length(kinds) > 0),
    reason           TEXT    NOT NULL CHECK (reason = 'reply' OR reason = 'operator' OR reason = 'import'),
    note             TEXT,
    inbox_message_id INTEGER REFERENCES inbox_message (id),
    created_at       INTEGER NOT NULL,
    created_by       TEXT    NOT NULL,
    removed_at       INTEGER,
    removed_by       TEXT,
    removed_reason   TEXT    CHECK (removed_reason = 'reply' OR removed_reason = 'operator'
                                    OR removed_reason = 'import'),
    removed_note     TEXT,
    removed_inbox_message_id INTEGER REFERENCES inbox_message (id),
    CHECK ((reason = 'reply') = (inbox_message_id IS NOT NULL)),
    CHECK ((removed_at IS NULL) = (removed_by IS NULL)),
    CHECK ((removed_at IS NULL) = (removed_reason IS NULL))
);
CREATE UNIQUE INDEX opt_out_current ON opt_out (phone) WHERE removed_at IS NULL;
CREATE INDEX opt_out_phone ON opt_out (phone, id);

-- webhook_delivery: a reply from a handset is announced too ('inbound'), to the keys that may read
-- everything; such a delivery names its inbox message instead of a message we sent. The queue's
-- trigger that writes into this table goes first, and comes back with the queue below.
DROP TRIGGER webhook_on_queue_status;
CREATE TABLE webhook_delivery_v11 (
    id               INTEGER PRIMARY KEY AUTOINCREMENT,
    api_key_id       INTEGER NOT NULL REFERENCES api_key (id),
    message_id       INTEGER REFERENCES message (id),
    inbox_message_id INTEGER REFERENCES inbox_message (id),
    -- What changed: the queue status ('status'), the state receipts reported ('state'), or a
    -- reply arrived ('inbound').
    field            TEXT    NOT NULL CHECK (field = 'status' OR field = 'state' OR field = 'inbound'),
    value            TEXT    NOT NULL,
    created_at       INTEGER NOT NULL,
    status           TEXT    NOT NULL DEFAULT 'pending'
                             CHECK (status = 'pending' OR status = 'delivered' OR status = 'failed'),
    attempts         INTEGER NOT NULL DEFAULT 0,
    next_attempt_at  INTEGER NOT NULL,
    last_error       TEXT,
    delivered_at     INTEGER,
    CHECK ((field = 'inbound') = (message_id IS NULL)),
    CHECK ((field = 'inbound') = (inbox_message_id IS NOT NULL))
);
INSERT INTO webhook_delivery_v11 (id, api_key_id, message_id, field, value, created_at, status, attempts,
    next_attempt_at, last_error, delivered_at)
SELECT id, api_key_id, message_id, field, value, created_at, status, attempts, next_attempt_at, last_error,
    delivered_at
FROM webhook_delivery ORDER BY id;
DROP TABLE webhook_delivery;
ALTER TABLE webhook_delivery_v11 RENAME TO webhook_delivery;
CREATE INDEX webhook_delivery_due ON webhook_delivery (next_attempt_at, id) WHERE status = 'pending';
CREATE INDEX webhook_delivery_message ON webhook_delivery (message_id);

-- queue: a message may be held ('held') for a person ---------------------------------------------
CREATE TABLE queue_v11 (
    message_id          INTEGER PRIMARY KEY REFERENCES message (id),
    status              TEXT    NOT NULL CHECK (status = 'queued' OR status = 'sending' OR status = 'accepted'
                            OR status = 'failed' OR status = 'outcome_unknown' OR status = 'cancelled'
                            OR status = 'expired' OR status = 'held'),
    priority            INTEGER NOT NULL,
    next_attempt_at     INTEGER NOT NULL,
    attempts            INTEGER NOT NULL DEFAULT 0,
    lease_owner         TEXT,
    lease_until         INTEGER,
    last_error          TEXT,
    updated_at          INTEGER NOT NULL,
    accepted_attempt_id INTEGER,
    accepted_at         INTEGER,
    expires_at          INTEGER,
    round_from          INTEGER,
    CHECK ((status = 'sending') = (lease_owner IS NOT NULL))
);
INSERT INTO queue_v11 (message_id, status, priority, next_attempt_at, attempts, lease_owner, lease_until,
    last_error, updated_at, accepted_attempt_id, accepted_at, expires_at, round_from)
SELECT message_id, status, priority, next_attempt_at, attempts, lease_owner, lease_until,
    last_error, updated_at, accepted_attempt_id, accepted_at, expires_at, round_from
FROM queue ORDER BY message_id;
DROP TABLE queue;
ALTER TABLE queue_v11 RENAME TO queue;
CREATE INDEX queue_claim ON queue (status, priority, next_attempt_at, message_id);
CREATE INDEX queue_expiry ON queue (expires_at) WHERE status = 'queued' AND expires_at IS NOT NULL;
CREATE INDEX queue_lease ON queue (lease_until) WHERE status = 'sending';
CREATE INDEX queue_status_message ON queue (status, message_id);

CREATE TRIGGER activity_outcome_queue_insert AFTER INSERT ON queue
WHEN (NEW.status = 'failed' OR NEW.status = 'cancelled' OR NEW.status = 'expired')
BEGIN
    INSERT INTO activity_outcome (day, outcome, n)
    SELECT s.day, CASE d.delta WHEN -1 THEN s.before ELSE s.after END, d.delta
    FROM (SELECT m.created_at - m.created_at % 86400000 AS day,
                 CASE WHEN p.rule = 'operator_decision' THEN 'decided'
                      WHEN p.rule = 'first_final' OR p.rule = 'parts_final' THEN
                          CASE p.state WHEN 'delivered' THEN 'delivered' WHEN 'expired' THEN 'expired' ELSE 'failed' END
                      WHEN p.flag_no_receipt = 1 THEN 'no_receipt'
                      ELSE 'pending' END AS before,
                 CASE WHEN p.rule = 'operator_decision' THEN 'decided'
                      WHEN p.rule = 'first_final' OR p.rule = 'parts_final' THEN
                          CASE p.state WHEN 'delivered' THEN 'delivered' WHEN 'expired' THEN 'expired' ELSE 'failed' END
                      ELSE 'not_sent' END AS after
          FROM message m LEFT JOIN projection p ON p.message_id = m.id
          WHERE m.id = NEW.message_id) s,
         activity_sign d
    WHERE s.before <> s.after AND CASE d.delta WHEN -1 THEN s.before ELSE s.after END <> 'pending'
    ON CONFLICT (day, outcome) DO UPDATE SET n = n + excluded.n;
END;

CREATE TRIGGER activity_outcome_queue_update AFTER UPDATE OF status ON queue
WHEN (OLD.status = 'failed' OR OLD.status = 'cancelled' OR OLD.status = 'expired')
  <> (NEW.status = 'failed' OR NEW.status = 'cancelled' OR NEW.status = 'expired')
BEGIN
    INSERT INTO activity_outcome (day, outcome, n)
    SELECT s.day, CASE d.delta WHEN -1 THEN s.before ELSE s.after END, d.delta
    FROM (SELECT m.created_at - m.created_at % 86400000 AS day,
                 CASE WHEN p.rule = 'operator_decision' THEN 'decided'
                      WHEN p.rule = 'first_final' OR p.rule = 'parts_final' THEN
                          CASE p.state WHEN 'delivered' THEN 'delivered' WHEN 'expired' THEN 'expired' ELSE 'failed' END
                      WHEN (OLD.status = 'failed' OR OLD.status = 'cancelled' OR OLD.status = 'expired') THEN 'not_sent'
                      WHEN p.flag_no_receipt = 1 THEN 'no_receipt'
                      ELSE 'pending' END AS before,
                 CASE WHEN p.rule = 'operator_decision' THEN 'decided'
                      WHEN p.rule = 'first_final' OR p.rule = 'parts_final' THEN
                          CASE p.state WHEN 'delivered' THEN 'delivered' WHEN 'expired' THEN 'expired' ELSE 'failed' END
                      WHEN (NEW.status = 'failed' OR NEW.status = 'cancelled' OR NEW.status = 'expired') THEN 'not_sent'
                      WHEN p.flag_no_receipt = 1 THEN 'no_receipt'
                      ELSE 'pending' END AS after
          FROM message m LEFT JOIN projection p ON p.message_id = m.id
          WHERE m.id = NEW.message_id) s,
         activity_sign d
    WHERE s.before <> s.after AND CASE d.delta WHEN -1 THEN s.before ELSE s.after END <> 'pending'
    ON CONFLICT (day, outcome) DO UPDATE SET n = n + excluded.n;
END;

CREATE TRIGGER view_count_queue_delete AFTER DELETE ON queue
BEGIN
    UPDATE view_count SET n = n - 1 WHERE scope = 'queue' AND value = OLD.status;
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

CREATE TRIGGER webhook_on_queue_status AFTER UPDATE OF status ON queue
WHEN OLD.status IS NOT NEW.status AND NEW.status <> 'sending'
BEGIN
    INSERT INTO webhook_delivery (api_key_id, message_id, field, value, created_at, next_attempt_at)
    SELECT k.id, m.id, 'status', NEW.status, NEW.updated_at, NEW.updated_at
    FROM message m JOIN api_key k ON k.id = m.api_key_id
    WHERE m.id = NEW.message_id AND k.webhook_url IS NOT NULL AND k.revoked_at IS NULL;
END;

-- exception: a message held because its number opted out ('opted_out') ---------------------------
CREATE TABLE exception_v11 (
    id               INTEGER PRIMARY KEY AUTOINCREMENT,
    kind             TEXT    NOT NULL CHECK (kind = 'conflicting_final' OR kind = 'uncorrelated'
                         OR kind = 'ambiguous' OR kind = 'unparseable' OR kind = 'outcome_unknown'
                         OR kind = 'no_receipt' OR kind = 'partly_sent' OR kind = 'status_unreadable'
                         OR kind = 'opted_out'),
    status           TEXT    NOT NULL CHECK (status = 'open' OR status = 'resolved' OR status = 'dismissed'),
    message_id       INTEGER REFERENCES message (id),
    logical_event_id INTEGER REFERENCES logical_event (id),
    summary          TEXT    NOT NULL,
    details_json     TEXT,
    created_at       INTEGER NOT NULL,
    resolution       TEXT,
    resolution_note  TEXT,
    resolved_by      TEXT,
    resolved_at      INTEGER,
    CHECK ((status = 'open') = (resolved_at IS NULL)),
    CHECK (status = 'open' OR length(trim(coalesce(resolution_note, ''))) > 0)
);
INSERT INTO exception_v11 (id, kind, status, message_id, logical_event_id, summary, details_json, created_at,
    resolution, resolution_note, resolved_by, resolved_at)
SELECT id, kind, status, message_id, logical_event_id, summary, details_json, created_at,
    resolution, resolution_note, resolved_by, resolved_at
FROM exception ORDER BY id;
DROP TABLE exception;
ALTER TABLE exception_v11 RENAME TO exception;
CREATE UNIQUE INDEX exception_one_open_per_message_kind ON exception (message_id, kind)
    WHERE status = 'open' AND message_id IS NOT NULL;
CREATE INDEX exception_status ON exception (status, kind, created_at);
CREATE INDEX exception_message ON exception (message_id) WHERE message_id IS NOT NULL;
CREATE INDEX exception_event ON exception (logical_event_id) WHERE logical_event_id IS NOT NULL;
CREATE INDEX exception_status_id ON exception (status, id);
CREATE INDEX exception_kind_id ON exception (kind, id);
CREATE INDEX exception_status_kind_id ON exception (status, kind, id);
