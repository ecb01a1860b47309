//! The single writer: one thread owns the only write connection, groups queued operations into one
//! transaction (group commit), and answers each caller only after that transaction committed.
//!
//! Every operation runs inside its own savepoint, so one that fails (or panics) is rolled back alone:
//! the others in the batch still commit and their callers get their answers. Async callers never
//! block a runtime thread: they wait on a oneshot channel that the writer thread completes.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::thread::JoinHandle;

use rusqlite::Connection;
use tokio::sync::{broadcast, mpsc, oneshot};

use super::tables::{AuditLog, ReceiptLog};
use super::StoreError;
use crate::clock::now_ms;

/// Most operations one transaction takes; bounds the latency a large backlog adds to a commit.
pub const MAX_BATCH: usize = 1_000;
/// Operations that may wait for the writer before callers are held back.
const QUEUE_DEPTH: usize = 16_384;

/// Which kind of row changed; sent to subscribers after commit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Entity {
    Message,
    Queue,
    Attempt,
    Receipt,
    LogicalEvent,
    Projection,
    Exception,
    Audit,
}

/// A committed change, for live views. Emitted only after the transaction that made it committed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Change {
    pub entity: Entity,
    pub id: i64,
}

/// What an operation sees: the open transaction, and a place to record what it changed.
pub struct WriteTx<'a> {
    conn: &'a Connection,
    changes: &'a mut Vec<Change>,
    batch: u64,
    now: i64,
}

impl<'c> WriteTx<'c> {
    /// The connection, inside the batch's transaction and this operation's savepoint.
    pub(crate) fn conn(&self) -> &Connection {
        self.conn
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
        self.changes.push(Change { entity, id });
    }

    /// Runs `f` in a nested savepoint: if it fails, what it wrote (and announced) is undone while
    /// the rest of the operation stands.
    pub fn nested<T, E: From<StoreError>>(&mut self, f: impl FnOnce(&mut WriteTx<'c>) -> Result<T, E>) -> Result<T, E> {
        run_cached(self.conn, "SAVEPOINT nested").map_err(StoreError::from)?;
        let mark = self.changes.len();
        match f(self) {
            Ok(v) => {
                run_cached(self.conn, "RELEASE nested").map_err(StoreError::from)?;
                Ok(v)
            }
            Err(e) => {
                run_cached(self.conn, "ROLLBACK TO nested")
                    .and_then(|()| run_cached(self.conn, "RELEASE nested"))
                    .map_err(StoreError::from)?;
                self.changes.truncate(mark);
                Err(e)
            }
        }
    }

    /// The receipt log. It can only append.
    pub fn receipts(&mut self) -> ReceiptLog<'_, 'c> {
        ReceiptLog::new(self)
    }

    /// The audit log. It can only append.
    pub fn audit(&mut self) -> AuditLog<'_, 'c> {
        AuditLog::new(self)
    }
}

type Reply = Box<dyn FnOnce(Result<(), String>) + Send>;

enum Ran {
    /// The operation succeeded; its reply waits for the commit's outcome.
    Applied(Reply),
    /// The operation failed and was rolled back; its reply carries its own error.
    Failed(Reply),
}

type Op = Box<dyn FnOnce(&mut WriteTx<'_>) -> Ran + Send>;

enum Job {
    Op(Op),
    Shutdown,
}

/// A cloneable handle to the writer thread.
#[derive(Clone)]
pub struct Writer {
    jobs: mpsc::Sender<Job>,
}

impl Writer {
    /// Starts the writer thread on `conn`, which must already carry the writer's pragmas.
    pub(crate) fn start(conn: Connection, events: broadcast::Sender<Change>) -> (Writer, JoinHandle<()>) {
        let (jobs, rx) = mpsc::channel(QUEUE_DEPTH);
        let handle = std::thread::Builder::new()
            .name("smsdesk-writer".into())
            .spawn(move || run(conn, rx, events))
            .expect("the operating system refused to start the database writer thread");
        (Writer { jobs }, handle)
    }

    /// Runs `op` in the next batch and returns its result once the batch has committed.
    pub async fn write<T, E, F>(&self, op: F) -> Result<T, E>
    where
        F: FnOnce(&mut WriteTx<'_>) -> Result<T, E> + Send + 'static,
        T: Send + 'static,
        E: From<StoreError> + Send + 'static,
    {
        let (job, rx) = package(op);
        self.jobs.send(job).await.map_err(|_| StoreError::Closed)?;
        rx.await.map_err(|_| StoreError::Aborted)?
    }

    /// Like [`Writer::write`], for synchronous callers (command-line tools, tests, blocking tasks).
    /// Must not be called from an async task.
    pub fn write_blocking<T, E, F>(&self, op: F) -> Result<T, E>
    where
        F: FnOnce(&mut WriteTx<'_>) -> Result<T, E> + Send + 'static,
        T: Send + 'static,
        E: From<StoreError> + Send + 'static,
    {
        let (job, rx) = package(op);
        self.jobs.blocking_send(job).map_err(|_| StoreError::Closed)?;
        rx.blocking_recv().map_err(|_| StoreError::Aborted)?
    }

    /// Asks the writer to finish what is queued before this request, then stop.
    pub(crate) fn request_shutdown(&self) {
        // A full queue or a stopped writer both mean there is nothing to ask.
        let _ = self.jobs.try_send(Job::Shutdown).or_else(|e| match e {
            mpsc::error::TrySendError::Full(job) => self.jobs.blocking_send(job).map_err(|_| ()),
            mpsc::error::TrySendError::Closed(_) => Ok(()),
        });
    }
}

#[allow(clippy::type_complexity)]
fn package<T, E, F>(op: F) -> (Job, oneshot::Receiver<Result<T, E>>)
where
    F: FnOnce(&mut WriteTx<'_>) -> Result<T, E> + Send + 'static,
    T: Send + 'static,
    E: From<StoreError> + Send + 'static,
{
    let (tx, rx) = oneshot::channel::<Result<T, E>>();
    let op: Op = Box::new(move |wtx| match op(wtx) {
        Ok(value) => Ran::Applied(Box::new(move |commit| {
            let _ = tx.send(commit.map(|()| value).map_err(|e| StoreError::Commit(e).into()));
        })),
        Err(err) => Ran::Failed(Box::new(move |_| {
            let _ = tx.send(Err(err));
        })),
    });
    (Job::Op(op), rx)
}

/// Runs a parameterless statement through the statement cache: savepoints are issued for every
/// operation, and parsing them each time was a fifth of the writer's time.
fn run_cached(conn: &Connection, sql: &str) -> rusqlite::Result<()> {
    conn.prepare_cached(sql)?.execute([]).map(|_| ())
}

fn run(conn: Connection, mut rx: mpsc::Receiver<Job>, events: broadcast::Sender<Change>) {
    let mut batch: u64 = 0;
    let mut stop = false;
    while !stop {
        let Some(first) = rx.blocking_recv() else {
            break;
        };
        let mut ops = Vec::new();
        for job in std::iter::once(first).chain(std::iter::from_fn(|| rx.try_recv().ok())) {
            match job {
                Job::Op(op) => ops.push(op),
                Job::Shutdown => {
                    stop = true;
                    break;
                }
            }
            if ops.len() >= MAX_BATCH {
                break;
            }
        }
        if ops.is_empty() {
            continue;
        }
        batch += 1;
        run_batch(&conn, batch, ops, &events);
    }
    rx.close();
    tracing::debug!(batches = batch, "database writer stopped");
}

fn run_batch(conn: &Connection, batch: u64, ops: Vec<Op>, events: &broadcast::Sender<Change>) {
    if let Err(e) = conn.execute_batch("BEGIN IMMEDIATE") {
        // Dropping the operations unanswered tells each caller its write was aborted.
        tracing::error!(error = %e, "cannot begin a write transaction; {} operation(s) aborted", ops.len());
        return;
    }
    let mut changes = Vec::new();
    let mut applied = Vec::with_capacity(ops.len());
    let mut failed = Vec::new();
    let now = now_ms();
    for op in ops {
        let mark = changes.len();
        if let Err(e) = run_cached(conn, "SAVEPOINT op") {
            tracing::error!(error = %e, "cannot open a savepoint; operation aborted");
            continue;
        }
        let mut wtx = WriteTx {
            conn,
            changes: &mut changes,
            batch,
            now,
        };
        let ran = catch_unwind(AssertUnwindSafe(|| op(&mut wtx)));
        match ran {
            Ok(Ran::Applied(reply)) => match run_cached(conn, "RELEASE op") {
                Ok(()) => applied.push(reply),
                Err(e) => reply(Err(e.to_string())),
            },
            other => {
                // Undo just this operation. Its reply (if it did not panic) carries its own error;
                // a panicked operation's reply was dropped, which its caller sees as Aborted.
                let undone = run_cached(conn, "ROLLBACK TO op").and_then(|()| run_cached(conn, "RELEASE op"));
                if let Err(e) = undone {
                    tracing::error!(error = %e, "cannot roll back a failed operation");
                }
                changes.truncate(mark);
                if let Ok(Ran::Failed(reply)) = other {
                    failed.push(reply);
                } else {
                    tracing::error!(batch, "a write operation panicked; it was rolled back");
                }
            }
        }
    }
    let committed = conn.execute_batch("COMMIT").map_err(|e| e.to_string());
    if let Err(e) = &committed {
        tracing::error!(error = %e, batch, "commit failed; nothing of this batch was applied");
        let _ = conn.execute_batch("ROLLBACK");
    }
    for reply in failed {
        reply(Ok(()));
    }
    let ok = committed.is_ok();
    for reply in applied {
        reply(committed.clone());
    }
    if ok {
        for change in changes {
            // No subscriber is fine: live views are optional.
            let _ = events.send(change);
        }
    }
}
