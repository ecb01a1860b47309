//! The `instance` table: the process that holds the database, recorded inside it (one row), with
//! a counter it moves every few seconds. The lock on the file keeps a second process of the same
//! computer off the database; this row is what a second computer, which may not see that lock
//! (a network file system mounted twice), reads before it starts. The rules for reading it (who
//! is alive, who may take it over) are the engine's; here are the row's reads and writes.

use std::path::Path;

use rusqlite::{Connection, OpenFlags};

use crate::db::{Db, Dialect, Row};
use crate::writer::WriteTx;
use crate::Reads;
use crate::StoreError;

/// Who holds (or last held) the database.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Holder {
    /// New for each process: the holder's own way to tell the row is still its own.
    pub token: String,
    pub pid: u32,
    pub host: String,
    /// The kernel's boot id (`/proc/sys/kernel/random/boot_id`): two processes with the same one
    /// run on one kernel, where the lock on the file reaches both.
    pub boot_id: String,
    pub data_dir: String,
    /// Where it listens, once it does (a command-line tool never does).
    pub http_url: Option<String>,
    pub started_at_ms: i64,
    /// Moves on every heartbeat.
    pub beat: i64,
    /// The holder's clock at its last heartbeat (for people: other computers' clocks differ).
    pub beat_at_ms: i64,
    /// Set by a clean stop: nobody holds the database.
    pub released_at_ms: Option<i64>,
}

/// A process about to hold the database.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewHolder {
    pub token: String,
    pub pid: u32,
    pub host: String,
    pub boot_id: String,
    pub data_dir: String,
}

const COLUMNS: &str =
    "token, pid, host, boot_id, data_dir, http_url, started_at, beat, beat_at, released_at FROM instance WHERE id = 1";

fn holder(r: &Row<'_, '_>) -> Result<Holder, StoreError> {
    Ok(Holder {
        token: r.get(0)?,
        pid: r.get(1)?,
        host: r.get(2)?,
        boot_id: r.get(3)?,
        data_dir: r.get(4)?,
        http_url: r.get(5)?,
        started_at_ms: r.get(6)?,
        beat: r.get(7)?,
        beat_at_ms: r.get(8)?,
        released_at_ms: r.get(9)?,
    })
}

/// The row on `db`; `None` when there is none, or no table for it (a database older than
/// schema 24, or a new one).
fn read(db: Db<'_>) -> Result<Option<Holder>, StoreError> {
    // Each store lists its tables its own way.
    let exists = match db.dialect() {
        Dialect::Sqlite => "SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'instance')",
        Dialect::Postgres => "SELECT to_regclass('instance') IS NOT NULL",
    };
    let table: bool = db.one(exists, &[])?;
    if !table {
        return Ok(None);
    }
    db.query_opt(&format!("SELECT {COLUMNS}"), &[], holder)
}

/// The holder as the database says now.
pub fn current(conn: &impl Reads) -> Result<Option<Holder>, StoreError> {
    read(conn.db())
}

/// The holder as the database file at `path` says, read from the file alone: without its WAL,
/// without taking any lock, and without creating anything beside it (SQLite's `immutable`). What
/// a process reads that must not touch a database another may be writing: a holder's row reaches
/// the file at the holder's next checkpoint (within a second), and a page the holder is copying
/// just then may read as damaged (an error: read again).
pub fn read_file(path: &Path) -> Result<Option<Holder>, StoreError> {
    let uri = format!("file:{}?immutable=1", uri_path(path));
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_URI | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let conn = Connection::open_with_flags(&uri, flags).map_err(|source| StoreError::Open {
        path: path.to_owned(),
        source,
    })?;
    read(Db::Sqlite(&conn))
}

/// `path` as the path of a `file:` URI: absolute, with `%`, `?` and `#` (and anything not
/// printable ASCII) percent-encoded.
fn uri_path(path: &Path) -> String {
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_owned());
    let mut out = String::new();
    for &b in absolute.as_os_str().as_encoded_bytes() {
        match b {
            b'%' | b'?' | b'#' => out.push_str(&format!("%{b:02X}")),
            0x21..=0x7e => out.push(b as char),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

/// Writes `new` as the holder when the row now is free (none, or released) or `may_take` allows
/// it (the caller's rules: a holder it found dead); else returns the holder that keeps it.
pub fn claim(
    tx: &mut WriteTx<'_>,
    new: &NewHolder,
    may_take: impl Fn(&Holder) -> bool,
) -> Result<Result<(), Holder>, StoreError> {
    if let Some(now) = read(tx.db())? {
        if now.released_at_ms.is_none() && !may_take(&now) {
            return Ok(Err(now));
        }
    }
    let at = tx.now_ms();
    tx.db().execute(
        "INSERT INTO instance (id, token, pid, host, boot_id, data_dir, http_url, started_at, beat, beat_at, released_at)
         VALUES (1, ?1, ?2, ?3, ?4, ?5, NULL, ?6, 0, ?6, NULL)
         ON CONFLICT (id) DO UPDATE SET token = excluded.token, pid = excluded.pid, host = excluded.host,
             boot_id = excluded.boot_id, data_dir = excluded.data_dir, http_url = NULL,
             started_at = excluded.started_at, beat = 0, beat_at = excluded.beat_at, released_at = NULL",
        &[&new.token, &new.pid, &new.host, &new.boot_id, &new.data_dir, &at],
    )?;
    Ok(Ok(()))
}

/// Moves the counter on, when the row is still `token`'s: false when another took it over.
pub fn beat(tx: &mut WriteTx<'_>, token: &str) -> Result<bool, StoreError> {
    let at = tx.now_ms();
    let n = tx.db().execute(
        "UPDATE instance SET beat = beat + 1, beat_at = ?2 WHERE id = 1 AND token = ?1",
        &[&token, &at],
    )?;
    Ok(n == 1)
}

/// Records where the holder `token` listens (and moves its counter on); false when the row is no
/// longer its own.
pub fn publish(tx: &mut WriteTx<'_>, token: &str, http_url: Option<&str>) -> Result<bool, StoreError> {
    let at = tx.now_ms();
    let n = tx.db().execute(
        "UPDATE instance SET http_url = ?2, beat = beat + 1, beat_at = ?3 WHERE id = 1 AND token = ?1",
        &[&token, &http_url, &at],
    )?;
    Ok(n == 1)
}

/// A clean stop: the row says nobody holds the database any more (when it is still `token`'s).
pub fn release(tx: &mut WriteTx<'_>, token: &str) -> Result<bool, StoreError> {
    let at = tx.now_ms();
    let n = tx.db().execute(
        "UPDATE instance SET released_at = ?2 WHERE id = 1 AND token = ?1 AND released_at IS NULL",
        &[&token, &at],
    )?;
    Ok(n == 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Store;

    fn new(token: &str) -> NewHolder {
        NewHolder {
            token: token.into(),
            pid: 7,
            host: "office-pc".into(),
            boot_id: "boot-1".into(),
            data_dir: "/var/lib/smsdesk".into(),
        }
    }

    fn claim_as(store: &Store, token: &str, take: bool) -> Result<(), Box<Holder>> {
        let n = new(token);
        store
            .writer()
            .write_blocking(move |tx| claim(tx, &n, |_| take))
            .unwrap()
            .map_err(Box::new)
    }

    #[test]
    fn a_held_row_is_kept_from_a_second_claim_and_freed_by_a_clean_stop() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("smsdesk.db");
        let store = Store::open(&path).unwrap();
        claim_as(&store, "first", false).expect("a new database is held by nobody");
        let w = store.writer();
        assert!(w.write_blocking(|tx| beat(tx, "first")).unwrap());
        assert!(w
            .write_blocking(|tx| publish(tx, "first", Some("http://127.0.0.1:7")))
            .unwrap());
        let kept = claim_as(&store, "second", false).expect_err("a live holder's row is not taken");
        assert_eq!(
            (kept.token.as_str(), kept.beat, kept.http_url.as_deref()),
            ("first", 2, Some("http://127.0.0.1:7")),
            "the refusal names the holder as its row says"
        );
        assert!(
            !w.write_blocking(|tx| beat(tx, "second")).unwrap(),
            "a process whose claim was refused has no row to beat"
        );
        claim_as(&store, "second", true).expect("a holder found dead is taken over");
        assert!(
            !w.write_blocking(|tx| beat(tx, "first")).unwrap(),
            "the holder taken over learns it at its next heartbeat"
        );
        assert!(w.write_blocking(|tx| release(tx, "second")).unwrap());
        claim_as(&store, "third", false).expect("a row released by a clean stop is free");
        store.shutdown();
    }

    #[test]
    fn the_file_alone_says_who_holds_it_once_checkpointed_and_a_copy_is_held_by_nobody() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a ?#%b.db");
        assert_eq!(read_file(&path).ok().flatten(), None);
        let store = Store::open(&path).unwrap();
        claim_as(&store, "first", false).unwrap();
        assert!(store.checkpoint_truncate().unwrap());
        let seen = read_file(&path).unwrap().expect("the row reached the file");
        assert_eq!((seen.token.as_str(), seen.pid, seen.released_at_ms), ("first", 7, None));
        let copy = dir.path().join("copy.db");
        let src = Connection::open_with_flags(&path, OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
        crate::backup::copy_from(&src, &copy).unwrap();
        let copied = read_file(&copy).unwrap().unwrap();
        assert!(
            copied.released_at_ms.is_some(),
            "a backup is held by nobody, whoever held the database it was taken from"
        );
        assert_eq!(
            read_file(&path).unwrap().unwrap().released_at_ms,
            None,
            "the database itself is still held"
        );
        store.shutdown();
    }

    #[test]
    fn a_claim_is_kept_beaten_published_and_released_on_both_stores() {
        crate::both_stores::on_both(|db| {
            let write = |now: i64, f: &dyn Fn(&mut WriteTx<'_>) -> Result<bool, StoreError>| {
                crate::writer::write_for_tests(db, now, |tx| f(tx)).unwrap()
            };
            assert_eq!(current(&db).unwrap(), None, "{:?}", db.dialect());
            let claimed =
                |tx: &mut WriteTx<'_>, token: &str, take: bool| claim(tx, &new(token), |_| take).map(|r| r.is_ok());
            assert!(write(1_000, &|tx| claimed(tx, "first", false)));
            assert!(write(2_000, &|tx| beat(tx, "first")));
            assert!(write(3_000, &|tx| publish(tx, "first", Some("http://127.0.0.1:7"))));
            assert!(
                !write(4_000, &|tx| claimed(tx, "second", false)),
                "a live holder keeps it"
            );
            let held = current(&db).unwrap().unwrap();
            assert_eq!(
                (
                    held.token.as_str(),
                    held.pid,
                    held.beat,
                    held.beat_at_ms,
                    held.started_at_ms
                ),
                ("first", 7, 2, 3_000, 1_000)
            );
            assert_eq!(held.http_url.as_deref(), Some("http://127.0.0.1:7"));
            assert!(write(5_000, &|tx| claimed(tx, "second", true)), "taken over");
            assert!(!write(5_000, &|tx| beat(tx, "first")));
            assert!(write(6_000, &|tx| release(tx, "second")));
            assert!(!write(6_000, &|tx| release(tx, "second")), "released once");
            let released = current(&db).unwrap().unwrap();
            assert_eq!(
                (released.token.as_str(), released.released_at_ms),
                ("second", Some(6_000))
            );
            assert_eq!(released.http_url, None);
            assert!(
                write(7_000, &|tx| claimed(tx, "third", false)),
                "a released row is free"
            );
        });
    }
}
