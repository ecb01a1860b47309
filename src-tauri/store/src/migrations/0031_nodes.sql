-- Schema 31: the nodes that share one database.
--
-- On PostgreSQL any number of `smsdesk serve` processes (nodes) send from one queue. Each records
-- itself here when it starts and moves `beat_at` on every few seconds, by the database's own
-- clock, so that no node judges another by a clock of its own. A node whose `beat_at` stood still
-- longer than the agreed staleness is dead: its leases (the `sending` rows of `queue` whose
-- `lease_owner` is its name) are settled by a live node as after a crash, and the connections it
-- ran move to the live ones. `runs` is what it runs now, as JSON: per connection, its binds bound
-- and the submits accepted per second. A clean stop sets `stopped_at`.
--
-- On SQLite the one process records itself too, so that `smsdesk nodes` reads the same on both.
CREATE TABLE node (
    name        TEXT    PRIMARY KEY,
    token       TEXT    NOT NULL,
    pid         INTEGER NOT NULL,
    host        TEXT    NOT NULL,
    boot_id     TEXT    NOT NULL,
    data_dir    TEXT    NOT NULL,
    version     TEXT    NOT NULL,
    http_url    TEXT,
    started_at  INTEGER NOT NULL,
    beat_at     INTEGER NOT NULL,
    stopped_at  INTEGER,
    runs        TEXT    NOT NULL DEFAULT '[]'
);
