//! What a query runs on: a read connection (read-only: SQLite refuses any write on it), or the
//! write transaction of an operation (whose reads see its own writes). Both are handed out by the
//! store; only this crate reaches the connection behind them, so SQL is written here alone.

use rusqlite::Connection;

use crate::db::Db;
use crate::writer::WriteTx;

mod sealed {
    /// Not nameable outside the store: nobody else can implement [`super::Reads`] or call these.
    pub trait Connected {
        /// The SQLite connection, for what only SQLite has (query plans, the tests' scenes);
        /// every read runs through [`Connected::db`].
        fn connection(&self) -> &rusqlite::Connection;
        /// The connection, on either store.
        fn db(&self) -> crate::db::Db<'_>;
    }
}

/// A read connection or a write transaction, for the store's functions that only read.
pub trait Reads: sealed::Connected {}

impl sealed::Connected for Connection {
    fn connection(&self) -> &Connection {
        self
    }
    fn db(&self) -> Db<'_> {
        Db::Sqlite(self)
    }
}

impl Reads for Connection {}

impl sealed::Connected for WriteTx<'_> {
    fn connection(&self) -> &Connection {
        self.conn()
    }
    fn db(&self) -> Db<'_> {
        WriteTx::db(self)
    }
}

impl Reads for WriteTx<'_> {}

impl sealed::Connected for Db<'_> {
    fn connection(&self) -> &Connection {
        match self {
            Db::Sqlite(c) => c,
            Db::Postgres(_) => panic!("a SQLite connection was asked of a PostgreSQL store"),
        }
    }
    fn db(&self) -> Db<'_> {
        *self
    }
}

impl Reads for Db<'_> {}

impl sealed::Connected for crate::db::Conn {
    fn connection(&self) -> &Connection {
        self
    }
    fn db(&self) -> Db<'_> {
        crate::db::Conn::db(self)
    }
}

impl Reads for crate::db::Conn {}
