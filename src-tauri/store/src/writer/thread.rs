//! The writer thread's loop: take the next batch of jobs off the queue, run it as one
//! transaction, finish a checkpoint if one was asked for, and again, until shut down.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use rusqlite::Connection;
use smsdesk_core::time::Clock;
use tokio::sync::{broadcast, mpsc};

use super::phases::timed_between;
use super::watch::Watch;
use super::{batch, Change, Job, LeadOp, Op, WriterStats, MAX_BATCH};
use crate::room::Room;

/// The body of the writer thread: runs batches until shut down, or until every [`super::Writer`]
/// is gone.
pub(super) fn run(
    conn: crate::db::Conn,
    rx: mpsc::Receiver<Job>,
    (events, watch): (broadcast::Sender<Change>, Watch),
    (restart, room): (&AtomicBool, &Room),
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
    let mut pages = Pages {
        held: false,
        released: Instant::now(),
    };
    // Only to wait for the next job at most so long (no task ever runs on it).
    let timer = tokio::runtime::Builder::new_current_thread().enable_time().build().ok();
    loop {
        let first = match queue.next(pages.wait(), timer.as_ref()) {
            Next::Job(job) => job,
            Next::Quiet => {
                pages.release(&conn, stats);
                continue;
            }
            Next::Stop => break,
        };
        let (lead, ops) = queue.gather(first);
        if lead.is_none() && ops.is_empty() {
            continue;
        }
        batch += 1;
        stats.add(ops.len() + usize::from(lead.is_some()));
        if let crate::db::Conn::Postgres(pg) = &conn {
            // A server that restarted closed the connection: the batch goes on a new one.
            pg.reconnect_unless_usable();
        }
        let phases = batch::run_batch(
            conn.db(),
            (batch, clock.now_ms()),
            lead,
            ops,
            (&events, &watch),
            (full, room),
        );
        stats.timed(phases.total());
        phases.log_if_slow(batch);
        if let (true, crate::db::Conn::Sqlite(sqlite)) = (restart.swap(false, Ordering::Relaxed), &conn) {
            timed_between("checkpoint", || checkpoint(sqlite, room.state().short()));
        }
        pages.held = true;
        if queue.rx.is_empty() && pages.wait() == Some(Duration::ZERO) {
            timed_between("pages let go", || pages.release(&conn, stats));
        }
    }
    queue.rx.close();
    // How many operations shared a commit, for whoever looks into the writer's pace.
    let (transactions, operations) = stats.read();
    tracing::info!(transactions, operations, "database writer stopped");
}

/// How long the writer keeps the pages it read and wrote in its cache: once this long has passed
/// since it last let them go, it lets them go again as soon as its queue is empty, or when nothing
/// comes. The cache is there for a busy writer; an idle engine on a million messages otherwise
/// holds its 64 MiB for good (what a start's deadline sweep read), and a busy one reads the few
/// pages it needs back within milliseconds.
const KEEP_PAGES: Duration = Duration::from_secs(2);

/// The writer's cached pages: whether a batch ran since they were last let go, and when that was.
struct Pages {
    held: bool,
    released: Instant,
}

impl Pages {
    /// How long the writer may wait for its next job before it lets its pages go (zero: now);
    /// `None` while no batch ran since the last time.
    fn wait(&self) -> Option<Duration> {
        self.held.then(|| KEEP_PAGES.saturating_sub(self.released.elapsed()))
    }

    fn release(&mut self, conn: &crate::db::Conn, stats: &WriterStats) {
        // PostgreSQL's pages are the server's.
        if let crate::db::Conn::Sqlite(conn) = conn {
            release_pages(conn);
        }
        stats.released();
        self.held = false;
        self.released = Instant::now();
    }
}

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

/// What the writer thread does next.
enum Next {
    /// Opens a batch with this job.
    Job(Job),
    /// Nothing came for as long as the pages are kept: let them go.
    Quiet,
    Stop,
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
    /// The job that opens the next batch: the carried one, else the next queued, waiting for it
    /// at most `wait` (on `timer`) when given: [`Next::Quiet`] when none came by then. The thread
    /// is to stop after a shutdown request with nothing carried, or when every sender is gone.
    fn next(&mut self, wait: Option<Duration>, timer: Option<&tokio::runtime::Runtime>) -> Next {
        if self.stop && self.carried.is_none() {
            return Next::Stop;
        }
        if let Some(job) = self.carried.take() {
            return Next::Job(job);
        }
        let job = match (wait, timer) {
            (Some(wait), Some(timer)) => {
                match timer.block_on(async { tokio::time::timeout(wait, self.rx.recv()).await }) {
                    Ok(job) => job,
                    Err(_) => return Next::Quiet,
                }
            }
            _ => self.rx.blocking_recv(),
        };
        job.map_or(Next::Stop, Next::Job)
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
/// While the disk is `short` of room, the WAL is also cut back to nothing, so that what it held
/// is free for the writes that need it.
fn checkpoint(conn: &Connection, short: bool) {
    // Outside any transaction: copies what the background pass left. Passive never waits; a
    // cut-back waits a moment for the readers (the writer is this thread).
    if short {
        crate::checkpoint::cut_back(conn);
    } else if let Err(e) = crate::checkpoint::checkpoint(conn) {
        tracing::warn!(error = %e, "WAL checkpoint on the writer failed; will try again");
    }
}
