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

use smsdesk_core::time::Clock;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use rusqlite::Connection;

use super::pragmas::{self, Role};
use super::StoreError;

const EVERY: Duration = Duration::from_millis(250);
/// 64 MiB of 4 KiB pages (1 MiB in tests, which write less).
const RESTART_FRAMES: i64 = if cfg!(test) { 256 } else { 16_384 };

pub(crate) struct Checkpointer {
    stop: mpsc::Sender<()>,
    thread: JoinHandle<()>,
}

impl Checkpointer {
    /// Starts the thread; it sets `restart` when the writer should finish a checkpoint, and `last`
    /// to the time (ms since the epoch) of each checkpoint that succeeded.
    pub(crate) fn start(
        path: &Path,
        restart: Arc<AtomicBool>,
        last: Arc<AtomicI64>,
        clock: Clock,
    ) -> Result<Checkpointer, StoreError> {
        let conn = Connection::open(path).map_err(|source| StoreError::Open {
            path: path.to_owned(),
            source,
        })?;
        pragmas::apply(&conn, Role::Writer)?;
        let (stop, stopped) = mpsc::channel::<()>();
        let thread = std::thread::Builder::new()
            .name("smsdesk-checkpoint".into())
            .spawn(move || {
                // Runs until stopped, or until the store (holding the sender) is dropped.
                while let Err(RecvTimeoutError::Timeout) = stopped.recv_timeout(EVERY) {
                    match checkpoint(&conn) {
                        Ok(frames) => {
                            last.store(clock.now_ms(), Ordering::Relaxed);
                            if frames >= RESTART_FRAMES {
                                restart.store(true, Ordering::Relaxed);
                            }
                        }
                        Err(e) => tracing::warn!(error = %e, "WAL checkpoint failed; will try again"),
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

/// Copies the whole WAL into the database file and empties the WAL, on a connection of its own,
/// waiting (up to the busy timeout) for the writer and the readers to pause. False when they did
/// not: the WAL is then left as it was, to the background passes.
pub(crate) fn truncate(path: &Path) -> Result<bool, StoreError> {
    let conn = Connection::open(path).map_err(|source| StoreError::Open {
        path: path.to_owned(),
        source,
    })?;
    pragmas::apply(&conn, Role::Writer)?;
    // The row: (blocked, frames in the WAL, frames copied).
    let blocked: i64 = conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |r| r.get(0))?;
    Ok(blocked == 0)
}
