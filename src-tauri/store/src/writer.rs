//! The single writer: one thread owns the only write connection, groups queued operations into one
//! transaction (group commit), and answers each caller only after that transaction committed.
//!
//! Every operation runs inside its own savepoint, so one that fails (or panics) is rolled back alone:
//! the others in the batch still commit and their callers get their answers. Async callers never
//! block a runtime thread: they wait on a oneshot channel that the writer thread completes.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;

use rusqlite::Connection;
use tokio::sync::{broadcast, mpsc, oneshot};

use super::tables::{AuditLog, ReceiptLog};
use super::totals::{Delta, Totals};
use super::StoreError;
use smsdesk_core::time::Clock;

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
    pending: &'a mut Pending,
    batch: u64,
    now: i64,
}

/// What the operations of a transaction recorded for after their writes: changes to announce
/// once it commits, and additions to the running totals to write just before.
#[derive(Default)]
struct Pending {
    changes: Vec<Change>,
    totals: Totals,
}

/// How much of [`Pending`] an operation or savepoint found when it began.
#[derive(Clone, Copy)]
struct Mark {
    changes: usize,
    totals: usize,
}

impl Pending {
    fn mark(&self) -> Mark {
        Mark {
            changes: self.changes.len(),
            totals: self.totals.len(),
        }
    }

    /// Forgets what was recorded after `mark`: its writes were rolled back.
    fn truncate(&mut self, mark: Mark) {
        self.changes.truncate(mark.changes);
        self.totals.truncate(mark.totals);
    }

    fn clear(&mut self) {
        self.changes.clear();
        self.totals.clear();
    }
}

impl<'c> WriteTx<'c> {
    /// The connection, inside the batch's transaction and this operation's savepoint: this
    /// crate's alone (the others pass the transaction to its functions).
    pub(crate) fn conn(&self) -> &Connection {
        self.conn
    }

    /// The connection, for tests that set a scene the product never makes (a damaged row, a
    /// trigger that fails on purpose) or check one. Only with the `test-hooks` feature, which only
    /// the crates' tests turn on.
    #[cfg(feature = "test-hooks")]
    pub fn sql_for_tests(&self) -> &Connection {
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
        self.pending.changes.push(Change { entity, id });
    }

    /// Records an addition to a running total, written with the transaction's others just before
    /// it commits (see [`super::totals`]).
    pub(crate) fn count(&mut self, d: Delta) {
        self.pending.totals.push(d);
    }

    /// Runs `f` in a nested savepoint: if it fails, what it wrote (and announced) is undone while
    /// the rest of the operation stands.
    pub fn nested<T, E: From<StoreError>>(&mut self, f: impl FnOnce(&mut WriteTx<'c>) -> Result<T, E>) -> Result<T, E> {
        run_cached(self.conn, "SAVEPOINT nested").map_err(StoreError::from)?;
        let mark = self.pending.mark();
        match f(self) {
            Ok(v) => {
                run_cached(self.conn, "RELEASE nested").map_err(StoreError::from)?;
                Ok(v)
            }
            Err(e) => {
                run_cached(self.conn, "ROLLBACK TO nested")
                    .and_then(|()| run_cached(self.conn, "RELEASE nested"))
                    .map_err(StoreError::from)?;
                self.pending.truncate(mark);
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

/// An operation that runs first in its transaction, without a savepoint (see [`Slot::submit`]).
/// `None` asks for what it wrote to be undone and for it to be called again in a savepoint.
type LeadOp = Box<dyn FnMut(&mut WriteTx<'_>, Guard) -> Option<Ran> + Send>;

enum Job {
    Op(Op),
    Lead(LeadOp),
    Shutdown,
}

/// What protects the rest of the transaction from an operation submitted through a [`Slot`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Guard {
    /// Nothing: it runs first in its transaction, so undoing it means rolling the transaction
    /// back. Writing costs least this way: a savepoint copies every page it touches aside.
    First,
    /// A savepoint of its own, like every other operation.
    Savepoint,
}

/// A cloneable handle to the writer thread.
#[derive(Clone)]
pub struct Writer {
    jobs: mpsc::Sender<Job>,
}

impl Writer {
    /// Starts the writer thread on `conn`, which must already carry the writer's pragmas. When
    /// `restart` is set, the thread finishes the background checkpoint between two transactions,
    /// so that the next one writes the WAL from its start (see [`super::checkpoint`]).
    pub(crate) fn start(
        conn: Connection,
        events: broadcast::Sender<Change>,
        restart: Arc<AtomicBool>,
        clock: Clock,
    ) -> (Writer, JoinHandle<()>) {
        let (jobs, rx) = mpsc::channel(QUEUE_DEPTH);
        let handle = std::thread::Builder::new()
            .name("smsdesk-writer".into())
            .spawn(move || run(conn, rx, events, &restart, &clock))
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
        answer(rx).await.map_err(|_| StoreError::Aborted)?
    }

    /// Waits until the writer has run an operation that does nothing: proof that it takes work
    /// and commits. Wait with a timeout: a writer stuck in a long operation answers only after it.
    pub async fn probe(&self) -> Result<(), StoreError> {
        self.write(|_| Ok::<_, StoreError>(())).await
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

    /// Waits for room in the writer's queue and holds it: what is then submitted through the
    /// [`Slot`] cannot be lost to a cancelled caller between the wait and the hand-over.
    pub async fn reserve(&self) -> Result<Slot<'_>, StoreError> {
        let permit = self.jobs.reserve().await.map_err(|_| StoreError::Closed)?;
        Ok(Slot { permit })
    }

    /// Like [`Slot::submit`], for synchronous callers (who cannot be cancelled, so need no slot).
    /// Must not be called from an async task. When the writer is shut down, `op` is dropped
    /// without running and the error returned.
    pub fn submit_blocking<T, F, D>(&self, op: F, done: D) -> Result<(), StoreError>
    where
        F: FnMut(&mut WriteTx<'_>, Guard) -> Option<T> + Send + 'static,
        D: FnOnce(T, Result<(), StoreError>) + Send + 'static,
        T: Send + 'static,
    {
        self.jobs
            .blocking_send(reporting(op, done))
            .map_err(|_| StoreError::Closed)
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

/// Room for one operation in the writer's queue, held until it is used or dropped.
pub struct Slot<'w> {
    permit: mpsc::Permit<'w, Job>,
}

impl Slot<'_> {
    /// Queues `op` to run first in a transaction, with no savepoint ([`Guard::First`]). If it
    /// returns `None`, everything it wrote is undone (with the transaction, which holds nothing
    /// else) and it is called once more, in a savepoint ([`Guard::Savepoint`]); `None` then
    /// means it failed, and is undone again. When it returns `Some`, `done` runs on the writer
    /// thread with that value and the outcome of the transaction's commit. (If `op` panics, what
    /// it wrote is undone and `done` does not run.)
    pub fn submit<T, F, D>(self, op: F, done: D)
    where
        F: FnMut(&mut WriteTx<'_>, Guard) -> Option<T> + Send + 'static,
        D: FnOnce(T, Result<(), StoreError>) + Send + 'static,
        T: Send + 'static,
    {
        self.permit.send(reporting(op, done));
    }
}

fn reporting<T, F, D>(mut op: F, done: D) -> Job
where
    F: FnMut(&mut WriteTx<'_>, Guard) -> Option<T> + Send + 'static,
    D: FnOnce(T, Result<(), StoreError>) + Send + 'static,
    T: Send + 'static,
{
    let mut done = Some(done);
    Job::Lead(Box::new(move |wtx, guard| {
        let value = op(wtx, guard)?;
        let done = done.take()?;
        Some(Ran::Applied(Box::new(move |commit| {
            done(value, commit.map_err(StoreError::Commit))
        })))
    }))
}

#[allow(clippy::type_complexity)]
/// The writer thread's answer to an operation.
#[cfg(not(feature = "test-hooks"))]
async fn answer<T>(rx: oneshot::Receiver<T>) -> Result<T, oneshot::error::RecvError> {
    rx.await
}

/// In tests, the wait for the writer thread's answer runs as a blocking task. A test whose time
/// is paused then does not see its clock jump ahead while the writer works: tokio moves a paused
/// clock on only when the runtime has nothing to do, and a blocking task is something to do,
/// whereas the writer thread is not the runtime's.
#[cfg(feature = "test-hooks")]
async fn answer<T: Send + 'static>(rx: oneshot::Receiver<T>) -> Result<T, oneshot::error::RecvError> {
    match tokio::task::spawn_blocking(move || rx.blocking_recv()).await {
        Ok(answer) => answer,
        Err(join) => std::panic::resume_unwind(join.into_panic()),
    }
}

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

fn run(
    conn: Connection,
    mut rx: mpsc::Receiver<Job>,
    events: broadcast::Sender<Change>,
    restart: &AtomicBool,
    clock: &Clock,
) {
    let mut batch: u64 = 0;
    let mut stop = false;
    // A leading operation met after others waits for the next batch, which it then opens.
    let mut carried: Option<Job> = None;
    while !stop || carried.is_some() {
        let Some(first) = carried.take().or_else(|| rx.blocking_recv()) else {
            break;
        };
        let mut lead = None;
        let mut ops = Vec::new();
        let mut next = Some(first);
        // Nothing queued after the shutdown request is taken.
        while let Some(job) = next.take().or_else(|| if stop { None } else { rx.try_recv().ok() }) {
            match job {
                Job::Op(op) => ops.push(op),
                Job::Lead(op) if lead.is_none() && ops.is_empty() => lead = Some(op),
                job @ Job::Lead(_) => {
                    carried = Some(job);
                    break;
                }
                Job::Shutdown => {
                    stop = true;
                    break;
                }
            }
            if ops.len() + usize::from(lead.is_some()) >= MAX_BATCH {
                break;
            }
        }
        if lead.is_none() && ops.is_empty() {
            continue;
        }
        batch += 1;
        run_batch(&conn, batch, clock.now_ms(), lead, ops, &events);
        if restart.swap(false, Ordering::Relaxed) {
            // Outside any transaction: copies what the background pass left, and never waits.
            if let Err(e) = super::checkpoint::checkpoint(&conn) {
                tracing::warn!(error = %e, "WAL checkpoint on the writer failed; will try again");
            }
        }
    }
    rx.close();
    tracing::debug!(batches = batch, "database writer stopped");
}

/// What became of one operation.
enum Done {
    Applied(Reply),
    Failed(Reply),
    /// Panicked, or failed with nothing to answer: already rolled back and reported.
    Dropped,
}

/// Runs `f` in a savepoint of its own, undoing it when it fails or panics.
fn guarded(
    conn: &Connection,
    batch: u64,
    now: i64,
    pending: &mut Pending,
    f: impl FnOnce(&mut WriteTx<'_>) -> Option<Ran>,
) -> Done {
    let mark = pending.mark();
    if let Err(e) = run_cached(conn, "SAVEPOINT op") {
        tracing::error!(error = %e, "cannot open a savepoint; operation aborted");
        return Done::Dropped;
    }
    let ran = catch_unwind(AssertUnwindSafe(|| {
        f(&mut WriteTx {
            conn,
            pending: &mut *pending,
            batch,
            now,
        })
    }));
    if let Ok(Some(Ran::Applied(reply))) = ran {
        return match run_cached(conn, "RELEASE op") {
            Ok(()) => Done::Applied(reply),
            Err(e) => {
                reply(Err(e.to_string()));
                Done::Dropped
            }
        };
    }
    // Undo just this operation. Its reply (if it did not panic) carries its own error; a
    // panicked operation's reply was dropped, which its caller sees as Aborted.
    let undone = run_cached(conn, "ROLLBACK TO op").and_then(|()| run_cached(conn, "RELEASE op"));
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

/// Runs a leading operation first in the open transaction, without a savepoint; if it asks to be
/// undone (or fails, or panics), rolls the transaction back, begins another, and (when it asked)
/// runs it again in a savepoint. `Err` when no transaction could be begun again.
fn lead_first(conn: &Connection, batch: u64, now: i64, pending: &mut Pending, mut op: LeadOp) -> Result<Done, ()> {
    let ran = catch_unwind(AssertUnwindSafe(|| {
        op(
            &mut WriteTx {
                conn,
                pending: &mut *pending,
                batch,
                now,
            },
            Guard::First,
        )
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
    let restarted = conn
        .execute_batch("ROLLBACK")
        .and_then(|()| conn.execute_batch("BEGIN IMMEDIATE"));
    if let Err(e) = restarted {
        tracing::error!(error = %e, batch, "cannot begin a write transaction again; the rest of the batch is aborted");
        if !conn.is_autocommit() {
            let _ = conn.execute_batch("ROLLBACK");
        }
        return Err(());
    }
    Ok(done.unwrap_or_else(|| guarded(conn, batch, now, pending, |wtx| op(wtx, Guard::Savepoint))))
}

fn run_batch(
    conn: &Connection,
    batch: u64,
    now: i64,
    lead: Option<LeadOp>,
    ops: Vec<Op>,
    events: &broadcast::Sender<Change>,
) {
    if let Err(e) = conn.execute_batch("BEGIN IMMEDIATE") {
        // Dropping the operations unanswered tells each caller its write was aborted.
        let n = ops.len() + usize::from(lead.is_some());
        tracing::error!(error = %e, "cannot begin a write transaction; {n} operation(s) aborted");
        return;
    }
    let mut pending = Pending::default();
    let mut applied = Vec::with_capacity(ops.len() + 1);
    let mut failed = Vec::new();
    let lead = match lead.map(|op| lead_first(conn, batch, now, &mut pending, op)) {
        Some(Err(())) => return,
        Some(Ok(done)) => Some(done),
        None => None,
    };
    let rest = ops
        .into_iter()
        .map(|op| guarded(conn, batch, now, &mut pending, |wtx| Some(op(wtx))));
    for done in lead.into_iter().chain(rest.collect::<Vec<_>>()) {
        match done {
            Done::Applied(reply) => applied.push(reply),
            Done::Failed(reply) => failed.push(reply),
            Done::Dropped => {}
        }
    }
    // The totals go with the rows they count: if they cannot be written, nothing is committed.
    let committed = pending
        .totals
        .flush(conn)
        .and_then(|()| conn.execute_batch("COMMIT"))
        .map_err(|e| e.to_string());
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
        for change in pending.changes {
            // No subscriber is fine: live views are optional.
            let _ = events.send(change);
        }
    }
}
