-- Schema 31: the nodes that share one database (see the SQLite migration of the same number).
CREATE TABLE node (
    name        TEXT COLLATE "C" PRIMARY KEY,
    token       TEXT COLLATE "C" NOT NULL,
    pid         BIGINT NOT NULL,
    host        TEXT COLLATE "C" NOT NULL,
    boot_id     TEXT COLLATE "C" NOT NULL,
    data_dir    TEXT COLLATE "C" NOT NULL,
    version     TEXT COLLATE "C" NOT NULL,
    http_url    TEXT COLLATE "C",
    started_at  BIGINT NOT NULL,
    beat_at     BIGINT NOT NULL,
    stopped_at  BIGINT,
    runs        TEXT COLLATE "C" NOT NULL DEFAULT '[]'
);

-- A node records, beats and stops itself; no node removes another's row.
GRANT SELECT, INSERT, UPDATE ON TABLE node TO smsdesk_app;
