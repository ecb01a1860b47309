//! The single writer: one thread owns the only write connection, groups queued operations into one
//! transaction (group commit), and answers each caller only after that transaction committed.
//!
//! Every operation runs inside its own savepoint, so one that fails (or panics) is rolled back alone:
//! the others in the batch still commit and their callers get their answers. Async callers never
//! block a runtime thread: they wait on a oneshot channel that the writer thread completes.
//!
//! Where each part lives:
//! - this file: what the parts share: the jobs the queue carries, and the [`Change`]s announced;
//! - `handle`: [`Writer`], the cloneable handle callers queue operations with, and [`Slot`], room
//!   held in the queue for a "lead" operation (one that runs first in its transaction);
//! - `thread`: the writer thread's loop, which takes a batch of jobs off the queue at a time;
//! - `batch`: running one batch: the transaction, a savepoint per operation, the commit, then
//!   the answers and the change events;
//! - `replay`: operations that may run more than once ([`Writer::write_replayable`]), which
//!   share one savepoint instead of each opening its own;
//! - `tx`: [`WriteTx`], what an operation sees of the transaction;
//! - `watch`: [`KeysVersion`], which moves when a transaction wrote the API keys.

mod batch;
mod handle;
#[cfg(test)]
mod pages_tests;
mod phases;
mod replay;
mod savepoint;
mod thread;
mod tx;
mod watch;

pub use handle::{Slot, Writer};
#[cfg(test)]
pub(crate) use tx::write_counted_for_tests;
#[cfg(test)]
pub(crate) use tx::write_for_tests;
pub use tx::WriteTx;
pub use watch::KeysVersion;

/// Most operations one transaction takes; bounds the latency a large backlog adds to a commit.
pub const MAX_BATCH: usize = 1_000;
/// Operations that may wait for the writer before callers are held back.
const QUEUE_DEPTH: usize = 16_384;

/// What the writer has done since it started: for benchmarks and diagnostics (how many operations
/// share a commit).
#[derive(Debug, Default)]
pub struct WriterStats {
    transactions: std::sync::atomic::AtomicU64,
    operations: std::sync::atomic::AtomicU64,
    /// Times the writer let its cached pages go.
    releases: std::sync::atomic::AtomicU64,
    /// How long its transactions took, commit included: a count per bound of
    /// [`COMMIT_BOUNDS_S`] (the last one: longer than every bound), and their sum in µs.
    commit_counts: [std::sync::atomic::AtomicU64; COMMIT_BOUNDS_S.len() + 1],
    commit_micros: std::sync::atomic::AtomicU64,
}

/// The upper bounds, in seconds, of the writer's commit time histogram.
pub const COMMIT_BOUNDS_S: [f64; 11] = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5];

/// How long the writer's transactions took, commit included, since it started.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CommitTimes {
    /// Transactions at or under each bound of [`COMMIT_BOUNDS_S`], not cumulative; the last:
    /// over every bound.
    pub counts: Vec<u64>,
    /// Their whole time, in µs: the writer's busy time.
    pub micros: u64,
}

impl WriterStats {
    fn add(&self, operations: usize) {
        use std::sync::atomic::Ordering::Relaxed;
        self.transactions.fetch_add(1, Relaxed);
        self.operations.fetch_add(operations as u64, Relaxed);
    }

    fn released(&self) {
        self.releases.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }

    fn timed(&self, took: std::time::Duration) {
        use std::sync::atomic::Ordering::Relaxed;
        let s = took.as_secs_f64();
        let i = COMMIT_BOUNDS_S
            .iter()
            .position(|b| s <= *b)
            .unwrap_or(COMMIT_BOUNDS_S.len());
        self.commit_counts[i].fetch_add(1, Relaxed);
        self.commit_micros.fetch_add(took.as_micros() as u64, Relaxed);
    }

    /// How long the transactions took so far.
    pub fn commit_times(&self) -> CommitTimes {
        use std::sync::atomic::Ordering::Relaxed;
        CommitTimes {
            counts: self.commit_counts.iter().map(|c| c.load(Relaxed)).collect(),
            micros: self.commit_micros.load(Relaxed),
        }
    }

    /// Times the writer let its cached pages go, so far.
    pub fn releases(&self) -> u64 {
        self.releases.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Transactions run (committed or not) and operations they held, so far.
    pub fn read(&self) -> (u64, u64) {
        use std::sync::atomic::Ordering::Relaxed;
        (self.transactions.load(Relaxed), self.operations.load(Relaxed))
    }
}

/// Which kind of row changed; sent to subscribers after commit, and named so on the event
/// stream (`{"entity": "message", "id": 12}`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, ts_rs::TS, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
#[ts(rename = "ChangeEntity")]
#[schema(as = ChangeEntity)]
pub enum Entity {
    /// A message handed in (its text, destination, kind).
    Message,
    /// A message's place in the send queue.
    Queue,
    /// A submit try, or the SMSC's answer to it.
    Attempt,
    /// A report received (a delivery receipt, or an unreadable one).
    Receipt,
    /// An event a provider reported, however many receipts carried it.
    LogicalEvent,
    /// A message's computed delivery state.
    Projection,
    /// An exception, opened or closed.
    Exception,
    /// An audit log entry.
    Audit,
    /// A message from a handset, whole (an inbox message).
    #[serde(rename = "inbox_message")]
    Inbox,
    /// A number's entry on the opt-out list.
    OptOut,
    /// An alert: fired, repeated, acknowledged or resolved.
    Alert,
}

/// A committed change, for live views. Emitted only after the transaction that made it committed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Change {
    pub entity: Entity,
    pub id: i64,
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

/// Answers an operation's caller, given the outcome of its transaction's commit.
type Reply = Box<dyn FnOnce(Result<(), CommitFailed>) + Send>;

/// Why a transaction did not commit, told to each of its operations' callers.
#[derive(Debug, Clone)]
pub(crate) struct CommitFailed {
    message: String,
    /// SQLite said SQLITE_FULL: the disk is full, and the write may succeed once there is room.
    full: bool,
}

impl CommitFailed {
    fn from_sqlite(e: &rusqlite::Error) -> CommitFailed {
        CommitFailed {
            message: e.to_string(),
            full: crate::error::sqlite_full(e),
        }
    }

    fn from_store(e: &crate::StoreError) -> CommitFailed {
        CommitFailed {
            message: e.to_string(),
            full: e.is_storage_full(),
        }
    }

    /// The error a caller of the failed transaction sees.
    pub(crate) fn error(self) -> crate::StoreError {
        if self.full {
            crate::StoreError::StorageFull(self.message)
        } else {
            crate::StoreError::Commit(self.message)
        }
    }
}

enum Ran {
    /// The operation succeeded; its reply waits for the commit's outcome.
    Applied(Reply),
    /// The operation failed and was rolled back; its reply carries its own error.
    Failed(Reply),
}

/// An ordinary operation, queued.
enum Op {
    /// Runs once, in a savepoint of its own.
    Once(OnceOp),
    /// May run again after a rollback (see [`replay`]).
    Replay(Box<dyn replay::Replay>),
}

type OnceOp = Box<dyn FnOnce(&mut WriteTx<'_>) -> Ran + Send>;

/// An operation that runs first in its transaction, without a savepoint (see [`Slot::submit`]).
/// `None` asks for what it wrote to be undone and for it to be called again in a savepoint.
type LeadOp = Box<dyn FnMut(&mut WriteTx<'_>, Guard) -> Option<Ran> + Send>;

/// What the writer's queue carries.
enum Job {
    Op(Op),
    Lead(LeadOp),
    Shutdown,
}
