//! Read connections, separate from the writer, used on blocking threads so that no SQLite call
//! runs on an async runtime worker.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use rusqlite::{InterruptHandle, OpenFlags};

use crate::db::{Conn, PgConn};

use super::pragmas::{self, Role};
use super::StoreError;

/// Idle read connections kept for reuse; more are opened on demand and closed after use.
const KEEP_IDLE: usize = 8;

/// A cloneable handle to the read side of the store.
#[derive(Clone)]
pub struct Reader {
    inner: Arc<Inner>,
}

struct Inner {
    at: Location,
    number_key: crate::number_token::KeyCell,
    idle: Mutex<Vec<Conn>>,
    /// The reads running now, by a number of their own: what a stop interrupts.
    busy: Mutex<(u64, Vec<(u64, InterruptHandle)>)>,
}

/// Where the reads' connections go.
enum Location {
    Sqlite(PathBuf),
    Postgres(crate::db::PgTarget),
}

impl Reader {
    pub(crate) fn new(path: &Path, number_key: crate::number_token::KeyCell) -> Reader {
        Reader::at(Location::Sqlite(path.to_owned()), number_key)
    }

    /// Reads on the PostgreSQL database `target`.
    pub(crate) fn postgres(target: &crate::db::PgTarget, number_key: crate::number_token::KeyCell) -> Reader {
        Reader::at(Location::Postgres(target.clone()), number_key)
    }

    /// Whether its reads go to PostgreSQL.
    pub(crate) fn on_postgres(&self) -> bool {
        matches!(self.inner.at, Location::Postgres(_))
    }

    fn at(at: Location, number_key: crate::number_token::KeyCell) -> Reader {
        Reader {
            inner: Arc::new(Inner {
                at,
                number_key,
                idle: Mutex::new(Vec::new()),
                busy: Mutex::new((0, Vec::new())),
            }),
        }
    }

    /// Runs `f` on a read connection on a blocking thread.
    pub async fn read<T, E, F>(&self, f: F) -> Result<T, E>
    where
        F: FnOnce(&Conn) -> Result<T, E> + Send + 'static,
        T: Send + 'static,
        E: From<StoreError> + Send + 'static,
    {
        let reader = self.clone();
        tokio::task::spawn_blocking(move || reader.read_blocking(f))
            .await
            .map_err(|_| StoreError::Aborted)?
    }

    /// Runs `f` on a read connection on the calling thread. Must not be called from an async task.
    pub fn read_blocking<T, E, F>(&self, f: F) -> Result<T, E>
    where
        F: FnOnce(&Conn) -> Result<T, E>,
        E: From<StoreError>,
    {
        let conn = self.take()?;
        let id = {
            let mut busy = self.inner.busy.lock().unwrap_or_else(|p| p.into_inner());
            busy.0 += 1;
            let id = busy.0;
            if let Conn::Sqlite(c) = &conn {
                busy.1.push((id, c.get_interrupt_handle()));
            }
            id
        };
        let result = f(&conn);
        self.inner
            .busy
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .1
            .retain(|(i, _)| *i != id);
        self.give_back(conn);
        result
    }

    /// Opens `connections` read connections (at most as many as are kept idle) and reads the
    /// schema on each, so that the first requests after a start find them ready: opening one and
    /// reading the schema of thirty migrations is some milliseconds that a request would
    /// otherwise wait for.
    pub fn warm(&self, connections: usize) -> Result<(), StoreError> {
        let mut opened = Vec::new();
        for _ in 0..connections.min(KEEP_IDLE) {
            let conn = self.take()?;
            if let Conn::Sqlite(c) = &conn {
                c.query_row("SELECT count(*) FROM sqlite_schema", [], |_| Ok(()))?;
            }
            opened.push(conn);
        }
        opened.into_iter().for_each(|c| self.give_back(c));
        Ok(())
    }

    /// Interrupts every read running now: each fails with SQLITE_INTERRUPT and ends its read
    /// transaction. For the stop, so that a long search does not keep the WAL from being emptied
    /// (nor the process from exiting until it is done).
    pub(crate) fn interrupt_all(&self) {
        for (_, handle) in &self.inner.busy.lock().unwrap_or_else(|p| p.into_inner()).1 {
            handle.interrupt();
        }
    }

    fn take(&self) -> Result<Conn, StoreError> {
        loop {
            // Taken off the list first: no lock is held while a connection is asked.
            let idle = self.inner.idle.lock().unwrap_or_else(|p| p.into_inner()).pop();
            let Some(conn) = idle else { break };
            match &conn {
                // One the server ended (it restarted) is let go: the next, or a new one, serves.
                Conn::Postgres(pg) if !pg.usable() => continue,
                _ => return Ok(conn),
            }
        }
        let path = match &self.inner.at {
            Location::Sqlite(path) => path,
            Location::Postgres(target) => {
                return Ok(Conn::Postgres(Box::new(PgConn::connect_keyed(
                    target,
                    &self.inner.number_key,
                )?)))
            }
        };
        let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let conn = rusqlite::Connection::open_with_flags(path, flags).map_err(|source| StoreError::Open {
            path: path.clone(),
            source,
        })?;
        pragmas::apply(&conn, Role::Reader)?;
        crate::number_token::register(&conn, &self.inner.number_key)?;
        Ok(Conn::Sqlite(conn))
    }

    fn give_back(&self, conn: Conn) {
        // A connection the server closed (it restarted) is not kept: the next read opens anew.
        if let Conn::Postgres(pg) = &conn {
            if pg.is_closed() {
                return;
            }
        }
        let mut idle = self.inner.idle.lock().unwrap_or_else(|p| p.into_inner());
        if idle.len() < KEEP_IDLE {
            idle.push(conn);
        }
    }
}

#[cfg(test)]
mod warm_tests {
    use crate::Store;

    #[test]
    fn warming_leaves_connections_ready_that_reads_then_use() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("w.db")).unwrap();
        let reader = store.reader();
        assert_eq!(reader.inner.idle.lock().unwrap().len(), 0);
        reader.warm(3).unwrap();
        assert_eq!(reader.inner.idle.lock().unwrap().len(), 3);
        // Asking for more than are kept idle opens no more than that.
        reader.warm(100).unwrap();
        assert_eq!(reader.inner.idle.lock().unwrap().len(), super::KEEP_IDLE);
        let n: i64 = reader
            .read_blocking(|c| {
                c.query_row("SELECT 1", [], |r| r.get(0))
                    .map_err(crate::StoreError::from)
            })
            .unwrap();
        assert_eq!(n, 1);
        assert_eq!(
            reader.inner.idle.lock().unwrap().len(),
            super::KEEP_IDLE,
            "the read took one and gave it back"
        );
        store.shutdown();
    }
}
