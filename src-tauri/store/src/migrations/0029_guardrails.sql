-- Schema 29: guarding the office's money (docs/admin/guardrails.md).

-- An API key may narrow where its messages and its one-time codes go (ISO 3166 codes separated by
-- spaces; NULL: as the office allows), and have its own spend limits (millionths of the office's
-- currency; NULL: none).
ALTER TABLE api_key ADD COLUMN countries TEXT;
ALTER TABLE api_key ADD COLUMN otp_countries TEXT;
ALTER TABLE api_key ADD COLUMN spend_day INTEGER;
ALTER TABLE api_key ADD COLUMN spend_month INTEGER;

-- What one part of a message costs on each connection its route may send it on, priced at intake
-- (millionths of the office's currency). The report's entry takes the price of the connection that
-- took (or last tried) the message, else of the one it was queued for: a message that moves to
-- another connection costs what that one charges, and a later change of prices does not rewrite
-- what was spent. No row: the connection has no price for that number.
CREATE TABLE message_price (
    message_id INTEGER NOT NULL REFERENCES message (id),
    connection TEXT    NOT NULL,
    price      INTEGER NOT NULL CHECK (price >= 0),
    PRIMARY KEY (message_id, connection)
) WITHOUT ROWID;

-- The typographic characters smart encoding replaced in a message's text ("at:char" pairs, the
-- positions in the text as handed in): with the text as sent, the text as handed in. Holds no
-- personal content (a redacted text restores nothing).
CREATE TABLE message_smart (
    message_id INTEGER PRIMARY KEY REFERENCES message (id),
    replaced   TEXT    NOT NULL
);

-- The estimated cost of each entry of the delivery report, and its sums: parts times the price
-- per part; nothing for a message refused, cancelled or expired before any SMSC took it.
ALTER TABLE report_entry ADD COLUMN cost INTEGER NOT NULL DEFAULT 0;
ALTER TABLE report_hour ADD COLUMN cost INTEGER NOT NULL DEFAULT 0;

-- Requests a guardrail refused or held, by hour, reason, country and who asked: the Guardrails
-- screen's counts. A refusal stores no message; this counts it.
CREATE TABLE guardrail_count (
    hour    INTEGER NOT NULL,
    reason  TEXT    NOT NULL CHECK (reason = 'country_not_allowed' OR reason = 'velocity_limit'
                        OR reason = 'spend_limit' OR reason = 'unusual_volume'),
    country TEXT    NOT NULL,
    sender  TEXT    NOT NULL,
    n       INTEGER NOT NULL,
    PRIMARY KEY (hour, reason, country, sender)
) WITHOUT ROWID;

-- The velocity limits and the anomaly count one-time codes by number, by prefix, by country and by
-- key over a window: a few index seeks among the codes only.
CREATE INDEX message_otp_destination ON message (destination, created_at) WHERE kind = 'otp';
CREATE INDEX message_otp_country ON message (country, created_at) WHERE kind = 'otp';
CREATE INDEX message_otp_key ON message (api_key_id, created_at) WHERE kind = 'otp' AND api_key_id IS NOT NULL;

-- exception: one-time codes held for an unusual surge to their country ('unusual_volume') ---------
CREATE TABLE exception_v29 (
    id               INTEGER PRIMARY KEY AUTOINCREMENT,
    kind             TEXT    NOT NULL CHECK (kind = 'conflicting_final' OR kind = 'uncorrelated'
                         OR kind = 'ambiguous' OR kind = 'unparseable' OR kind = 'outcome_unknown'
                         OR kind = 'no_receipt' OR kind = 'partly_sent' OR kind = 'status_unreadable'
                         OR kind = 'opted_out' OR kind = 'unusual_volume'),
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
INSERT INTO exception_v29 (id, kind, status, message_id, logical_event_id, summary, details_json, created_at,
    resolution, resolution_note, resolved_by, resolved_at)
SELECT id, kind, status, message_id, logical_event_id, summary, details_json, created_at,
    resolution, resolution_note, resolved_by, resolved_at
FROM exception ORDER BY id;
DROP TABLE exception;
ALTER TABLE exception_v29 RENAME TO exception;
CREATE UNIQUE INDEX exception_one_open_per_message_kind ON exception (message_id, kind)
    WHERE status = 'open' AND message_id IS NOT NULL;
CREATE INDEX exception_status ON exception (status, kind, created_at);
CREATE INDEX exception_message ON exception (message_id) WHERE message_id IS NOT NULL;
CREATE INDEX exception_event ON exception (logical_event_id) WHERE logical_event_id IS NOT NULL;
CREATE INDEX exception_status_id ON exception (status, id);
CREATE INDEX exception_kind_id ON exception (kind, id);
CREATE INDEX exception_status_kind_id ON exception (status, kind, id);
