//! WAL checkpoints on their own thread. Left to the writer, SQLite checkpoints inside a commit
//! every 1,000 pages, so a tenth of the writer's time went to copying pages into the database
//! file. Here a second connection does it in the background (PASSIVE: it never blocks the writer
//! or readers), and the writer only appends to the WAL.

use std::path::Path;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::thread::JoinHandle;
use std::time::Duration;

use rusqlite::Connection;

use super::pragmas::{self, Role};
use super::StoreError;

const EVERY: Duration = Duration::from_millis(250);

pub(crate) struct Checkpointer {
    stop: mpsc::Sender<()>,
    thread: JoinHandle<()>,
}

impl Checkpointer {
    pub(crate) fn start(path: &Path) -> Result<Checkpointer, StoreError> {
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
                    if let Err(e) = conn.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(())) {
                        tracing::warn!(error = %e, "WAL checkpoint failed; will try again");
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
