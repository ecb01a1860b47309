//! What a query runs on: a read connection (read-only: SQLite refuses any write on it), or the
//! write transaction of an operation (whose reads see its own writes). Both are handed out by the
//! store; only this crate reaches the connection behind them, so SQL is written here alone.

use rusqlite::Connection;

use crate::writer::WriteTx;

mod sealed {
    /// Not nameable outside the store: nobody else can implement [`super::Reads`] or call this.
    pub trait Connected {
        fn connection(&self) -> &rusqlite::Connection;
    }
}

/// A read connection or a write transaction, for the store's functions that only read.
pub trait Reads: sealed::Connected {}

impl sealed::Connected for Connection {
    fn connection(&self) -> &Connection {
        self
    }
}

impl Reads for Connection {}

impl sealed::Connected for WriteTx<'_> {
    fn connection(&self) -> &Connection {
        self.conn()
    }
}

impl Reads for WriteTx<'_> {}
