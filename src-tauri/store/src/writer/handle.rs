//! The callers' side of the writer: [`Writer`], the handle that queues operations and waits for
//! their answers, and [`Slot`], room held in the queue for a leading operation. Each operation is
//! packaged here as a [`Job`] whose reply the writer thread calls once the commit's outcome is
//! known.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::thread::JoinHandle;

use smsdesk_core::time::Clock;
use tokio::sync::{broadcast, mpsc, oneshot};

use super::watch::{KeysVersion, Watch};
use super::{replay, thread, Change, CommitFailed, Guard, Job, Op, Ran, WriteTx, WriterStats, QUEUE_DEPTH};
use crate::room::Room;
use crate::StoreError;

/// A cloneable handle to the writer thread.
#[derive(Clone)]
pub struct Writer {
    jobs: mpsc::Sender<Job>,
    /// Wait for answers as runtime work: the clock moves with the runtime's (paused) time.
    on_runtime: bool,
    stats: Arc<WriterStats>,
    /// Makes commits fail as on a full disk while set (see [`Writer::fail_commits_for_tests`]).
    #[cfg(any(test, feature = "test-hooks"))]
    full: Arc<AtomicBool>,
}

impl Writer {
    /// Starts the writer thread on `conn`, which must already carry the writer's pragmas. When
    /// `restart` is set, the thread finishes the background checkpoint between two transactions,
    /// so that the next one writes the WAL from its start (see [`crate::checkpoint`]); while
    /// `room` says the disk is short, it also cuts the WAL back. `keys` moves on after every
    /// transaction that wrote the API keys.
    pub(crate) fn start(
        conn: crate::db::Conn,
        events: broadcast::Sender<Change>,
        (restart, room): (Arc<AtomicBool>, Arc<Room>),
        clock: Clock,
        keys: KeysVersion,
    ) -> (Writer, JoinHandle<()>) {
        let (jobs, rx) = mpsc::channel(QUEUE_DEPTH);
        let on_runtime = clock.on_runtime();
        let full = Arc::new(AtomicBool::new(false));
        let on_thread = full.clone();
        let stats = Arc::new(WriterStats::default());
        let counted = stats.clone();
        let watch = Watch::install(&conn, keys);
        let handle = std::thread::Builder::new()
            .name("smsdesk-writer".into())
            .spawn(move || {
                thread::run(
                    conn,
                    rx,
                    (events, watch),
                    (&restart, &room),
                    &clock,
                    &on_thread,
                    &counted,
                )
            })
            .expect("the operating system refused to start the database writer thread");
        #[cfg(not(any(test, feature = "test-hooks")))]
        let _ = full;
        let writer = Writer {
            jobs,
            on_runtime,
            stats,
            #[cfg(any(test, feature = "test-hooks"))]
            full,
        };
        (writer, handle)
    }

    /// While `on`, every transaction that wrote fails at its commit as SQLite fails one on a full
    /// disk (SQLITE_FULL): nothing is applied and each caller gets [`StoreError::StorageFull`]
    /// (one that wrote nothing commits, as it does on a full disk). For tests of what happens
    /// while the disk is full, and after. Only with the `test-hooks` feature.
    #[cfg(any(test, feature = "test-hooks"))]
    pub fn fail_commits_for_tests(&self, on: bool) {
        self.full.store(on, std::sync::atomic::Ordering::Relaxed);
    }

    /// What the writer has done so far: transactions run and operations they held.
    pub fn stats(&self) -> (u64, u64) {
        self.stats.read()
    }

    /// How long its transactions took since it started (a histogram, and the busy time).
    pub fn commit_times(&self) -> super::CommitTimes {
        self.stats.commit_times()
    }

    /// Times the writer let its cached pages go since it started (see `thread::KEEP_PAGES`).
    pub fn pages_released(&self) -> u64 {
        self.stats.releases()
    }

    /// Runs `op` in the next batch and returns its result once the batch has committed.
    pub async fn write<T, E, F>(&self, op: F) -> Result<T, E>
    where
        F: FnOnce(&mut WriteTx<'_>) -> Result<T, E> + Send + 'static,
        T: Send + 'static,
        E: From<StoreError> + Send + 'static,
    {
        let (job, rx) = package(op);
        self.queue_and_wait(job, rx).await
    }

    /// Like [`Writer::write`], for an operation that may be run more than once in its
    /// transaction: it must do nothing but read and write through `tx`, so that running it again
    /// after its writes were rolled back gives what one run would have. Such operations share one
    /// savepoint (a savepoint copies aside every page its operations change, the writer's main
    /// cost per operation); when one of them fails, they are all rolled back and run again one by
    /// one, each in a savepoint of its own, so only the one that failed is left out. The caller
    /// gets the value of the run that committed.
    pub async fn write_replayable<T, E, F>(&self, op: F) -> Result<T, E>
    where
        F: FnMut(&mut WriteTx<'_>) -> Result<T, E> + Send + 'static,
        T: Send + 'static,
        E: From<StoreError> + Send + 'static,
    {
        let (job, rx) = replay::package(op);
        self.queue_and_wait(job, rx).await
    }

    /// How many jobs wait in the queue (tests that need a known order of arrival).
    #[cfg(test)]
    pub(crate) fn queued(&self) -> usize {
        self.jobs.max_capacity() - self.jobs.capacity()
    }

    /// Queues `job` and waits for its answer on `rx`.
    async fn queue_and_wait<T, E>(&self, job: Job, rx: oneshot::Receiver<Result<T, E>>) -> Result<T, E>
    where
        T: Send + 'static,
        E: From<StoreError> + Send + 'static,
    {
        self.jobs.send(job).await.map_err(|_| StoreError::Closed)?;
        let answer = if self.on_runtime {
            answer_as_runtime_work(rx).await
        } else {
            rx.await
        };
        answer.map_err(|_| StoreError::Aborted)?
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

/// A leading operation as a job: `op`'s value goes to `done`, with the commit's outcome, once the
/// transaction has committed (or failed to).
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
            done(value, commit.map_err(CommitFailed::error))
        })))
    }))
}

/// The writer thread's answer, waited for as a blocking task, for a clock that moves with the
/// runtime's time (a test's, paused): tokio moves a paused clock on whenever the runtime has
/// nothing to do, and a blocking task is something to do, whereas the writer thread is not the
/// runtime's. Otherwise the clock would jump ahead while the writer works.
async fn answer_as_runtime_work<T: Send + 'static>(rx: oneshot::Receiver<T>) -> Result<T, oneshot::error::RecvError> {
    match tokio::task::spawn_blocking(move || rx.blocking_recv()).await {
        Ok(answer) => answer,
        Err(join) => std::panic::resume_unwind(join.into_panic()),
    }
}

/// An ordinary operation as a job, and the channel its result comes back on: its value once the
/// transaction has committed, or its own error (it was rolled back alone).
#[allow(clippy::type_complexity)]
fn package<T, E, F>(op: F) -> (Job, oneshot::Receiver<Result<T, E>>)
where
    F: FnOnce(&mut WriteTx<'_>) -> Result<T, E> + Send + 'static,
    T: Send + 'static,
    E: From<StoreError> + Send + 'static,
{
    let (tx, rx) = oneshot::channel::<Result<T, E>>();
    let op: super::OnceOp = Box::new(move |wtx| match op(wtx) {
        Ok(value) => Ran::Applied(Box::new(move |commit| {
            let _ = tx.send(commit.map(|()| value).map_err(|e| e.error().into()));
        })),
        Err(err) => Ran::Failed(Box::new(move |_| {
            let _ = tx.send(Err(err));
        })),
    });
    (Job::Op(Op::Once(op)), rx)
}
