-- smsdesk schema, version 1.
--
-- Evidence and projection are kept apart: `receipt` and `audit` are append-only logs (triggers
-- below refuse UPDATE and DELETE), `message` is immutable once written, and everything that
-- changes over time (queue position, correlation, computed state, exceptions) lives in its own
-- table and can be explained from the logs.
--
-- Times are integers: milliseconds since the Unix epoch, UTC. Enumerations are stored in their
-- stable text form (see domain.rs) and checked here.

-- A message as it was handed to us. Never updated.
CREATE TABLE message (
    id                  INTEGER PRIMARY KEY AUTOINCREMENT,
    created_at          INTEGER NOT NULL,
    channel             TEXT    NOT NULL CHECK (channel IN ('api', 'csv', 'compose', 'cli')),
    -- Idempotency: a key is unique within its scope (an API key, an import, the operator).
    idempotency_scope   TEXT,
    idempotency_key     TEXT,
    request_hash        TEXT,
    client_ref          TEXT,
    source_raw          TEXT,
    source_addr         TEXT,
    source_ton          INTEGER,
    source_npi          INTEGER,
    destination_raw     TEXT    NOT NULL,
    destination         TEXT    NOT NULL,
    dest_ton            INTEGER,
    dest_npi            INTEGER,
    body                TEXT    NOT NULL,
    encoding            TEXT    NOT NULL,
    segments            INTEGER NOT NULL CHECK (segments >= 1),
    kind                TEXT    NOT NULL CHECK (kind IN ('otp', 'transactional', 'bulk')),
    priority            INTEGER NOT NULL,
    ordering_key        TEXT,
    valid_until         INTEGER,
    scheduled_at        INTEGER,
    registered_delivery INTEGER NOT NULL,
    connection          TEXT    NOT NULL,
    CHECK ((idempotency_key IS NULL) = (idempotency_scope IS NULL))
);
CREATE UNIQUE INDEX message_idempotency ON message (idempotency_scope, idempotency_key)
    WHERE idempotency_key IS NOT NULL;
CREATE INDEX message_created ON message (created_at);
CREATE INDEX message_destination ON message (destination);
CREATE INDEX message_ordering_key ON message (ordering_key, id) WHERE ordering_key IS NOT NULL;

CREATE TRIGGER message_is_immutable BEFORE UPDATE ON message
BEGIN
    SELECT RAISE(ABORT, 'message rows are immutable');
END;

-- The message's place in the local send queue. One row per message, changed by the dispatcher.
CREATE TABLE queue (
    message_id      INTEGER PRIMARY KEY REFERENCES message (id),
    status          TEXT    NOT NULL CHECK (status IN
                        ('queued', 'sending', 'accepted', 'failed', 'outcome_unknown', 'cancelled', 'expired')),
    priority        INTEGER NOT NULL,
    next_attempt_at INTEGER NOT NULL,
    attempts        INTEGER NOT NULL DEFAULT 0,
    lease_owner     TEXT,
    lease_until     INTEGER,
    last_error      TEXT,
    updated_at      INTEGER NOT NULL,
    CHECK ((status = 'sending') = (lease_owner IS NOT NULL))
);
CREATE INDEX queue_claim ON queue (status, priority, next_attempt_at, message_id);
CREATE INDEX queue_lease ON queue (lease_until) WHERE status = 'sending';

-- One row per submit try (per segment), written before the PDU goes on the wire.
CREATE TABLE attempt (
    id                  INTEGER PRIMARY KEY AUTOINCREMENT,
    message_id          INTEGER NOT NULL REFERENCES message (id),
    attempt_no          INTEGER NOT NULL CHECK (attempt_no >= 1),
    segment_no          INTEGER NOT NULL DEFAULT 1 CHECK (segment_no >= 1),
    connection          TEXT    NOT NULL,
    session_id          TEXT,
    sequence_number     INTEGER,
    created_at          INTEGER NOT NULL,
    sent_at             INTEGER,
    responded_at        INTEGER,
    command_status      INTEGER,
    -- The provider's message id exactly as returned, and its normalised form used to correlate.
    provider_message_id TEXT,
    provider_id_norm    TEXT,
    outcome             TEXT    NOT NULL CHECK (outcome IN
                            ('pending', 'accepted', 'temporary', 'throttled', 'permanent', 'timeout', 'link_lost')),
    error               TEXT,
    UNIQUE (message_id, attempt_no, segment_no)
);
CREATE INDEX attempt_provider_id ON attempt (connection, provider_id_norm) WHERE provider_id_norm IS NOT NULL;
CREATE INDEX attempt_pending ON attempt (outcome) WHERE outcome = 'pending';

-- Every report received, exactly as received. Append-only: never updated, never deleted.
-- `id` is the local receive order.
CREATE TABLE receipt (
    id                 INTEGER PRIMARY KEY AUTOINCREMENT,
    received_at        INTEGER NOT NULL,
    source             TEXT    NOT NULL CHECK (source IN ('smpp_deliver_sm', 'smpp_data_sm', 'http')),
    connection         TEXT    NOT NULL,
    session_id         TEXT,
    sequence_number    INTEGER,
    provider           TEXT,
    -- source_addr / destination_addr of the deliver_sm (for a receipt, usually the handset and our
    -- sender id); only ever used to raise a mismatch flag, never to attribute a receipt.
    source_addr        TEXT,
    destination_addr   TEXT,
    -- The whole PDU as received, when the transport gives it; `raw` is the short_message or body.
    pdu                BLOB,
    -- A request carrying several reports is stored once per report: part is its index (from 0).
    part               INTEGER NOT NULL DEFAULT 0,
    parts              INTEGER NOT NULL DEFAULT 1,
    raw                BLOB    NOT NULL,
    raw_text           TEXT,
    headers_json       TEXT,
    tlvs_json          TEXT,
    esm_class          INTEGER,
    data_coding        INTEGER,
    kind               TEXT    NOT NULL CHECK (kind IN
                           ('receipt', 'intermediate', 'acknowledgement', 'mo', 'unparseable')),
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

CREATE TRIGGER receipt_refuses_update BEFORE UPDATE ON receipt
BEGIN
    SELECT RAISE(ABORT, 'receipt is append-only evidence: UPDATE refused');
END;
CREATE TRIGGER receipt_refuses_delete BEFORE DELETE ON receipt
BEGIN
    SELECT RAISE(ABORT, 'receipt is append-only evidence: DELETE refused');
END;

-- The de-duplication unit: one logical event per provider event id, or per fingerprint
-- (components stored alongside), with the correlation result.
CREATE TABLE logical_event (
    id                INTEGER PRIMARY KEY AUTOINCREMENT,
    connection        TEXT    NOT NULL,
    dedup_key         TEXT    NOT NULL,
    key_source        TEXT    NOT NULL CHECK (key_source IN ('provider_event_id', 'fingerprint')),
    receipted_id_norm TEXT,
    stat              TEXT,
    err               TEXT,
    done_date         TEXT,
    message_state     INTEGER,
    receipt_kind      TEXT    NOT NULL CHECK (receipt_kind IN
                          ('receipt', 'intermediate', 'acknowledgement', 'mo', 'unparseable')),
    first_receipt_id  INTEGER NOT NULL REFERENCES receipt (id),
    created_at        INTEGER NOT NULL,
    correlation       TEXT    NOT NULL CHECK (correlation IN ('pending', 'matched', 'none', 'ambiguous')),
    message_id        INTEGER REFERENCES message (id),
    correlated_at     INTEGER,
    -- 'system' when the provider id matched, 'operator' when a person attached it.
    correlated_by     TEXT    CHECK (correlated_by IN ('system', 'operator')),
    UNIQUE (connection, dedup_key),
    CHECK ((correlation = 'matched') = (message_id IS NOT NULL))
);
CREATE INDEX logical_event_message ON logical_event (message_id) WHERE message_id IS NOT NULL;
CREATE INDEX logical_event_uncorrelated ON logical_event (connection, receipted_id_norm)
    WHERE correlation IN ('pending', 'none');

-- What processing did with each receipt. Written once per receipt, after the receipt itself, so
-- a receipt without a row here is one that still awaits processing (for example after a crash).
CREATE TABLE receipt_outcome (
    receipt_id       INTEGER PRIMARY KEY REFERENCES receipt (id),
    logical_event_id INTEGER REFERENCES logical_event (id),
    is_repeat        INTEGER NOT NULL CHECK (is_repeat IN (0, 1)),
    flags_json       TEXT,
    processed_at     INTEGER NOT NULL
);
CREATE INDEX receipt_outcome_event ON receipt_outcome (logical_event_id);

-- The computed state per message: a pure function of its evidence, the operator's resolutions and
-- the rules version, so `smsdesk rebuild` can recompute it from the logs. `fold_json` is the whole
-- fold state; the other columns repeat parts of it for queries.
CREATE TABLE projection (
    message_id       INTEGER PRIMARY KEY REFERENCES message (id),
    state            TEXT    NOT NULL CHECK (state IN
                         ('pending', 'scheduled', 'enroute', 'accepted', 'delivered', 'expired', 'deleted',
                          'undeliverable', 'rejected', 'unknown', 'skipped')),
    rule             TEXT    NOT NULL,
    supporting_json  TEXT    NOT NULL DEFAULT '[]',
    flag_late        INTEGER NOT NULL DEFAULT 0 CHECK (flag_late IN (0, 1)),
    flag_conflict    INTEGER NOT NULL DEFAULT 0 CHECK (flag_conflict IN (0, 1)),
    flag_no_receipt  INTEGER NOT NULL DEFAULT 0 CHECK (flag_no_receipt IN (0, 1)),
    flag_mismatch    INTEGER NOT NULL DEFAULT 0 CHECK (flag_mismatch IN (0, 1)),
    flag_id_disagree INTEGER NOT NULL DEFAULT 0 CHECK (flag_id_disagree IN (0, 1)),
    fold_json        TEXT    NOT NULL,
    rules_version    INTEGER NOT NULL,
    updated_at       INTEGER NOT NULL
);
CREATE INDEX projection_state ON projection (state, message_id);

-- What entered each message's projection, in the order it was applied: logical events, the
-- operator's decisions and passed deadlines. Rebuilding folds these rows in `seq` order.
CREATE TABLE projection_input (
    seq              INTEGER PRIMARY KEY AUTOINCREMENT,
    message_id       INTEGER NOT NULL REFERENCES message (id),
    kind             TEXT    NOT NULL CHECK (kind IN ('event', 'decision', 'deadline')),
    logical_event_id INTEGER REFERENCES logical_event (id),
    exception_id     INTEGER REFERENCES exception (id),
    applied_at       INTEGER NOT NULL,
    CHECK ((kind = 'event') = (logical_event_id IS NOT NULL))
);
CREATE INDEX projection_input_message ON projection_input (message_id, seq);

-- Incoming (mobile-originated) messages: a deliver_sm that is not a report. The receipt row keeps
-- the evidence; this row says what it was.
CREATE TABLE inbound_message (
    id               INTEGER PRIMARY KEY AUTOINCREMENT,
    receipt_id       INTEGER NOT NULL UNIQUE REFERENCES receipt (id),
    connection       TEXT    NOT NULL,
    source_addr      TEXT,
    destination_addr TEXT,
    body             TEXT,
    received_at      INTEGER NOT NULL
);

-- Work for a person. At most one open exception of a kind per message.
CREATE TABLE exception (
    id               INTEGER PRIMARY KEY AUTOINCREMENT,
    kind             TEXT    NOT NULL CHECK (kind IN
                         ('conflicting_final', 'uncorrelated', 'ambiguous', 'unparseable', 'outcome_unknown',
                          'no_receipt')),
    status           TEXT    NOT NULL CHECK (status IN ('open', 'resolved', 'dismissed')),
    message_id       INTEGER REFERENCES message (id),
    logical_event_id INTEGER REFERENCES logical_event (id),
    summary          TEXT    NOT NULL,
    details_json     TEXT,
    created_at       INTEGER NOT NULL,
    -- What was decided: 'state:<delivery state>', 'attached:<message id>', 'dismissed',
    -- 'resend', 'mark_failed', or 'auto:<reason>' when the system closed it on new evidence.
    resolution       TEXT,
    resolution_note  TEXT,
    resolved_by      TEXT,
    resolved_at      INTEGER,
    CHECK ((status = 'open') = (resolved_at IS NULL)),
    CHECK (status = 'open' OR length(trim(coalesce(resolution_note, ''))) > 0)
);
CREATE UNIQUE INDEX exception_one_open_per_message_kind ON exception (message_id, kind)
    WHERE status = 'open' AND message_id IS NOT NULL;
CREATE INDEX exception_status ON exception (status, kind, created_at);

-- The evidence an exception rests on: receipts and attempts, each with its role.
CREATE TABLE exception_evidence (
    exception_id INTEGER NOT NULL REFERENCES exception (id),
    receipt_id   INTEGER REFERENCES receipt (id),
    attempt_id   INTEGER REFERENCES attempt (id),
    role         TEXT    NOT NULL,
    CHECK ((receipt_id IS NULL) <> (attempt_id IS NULL))
);
CREATE INDEX exception_evidence_exception ON exception_evidence (exception_id);

-- Every operator action and every automatic decision worth explaining. Append-only.
CREATE TABLE audit (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    at           INTEGER NOT NULL,
    actor        TEXT    NOT NULL,
    action       TEXT    NOT NULL,
    subject_type TEXT,
    subject_id   INTEGER,
    note         TEXT,
    details_json TEXT
);
CREATE INDEX audit_subject ON audit (subject_type, subject_id);

CREATE TRIGGER audit_refuses_update BEFORE UPDATE ON audit
BEGIN
    SELECT RAISE(ABORT, 'audit is append-only: UPDATE refused');
END;
CREATE TRIGGER audit_refuses_delete BEFORE DELETE ON audit
BEGIN
    SELECT RAISE(ABORT, 'audit is append-only: DELETE refused');
END;
