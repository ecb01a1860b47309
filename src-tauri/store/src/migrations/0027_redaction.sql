-- Schema 27: personal content that does not outstay its purpose (docs/admin/personal-data.md).
--
-- A message, a receipt, a reply and an audit line hold facts (ids, times, statuses, parts,
-- encoding, connection, decisions) and personal content (the number, the text, the receipt's
-- echo of the text and the raw bytes that carry them). Redaction keeps the facts and replaces the
-- content: a text by '' and a number by its keyed hash (`h:` then 32 hexadecimal digits, an
-- HMAC-SHA-256 under a key derived from the data directory's secret.key, never stored here), so
-- that a number someone types can still be looked up but cannot be read back. Each redacted row
-- points at the tombstone saying what removed its content, when and by which rule or person.
CREATE TABLE redaction (
    id    INTEGER PRIMARY KEY,
    at    INTEGER NOT NULL,
    rule  TEXT    NOT NULL CHECK (rule = 'text_days' OR rule = 'destination_days' OR rule = 'replies_days'
                      OR rule = 'audit_days' OR rule = 'erasure' OR rule = 'code_echo'),
    actor TEXT    NOT NULL,
    -- What the run removed, as counts (JSON), written when it ends; never a number or a text.
    summary_json TEXT
);

-- The one tombstone of every receipt that echoed a one-time code: such a receipt's content is
-- removed in the transaction that ties it to its code, so the code never reaches the WAL.
INSERT INTO redaction (at, rule, actor) VALUES (0, 'code_echo', 'smsdesk');

ALTER TABLE message ADD COLUMN text_redaction INTEGER REFERENCES redaction (id);
ALTER TABLE message ADD COLUMN number_redaction INTEGER REFERENCES redaction (id);
-- A one-time code's text, sealed under a key only the running engine holds, while it may still
-- be sent; `body` holds it masked. Dropped ('') as soon as the message is done with; NULL for a
-- message never sealed.
ALTER TABLE message ADD COLUMN sealed TEXT;
-- The codes still sealed: few at any time, found without reading every message.
CREATE INDEX message_sealed ON message (id) WHERE sealed <> '';
ALTER TABLE receipt ADD COLUMN redaction INTEGER REFERENCES redaction (id);
-- What comparing a redacted receipt's handset and text echo with its message found just before
-- they were removed (1 agrees, 0 differs, NULL could not tell): the mismatch flag a rebuild
-- computes from the redacted evidence stays the one computed from the whole.
ALTER TABLE receipt ADD COLUMN handset_fit INTEGER;
ALTER TABLE receipt ADD COLUMN echo_fit INTEGER;
ALTER TABLE inbound_message ADD COLUMN redaction INTEGER REFERENCES redaction (id);
ALTER TABLE inbox_message ADD COLUMN redaction INTEGER REFERENCES redaction (id);
ALTER TABLE opt_out ADD COLUMN redaction INTEGER REFERENCES redaction (id);
ALTER TABLE audit ADD COLUMN redaction INTEGER REFERENCES redaction (id);
-- The answer kept for an idempotency key repeats the destination: hashed with the messages'.
ALTER TABLE idempotency ADD COLUMN redaction INTEGER REFERENCES redaction (id);

-- The retention run finds what is due by age, oldest first, among what is not redacted yet.
CREATE INDEX message_text_kept ON message (kind, created_at) WHERE text_redaction IS NULL;
CREATE INDEX message_number_kept ON message (created_at) WHERE number_redaction IS NULL;
CREATE INDEX idempotency_kept ON idempotency (created_at) WHERE redaction IS NULL;
CREATE INDEX inbox_message_kept ON inbox_message (received_at) WHERE redaction IS NULL;
CREATE INDEX inbox_message_handset ON inbox_message (handset);
CREATE INDEX inbound_message_kept ON inbound_message (received_at) WHERE redaction IS NULL;
CREATE INDEX audit_kept ON audit (at) WHERE redaction IS NULL AND (note IS NOT NULL OR details_json IS NOT NULL);
CREATE INDEX inbound_message_source ON inbound_message (source_addr);

-- Rows stay immutable but for the redaction of their content, once, to the tombstone's shape.
DROP TRIGGER message_is_immutable;
CREATE TRIGGER message_is_immutable BEFORE UPDATE ON message
WHEN NOT (
    NEW.id IS OLD.id AND NEW.created_at IS OLD.created_at AND NEW.channel IS OLD.channel
    AND NEW.idempotency_scope IS OLD.idempotency_scope AND NEW.idempotency_key IS OLD.idempotency_key
    AND NEW.request_hash IS OLD.request_hash AND NEW.client_ref IS OLD.client_ref
    AND NEW.source_raw IS OLD.source_raw AND NEW.source_addr IS OLD.source_addr
    AND NEW.source_ton IS OLD.source_ton AND NEW.source_npi IS OLD.source_npi
    AND NEW.dest_ton IS OLD.dest_ton AND NEW.dest_npi IS OLD.dest_npi AND NEW.encoding IS OLD.encoding
    AND NEW.segments IS OLD.segments AND NEW.kind IS OLD.kind AND NEW.priority IS OLD.priority
    AND NEW.ordering_key IS OLD.ordering_key AND NEW.valid_until IS OLD.valid_until
    AND NEW.scheduled_at IS OLD.scheduled_at AND NEW.registered_delivery IS OLD.registered_delivery
    AND NEW.connection IS OLD.connection AND NEW.api_key_id IS OLD.api_key_id
    AND NEW.submitted_by IS OLD.submitted_by
    -- A message from before schema 26 gets the country read from its number as the number goes.
    AND (NEW.country IS OLD.country
         OR (OLD.country IS NULL AND OLD.number_redaction IS NULL AND NEW.number_redaction IS NOT NULL))
    AND ((NEW.body IS OLD.body AND NEW.text_redaction IS OLD.text_redaction)
         OR (OLD.text_redaction IS NULL AND NEW.text_redaction IS NOT NULL AND NEW.body = ''))
    AND ((NEW.destination IS OLD.destination AND NEW.destination_raw IS OLD.destination_raw
          AND NEW.number_redaction IS OLD.number_redaction)
         OR (OLD.number_redaction IS NULL AND NEW.number_redaction IS NOT NULL
             AND NEW.destination LIKE 'h:%' AND NEW.destination_raw = NEW.destination))
    AND (NEW.sealed IS OLD.sealed OR NEW.sealed = '')
)
BEGIN
    SELECT RAISE(ABORT, 'message rows are immutable (but for the redaction of their personal content)');
END;

-- The search index follows a redacted text (it held the words; FTS5's secure-delete removes them
-- from its pages rather than marking them deleted).
INSERT INTO message_fts (message_fts, rank) VALUES ('secure-delete', 1);
CREATE TRIGGER message_fts_redact AFTER UPDATE OF body ON message
WHEN OLD.id <= (SELECT upto FROM search_indexed WHERE id = 1)
BEGIN
    INSERT INTO message_fts (message_fts, rowid, body, client_ref) VALUES ('delete', OLD.id, OLD.body, OLD.client_ref);
    INSERT INTO message_fts (rowid, body, client_ref) VALUES (NEW.id, NEW.body, NEW.client_ref);
END;

-- A sealed code is dropped the moment its message is cancelled or expired. One sent, failed, or
-- whose outcome is unknown keeps it while a person may still send it again within its validity
-- (the customer says the code never came); the validity sweep drops it once that has ended
-- (`queue::drop_spent_seals`).
CREATE TRIGGER message_sealed_dropped AFTER UPDATE OF status ON queue
WHEN NEW.status = 'cancelled' OR NEW.status = 'expired'
BEGIN
    UPDATE message SET sealed = '' WHERE id = NEW.message_id AND sealed <> '';
END;

DROP TRIGGER receipt_refuses_update;
CREATE TRIGGER receipt_refuses_update BEFORE UPDATE ON receipt
WHEN NOT (
    NEW.redaction IS NOT NULL AND (OLD.redaction IS NULL OR NEW.redaction = OLD.redaction)
    AND NEW.id IS OLD.id AND NEW.received_at IS OLD.received_at AND NEW.source IS OLD.source
    AND NEW.connection IS OLD.connection AND NEW.session_id IS OLD.session_id
    AND NEW.sequence_number IS OLD.sequence_number AND NEW.provider IS OLD.provider
    AND NEW.part IS OLD.part AND NEW.parts IS OLD.parts AND NEW.esm_class IS OLD.esm_class
    AND NEW.data_coding IS OLD.data_coding AND NEW.kind IS OLD.kind
    AND NEW.parser_version IS OLD.parser_version AND NEW.parse_error IS OLD.parse_error
    AND NEW.message_id_raw IS OLD.message_id_raw AND NEW.text_id IS OLD.text_id
    AND NEW.event_id IS OLD.event_id AND NEW.stat IS OLD.stat AND NEW.stat_raw IS OLD.stat_raw
    AND NEW.err IS OLD.err AND NEW.sub IS OLD.sub AND NEW.dlvrd IS OLD.dlvrd
    AND NEW.submit_date IS OLD.submit_date AND NEW.done_date IS OLD.done_date
    AND NEW.submit_ts IS OLD.submit_ts AND NEW.done_ts IS OLD.done_ts
    AND NEW.message_state IS OLD.message_state AND NEW.network_error_code IS OLD.network_error_code
    AND NEW.arrival_no IS OLD.arrival_no AND NEW.id_source IS OLD.id_source
    AND NEW.status_unreadable IS OLD.status_unreadable AND NEW.source_ton IS OLD.source_ton
)
BEGIN
    SELECT RAISE(ABORT, 'receipt is append-only evidence: UPDATE refused (but for redaction)');
END;

DROP TRIGGER audit_refuses_update;
CREATE TRIGGER audit_refuses_update BEFORE UPDATE ON audit
WHEN NOT (
    NEW.redaction IS NOT NULL
    AND NEW.id IS OLD.id AND NEW.at IS OLD.at AND NEW.action IS OLD.action
    AND NEW.subject_type IS OLD.subject_type AND NEW.subject_id IS OLD.subject_id
)
BEGIN
    SELECT RAISE(ABORT, 'audit is append-only: UPDATE refused (but for redaction)');
END;
