-- Message templates the office shares: a name, and a text whose `{placeholders}` are filled in
-- when it is used (by hand in compose, from a CSV file's columns on import). A template is only
-- a starting point for a text: a message keeps the text it was sent with, whatever becomes of
-- the template later, so templates may be deleted outright (the audit log keeps who did).
CREATE TABLE message_template (
    id          INTEGER PRIMARY KEY,
    name        TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
    body        TEXT NOT NULL CHECK (length(body) >= 1),
    created_at  INTEGER NOT NULL,
    created_by  TEXT NOT NULL
);

-- Names are unique whatever their case, so that the picker never shows two alike.
CREATE UNIQUE INDEX message_template_name ON message_template (name COLLATE NOCASE);
