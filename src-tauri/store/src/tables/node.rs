//! The `node` table (schema 31): the `smsdesk serve` processes that share the database, each with
//! a heartbeat kept by the database's own clock. Who is alive is read here in SQL, against that
//! clock, so that no node judges another by a clock of its own; the rules for taking a name over
//! (a previous run of the same node) are the engine's.

use crate::db::{Db, Dialect, Row};
use crate::writer::WriteTx;
use crate::Reads;
use crate::StoreError;

/// A node about to join.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewNode {
    /// Its name among the nodes: the same across its restarts.
    pub name: String,
    /// New for each process: the node's own way to tell the row is still its own.
    pub token: String,
    pub pid: u32,
    pub host: String,
    pub boot_id: String,
    pub data_dir: String,
    pub version: String,
}

/// A node as its row says, with what the database's clock makes of its heartbeat.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    pub name: String,
    pub token: String,
    pub pid: u32,
    pub host: String,
    pub boot_id: String,
    pub data_dir: String,
    pub version: String,
    pub http_url: Option<String>,
    /// By the database's clock, as every time of this row.
    pub started_at_ms: i64,
    pub beat_at_ms: i64,
    /// Set by a clean stop.
    pub stopped_at_ms: Option<i64>,
    /// What it runs, as it last said (JSON; the engine's to read).
    pub runs: String,
    /// Not stopped, and its heartbeat moved within the staleness asked for.
    pub alive: bool,
    /// Since its last heartbeat, by the database's clock.
    pub silent_ms: i64,
}

/// The database's clock now, in milliseconds: PostgreSQL's own, which every node reads alike;
/// on SQLite, where one process writes, `fallback` (the store's clock).
pub fn database_now(db: Db<'_>, fallback: i64) -> Result<i64, StoreError> {
    match db.dialect() {
        Dialect::Postgres => db.one("SELECT (extract(epoch from clock_timestamp()) * 1000)::bigint", &[]),
        Dialect::Sqlite => Ok(fallback),
    }
}

const COLUMNS: &str =
    "name, token, pid, host, boot_id, data_dir, version, http_url, started_at, beat_at, stopped_at, runs";

fn node(r: &Row<'_, '_>, now: i64, stale_ms: i64) -> Result<Node, StoreError> {
    let beat_at_ms: i64 = r.get(9)?;
    let stopped_at_ms: Option<i64> = r.get(10)?;
    Ok(Node {
        name: r.get(0)?,
        token: r.get(1)?,
        pid: r.get(2)?,
        host: r.get(3)?,
        boot_id: r.get(4)?,
        data_dir: r.get(5)?,
        version: r.get(6)?,
        http_url: r.get(7)?,
        started_at_ms: r.get(8)?,
        beat_at_ms,
        stopped_at_ms,
        runs: r.get(11)?,
        alive: stopped_at_ms.is_none() && now - beat_at_ms < stale_ms,
        silent_ms: now - beat_at_ms,
    })
}

/// Every node ever recorded, by name, judged alive against `stale_ms` by the database's clock
/// (`now` on SQLite).
pub fn all(conn: &impl Reads, now: i64, stale_ms: i64) -> Result<Vec<Node>, StoreError> {
    let db = conn.db();
    let now = database_now(db, now)?;
    db.query(&format!("SELECT {COLUMNS} FROM node ORDER BY name"), &[], |r| {
        node(r, now, stale_ms)
    })
}

/// [`all`], read from the SQLite file at `path` by a read-only connection of its own: what a tool
/// reads while the node that holds the file runs.
pub fn all_in_file(path: &std::path::Path, now: i64, stale_ms: i64) -> Result<Vec<Node>, StoreError> {
    use rusqlite::OpenFlags;
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let open = |source| StoreError::Open {
        path: path.to_owned(),
        source,
    };
    let conn = rusqlite::Connection::open_with_flags(path, flags).map_err(open)?;
    conn.busy_timeout(std::time::Duration::from_secs(5)).map_err(open)?;
    all(&conn, now, stale_ms)
}

/// Records `new` as the node of its name, when that name is free: no row, a clean stop, a
/// heartbeat silent for `stale_ms`, or a row `may_take` allows (the caller's rules: its own
/// previous run). Else returns the node that keeps the name.
pub fn join(
    tx: &mut WriteTx<'_>,
    new: &NewNode,
    stale_ms: i64,
    may_take: impl Fn(&Node) -> bool,
) -> Result<Result<(), Box<Node>>, StoreError> {
    let fallback = tx.now_ms();
    let db = tx.db();
    let now = database_now(db, fallback)?;
    let lock = match db.dialect() {
        Dialect::Postgres => " FOR UPDATE",
        Dialect::Sqlite => "",
    };
    let found = db.query_opt(
        &format!("SELECT {COLUMNS} FROM node WHERE name = ?1{lock}"),
        &[&new.name],
        |r| node(r, now, stale_ms),
    )?;
    if let Some(found) = found {
        if found.alive && !may_take(&found) {
            return Ok(Err(Box::new(found)));
        }
    }
    db.execute(
        "INSERT INTO node (name, token, pid, host, boot_id, data_dir, version, http_url, started_at, beat_at, stopped_at, runs)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, NULL, ?8, ?8, NULL, '[]')
         ON CONFLICT (name) DO UPDATE SET token = excluded.token, pid = excluded.pid, host = excluded.host,
             boot_id = excluded.boot_id, data_dir = excluded.data_dir, version = excluded.version, http_url = NULL,
             started_at = excluded.started_at, beat_at = excluded.beat_at, stopped_at = NULL, runs = '[]'",
        &[
            &new.name,
            &new.token,
            &new.pid,
            &new.host,
            &new.boot_id,
            &new.data_dir,
            &new.version,
            &now,
        ],
    )?;
    Ok(Ok(()))
}

/// Moves the node's heartbeat on and records what it runs, when the row is still `token`'s:
/// false when another process took the name over.
pub fn beat(tx: &mut WriteTx<'_>, name: &str, token: &str, runs: &str) -> Result<bool, StoreError> {
    let now = database_now(tx.db(), tx.now_ms())?;
    let n = tx.db().execute(
        "UPDATE node SET beat_at = ?1, runs = ?4 WHERE name = ?2 AND token = ?3 AND stopped_at IS NULL",
        &[&now, &name, &token, &runs],
    )?;
    Ok(n == 1)
}

/// Records where the node listens; false when the row is no longer its own.
pub fn publish(tx: &mut WriteTx<'_>, name: &str, token: &str, http_url: Option<&str>) -> Result<bool, StoreError> {
    let n = tx.db().execute(
        "UPDATE node SET http_url = ?3 WHERE name = ?1 AND token = ?2",
        &[&name, &token, &http_url],
    )?;
    Ok(n == 1)
}

/// A clean stop: the node runs nothing any more.
pub fn stop(tx: &mut WriteTx<'_>, name: &str, token: &str) -> Result<bool, StoreError> {
    let now = database_now(tx.db(), tx.now_ms())?;
    let n = tx.db().execute(
        "UPDATE node SET stopped_at = ?1, runs = '[]' WHERE name = ?2 AND token = ?3 AND stopped_at IS NULL",
        &[&now, &name, &token],
    )?;
    Ok(n == 1)
}

/// The owners of leases on messages being sent that are no live node: a node stopped or silent
/// for `stale_ms` by the database's clock, or no node at all (a process of a version before
/// nodes). `me` is never among them. A read.
pub fn dead_lease_owners(conn: &impl Reads, now: i64, stale_ms: i64, me: &str) -> Result<Vec<String>, StoreError> {
    let db = conn.db();
    let since = database_now(db, now)? - stale_ms;
    db.query(
        "SELECT DISTINCT q.lease_owner FROM queue q
         WHERE q.status = 'sending' AND q.lease_owner IS NOT NULL AND q.lease_owner <> ?2
           AND NOT EXISTS (SELECT 1 FROM node n WHERE n.name = q.lease_owner
                           AND n.stopped_at IS NULL AND n.beat_at > ?1)
         ORDER BY 1",
        &[&since, &me],
        |r| r.get(0),
    )
}

#[cfg(test)]
#[path = "node_tests.rs"]
mod tests;
