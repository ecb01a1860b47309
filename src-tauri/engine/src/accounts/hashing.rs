//! Where passwords are hashed and checked: a few threads of their own, fed through a short queue.
//! Each argon2 hash holds 19 MiB while it runs, so the number running at once bounds the memory
//! sign-in can take, whatever the number of requests: at most `workers` run (the number of
//! cores, at most [`MAX_WORKERS`]), at most `queue` more wait, and beyond that a request is
//! refused at once ([`Busy`]) instead of waiting in memory. A request takes its place ([`Slot`])
//! before it reads the account, so what it reads is bounded too. The threads are started at the
//! first use and end with the last handle.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender, TrySendError};
use std::sync::{Arc, Mutex, OnceLock};

use serde::{Deserialize, Serialize};
use tokio::sync::oneshot;
use ts_rs::TS;

use super::password;

/// The most threads hashing at once, however many cores: each holds 19 MiB while it works.
pub const MAX_WORKERS: usize = 4;

/// Every thread is hashing and the queue is full: nothing was checked, try again shortly.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Busy;

/// What the password checks take now, as `GET /api/v1/health` shows admins.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct HashingUse {
    /// Threads that hash passwords (at most this many at once).
    pub workers: u32,
    /// Requests that may wait for a thread; beyond them, `busy` (503).
    pub queue: u32,
    /// Hashes running or waiting now.
    pub in_use: u32,
    /// Passwords checked against a stored hash since start (a sign-in, a password change; an
    /// unknown name costs a check too).
    #[ts(type = "number")]
    pub password_checks: u64,
    /// Requests refused because every thread was busy and the queue full.
    #[ts(type = "number")]
    pub refused_busy: u64,
}

enum Job {
    Hash(String, oneshot::Sender<String>),
    /// A password and the stored hash to check it against (none: an unknown name, which costs
    /// the same as a known one).
    Verify(String, Option<String>, oneshot::Sender<bool>),
}

#[derive(Default)]
struct Counters {
    in_use: AtomicUsize,
    checks: AtomicU64,
    refused: AtomicU64,
}

/// The password hashing threads and their queue.
pub struct Hashing {
    workers: usize,
    queue: usize,
    jobs: OnceLock<SyncSender<Job>>,
    counters: Arc<Counters>,
}

impl std::fmt::Debug for Hashing {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Hashing").field("use", &self.usage()).finish()
    }
}

impl Default for Hashing {
    /// As many threads as cores (at most [`MAX_WORKERS`]), and a queue twice that long.
    fn default() -> Self {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let workers = cores.clamp(1, MAX_WORKERS);
        Hashing::new(workers, 2 * workers)
    }
}

impl Hashing {
    /// `workers` threads (at least one) and room for `queue` more requests.
    pub fn new(workers: usize, queue: usize) -> Hashing {
        Hashing {
            workers: workers.max(1),
            queue,
            jobs: OnceLock::new(),
            counters: Arc::default(),
        }
    }

    /// A place among the running and waiting hashes, or [`Busy`] at once when there is none.
    pub fn slot(&self) -> Result<Slot<'_>, Busy> {
        let c = &self.counters;
        // Counted before anything is queued: the limit holds however many ask at once.
        if c.in_use.fetch_add(1, Ordering::SeqCst) >= self.workers + self.queue {
            c.in_use.fetch_sub(1, Ordering::SeqCst);
            c.refused.fetch_add(1, Ordering::Relaxed);
            return Err(Busy);
        }
        Ok(Slot {
            hashing: self,
            submitted: false,
        })
    }

    /// The stored form of `password` (argon2id, a fresh salt).
    pub async fn hash(&self, password: String) -> Result<String, Busy> {
        Ok(self.slot()?.hash(password).await)
    }

    /// Whether `password` is the one `stored` was made from; with no `stored`, a check as costly
    /// that matches nothing.
    pub async fn verify(&self, password: String, stored: Option<String>) -> Result<bool, Busy> {
        Ok(self.slot()?.verify(password, stored).await)
    }

    /// Counts and limits, now.
    pub fn usage(&self) -> HashingUse {
        let c = &self.counters;
        HashingUse {
            workers: self.workers as u32,
            queue: self.queue as u32,
            in_use: c.in_use.load(Ordering::Relaxed) as u32,
            password_checks: c.checks.load(Ordering::Relaxed),
            refused_busy: c.refused.load(Ordering::Relaxed),
        }
    }

    /// Queues `job` for a slot already counted; whether it was queued (the queue has room for
    /// every slot, so only threads that failed to start leave it out).
    fn submit(&self, job: Job) -> bool {
        match self.jobs.get_or_init(|| self.start()).try_send(job) {
            Ok(()) => true,
            Err(TrySendError::Full(_) | TrySendError::Disconnected(_)) => {
                tracing::error!("a password hashing job found no room: the hashing threads are gone");
                false
            }
        }
    }

    fn start(&self) -> SyncSender<Job> {
        // The channel holds what waits; `in_use` already bounds it, this is the room for it.
        let (tx, rx) = sync_channel(self.workers + self.queue + 1);
        let rx = Arc::new(Mutex::new(rx));
        for i in 0..self.workers {
            let (rx, counters) = (rx.clone(), self.counters.clone());
            std::thread::Builder::new()
                .name(format!("password-hash-{i}"))
                .spawn(move || work(&rx, &counters))
                .expect("a password hashing thread starts");
        }
        tx
    }
}

/// A place among the running and waiting hashes, taken before the work that leads to one (reading
/// the account); given back when dropped unused, or once its hash is done.
pub struct Slot<'a> {
    hashing: &'a Hashing,
    submitted: bool,
}

impl Slot<'_> {
    /// The stored form of `password` (argon2id, a fresh salt).
    pub async fn hash(mut self, password: String) -> String {
        let (tx, rx) = oneshot::channel();
        self.submitted = self.hashing.submit(Job::Hash(password, tx));
        rx.await.expect("a hashing thread answers every job it takes")
    }

    /// Whether `password` is the one `stored` was made from; with no `stored`, a check as costly
    /// that matches nothing.
    pub async fn verify(mut self, password: String, stored: Option<String>) -> bool {
        let (tx, rx) = oneshot::channel();
        self.submitted = self.hashing.submit(Job::Verify(password, stored, tx));
        rx.await.unwrap_or(false)
    }
}

impl Drop for Slot<'_> {
    fn drop(&mut self) {
        // A job queued gives its place back when its thread is done with it.
        if !self.submitted {
            self.hashing.counters.in_use.fetch_sub(1, Ordering::SeqCst);
        }
    }
}

/// One hashing thread: takes jobs until every sender is gone.
fn work(jobs: &Mutex<Receiver<Job>>, counters: &Counters) {
    let mut workspace = password::Workspace::default();
    loop {
        let job = match jobs.lock().unwrap_or_else(|p| p.into_inner()).recv() {
            Ok(job) => job,
            Err(_) => return,
        };
        // The count drops before the answer goes: whoever hears it finds the thread free.
        match job {
            Job::Hash(password, reply) => {
                let hash = password::hash_in(&password, &mut workspace);
                counters.in_use.fetch_sub(1, Ordering::SeqCst);
                let _ = reply.send(hash);
            }
            Job::Verify(password, stored, reply) => {
                counters.checks.fetch_add(1, Ordering::Relaxed);
                let ok = match stored {
                    Some(h) => password::verify_in(&password, &h, &mut workspace),
                    None => {
                        password::verify_nothing_in(&password, &mut workspace);
                        false
                    }
                };
                counters.in_use.fetch_sub(1, Ordering::SeqCst);
                let _ = reply.send(ok);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_burst_is_checked_only_as_far_as_threads_and_queue_allow_and_the_rest_refused_at_once() {
        let hashing = Arc::new(Hashing::new(1, 2));
        let stored = hashing.hash("correct horse battery".into()).await.unwrap();
        let tries: Vec<_> = (0..40)
            .map(|_| {
                let (h, s) = (hashing.clone(), stored.clone());
                tokio::spawn(async move { h.verify("wrong horse battery".into(), Some(s)).await })
            })
            .collect();
        let mut answers = Vec::new();
        for t in tries {
            answers.push(t.await.unwrap());
        }
        let refused = answers.iter().filter(|a| a.is_err()).count();
        let checked = answers.iter().filter(|a| a == &&Ok(false)).count();
        assert_eq!(refused + checked, 40, "every try is answered");
        assert!(
            checked <= 3 && refused >= 37,
            "at most one running and two waiting: {checked} checked, {refused} refused"
        );
        let u = hashing.usage();
        assert_eq!(u.password_checks, checked as u64, "each check is counted");
        assert_eq!(u.refused_busy, refused as u64);
        assert_eq!(u.in_use, 0, "nothing is left running");
        assert_eq!(
            hashing.verify("correct horse battery".into(), Some(stored)).await,
            Ok(true)
        );
        assert_eq!(hashing.verify("anything at all".into(), None).await, Ok(false));
    }
}
