-- Schema 24: who holds the database, recorded inside it.
--
-- Each process that writes the database (the engine, and the command-line tools that open it)
-- holds a lock on the file itself, which keeps a second process on the same computer off it
-- however it reached the file (a hard link, a bind mount). A second computer that reaches the
-- same file over a network file system may not see that lock; it sees this row instead: who
-- holds the database (process, host, the kernel's boot id, data directory, since when) and a
-- counter the holder moves on every few seconds. A row whose counter moves is a live holder, and
-- a second process refuses to start, naming it; a row released at a clean stop, or whose counter
-- stood still for several periods, is taken over.
--
-- One row at most (id = 1). `token` is new for each process, so a holder can tell whether the row
-- is still its own.
CREATE TABLE instance (
    id           INTEGER PRIMARY KEY CHECK (id = 1),
    token        TEXT    NOT NULL,
    pid          INTEGER NOT NULL,
    host         TEXT    NOT NULL,
    boot_id      TEXT    NOT NULL,
    data_dir     TEXT    NOT NULL,
    http_url     TEXT,
    started_at   INTEGER NOT NULL,
    beat         INTEGER NOT NULL DEFAULT 0,
    beat_at      INTEGER NOT NULL,
    released_at  INTEGER
);
