//! The writer thread's loop: take the next batch of jobs off the queue, run it as one
//! transaction, finish a checkpoint if one was asked for, and again, until shut down.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use rusqlite::Connection;
use smsdesk_core::time::Clock;
use tokio::sync::{broadcast, mpsc};

use super::watch::Watch;
use super::{batch, Change, Job, LeadOp, Op, WriterStats, MAX_BATCH};

/// The body of the writer thread: runs batches until shut down, or until every [`super::Writer`]
/// is gone.
pub(super) fn run(
    conn: Connection,
    rx: mpsc::Receiver<Job>,
    (events, watch): (broadcast::Sender<Change>, Watch),
    restart: &AtomicBool,
    clock: &Clock,
    full: &AtomicBool,
    stats: &WriterStats,
) {
    let mut queue = Queue {
        rx,
        stop: false,
        carried: None,
    };
    let mut batch: u64 = 0;
    let mut released = Instant::now();
    while let Some(first) = queue.first() {
        let (lead, ops) = queue.gather(first);
        if lead.is_none() && ops.is_empty() {
            continue;
        }
        batch += 1;
        stats.add(ops.len() + usize::from(lead.is_some()));
        batch::run_batch(&conn, (batch, clock.now_ms()), lead, ops, (&events, &watch), full);
        if restart.swap(false, Ordering::Relaxed) {
            checkpoint(&conn);
        }
        if queue.rx.is_empty() && released.elapsed() >= KEEP_PAGES {
            release_pages(&conn);
            released = Instant::now();
        }
    }
    queue.rx.close();
    // How many operations shared a commit, for whoever looks into the writer's pace.
    let (transactions, operations) = stats.read();
    tracing::info!(transactions, operations, "database writer stopped");
}

/// How long the writer keeps the pages it read and wrote in its cache: when its queue is empty and
/// this long has passed since it last let them go, it lets them go again. The cache is there for a
/// busy writer; an idle engine on a million messages otherwise holds its 64 MiB for good (the
/// pages a start's sweeps read), and a busy one reads the few it needs back within milliseconds.
const KEEP_PAGES: Duration = Duration::from_secs(2);

/// Hands the pages cached on the writer's connection back to the allocator, and the allocator's
/// free memory back to the system.
fn release_pages(conn: &Connection) {
    if let Err(e) = conn.execute_batch("PRAGMA shrink_memory") {
        tracing::warn!(error = %e, "the database writer could not let its cached pages go");
    }
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim(3) only returns free heap memory to the system; it touches no memory
    // in use and cannot fail in a way that matters (it says whether it released any).
    unsafe {
        libc::malloc_trim(0);
    }
}

/// The writer's queue, as the thread takes jobs off it.
struct Queue {
    rx: mpsc::Receiver<Job>,
    /// A shutdown request was taken: nothing queued after it is.
    stop: bool,
    /// A leading operation met after others waits for the next batch, which it then opens.
    carried: Option<Job>,
}

impl Queue {
    /// The job that opens the next batch: the carried one, else the next queued (waiting for
    /// it). `None` when the thread is to stop: after a shutdown request with nothing carried, or
    /// when every sender is gone.
    fn first(&mut self) -> Option<Job> {
        if self.stop && self.carried.is_none() {
            return None;
        }
        self.carried.take().or_else(|| self.rx.blocking_recv())
    }

    /// One transaction's work, from `first` on, taking what is already queued without waiting:
    /// at most one leading operation, and only as the first job; at most [`MAX_BATCH`] in all.
    /// A leading operation met after others is carried to the next batch; a shutdown request
    /// ends the batch, and nothing queued after it is taken.
    fn gather(&mut self, first: Job) -> (Option<LeadOp>, Vec<Op>) {
        let mut lead = None;
        let mut ops = Vec::new();
        let mut next = Some(first);
        while let Some(job) = next.take().or_else(|| self.queued()) {
            match job {
                Job::Op(op) => ops.push(op),
                Job::Lead(op) if lead.is_none() && ops.is_empty() => lead = Some(op),
                job @ Job::Lead(_) => {
                    self.carried = Some(job);
                    break;
                }
                Job::Shutdown => {
                    self.stop = true;
                    break;
                }
            }
            if ops.len() + usize::from(lead.is_some()) >= MAX_BATCH {
                break;
            }
        }
        (lead, ops)
    }

    /// The next job already queued, without waiting. Nothing queued after the shutdown request is
    /// taken.
    fn queued(&mut self) -> Option<Job> {
        if self.stop {
            None
        } else {
            self.rx.try_recv().ok()
        }
    }
}

/// Finishes the background checkpoint the checkpoint thread asked for (see [`crate::checkpoint`]).
fn checkpoint(conn: &Connection) {
    // Outside any transaction: copies what the background pass left, and never waits.
    if let Err(e) = crate::checkpoint::checkpoint(conn) {
        tracing::warn!(error = %e, "WAL checkpoint on the writer failed; will try again");
    }
}
