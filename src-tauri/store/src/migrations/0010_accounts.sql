-- smsdesk schema, version 10: people's accounts and their browser sessions; API keys get scopes
-- and limits.

-- A person who signs in from a browser. The password is kept as an argon2id hash (PHC string);
-- accounts are disabled, never deleted, so the audit log's names keep meaning someone.
CREATE TABLE account (
    id             INTEGER PRIMARY KEY AUTOINCREMENT,
    name           TEXT    NOT NULL UNIQUE COLLATE NOCASE CHECK (length(trim(name)) > 0),
    role           TEXT    NOT NULL CHECK (role IN ('admin', 'operator', 'viewer')),
    password_hash  TEXT    NOT NULL,
    created_at     INTEGER NOT NULL,
    created_by     TEXT    NOT NULL,
    disabled_at    INTEGER,
    last_sign_in   INTEGER
);

-- A signed-in browser. Only the SHA-256 of its cookie is kept. It ends at `expires_at` at the
-- latest, earlier when unused for the idle lifetime, or when revoked (sign-out, an admin, or the
-- account disabled or its password changed).
CREATE TABLE session (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    account_id   INTEGER NOT NULL REFERENCES account (id),
    token_hash   TEXT    NOT NULL UNIQUE,
    created_at   INTEGER NOT NULL,
    last_seen_at INTEGER NOT NULL,
    expires_at   INTEGER NOT NULL,
    address      TEXT    NOT NULL,
    user_agent   TEXT    NOT NULL,
    revoked_at   INTEGER,
    revoked_by   TEXT
);
CREATE INDEX session_live ON session (account_id) WHERE revoked_at IS NULL;

-- What a key may do. Keys made before scopes existed could do everything an operator could; they
-- keep only what a website needs (send, and read what it sent): give an integration more by making
-- a key with the scopes it needs.
ALTER TABLE api_key ADD COLUMN scopes TEXT NOT NULL DEFAULT 'send read:own';
-- Optional limits: messages per minute and per day, and the destination prefixes it may use
-- (space-separated E.164 prefixes; any when NULL).
ALTER TABLE api_key ADD COLUMN per_minute INTEGER CHECK (per_minute > 0);
ALTER TABLE api_key ADD COLUMN per_day INTEGER CHECK (per_day > 0);
ALTER TABLE api_key ADD COLUMN destination_prefixes TEXT;

-- A key's own messages, newest first (what a `read:own` key lists), and how many it handed in
-- lately (its limits).
CREATE INDEX message_api_key ON message (api_key_id, id) WHERE api_key_id IS NOT NULL;
