//! One operation in a savepoint of its own, undone alone when it fails or panics, and the replies
//! a batch owes its callers until the commit's outcome is known.

use std::panic::{catch_unwind, AssertUnwindSafe};

use crate::db::Db;

use super::tx::{run_db, Pending};
use super::{CommitFailed, Ran, Reply, WriteTx};

/// What became of one operation.
pub(super) enum Done {
    Applied(Reply),
    Failed(Reply),
    /// Panicked, or failed with nothing to answer: already rolled back and reported.
    Dropped,
}

/// The replies a batch owes, kept until its commit's outcome is known.
pub(super) struct Replies {
    /// Operations that succeeded: their answer is the commit's outcome.
    pub(super) applied: Vec<Reply>,
    /// Operations that failed and were rolled back: their answer is their own error.
    failed: Vec<Reply>,
}

impl Replies {
    /// Room for the replies of `ops` operations.
    pub(super) fn with_capacity(ops: usize) -> Replies {
        Replies {
            applied: Vec::with_capacity(ops),
            failed: Vec::new(),
        }
    }

    pub(super) fn add(&mut self, done: Done) {
        match done {
            Done::Applied(reply) => self.applied.push(reply),
            Done::Failed(reply) => self.failed.push(reply),
            Done::Dropped => {}
        }
    }

    /// Answers every caller: first the failed operations (each reply carries its own error, so
    /// the commit's outcome is not theirs), then the applied ones, with the commit's outcome.
    pub(super) fn send(self, committed: &Result<(), CommitFailed>) {
        for reply in self.failed {
            reply(Ok(()));
        }
        for reply in self.applied {
            reply(committed.clone());
        }
    }
}

/// Runs `f` in a savepoint of its own, undoing it when it fails or panics.
pub(super) fn guarded(
    conn: Db<'_>,
    batch: u64,
    now: i64,
    pending: &mut Pending,
    f: impl FnOnce(&mut WriteTx<'_>) -> Option<Ran>,
) -> Done {
    let mark = pending.mark();
    if let Err(e) = run_db(conn, "SAVEPOINT op") {
        tracing::error!(error = %e, "cannot open a savepoint; operation aborted");
        return Done::Dropped;
    }
    let ran = catch_unwind(AssertUnwindSafe(|| {
        f(&mut WriteTx::new(conn, &mut *pending, batch, now))
    }));
    if let Ok(Some(Ran::Applied(reply))) = ran {
        return match run_db(conn, "RELEASE op") {
            Ok(()) => Done::Applied(reply),
            Err(e) => {
                reply(Err(CommitFailed::from_store(&e)));
                Done::Dropped
            }
        };
    }
    // Undo just this operation. Its reply (if it did not panic) carries its own error; a
    // panicked operation's reply was dropped, which its caller sees as Aborted.
    let undone = run_db(conn, "ROLLBACK TO op").and_then(|()| run_db(conn, "RELEASE op"));
    if let Err(e) = undone {
        tracing::error!(error = %e, "cannot roll back a failed operation");
    }
    pending.truncate(mark);
    match ran {
        Ok(Some(Ran::Failed(reply))) => Done::Failed(reply),
        Ok(_) => Done::Dropped,
        Err(_) => {
            tracing::error!(batch, "a write operation panicked; it was rolled back");
            Done::Dropped
        }
    }
}
