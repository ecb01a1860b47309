//! smsdesk's SQLite store: one database file, one writer thread, read connections on blocking
//! threads, the schema's migrations, and the tables' typed operations.

pub mod alert_facts;
pub mod backup;
mod checkpoint;
pub mod checks;
mod clean_stop;
pub mod copy;
mod country;
pub mod db;
mod error;
mod fold;
pub mod metric_reads;
pub mod migrations;
mod number_key;
pub mod number_token;
pub mod postgres;
pub mod pragmas;
pub mod privacy;
mod reader;
mod reads;
pub mod reports;
pub mod room;
mod search_index;
mod slow;
pub mod tables;
mod text;
pub mod totals;
pub mod trust;
pub mod views;
mod writer;

#[cfg(test)]
mod copy_tests;

#[cfg(test)]
mod both_stores;
#[cfg(test)]
mod created_tests;
#[cfg(test)]
mod full_tests;
#[cfg(test)]
mod inbox_search_tests;
#[cfg(test)]
mod open_tests;
#[cfg(test)]
mod queue_reason_tests;
#[cfg(test)]
mod replay_tests;
#[cfg(test)]
mod submitted_by_tests;
#[cfg(test)]
mod template_tests;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tries_tests;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use smsdesk_core::time::Clock;
use tokio::sync::broadcast;

/// The connection a read runs on (the reader hands one to each read), on either store. Only this
/// crate runs SQL on it; the others pass it on to this crate's functions.
pub use db::Conn as Connection;
pub use db::PgTarget;
pub use error::StoreError;
pub use migrations::MigrationReport;
pub use reader::Reader;
pub use reads::Reads;
pub use text::Text;
pub use writer::{Change, CommitTimes, Entity, Guard, KeysVersion, Slot, WriteTx, Writer, COMMIT_BOUNDS_S};

/// Every table the schema must have; checked by tests and by `smsdesk serve` at start.
pub const TABLES: &[&str] = &[
    "message",
    "queue",
    "attempt",
    "receipt",
    "logical_event",
    "receipt_outcome",
    "projection",
    "projection_input",
    "inbound_message",
    "exception",
    "exception_evidence",
    "audit",
    "schema_migration",
    "deadline_frontier",
];

/// The open store. Clone the writer and reader handles freely; shut down once.
pub struct Store {
    path: PathBuf,
    writer: Writer,
    reader: Reader,
    events: broadcast::Sender<Change>,
    keys: KeysVersion,
    thread: Mutex<Option<JoinHandle<()>>>,
    checkpointer: Mutex<Option<checkpoint::Checkpointer>>,
    /// When the last WAL checkpoint succeeded (ms since the epoch; 0 before the first).
    last_checkpoint: Arc<AtomicI64>,
    /// Room on the database's disk.
    room: Arc<room::Room>,
    migration: MigrationReport,
    clock: Clock,
    /// The key numbers are hashed with once redacted ([`number_token`]), set by the engine.
    number_key: number_token::KeyCell,
}

impl Store {
    /// Opens (creating if needed) the database at `path`, applies the pragmas, runs the pending
    /// migrations and starts the writer, on the wall clock. Blocking: call it from a blocking
    /// context.
    pub fn open(path: &Path) -> Result<Store, StoreError> {
        Store::open_with_clock(path, Clock::system())
    }

    /// As [`Store::open`], with every time the store writes read from `clock` (each batch's
    /// time, checkpoints, migrations).
    ///
    /// A file that is there must be a sound SQLite database ([`trust`]): an empty file, another
    /// kind of file, or a database that fails its quick check is refused, untouched.
    pub fn open_with_clock(path: &Path, clock: Clock) -> Result<Store, StoreError> {
        Store::open_with(path, clock, None)
    }

    /// As [`Store::open`], and before migrating an existing database to this build's schema,
    /// copies it into `backups` as `smsdesk-before-v<N>-<time>.db` ([`backup::names`]): an
    /// upgrade keeps what the older version had. When that copy fails, nothing is migrated.
    pub fn open_keeping_backups(path: &Path, backups: &Path) -> Result<Store, StoreError> {
        Store::open_with(path, Clock::system(), Some(backups))
    }

    /// [`Store::open_with_clock`], backing up into `backups` (when given) before a migration.
    pub fn open_with(path: &Path, clock: Clock, backups: Option<&Path>) -> Result<Store, StoreError> {
        let new = trust::check_header(path)?;
        let mut conn = rusqlite::Connection::open(path).map_err(|source| StoreError::Open {
            path: path.to_owned(),
            source,
        })?;
        // A file as the last clean stop left it was checked then and not touched since.
        let untouched = !new && clean_stop::take(path);
        if !new && !untouched {
            trust::quick_check(&conn, path)?;
            // The check read every page through this connection's cache: let it go, rather than
            // hold tens of MiB of pages nothing may read again while the engine idles.
            conn.execute_batch("PRAGMA shrink_memory")?;
        }
        if new {
            pragmas::new_file(&conn)?;
        }
        pragmas::apply(&conn, pragmas::Role::Writer)?;
        let number_key = number_token::KeyCell::default();
        number_token::register(&conn, &number_key)?;
        if let (false, Some(dir)) = (new, backups) {
            backup_before_migration(&conn, path, dir, &clock)?;
        }
        let migration = migrations::migrate(&mut conn, &clock)?;
        // The report entries a migration left to compute (those of the messages stored before
        // migration 26), before anything reads the report.
        conn.execute_batch("BEGIN IMMEDIATE")?;
        reports::flush(db::Db::Sqlite(&conn), &mut Vec::new())
            .and_then(|()| Ok(conn.execute_batch("COMMIT")?))
            .inspect_err(|_| {
                let _ = conn.execute_batch("ROLLBACK");
            })?;
        // The checkpoint thread copies the WAL into the database; the writer only appends.
        conn.pragma_update(None, "wal_autocheckpoint", 0)?;
        let restart = Arc::new(AtomicBool::new(false));
        let last_checkpoint = Arc::new(AtomicI64::new(0));
        let room = Arc::new(room::Room::new(path));
        let checkpointer = checkpoint::Checkpointer::start(
            path,
            (restart.clone(), room.clone()),
            last_checkpoint.clone(),
            clock.clone(),
        )?;
        let (events, _) = broadcast::channel(4_096);
        let keys = KeysVersion::default();
        let (writer, thread) = Writer::start(
            db::Conn::Sqlite(conn),
            events.clone(),
            (restart, room.clone()),
            clock.clone(),
            keys.clone(),
        );
        Ok(Store {
            path: path.to_owned(),
            writer,
            reader: Reader::new(path, number_key.clone()),
            events,
            keys,
            thread: Mutex::new(Some(thread)),
            checkpointer: Mutex::new(Some(checkpointer)),
            last_checkpoint,
            room,
            migration,
            clock,
            number_key,
        })
    }

    /// Sets the key numbers are hashed with ([`number_token`]): once, before anything redacts
    /// or looks a number up. A second call with another key is refused.
    pub fn set_number_key(&self, key: number_token::NumberKey) -> Result<(), StoreError> {
        let set = self.number_key.get_or_init(|| key.clone());
        if set.token("+0") == key.token("+0") {
            Ok(())
        } else {
            Err(StoreError::NumberKey(
                "the store already hashes them under another key".into(),
            ))
        }
    }

    /// The key numbers are hashed with, once set.
    pub fn number_key(&self) -> Option<&number_token::NumberKey> {
        self.number_key.get()
    }

    /// The clock every part of smsdesk reads the time from.
    pub fn clock(&self) -> &Clock {
        &self.clock
    }

    /// The database file; on PostgreSQL, the database's address as it may be shown (no password).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Whether the store is a PostgreSQL database (else a SQLite file): the file's concerns
    /// (backups of the file, its checkpoints, the room on its disk) are then the server's.
    pub fn on_postgres(&self) -> bool {
        self.reader.on_postgres()
    }

    pub fn writer(&self) -> &Writer {
        &self.writer
    }

    pub fn reader(&self) -> &Reader {
        &self.reader
    }

    /// When the WAL was last copied into the database file (ms since the epoch), if it was yet.
    pub fn last_checkpoint_ms(&self) -> Option<i64> {
        Some(self.last_checkpoint.load(Ordering::Relaxed)).filter(|&ms| ms > 0)
    }

    /// Keeps `bytes` free on the database's disk for what must not be refused: below it, new
    /// messages are refused as storage full ([`WriteTx::intake_room`]; `store.reserve_mib`).
    pub fn set_reserve(&self, bytes: u64) {
        self.room.set_reserve(bytes);
    }

    /// Room on the database's disk now: free, the reserve, whether writes fail for want of it.
    pub fn room(&self) -> room::RoomState {
        self.room.state()
    }

    /// Copies the whole WAL into the database file and empties the WAL, waiting (up to the busy
    /// timeout) for the writer and readers to pause: after a secret stored in clear was
    /// overwritten, so that no frame of the WAL keeps the old bytes. False when they did not pause
    /// (the background checkpoints then copy it later). Blocking.
    /// On PostgreSQL there is nothing of the kind to do here: the server's write-ahead log (and
    /// its archive) is the server's to keep and recycle; true.
    pub fn checkpoint_truncate(&self) -> Result<bool, StoreError> {
        if self.on_postgres() {
            return Ok(true);
        }
        checkpoint::truncate(&self.path)
    }

    /// What opening the store did to the schema.
    pub fn migration(&self) -> &MigrationReport {
        &self.migration
    }

    /// Moves on after every transaction that wrote the API keys (see [`KeysVersion`]).
    pub fn keys_version(&self) -> &KeysVersion {
        &self.keys
    }

    /// Committed changes, in commit order.
    pub fn subscribe(&self) -> broadcast::Receiver<Change> {
        self.events.subscribe()
    }

    /// Lets the writer finish every operation queued so far, then stops it and waits for it,
    /// empties the WAL into the database file (a clean stop leaves no WAL behind) and marks the
    /// stop as clean (see [`clean_stop`]). Blocking: call it from a blocking context. Later writes
    /// fail with [`StoreError::Closed`]. (A store dropped without this stops its writer once the
    /// last writer handle is gone, and leaves no mark: the next start checks the whole file.)
    pub fn shutdown(&self) {
        let handle = self.thread.lock().unwrap_or_else(|p| p.into_inner()).take();
        if let Some(handle) = handle {
            self.writer.request_shutdown();
            if handle.join().is_err() {
                tracing::error!("the database writer thread panicked");
            }
        }
        if let Some(c) = self.checkpointer.lock().unwrap_or_else(|p| p.into_inner()).take() {
            c.stop();
            // Nothing writes any more: copy the whole WAL into the database and empty it, so a
            // clean stop leaves one self-contained file (and no WAL for the next start to read).
            // A read still running (a search at a million messages can take a while) would keep
            // its frames in use: it is interrupted first.
            self.reader.interrupt_all();
            match checkpoint::truncate(&self.path) {
                Ok(true) => clean_stop::mark(&self.path),
                Ok(false) => tracing::warn!("a reader was busy at stop: the WAL is left for the next start to copy"),
                Err(e) => tracing::warn!(error = %e, "the WAL could not be emptied at stop; the next start copies it"),
            }
        }
    }
}

/// Copies the database `conn` has open into `dir` when its schema is older than this build's (and
/// it has one: a database without tables has nothing to keep).
fn backup_before_migration(
    conn: &rusqlite::Connection,
    path: &Path,
    dir: &Path,
    clock: &Clock,
) -> Result<(), StoreError> {
    let found = backup::schema_version(conn, path)?;
    let latest = migrations::latest_version();
    if found == 0 || found >= latest {
        return Ok(());
    }
    backup::ensure_dir(dir)?;
    let dest = dir.join(backup::names::file_name(
        backup::names::Kind::BeforeMigration(latest),
        clock.now_ms(),
    ));
    let copied = backup::copy_from(conn, &dest)?;
    tracing::info!(
        from = found,
        to = latest,
        path = %copied.path.display(),
        bytes = copied.bytes,
        took_ms = copied.took.as_millis() as u64,
        "database backed up before its migration"
    );
    Ok(())
}

/// Opens the database at `path` read-only, without migrating or writing anything, for a process
/// that reads beside a running instance (`smsdesk export`): it waits up to 5 s for a writer.
pub fn open_read_only(path: &Path) -> Result<Connection, StoreError> {
    let conn =
        rusqlite::Connection::open_with_flags(path, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY).map_err(|source| {
            StoreError::Open {
                path: path.to_owned(),
                source,
            }
        })?;
    conn.busy_timeout(std::time::Duration::from_secs(5))?;
    Ok(db::Conn::Sqlite(conn))
}
