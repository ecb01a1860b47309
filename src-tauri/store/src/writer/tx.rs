//! [`WriteTx`]: what an operation sees of the batch's transaction, and [`Pending`], what the
//! operations recorded to do around the commit.

use rusqlite::Connection;

use super::{Change, Entity};
use crate::db::Db;
use crate::totals::{Delta, Totals};
use crate::StoreError;

/// What an operation sees: the open transaction, and a place to record what it changed.
pub struct WriteTx<'a> {
    conn: Db<'a>,
    pending: &'a mut Pending,
    batch: u64,
    now: i64,
}

/// What the operations of a transaction recorded for after their writes: changes to announce
/// once it commits, and additions to the running totals to write just before.
#[derive(Default)]
pub(super) struct Pending {
    pub(super) changes: Vec<Change>,
    pub(super) totals: Totals,
    /// The messages whose place in the delivery report may have changed: their entries are
    /// computed again just before the commit (see [`crate::reports`]).
    pub(super) report: Vec<i64>,
    /// Why new messages are refused in this transaction (the disk is below its reserve; see
    /// [`crate::room`]), decided when it began.
    pub(super) intake_refusal: Option<String>,
}

/// How much of [`Pending`] an operation or savepoint found when it began.
#[derive(Clone, Copy)]
pub(super) struct Mark {
    changes: usize,
    totals: usize,
    report: usize,
}

impl Pending {
    pub(super) fn mark(&self) -> Mark {
        Mark {
            changes: self.changes.len(),
            totals: self.totals.len(),
            report: self.report.len(),
        }
    }

    /// Forgets what was recorded after `mark`: its writes were rolled back.
    pub(super) fn truncate(&mut self, mark: Mark) {
        self.changes.truncate(mark.changes);
        self.totals.truncate(mark.totals);
        self.report.truncate(mark.report);
    }

    pub(super) fn clear(&mut self) {
        self.changes.clear();
        self.totals.clear();
        self.report.clear();
    }
}

impl<'c> WriteTx<'c> {
    /// An operation's view of batch number `batch`, whose clock reading is `now`, recording into
    /// `pending`. Only the writer thread makes one.
    pub(super) fn new(conn: Db<'c>, pending: &'c mut Pending, batch: u64, now: i64) -> WriteTx<'c> {
        WriteTx {
            conn,
            pending,
            batch,
            now,
        }
    }

    /// The transaction's connection, on either store: this crate's alone (the others pass the
    /// transaction to its functions).
    pub(crate) fn db(&self) -> Db<'c> {
        self.conn
    }

    /// The SQLite connection, for what only SQLite has (the tests' scenes written in plain SQL,
    /// through [`WriteTx::sql_for_tests`]). Every operation runs through [`WriteTx::db`]. Panics on
    /// PostgreSQL.
    pub(crate) fn conn(&self) -> &'c Connection {
        match self.conn {
            Db::Sqlite(c) => c,
            Db::Postgres(_) => panic!("a SQLite connection was asked of a PostgreSQL store"),
        }
    }

    /// The connection, for tests that set a scene the product never makes (a damaged row, a
    /// trigger that fails on purpose) or check one. Only with the `test-hooks` feature, which only
    /// the crates' tests turn on.
    #[cfg(feature = "test-hooks")]
    pub fn sql_for_tests(&self) -> &Connection {
        self.conn()
    }

    /// Whether the store is PostgreSQL, where several nodes share the queue.
    pub fn on_postgres(&self) -> bool {
        matches!(self.conn, Db::Postgres(_))
    }

    /// The number of the batch (transaction) this operation runs in.
    pub fn batch(&self) -> u64 {
        self.batch
    }

    /// The batch's clock reading: every row a batch writes carries the same time.
    pub fn now_ms(&self) -> i64 {
        self.now
    }

    /// Records a change to announce once the transaction commits.
    pub fn changed(&mut self, entity: Entity, id: i64) {
        self.pending.changes.push(Change { entity, id });
    }

    /// Refuses, as [`StoreError::StorageFull`], what takes new work in (a new message) while the
    /// disk holding the database is below its reserve (`store.reserve_mib`, see [`crate::room`]):
    /// the room left is kept for what is already in the house (tries, answers, receipts).
    pub fn intake_room(&self) -> Result<(), StoreError> {
        match &self.pending.intake_refusal {
            Some(why) => Err(StoreError::StorageFull(why.clone())),
            None => Ok(()),
        }
    }

    /// Records an addition to a running total, written with the transaction's others just before
    /// it commits (see [`crate::totals`]).
    pub(crate) fn count(&mut self, d: Delta) {
        self.pending.totals.push(d);
    }

    /// Notes that message `id`'s place in the delivery report may have changed (a try, an answer,
    /// a queue status, a route or a projection written): its entry is computed again just before
    /// the commit. Every write of those rows in this crate notes it.
    pub(crate) fn report_changed(&mut self, id: i64) {
        self.pending.report.push(id);
    }

    /// [`WriteTx::report_changed`], for tests that write rows with plain SQL. Only with the
    /// `test-hooks` feature.
    #[cfg(feature = "test-hooks")]
    pub fn report_changed_for_tests(&mut self, id: i64) {
        self.report_changed(id);
    }

    /// Records an addition to a running total, for tests that write rows with plain SQL and keep
    /// the totals as the product's writes would. Only with the `test-hooks` feature.
    #[cfg(feature = "test-hooks")]
    pub fn count_for_tests(&mut self, d: Delta) {
        self.count(d);
    }

    /// Runs `f` in a nested savepoint: if it fails, what it wrote (and announced) is undone while
    /// the rest of the operation stands.
    pub fn nested<T, E: From<StoreError>>(&mut self, f: impl FnOnce(&mut WriteTx<'c>) -> Result<T, E>) -> Result<T, E> {
        run_db(self.conn, "SAVEPOINT nested")?;
        let mark = self.pending.mark();
        match f(self) {
            Ok(v) => {
                run_db(self.conn, "RELEASE nested")?;
                Ok(v)
            }
            Err(e) => {
                run_db(self.conn, "ROLLBACK TO nested").and_then(|()| run_db(self.conn, "RELEASE nested"))?;
                self.pending.truncate(mark);
                Err(e)
            }
        }
    }
}

/// Runs a parameterless statement through the statement cache: savepoints are issued for every
/// operation, and parsing them each time was a fifth of the writer's time.
pub(super) fn run_cached(conn: &Connection, sql: &str) -> rusqlite::Result<()> {
    conn.prepare_cached(sql)?.execute([]).map(|_| ())
}

/// [`run_cached`] on either store.
pub(crate) fn run_db(conn: Db<'_>, sql: &str) -> Result<(), StoreError> {
    match conn {
        Db::Sqlite(c) => Ok(run_cached(c, sql)?),
        Db::Postgres(_) => conn.execute_batch(sql),
    }
}

/// Runs `f` as a write of its own on `db` (begun, then committed when it succeeds, else rolled
/// back), at time `now`: for tests of the tables' operations on a store without its writer thread.
#[cfg(test)]
pub(crate) fn write_for_tests<T>(
    db: Db<'_>,
    now: i64,
    f: impl FnOnce(&mut WriteTx<'_>) -> Result<T, StoreError>,
) -> Result<T, StoreError> {
    let mut pending = Pending::default();
    db.transaction(|db| f(&mut WriteTx::new(db, &mut pending, 1, now)))
}

/// [`write_for_tests`], with the running totals and the delivery report written just before the
/// commit, as the writer thread writes them.
#[cfg(test)]
pub(crate) fn write_counted_for_tests<T>(
    db: Db<'_>,
    now: i64,
    f: impl FnOnce(&mut WriteTx<'_>) -> Result<T, StoreError>,
) -> Result<T, StoreError> {
    let mut pending = Pending::default();
    db.transaction(|db| {
        let out = f(&mut WriteTx::new(db, &mut pending, 1, now))?;
        pending.totals.flush(db)?;
        crate::reports::flush(db, &mut pending.report)?;
        Ok(out)
    })
}
