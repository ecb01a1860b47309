//! Operations that may be run more than once ([`super::Writer::write_replayable`]).
//!
//! Every ordinary operation runs in a savepoint of its own, so that one that fails is undone
//! alone. A savepoint copies aside each page the first time its operation changes it, and the
//! operations of a batch mostly change the same pages (the ends of the same tables and indexes,
//! the same totals): with one savepoint each, those pages were copied again for every operation,
//! a quarter of the writer's time while sending. Operations that can be run again share one
//! savepoint instead: consecutive ones run together, and only if one of them fails (or panics)
//! are they all rolled back and run again one by one, each in its own savepoint, as ordinary
//! operations are. The outcome is the same either way: what commits is what the operations that
//! succeeded wrote, and each caller gets its own operation's value or error.

use std::panic::{catch_unwind, AssertUnwindSafe};

use tokio::sync::oneshot;

use super::savepoint::{guarded, Replies};
use super::tx::{run_db, Pending};
use super::{CommitFailed, Job, Op, Ran, Reply, WriteTx};
use crate::db::Db;
use crate::StoreError;

/// An operation that may run more than once, with the result of its latest run.
pub(super) trait Replay: Send {
    /// Runs the operation (again, after a rollback); whether it succeeded.
    fn run(&mut self, wtx: &mut WriteTx<'_>) -> bool;
    /// Answers its caller: the latest run's value with the commit's outcome, or its own error.
    fn answer(self: Box<Self>, commit: Result<(), CommitFailed>);
}

struct Replayable<F, T, E> {
    op: F,
    latest: Option<Result<T, E>>,
    caller: oneshot::Sender<Result<T, E>>,
}

impl<F, T, E> Replay for Replayable<F, T, E>
where
    F: FnMut(&mut WriteTx<'_>) -> Result<T, E> + Send,
    T: Send,
    E: From<StoreError> + Send,
{
    fn run(&mut self, wtx: &mut WriteTx<'_>) -> bool {
        let result = (self.op)(wtx);
        let ok = result.is_ok();
        self.latest = Some(result);
        ok
    }

    fn answer(self: Box<Self>, commit: Result<(), CommitFailed>) {
        let answer = match self.latest {
            Some(Ok(value)) => commit.map(|()| value).map_err(|e| e.error().into()),
            Some(Err(e)) => Err(e),
            // Never ran: dropping the sender tells the caller it was aborted.
            None => return,
        };
        let _ = self.caller.send(answer);
    }
}

/// A replayable operation as a job, and the channel its result comes back on.
#[allow(clippy::type_complexity)]
pub(super) fn package<T, E, F>(op: F) -> (Job, oneshot::Receiver<Result<T, E>>)
where
    F: FnMut(&mut WriteTx<'_>) -> Result<T, E> + Send + 'static,
    T: Send + 'static,
    E: From<StoreError> + Send + 'static,
{
    let (caller, rx) = oneshot::channel();
    let op = Replayable {
        op,
        latest: None,
        caller,
    };
    (Job::Op(Op::Replay(Box::new(op))), rx)
}

/// Runs consecutive replayable operations in one savepoint; if one fails or panics, undoes them
/// all and runs each again in a savepoint of its own. Their replies go to `replies`.
pub(super) fn run_together(
    conn: Db<'_>,
    (batch, now): (u64, i64),
    pending: &mut Pending,
    mut ops: Vec<Box<dyn Replay>>,
    replies: &mut Replies,
) {
    let mark = pending.mark();
    if run_db(conn, "SAVEPOINT together").is_ok() {
        let all = catch_unwind(AssertUnwindSafe(|| {
            let mut wtx = WriteTx::new(conn, &mut *pending, batch, now);
            ops.iter_mut().all(|op| op.run(&mut wtx))
        }));
        if matches!(all, Ok(true)) && run_db(conn, "RELEASE together").is_ok() {
            for op in ops {
                replies.applied.push(Box::new(move |commit| op.answer(commit)));
            }
            return;
        }
        let undone = run_db(conn, "ROLLBACK TO together").and_then(|()| run_db(conn, "RELEASE together"));
        if let Err(e) = undone {
            tracing::error!(error = %e, "cannot roll back operations run together");
        }
        pending.truncate(mark);
    }
    for mut op in ops {
        replies.add(guarded(conn, batch, now, pending, move |wtx| {
            let ok = op.run(wtx);
            let reply: Reply = Box::new(move |commit| op.answer(commit));
            Some(if ok { Ran::Applied(reply) } else { Ran::Failed(reply) })
        }));
    }
}
