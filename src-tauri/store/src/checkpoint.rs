//! WAL checkpoints on their own thread. Left to the writer, SQLite checkpoints inside a commit
//! every 1,000 pages, so a tenth of the writer's time went to copying pages into the database
//! file. Here a second connection does it in the background (PASSIVE: it never blocks the writer
//! or readers), and the writer only appends to the WAL.
//!
//! SQLite writes the WAL from its beginning again only when a transaction starts while every
//! frame in it has been copied, which a writer that never pauses never sees: the file then grows
//! without end (650 MB for 300,000 receipts), every new frame lands where the kernel must first
//! allocate and zero the file (an eighth of the writer's time at a million receipts), and lookups
//! in the WAL's index slow down. So once the WAL holds more than [`RESTART_FRAMES`], the
//! checkpointer asks the writer to finish the copy itself between two transactions (what is
//! left since the last background pass: little); its next transaction then starts the WAL over.
//!
//! The same thread measures the room left on the database's disk ([`crate::room`]). While it is
//! short (below the reserve, or commits failing for want of room), each pass also cuts the WAL
//! back to nothing once it is copied (a TRUNCATE checkpoint), and asks the writer to do the same
//! between two transactions: the room a WAL holds is returned to the disk before writes can take
//! it again, and room that comes back (a file removed) goes to the database, not to a WAL that
//! grows into it.

use smsdesk_core::time::Clock;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use rusqlite::Connection;

use super::pragmas::{self, Role};
use super::room::Room;
use super::StoreError;

const EVERY: Duration = Duration::from_millis(250);
/// 64 MiB of 4 KiB pages (1 MiB in tests, which write less).
const RESTART_FRAMES: i64 = if cfg!(test) { 256 } else { 16_384 };

pub(crate) struct Checkpointer {
    stop: mpsc::Sender<()>,
    thread: JoinHandle<()>,
}

impl Checkpointer {
    /// Starts the thread; it sets `restart` when the writer should finish a checkpoint, `last`
    /// to the time (ms since the epoch) of each checkpoint that succeeded, and measures `room`.
    pub(crate) fn start(
        path: &Path,
        (restart, room): (Arc<AtomicBool>, Arc<Room>),
        last: Arc<AtomicI64>,
        clock: Clock,
    ) -> Result<Checkpointer, StoreError> {
        let conn = Connection::open(path).map_err(|source| StoreError::Open {
            path: path.to_owned(),
            source,
        })?;
        pragmas::apply(&conn, Role::Writer)?;
        let wal = wal_path(path);
        room.measure();
        let (stop, stopped) = mpsc::channel::<()>();
        let thread = std::thread::Builder::new()
            .name("smsdesk-checkpoint".into())
            .spawn(move || {
                // Runs until stopped, or until the store (holding the sender) is dropped.
                while let Err(RecvTimeoutError::Timeout) = stopped.recv_timeout(EVERY) {
                    room.measure();
                    let short = room.state().short();
                    let pass = std::time::Instant::now();
                    let copied = checkpoint(&conn);
                    if pass.elapsed() >= crate::slow::SLOW {
                        tracing::debug!(
                            took_ms = pass.elapsed().as_secs_f64() * 1e3,
                            "slow background checkpoint"
                        );
                    }
                    match copied {
                        Ok(frames) => {
                            last.store(clock.now_ms(), Ordering::Relaxed);
                            if frames >= RESTART_FRAMES || (short && frames > 0) {
                                restart.store(true, Ordering::Relaxed);
                            }
                        }
                        Err(e) => tracing::warn!(error = %e, "WAL checkpoint failed; will try again"),
                    }
                    if short && std::fs::metadata(&wal).is_ok_and(|m| m.len() > 0) {
                        cut_back(&conn);
                    }
                }
            })
            .expect("the operating system refused to start the checkpoint thread");
        Ok(Checkpointer { stop, thread })
    }

    pub(crate) fn stop(self) {
        let _ = self.stop.send(());
        let _ = self.thread.join();
    }
}

/// Copies what it can of the WAL into the database without waiting for anyone; returns the number
/// of frames in the WAL.
pub(crate) fn checkpoint(conn: &Connection) -> rusqlite::Result<i64> {
    // The row: (blocked, frames in the WAL, frames copied).
    conn.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |r| r.get(1))
}

/// While the disk is short: copies the whole WAL into the database and truncates it, waiting a
/// little for the writer and readers (a long read keeps its frames: the next pass tries again).
pub(crate) fn cut_back(conn: &Connection) {
    let _ = conn.busy_timeout(CUT_BACK_WAIT);
    match truncate_on(conn) {
        Ok(true) => tracing::debug!("WAL emptied and cut back: the disk is short of room"),
        Ok(false) => {}
        Err(e) => tracing::debug!(error = %e, "the WAL could not be cut back yet"),
    }
    let _ = conn.busy_timeout(Duration::from_millis(pragmas::BUSY_TIMEOUT_MS.into()));
}

/// How long a cut-back waits for the writer and readers to pause.
const CUT_BACK_WAIT: Duration = Duration::from_millis(200);

/// The WAL beside the database at `path`.
fn wal_path(path: &Path) -> std::path::PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push("-wal");
    name.into()
}

/// Copies the whole WAL into the database and truncates it to nothing, on `conn`; false when a
/// reader or the writer kept it from finishing within the connection's busy timeout.
pub(crate) fn truncate_on(conn: &Connection) -> rusqlite::Result<bool> {
    // The row: (blocked, frames in the WAL, frames copied).
    let blocked: i64 = conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |r| r.get(0))?;
    Ok(blocked == 0)
}

/// Copies the whole WAL into the database file and empties the WAL, on a connection of its own,
/// waiting (up to the busy timeout) for the writer and the readers to pause. False when they did
/// not: the WAL is then left as it was, to the background passes.
pub(crate) fn truncate(path: &Path) -> Result<bool, StoreError> {
    let conn = Connection::open(path).map_err(|source| StoreError::Open {
        path: path.to_owned(),
        source,
    })?;
    pragmas::apply(&conn, Role::Writer)?;
    // Most of the WAL copied first without holding anyone up, so the pause the truncation needs
    // is short however much was written.
    conn.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(()))?;
    Ok(truncate_on(&conn)?)
}
