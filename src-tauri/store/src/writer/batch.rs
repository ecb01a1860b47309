//! Running one batch as one transaction: begin it, run the leading operation (if any) without a
//! savepoint and every other operation in a savepoint of its own, write the running totals,
//! commit, then answer each caller and announce the changes.
//!
//! The guarantees, in order of the code below: a batch that cannot begin aborts its operations
//! unanswered (their callers see `Aborted`); an operation that fails or panics is rolled back
//! alone; no caller is answered before the commit's outcome is known; changes are announced only
//! after a commit that succeeded.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};

use crate::db::Db;
use tokio::sync::broadcast;

use super::phases::{Phase, Phases};
use super::replay::{run_together, Replay};
use super::savepoint::{guarded, Done, Replies};
use super::tx::Pending;
use super::watch::Watch;
use super::{Change, CommitFailed, Guard, LeadOp, Op, Ran, WriteTx};
use crate::room::Room;

/// Runs batch number `batch`, at clock reading `now`: `lead` first, then `ops` in queue order.
/// While `full` is set (only a test sets it), every commit of a transaction that wrote fails as
/// SQLite fails one on a full disk. `room` learns whether the commit failed for want of room, or
/// wrote.
pub(super) fn run_batch(
    conn: Db<'_>,
    (batch, now): (u64, i64),
    lead: Option<LeadOp>,
    ops: Vec<Op>,
    (events, watch): (&broadcast::Sender<Change>, &Watch),
    (full, room): (&AtomicBool, &Room),
) -> Phases {
    let mut phases = Phases::begin(ops.len() + usize::from(lead.is_some()));
    if let Err(e) = begin(conn) {
        // Dropping the operations unanswered tells each caller its write was aborted.
        let n = phases.operations;
        tracing::error!(error = %e, "cannot begin a write transaction; {n} operation(s) aborted");
        return phases;
    }
    let mut pending = Pending {
        intake_refusal: room.intake_refusal(),
        ..Pending::default()
    };
    let changes_before = total_changes(conn);
    let Some(replies) = run_all(conn, batch, now, &mut pending, lead, ops) else {
        return phases;
    };
    phases.lap(Phase::Operations);
    // PostgreSQL does not count a connection's changes: a transaction there is taken to write.
    let wrote = changes_before.is_none() || total_changes(conn) != changes_before;
    // As on a real full disk, a transaction that wrote nothing commits (it adds nothing to the WAL).
    let committed = if wrote && full.load(Ordering::Relaxed) {
        let _ = conn.execute_batch("ROLLBACK");
        Err(CommitFailed::from_sqlite(&disk_full()))
    } else {
        commit(conn, batch, &mut pending, &mut phases)
    };
    watch.transaction_over();
    match &committed {
        Err(e) if e.full => room.failed(now, &e.message),
        Err(_) => {}
        Ok(()) if wrote => room.wrote(),
        Ok(()) => {}
    }
    replies.send(&committed);
    if committed.is_ok() {
        for change in pending.changes {
            // No subscriber is fine: live views are optional.
            let _ = events.send(change);
        }
    }
    phases.lap(Phase::Answers);
    phases
}

/// Runs the batch's operations in its open transaction, keeping their replies for after the
/// commit. `None` when a leading operation had to be undone and no transaction could be begun
/// again: the batch is then over, rolled back, and its operations are dropped unanswered.
fn run_all(
    conn: Db<'_>,
    batch: u64,
    now: i64,
    pending: &mut Pending,
    lead: Option<LeadOp>,
    ops: Vec<Op>,
) -> Option<Replies> {
    let mut replies = Replies::with_capacity(ops.len() + 1);
    if let Some(op) = lead {
        replies.add(lead_first(conn, batch, now, pending, op).ok()?);
    }
    let mut ops = ops.into_iter().peekable();
    while let Some(op) = ops.next() {
        match op {
            Op::Once(op) => replies.add(guarded(conn, batch, now, pending, |wtx| Some(op(wtx)))),
            Op::Replay(first) => {
                let mut together: Vec<Box<dyn Replay>> = vec![first];
                while let Some(Op::Replay(_)) = ops.peek() {
                    if let Some(Op::Replay(next)) = ops.next() {
                        together.push(next);
                    }
                }
                run_together(conn, (batch, now), pending, together, &mut replies);
            }
        }
    }
    Some(replies)
}

/// Indexes the transaction's new messages for text search and writes the running totals the
/// operations added to, then commits; on failure, rolls the batch back. The index and the totals
/// go with the rows they describe: if they cannot be written, nothing is committed.
fn commit(conn: Db<'_>, batch: u64, pending: &mut Pending, phases: &mut Phases) -> Result<(), CommitFailed> {
    // PostgreSQL keeps its own text search index up to date (see crate::search_index).
    let indexed = match conn {
        Db::Sqlite(c) => crate::search_index::catch_up(c).map_err(crate::StoreError::from),
        Db::Postgres(_) => Ok(()),
    };
    let committed = indexed
        .inspect(|()| phases.lap(Phase::SearchIndex))
        .and_then(|()| pending.totals.flush(conn))
        .and_then(|()| crate::reports::flush(conn, &mut pending.report))
        .inspect(|()| phases.lap(Phase::Totals))
        .and_then(|()| conn.execute_batch("COMMIT"))
        .inspect(|()| phases.lap(Phase::Commit))
        .map_err(|e| CommitFailed::from_store(&e));
    if let Err(e) = &committed {
        tracing::error!(error = ?e, batch, "commit failed; nothing of this batch was applied");
        let _ = conn.execute_batch("ROLLBACK");
    }
    committed
}

/// The advisory lock every PostgreSQL batch takes as it begins, until it ends ("writer" in ASCII,
/// as a number).
const WRITER_LOCK: i64 = 0x7772_6974_6572;

/// The error SQLite gives when the disk is full (for the commits a test makes fail).
fn disk_full() -> rusqlite::Error {
    rusqlite::Error::SqliteFailure(
        rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_FULL),
        Some("database or disk is full (made to fail by a test)".into()),
    )
}

/// Runs a leading operation first in the open transaction, without a savepoint; if it asks to be
/// undone (or fails, or panics), rolls the transaction back, begins another, and (when it asked)
/// runs it again in a savepoint. `Err` when no transaction could be begun again.
fn lead_first(conn: Db<'_>, batch: u64, now: i64, pending: &mut Pending, mut op: LeadOp) -> Result<Done, ()> {
    let ran = catch_unwind(AssertUnwindSafe(|| {
        op(&mut WriteTx::new(conn, &mut *pending, batch, now), Guard::First)
    }));
    let done = match ran {
        Ok(Some(Ran::Applied(reply))) => return Ok(Done::Applied(reply)),
        Ok(Some(Ran::Failed(reply))) => Some(Done::Failed(reply)),
        Ok(None) => None,
        Err(_) => {
            tracing::error!(batch, "a write operation panicked; it was rolled back");
            Some(Done::Dropped)
        }
    };
    pending.clear();
    if !begin_again(conn, batch) {
        return Err(());
    }
    Ok(done.unwrap_or_else(|| guarded(conn, batch, now, pending, |wtx| op(wtx, Guard::Savepoint))))
}

/// Rolls the open transaction back and begins another. `false` when that failed: then no
/// transaction is left open.
fn begin_again(conn: Db<'_>, batch: u64) -> bool {
    let restarted = conn.execute_batch("ROLLBACK").and_then(|()| begin(conn));
    if let Err(e) = restarted {
        tracing::error!(error = %e, batch, "cannot begin a write transaction again; the rest of the batch is aborted");
        let open = match conn {
            Db::Sqlite(c) => !c.is_autocommit(),
            // Rolling back outside a transaction only warns there.
            Db::Postgres(_) => true,
        };
        if open {
            let _ = conn.execute_batch("ROLLBACK");
        }
        return false;
    }
    true
}

/// Begins the batch's transaction: on SQLite taking the write lock at once (IMMEDIATE), so that
/// no statement of the batch waits for it half-way. On PostgreSQL the nodes' writers take turns
/// the same way (a transaction-level advisory lock): every batch adds to the same running totals
/// and report rows, and a receipt for a message one node sent may arrive on another's bind, so
/// two batches at once would lock the same rows in different orders and deadlock. A node's
/// batches carry many operations each; reads are not held back.
fn begin(conn: Db<'_>) -> Result<(), crate::StoreError> {
    match conn {
        Db::Sqlite(c) => Ok(c.execute_batch("BEGIN IMMEDIATE")?),
        Db::Postgres(_) => {
            conn.execute_batch("BEGIN")?;
            conn.execute("SELECT pg_advisory_xact_lock(?1)", &[&WRITER_LOCK])
                .map(drop)
        }
    }
}

/// The rows SQLite changed on this connection so far; PostgreSQL does not say.
fn total_changes(conn: Db<'_>) -> Option<u64> {
    match conn {
        Db::Sqlite(c) => Some(c.total_changes()),
        Db::Postgres(_) => None,
    }
}
