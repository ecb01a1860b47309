-- smsdesk schema, version 9: the evidence says what happened at the edges.
--
-- - A report read off an SMPP session records its position among the reports of that session
--   (`arrival_no`, from 1). Reports of one session are stored, and applied, in that order.
-- - A receipt records where its message id came from (`id_source`: the receipted_message_id TLV,
--   the receipt text, or an HTTP provider's field), since each place may write ids in a format of
--   its own, and whether its status word could not be read (`status_unreadable`: then UNKNOWN is
--   the parser's word for it, not the network's).
-- - A try records the receipt it asked for (`registered_delivery`), and a try that never reached
--   the wire is recorded as such (`not_sent`): it is not a try, and the charts do not count it.
-- - The queue row keeps when the message stops being worth sending (`expires_at`: its validity;
--   for a one-time code queued before this version without one, five minutes after it was
--   created, the default), so that expiring on time reads only queued messages; and where its
--   current round of sending starts (`round_from`: tries after that attempt id count, so a long
--   message never sends an accepted part again unless a person resends it whole).
-- - Exceptions gain two kinds: a long message partly sent, and a receipt whose status cannot be
--   read. Projections gain the state of a long message some of whose parts were reported
--   delivered and others not.
-- - A receipt that matches no message waits a while before it opens an exception
--   (`uncorrelated_wait`): one that arrived before its submit's answer is matched meanwhile.
-- - Each connection's id rules in force are kept (`connection_rules`), so that stored ids are
--   re-keyed when the rules change.
-- - The projections of messages sent in parts are rebuilt from their evidence by the next start
--   (`rebuild_wanted`): version 2 of the rules rolls their parts up.
-- - A long message that an earlier version marked accepted once its first part was, with parts
--   never sent, is held for a person (those parts would now go out too late to be joined).
--
-- Rebuilt tables keep their rows, ids, indexes and triggers; foreign key enforcement is off
-- during the migration and `PRAGMA foreign_key_check` runs before it commits. Triggers of other
-- tables name the rebuilt ones; the legacy rename leaves those names as they are, and they name
-- the new tables once the renames are done.
PRAGMA legacy_alter_table = ON;

-- receipt ---------------------------------------------------------------------------------------
ALTER TABLE receipt ADD COLUMN arrival_no INTEGER;
ALTER TABLE receipt ADD COLUMN id_source TEXT CHECK (id_source = 'tlv' OR id_source = 'text' OR id_source = 'http');
ALTER TABLE receipt ADD COLUMN status_unreadable INTEGER NOT NULL DEFAULT 0
    CHECK (status_unreadable = 0 OR status_unreadable = 1);

-- attempt ---------------------------------------------------------------------------------------
CREATE TABLE attempt_v9 (
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
    provider_message_id TEXT,
    provider_id_norm    TEXT,
    outcome             TEXT    NOT NULL CHECK (outcome = 'pending' OR outcome = 'accepted' OR outcome = 'temporary'
                            OR outcome = 'throttled' OR outcome = 'permanent' OR outcome = 'timeout'
                            OR outcome = 'link_lost' OR outcome = 'not_sent'),
    error               TEXT,
    registered_delivery INTEGER,
    UNIQUE (message_id, attempt_no, segment_no)
);
INSERT INTO attempt_v9 (id, message_id, attempt_no, segment_no, connection, session_id, sequence_number,
    created_at, sent_at, responded_at, command_status, provider_message_id, provider_id_norm, outcome, error,
    registered_delivery)
SELECT a.id, a.message_id, a.attempt_no, a.segment_no, a.connection, a.session_id, a.sequence_number,
    a.created_at, a.sent_at, a.responded_at, a.command_status, a.provider_message_id, a.provider_id_norm,
    a.outcome, a.error, m.registered_delivery
FROM attempt a JOIN message m ON m.id = a.message_id ORDER BY a.id;
DROP TABLE attempt;
ALTER TABLE attempt_v9 RENAME TO attempt;

CREATE INDEX attempt_provider_id ON attempt (connection, provider_id_norm, message_id)
    WHERE provider_id_norm IS NOT NULL;
CREATE INDEX attempt_pending ON attempt (outcome) WHERE outcome = 'pending';

-- The charts count tries by what they came to; a try never written is not one.
CREATE TRIGGER activity_attempt_insert AFTER INSERT ON attempt
WHEN NEW.outcome <> 'pending' AND NEW.outcome <> 'not_sent'
BEGIN
    INSERT INTO activity_count (grain, bucket, metric, n)
    SELECT g.grain, NEW.created_at - NEW.created_at % g.grain,
           CASE WHEN NEW.outcome = 'accepted' THEN 'accepted'
                WHEN (NEW.outcome = 'temporary' OR NEW.outcome = 'throttled' OR NEW.outcome = 'permanent') THEN 'refused'
                ELSE 'unknown' END,
           1
    FROM activity_grain g
    WHERE true
    ON CONFLICT (grain, bucket, metric) DO UPDATE SET n = n + excluded.n;
END;

CREATE TRIGGER activity_attempt_outcome AFTER UPDATE OF outcome ON attempt
WHEN OLD.outcome IS NOT NEW.outcome
BEGIN
    INSERT INTO activity_count (grain, bucket, metric, n)
    SELECT g.grain, OLD.created_at - OLD.created_at % g.grain,
           CASE WHEN OLD.outcome = 'accepted' THEN 'accepted'
                WHEN (OLD.outcome = 'temporary' OR OLD.outcome = 'throttled' OR OLD.outcome = 'permanent') THEN 'refused'
                ELSE 'unknown' END,
           -1
    FROM activity_grain g
    WHERE OLD.outcome <> 'pending' AND OLD.outcome <> 'not_sent'
    ON CONFLICT (grain, bucket, metric) DO UPDATE SET n = n + excluded.n;
    INSERT INTO activity_count (grain, bucket, metric, n)
    SELECT g.grain, OLD.created_at - OLD.created_at % g.grain,
           CASE WHEN NEW.outcome = 'accepted' THEN 'accepted'
                WHEN (NEW.outcome = 'temporary' OR NEW.outcome = 'throttled' OR NEW.outcome = 'permanent') THEN 'refused'
                ELSE 'unknown' END,
           1
    FROM activity_grain g
    WHERE NEW.outcome <> 'pending' AND NEW.outcome <> 'not_sent'
    ON CONFLICT (grain, bucket, metric) DO UPDATE SET n = n + excluded.n;
END;

-- queue -----------------------------------------------------------------------------------------
ALTER TABLE queue ADD COLUMN expires_at INTEGER;
ALTER TABLE queue ADD COLUMN round_from INTEGER;
UPDATE queue SET expires_at = (
    SELECT coalesce(m.valid_until, CASE WHEN m.kind = 'otp' THEN m.created_at + 300000 END)
    FROM message m WHERE m.id = queue.message_id
);
CREATE INDEX queue_expiry ON queue (expires_at) WHERE status = 'queued' AND expires_at IS NOT NULL;

-- exception -------------------------------------------------------------------------------------
CREATE TABLE exception_v9 (
    id               INTEGER PRIMARY KEY AUTOINCREMENT,
    kind             TEXT    NOT NULL CHECK (kind = 'conflicting_final' OR kind = 'uncorrelated'
                         OR kind = 'ambiguous' OR kind = 'unparseable' OR kind = 'outcome_unknown'
                         OR kind = 'no_receipt' OR kind = 'partly_sent' OR kind = 'status_unreadable'),
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
INSERT INTO exception_v9 (id, kind, status, message_id, logical_event_id, summary, details_json, created_at,
    resolution, resolution_note, resolved_by, resolved_at)
SELECT id, kind, status, message_id, logical_event_id, summary, details_json, created_at,
    resolution, resolution_note, resolved_by, resolved_at
FROM exception ORDER BY id;
DROP TABLE exception;
ALTER TABLE exception_v9 RENAME TO exception;

CREATE UNIQUE INDEX exception_one_open_per_message_kind ON exception (message_id, kind)
    WHERE status = 'open' AND message_id IS NOT NULL;
CREATE INDEX exception_status ON exception (status, kind, created_at);
CREATE INDEX exception_message ON exception (message_id) WHERE message_id IS NOT NULL;
CREATE INDEX exception_event ON exception (logical_event_id) WHERE logical_event_id IS NOT NULL;
CREATE INDEX exception_status_id ON exception (status, id);
CREATE INDEX exception_kind_id ON exception (kind, id);
CREATE INDEX exception_status_kind_id ON exception (status, kind, id);

-- projection ------------------------------------------------------------------------------------
CREATE TABLE projection_v9 (
    message_id       INTEGER PRIMARY KEY REFERENCES message (id),
    state            TEXT    NOT NULL CHECK (state = 'pending' OR state = 'scheduled' OR state = 'enroute'
                         OR state = 'accepted' OR state = 'delivered' OR state = 'expired' OR state = 'deleted'
                         OR state = 'undeliverable' OR state = 'rejected' OR state = 'unknown'
                         OR state = 'skipped' OR state = 'partially_delivered'),
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
INSERT INTO projection_v9 (message_id, state, rule, supporting_json, flag_late, flag_conflict, flag_no_receipt,
    flag_mismatch, flag_id_disagree, fold_json, rules_version, updated_at)
SELECT message_id, state, rule, supporting_json, flag_late, flag_conflict, flag_no_receipt,
    flag_mismatch, flag_id_disagree, fold_json, rules_version, updated_at
FROM projection ORDER BY message_id;
DROP TABLE projection;
ALTER TABLE projection_v9 RENAME TO projection;

CREATE INDEX projection_state ON projection (state, message_id);
CREATE TRIGGER view_count_projection_delete AFTER DELETE ON projection
BEGIN
    UPDATE view_count SET n = n - 1 WHERE scope = 'projection' AND value = OLD.state;
END;

-- The outcomes chart counts a long message whose parts all have their finals like a message whose
-- first final came (`parts_final`): delivered only when every part is.
DROP TRIGGER activity_outcome_queue_insert;
DROP TRIGGER activity_outcome_queue_update;
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

-- connection_rules ------------------------------------------------------------------------------
CREATE TABLE connection_rules (
    connection TEXT    PRIMARY KEY,
    -- The id rules the stored keys of this connection's tries and receipts were made by.
    id_rules   TEXT    NOT NULL,
    updated_at INTEGER NOT NULL
) WITHOUT ROWID;

-- uncorrelated_wait ------------------------------------------------------------------------------
-- Receipts that matched no message and wait a while before an exception opens: a submit on their
-- connection may still bring their id. A work list, not evidence: rows leave it when the receipt
-- is matched or its exception opens.
CREATE TABLE uncorrelated_wait (
    logical_event_id INTEGER PRIMARY KEY REFERENCES logical_event (id),
    connection       TEXT    NOT NULL,
    received_at      INTEGER NOT NULL
);

-- rebuild_wanted --------------------------------------------------------------------------------
-- Projections computed by earlier rules that version 2 of the rules computes otherwise: those of
-- messages sent in parts. A work list the engine empties at its next start, rebuilding each from
-- its evidence.
CREATE TABLE rebuild_wanted (message_id INTEGER PRIMARY KEY REFERENCES message (id));
INSERT INTO rebuild_wanted (message_id)
SELECT p.message_id FROM projection p JOIN message m ON m.id = p.message_id WHERE m.segments > 1;

-- Long messages marked accepted after their first part ------------------------------------------
INSERT INTO exception (kind, status, message_id, summary, created_at)
SELECT 'partly_sent', 'open', q.message_id,
       'Only ' || (SELECT count(DISTINCT a.segment_no) FROM attempt a
                   WHERE a.message_id = q.message_id AND a.outcome = 'accepted')
       || ' of ' || m.segments || ' parts were accepted; the others were never sent (found when upgrading). '
       || 'Resend what was not accepted, or mark failed.',
       CAST(strftime('%s', 'now') AS INTEGER) * 1000
FROM queue q JOIN message m ON m.id = q.message_id
WHERE q.status = 'accepted' AND m.segments > 1
  AND (SELECT count(DISTINCT a.segment_no) FROM attempt a
       WHERE a.message_id = q.message_id AND a.outcome = 'accepted') < m.segments
  AND NOT EXISTS (SELECT 1 FROM attempt a WHERE a.message_id = q.message_id AND a.outcome = 'pending');
UPDATE queue SET status = 'outcome_unknown',
    last_error = 'only some parts were accepted; the others were never sent'
WHERE message_id IN (SELECT message_id FROM exception WHERE kind = 'partly_sent' AND status = 'open');

PRAGMA legacy_alter_table = OFF;
