-- Schema 30: smsdesk's own SMPP server (docs/integration/smpp-server.md).

-- An SMPP account is an API key with an SMPP password: its system_id is the key's name, and it has
-- the key's scopes, limits, guardrails and routes; its messages are its own. The password is an
-- argon2 hash, as the accounts' (SMPP limits it to 8 characters). NULL: an HTTP key only.
ALTER TABLE api_key ADD COLUMN smpp_password_hash TEXT;
-- Submits per second and requests awaiting their answer at most, for each of its sessions.
ALTER TABLE api_key ADD COLUMN smpp_tps INTEGER CHECK (smpp_tps > 0);
ALTER TABLE api_key ADD COLUMN smpp_window INTEGER CHECK (smpp_window > 0);
-- The kinds it may send, separated by spaces; the first is what a submit without a service_type
-- is sent as.
ALTER TABLE api_key ADD COLUMN smpp_kinds TEXT;
-- A system_id names one live SMPP account.
CREATE UNIQUE INDEX api_key_smpp_name ON api_key (name)
    WHERE smpp_password_hash IS NOT NULL AND revoked_at IS NULL;

-- A message handed in over SMPP, and the receipt its client asked for (registered_delivery's
-- low bits: 0 none, 1 the final outcome, 2 a failure only, 3 a success only). Written with the
-- message, before the client is answered.
CREATE TABLE smpp_message (
    message_id INTEGER PRIMARY KEY REFERENCES message (id),
    api_key_id INTEGER NOT NULL REFERENCES api_key (id),
    receipt    INTEGER NOT NULL CHECK (receipt BETWEEN 0 AND 3)
);

-- What smsdesk owes an SMPP client: a receipt of one of its messages (its stat, in SMPP's words),
-- or a reply from a handset. Written in the transaction of the change it tells of; sent as a
-- deliver_sm while the client is bound, until the client answers it; kept after, as evidence.
CREATE TABLE smpp_outbox (
    id               INTEGER PRIMARY KEY AUTOINCREMENT,
    api_key_id       INTEGER NOT NULL REFERENCES api_key (id),
    message_id       INTEGER REFERENCES message (id),
    inbox_message_id INTEGER REFERENCES inbox_message (id),
    stat             TEXT    CHECK (stat IN ('DELIVRD', 'EXPIRED', 'DELETED', 'UNDELIV', 'REJECTD', 'UNKNOWN')),
    -- The state the receipt reports, as SMPP's message_state (2 delivered ... 8 rejected).
    message_state    INTEGER,
    created_at       INTEGER NOT NULL,
    attempts         INTEGER NOT NULL DEFAULT 0,
    delivered_at     INTEGER,
    CHECK ((message_id IS NULL) <> (inbox_message_id IS NULL)),
    CHECK ((message_id IS NULL) = (stat IS NULL))
);
-- One receipt per message: the first final outcome.
CREATE UNIQUE INDEX smpp_outbox_receipt ON smpp_outbox (message_id) WHERE message_id IS NOT NULL;
CREATE INDEX smpp_outbox_due ON smpp_outbox (api_key_id, id) WHERE delivered_at IS NULL;

-- A message that ends in the queue without reaching the network (refused by the SMSC, its
-- validity over, cancelled) gets its receipt here; one the network reports on gets it when its
-- state is computed (store: tables::smpp_outbox).
CREATE TRIGGER smpp_receipt_on_queue_end AFTER UPDATE OF status ON queue
WHEN OLD.status IS NOT NEW.status AND NEW.status IN ('failed', 'expired', 'cancelled')
BEGIN
    INSERT OR IGNORE INTO smpp_outbox (api_key_id, message_id, stat, message_state, created_at)
    SELECT s.api_key_id, s.message_id,
           CASE NEW.status WHEN 'failed' THEN 'REJECTD' WHEN 'expired' THEN 'EXPIRED' ELSE 'DELETED' END,
           CASE NEW.status WHEN 'failed' THEN 8 WHEN 'expired' THEN 3 ELSE 4 END,
           NEW.updated_at
    FROM smpp_message s
    WHERE s.message_id = NEW.message_id AND s.receipt IN (1, 2);
END;
