-- Schema 28: alerts (docs/admin/alerts.md). An alert is one stretch of time a rule held for one
-- subject (a connection, an API key, or '' for the office); at most one is open per rule and
-- subject. Its notices record what each channel was told, when, and what became of it: the
-- history the Alerts screen shows, and what decides the next reminder.

CREATE TABLE alert (
    id                   INTEGER PRIMARY KEY AUTOINCREMENT,
    rule                 TEXT    NOT NULL,
    subject              TEXT    NOT NULL DEFAULT '',
    fired_at             INTEGER NOT NULL,
    -- The figures that made it fire, as last seen (JSON object).
    facts                TEXT    NOT NULL DEFAULT '{}',
    repeated_at          INTEGER,
    resolved_at          INTEGER,
    acknowledged_at      INTEGER,
    acknowledged_by      TEXT,
    acknowledgement_note TEXT,
    CHECK ((acknowledged_at IS NULL) = (acknowledged_by IS NULL))
);
CREATE UNIQUE INDEX alert_open ON alert (rule, subject) WHERE resolved_at IS NULL;
CREATE INDEX alert_resolved ON alert (resolved_at) WHERE resolved_at IS NOT NULL;

CREATE TABLE alert_notice (
    id       INTEGER PRIMARY KEY AUTOINCREMENT,
    -- NULL for a test and for the daily summary.
    alert_id INTEGER REFERENCES alert (id),
    kind     TEXT    NOT NULL CHECK (kind IN ('fired', 'repeated', 'resolved', 'test', 'summary')),
    channel  TEXT    NOT NULL CHECK (channel IN ('email', 'webhook')),
    at       INTEGER NOT NULL,
    outcome  TEXT    NOT NULL CHECK (outcome IN ('sent', 'failed', 'quiet')),
    -- To whom, or why it failed (never a password or a secret).
    detail   TEXT,
    -- For the daily summary: the local day it covers (YYYY-MM-DD), so that it is sent once.
    day      TEXT
);
CREATE INDEX alert_notice_alert ON alert_notice (alert_id, channel, id);
CREATE INDEX alert_notice_summary ON alert_notice (day) WHERE kind = 'summary';
