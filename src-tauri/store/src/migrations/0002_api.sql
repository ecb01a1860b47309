-- smsdesk schema, version 2: the HTTP API's keys and idempotency records, and status webhooks.

-- A key that integrations (a website, a CRM, a browser) present as `Authorization: Bearer <key>`.
-- Only a SHA-256 of the key is kept: the key itself is shown once, when created.
CREATE TABLE api_key (
    id             INTEGER PRIMARY KEY AUTOINCREMENT,
    name           TEXT    NOT NULL CHECK (length(trim(name)) > 0),
    -- The key's first characters, so people can tell keys apart in a list.
    prefix         TEXT    NOT NULL,
    hash           TEXT    NOT NULL UNIQUE,
    created_at     INTEGER NOT NULL,
    created_by     TEXT    NOT NULL,
    revoked_at     INTEGER,
    revoked_by     TEXT,
    -- Where to POST status changes of the messages sent with this key, and the secret that signs
    -- them (kept as is: it is needed to sign).
    webhook_url    TEXT,
    webhook_secret TEXT,
    CHECK ((webhook_url IS NULL) = (webhook_secret IS NULL))
);

-- The answer given to the first request with an Idempotency-Key, replayed to any repeat with the
-- same body. The scope is whoever sent it ('key:<api key id>' or 'operator').
CREATE TABLE idempotency (
    scope         TEXT    NOT NULL,
    key           TEXT    NOT NULL,
    request_hash  TEXT    NOT NULL,
    route         TEXT    NOT NULL,
    status        INTEGER NOT NULL,
    response_json TEXT    NOT NULL,
    created_at    INTEGER NOT NULL,
    PRIMARY KEY (scope, key)
);

-- Which API key handed a message in (NULL for the UI, CSV import and the command line).
ALTER TABLE message ADD COLUMN api_key_id INTEGER REFERENCES api_key (id);

-- A status notification owed to an API key's webhook: written in the same transaction as the
-- change it announces (by the triggers below), so none is lost to a crash.
CREATE TABLE webhook_delivery (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    api_key_id      INTEGER NOT NULL REFERENCES api_key (id),
    message_id      INTEGER NOT NULL REFERENCES message (id),
    -- What changed: the queue status ('status') or the state receipts reported ('state').
    field           TEXT    NOT NULL CHECK (field IN ('status', 'state')),
    value           TEXT    NOT NULL,
    created_at      INTEGER NOT NULL,
    status          TEXT    NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed')),
    attempts        INTEGER NOT NULL DEFAULT 0,
    next_attempt_at INTEGER NOT NULL,
    last_error      TEXT,
    delivered_at    INTEGER
);
CREATE INDEX webhook_delivery_due ON webhook_delivery (next_attempt_at, id) WHERE status = 'pending';
CREATE INDEX webhook_delivery_message ON webhook_delivery (message_id);

-- Every POST made for a delivery, with what came back.
CREATE TABLE webhook_attempt (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    delivery_id  INTEGER NOT NULL REFERENCES webhook_delivery (id),
    at           INTEGER NOT NULL,
    url          TEXT    NOT NULL,
    http_status  INTEGER,
    error        TEXT,
    duration_ms  INTEGER NOT NULL
);
CREATE INDEX webhook_attempt_delivery ON webhook_attempt (delivery_id);

CREATE TRIGGER webhook_on_queue_status AFTER UPDATE OF status ON queue
WHEN OLD.status IS NOT NEW.status AND NEW.status <> 'sending'
BEGIN
    INSERT INTO webhook_delivery (api_key_id, message_id, field, value, created_at, next_attempt_at)
    SELECT k.id, m.id, 'status', NEW.status, NEW.updated_at, NEW.updated_at
    FROM message m JOIN api_key k ON k.id = m.api_key_id
    WHERE m.id = NEW.message_id AND k.webhook_url IS NOT NULL AND k.revoked_at IS NULL;
END;

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

-- Queue order is now kind first, then each message's own priority (0-9, 5 when none was asked):
-- messages queued before this version keep their place.
UPDATE queue SET priority = priority * 10 + 5;
