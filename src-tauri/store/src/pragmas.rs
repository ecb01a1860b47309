//! Connection settings, set in this one place and read back (SQLite ignores a misspelt pragma
//! silently, so `verify` checks that each one took).

use rusqlite::config::DbConfig;
use rusqlite::Connection;

use super::StoreError;

/// How long a connection waits for a lock before giving up with SQLITE_BUSY.
pub const BUSY_TIMEOUT_MS: u32 = 5_000;

/// How much of the database file connections may map into memory.
pub const MMAP_BYTES: i64 = 1 << 30;

/// The size of a new database's pages. SQLite writes a whole page to the WAL for every page a
/// commit changes, however little of it changed: a message handed in alone touches a page of
/// each of some twenty b-trees. Measured against SQLite's 4,096 (docs/benchmarks.md): one per
/// request, a third fewer bytes written per message and 7 % more messages/s; batches, a fifth
/// fewer bytes at the same rate. 1,024 wrote fewer bytes still but cost batches 16 % of their rate.
/// A database created with other pages keeps them.
pub const PAGE_BYTES: i64 = 2_048;

/// Which side of the store a connection serves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// The single writer: owns journal mode and durability.
    Writer,
    /// A read connection.
    Reader,
}

/// The settings in force on a connection, as SQLite reports them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pragmas {
    pub journal_mode: String,
    /// 0 OFF, 1 NORMAL, 2 FULL, 3 EXTRA.
    pub synchronous: i64,
    pub foreign_keys: bool,
    pub busy_timeout_ms: i64,
    /// The query planner stability guarantee: a statement's plan never depends on the values
    /// bound to it.
    pub stable_plans: bool,
}

/// Applies the project's settings to a fresh connection.
///
/// WAL lets readers work while the writer commits. synchronous=FULL makes every commit survive a
/// power cut: what we acknowledge must not be lost, and the writer's group commit keeps the cost low.
pub fn apply(conn: &Connection, role: Role) -> Result<(), StoreError> {
    conn.busy_timeout(std::time::Duration::from_millis(BUSY_TIMEOUT_MS.into()))?;
    // Every hot statement stays prepared (rusqlite keeps 16 by default, fewer than one receipt uses).
    conn.set_prepared_statement_cache_capacity(256);
    conn.pragma_update(None, "foreign_keys", true)?;
    if role == Role::Writer {
        conn.pragma_update_and_check(None, "journal_mode", "WAL", |_| Ok(()))?;
    }
    conn.pragma_update(None, "synchronous", "FULL")?;
    // Statement and savepoint journals (the writer opens a savepoint for every operation) stay in
    // memory. With temp_store=FILE, SQLite kept the first 64 KiB of each in memory and wrote the
    // rest to a temporary file: two thirds of the bytes the writer passed to write() while
    // sending (32 of 46 KB per message), for files deleted at each commit.
    conn.pragma_update(None, "temp_store", "MEMORY")?;
    // A page cache large enough for the hot indexes of a million-message database, and reads
    // through a memory map instead of a system call per page.
    let cache_kib: i64 = if role == Role::Writer { 65_536 } else { 16_384 };
    conn.pragma_update(None, "cache_size", -cache_kib)?;
    conn.pragma_update(None, "mmap_size", MMAP_BYTES)?;
    // Plans that do not look at the values bound. Otherwise SQLite (3.47 and later) plans a
    // `LIMIT ?` with the value bound, and marks the statement to be prepared again whenever that
    // parameter is bound, whatever its value: every run of the dispatcher's claim query was
    // compiled again, 6 % of the writer's time while sending one message per request. The
    // store's queries pick their indexes by their shape, not by the values bound (their
    // EXPLAIN QUERY PLAN tests run with placeholder values).
    conn.set_db_config(DbConfig::SQLITE_DBCONFIG_ENABLE_QPSG, true)?;
    // What the writer deletes or replaces is overwritten with zeros, not left in the file's free
    // space: a redacted text or an erased number must leave no byte behind (`crate::privacy`).
    if role == Role::Writer {
        conn.pragma_update(None, "secure_delete", 1)?;
    }
    // The inbox's search folds accents and case in Rust, as keyword replies are folded.
    crate::fold::register(conn)?;
    // The delivery report groups messages by their destination's country.
    crate::country::register(conn)?;
    verify(conn)
}

/// Settings a database takes when it is created, before its first table: they last as long as
/// the file.
pub fn new_file(conn: &Connection) -> Result<(), StoreError> {
    conn.pragma_update(None, "page_size", PAGE_BYTES)?;
    Ok(())
}

/// Runs `f` with SQLite overwriting with zeros what it deletes or replaces (`secure_delete`), then
/// sets it back: for replacing a secret an earlier version stored in clear, whose bytes would
/// otherwise stay in the file's free space. PostgreSQL has no such setting (see the schema's NOTES:
/// the old bytes stay until VACUUM), so there `f` just runs.
pub(crate) fn overwriting<T>(
    db: crate::db::Db<'_>,
    f: impl FnOnce() -> Result<T, StoreError>,
) -> Result<T, StoreError> {
    let crate::db::Db::Sqlite(conn) = db else {
        return f();
    };
    let before: i64 = conn.pragma_query_value(None, "secure_delete", |r| r.get(0))?;
    conn.pragma_update(None, "secure_delete", 1)?;
    let result = f();
    conn.pragma_update(None, "secure_delete", before)?;
    result
}

/// Reads the settings back from SQLite.
pub fn read(conn: &Connection) -> Result<Pragmas, StoreError> {
    Ok(Pragmas {
        journal_mode: conn.pragma_query_value(None, "journal_mode", |r| r.get::<_, String>(0))?,
        synchronous: conn.pragma_query_value(None, "synchronous", |r| r.get(0))?,
        foreign_keys: conn.pragma_query_value(None, "foreign_keys", |r| r.get::<_, i64>(0))? == 1,
        busy_timeout_ms: conn.pragma_query_value(None, "busy_timeout", |r| r.get(0))?,
        stable_plans: conn.db_config(DbConfig::SQLITE_DBCONFIG_ENABLE_QPSG)?,
    })
}

fn verify(conn: &Connection) -> Result<(), StoreError> {
    let p = read(conn)?;
    let checks: [(&'static str, String, String); 5] = [
        ("journal_mode", "wal".into(), p.journal_mode.to_ascii_lowercase()),
        ("synchronous", "2".into(), p.synchronous.to_string()),
        ("foreign_keys", "true".into(), p.foreign_keys.to_string()),
        (
            "busy_timeout",
            BUSY_TIMEOUT_MS.to_string(),
            p.busy_timeout_ms.to_string(),
        ),
        (
            "query planner stability guarantee",
            "true".into(),
            p.stable_plans.to_string(),
        ),
    ];
    for (name, expected, actual) in checks {
        if expected != actual {
            return Err(StoreError::Pragma { name, expected, actual });
        }
    }
    Ok(())
}
