//! The holder's row inside the database (`store::tables::instance`): what a second computer,
//! which the lock on the file may not reach (a network file system mounted on two), reads before
//! it starts.
//!
//! The rules:
//! - a row released by a clean stop, or none, is free;
//! - a row written on this kernel (the same boot id) is free once this process holds the lock on
//!   the file: every holder on this kernel holds that lock, so this one is gone (it crashed);
//! - a row written on another kernel is alive while its counter moves: a starting process watches
//!   it for [`STALE`] (four heartbeats), refuses if it moves, and takes it over, saying so in the
//!   log, if it stands still. Counters, not clocks: the two computers' clocks need not agree.
//!
//! While it holds the database, a process moves the counter on every [`HEARTBEAT`], on a thread
//! of its own; when it finds the row taken over (it could not write for longer than [`STALE`]
//! and another computer took the database), it says so: the engine then stops sending.

use std::path::Path;
use std::sync::{mpsc, Arc};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use tokio::sync::watch;

use crate::store::tables::instance::{self as row, Holder, NewHolder};
use crate::store::{Store, StoreError};

/// How often a holder moves its counter on.
pub const HEARTBEAT: Duration = Duration::from_secs(5);
/// How long a counter that stands still means its holder is gone: four heartbeats.
pub const STALE: Duration = Duration::from_secs(20);
/// How often a starting process reads another computer's counter.
const LOOK_EVERY: Duration = Duration::from_millis(500);

/// This process, as it writes itself into the row, and whether it holds the lock on a database
/// file (which every holder on this kernel holds: false on PostgreSQL, where nothing of the
/// kind reaches the other processes of this computer).
#[derive(Debug, Clone)]
pub(super) struct Me(pub(super) NewHolder, bool);

impl Me {
    pub(super) fn new(data_dir: &Path, file_locked: bool) -> Me {
        Me(
            NewHolder {
                token: crate::tokens::random_secret("run-"),
                pid: std::process::id(),
                host: host_name(),
                boot_id: boot_id(),
                data_dir: std::path::absolute(data_dir)
                    .unwrap_or_else(|_| data_dir.to_owned())
                    .display()
                    .to_string(),
            },
            file_locked,
        )
    }

    /// Whether `h` was written on this kernel.
    fn same_kernel(&self, h: &Holder) -> bool {
        !self.0.boot_id.is_empty() && h.boot_id == self.0.boot_id
    }

    /// Whether `h` is known gone without watching its counter: written on this kernel, while this
    /// process holds the lock on the file that every holder on this kernel holds.
    fn gone_by_lock(&self, h: &Holder) -> bool {
        self.1 && self.same_kernel(h)
    }

    /// Words for a refusal naming `h`: where it runs, when not on this computer.
    pub(super) fn elsewhere(&self, h: &Holder) -> &'static str {
        if self.same_kernel(h) {
            ""
        } else {
            ", on another computer"
        }
    }
}

/// What a look at the row before the database is opened found: a holder that is gone, to be
/// taken over (none: the row is free).
#[derive(Debug, Default)]
pub(super) struct Looked {
    gone: Option<Holder>,
}

/// Whether the row, as `read` gives it, names a live holder elsewhere (`Err`, with it as it is
/// now): on SQLite before the database is opened, by a process holding the lock on the file
/// ([`row::read_file`]); on PostgreSQL through the open store. Blocks up to [`STALE`] while it
/// watches another computer's counter.
pub(super) fn look(read: impl Fn() -> Result<Option<Holder>, StoreError>, me: &Me) -> Result<Looked, Box<Holder>> {
    let Some(first) = read().ok().flatten() else {
        return Ok(Looked::default());
    };
    if first.released_at_ms.is_some() {
        return Ok(Looked::default());
    }
    if me.gone_by_lock(&first) {
        return Ok(Looked { gone: Some(first) });
    }
    tracing::warn!(
        pid = first.pid,
        host = %first.host,
        data_dir = %first.data_dir,
        "the database says another smsdesk holds it, on another computer: watching its heartbeat for {} s before taking it over",
        STALE.as_secs()
    );
    let started = Instant::now();
    while started.elapsed() < STALE {
        std::thread::sleep(LOOK_EVERY);
        match read() {
            Ok(Some(now)) if now.released_at_ms.is_some() => return Ok(Looked::default()),
            Ok(Some(now)) if now.token != first.token || now.beat != first.beat => return Err(Box::new(now)),
            // Unchanged, or a page read while its holder copied it: look again.
            _ => {}
        }
    }
    Ok(Looked { gone: Some(first) })
}

/// How this process writes itself into the row: itself, and the holder found gone that it may
/// take the row from (besides one of this kernel's, and a row that is free).
#[derive(Debug, Clone)]
pub(super) struct Claim {
    me: Me,
    gone: Option<String>,
}

impl Claim {
    /// `Ok(Err(holder))`: a live holder has the row.
    fn write(&self, store: &Store) -> Result<Result<(), Holder>, StoreError> {
        let Claim { me, gone } = self.clone();
        let new = me.0.clone();
        store
            .writer()
            .write_blocking(move |tx| row::claim(tx, &new, |h| Some(&h.token) == gone.as_ref() || me.gone_by_lock(h)))
    }
}

/// Writes this process into the row (the store is open, the file locked), unless a live holder
/// got there meanwhile (`Err`, naming it); then copies the row into the database file, where a
/// process that reaches the file by another name reads it. When the database cannot be written
/// (a full disk), the claim is returned, for the heartbeat to write once it can (meanwhile a
/// second process of this computer is kept off by the lock on the file).
pub(super) fn claim(store: &Store, me: &Me, looked: Looked) -> Result<Option<Claim>, Box<Holder>> {
    let claim = Claim {
        me: me.clone(),
        gone: looked.gone.as_ref().map(|h| h.token.clone()),
    };
    let pending = match claim.write(store) {
        Ok(Ok(())) => None,
        Ok(Err(holder)) => return Err(Box::new(holder)),
        Err(e) => {
            tracing::warn!(error = %e, "cannot record this process as the database's holder yet; trying again");
            Some(claim)
        }
    };
    if let Some(h) = looked.gone {
        tracing::warn!(
            pid = h.pid,
            host = %h.host,
            data_dir = %h.data_dir,
            since = %smsdesk_core::time::format_rfc3339(h.started_at_ms),
            "took the database over from an smsdesk that stopped without releasing it"
        );
    }
    let _ = store.checkpoint_truncate();
    Ok(pending)
}

/// A refusal's words about `h`: " (process 12 on office-pc, open http://…; its data directory is
/// /var/lib/smsdesk; since 2026-03-01T08:00:00Z)" and `more` inside the parentheses.
pub(super) fn hint(h: &Holder, more: &str) -> String {
    let open = h.http_url.as_deref().map(|u| format!(", open {u}")).unwrap_or_default();
    format!(
        " (process {} on {}{open}; its data directory is {}; since {}{more})",
        h.pid,
        h.host,
        h.data_dir,
        smsdesk_core::time::format_rfc3339(h.started_at_ms)
    )
}

/// What the heartbeat thread is asked to do.
enum Ask {
    /// Record where this process listens, copy it into the file, then answer.
    Publish(Option<String>, mpsc::Sender<()>),
    /// Release the row (a clean stop) and end.
    Release,
}

/// The thread that moves the counter on while this process holds the database.
#[derive(Debug)]
pub(super) struct Heartbeat {
    asks: mpsc::Sender<Ask>,
    thread: Option<JoinHandle<()>>,
}

impl Heartbeat {
    /// Starts beating for `me` on `store` (first writing `pending`, the claim that could not be
    /// written yet, if any); `lost` turns true if another takes the row over.
    pub(super) fn start(store: Arc<Store>, me: &Me, pending: Option<Claim>, lost: watch::Sender<bool>) -> Heartbeat {
        let (asks, rx) = mpsc::channel();
        let mut beats = Beats {
            store,
            token: me.0.token.clone(),
            pending,
        };
        let thread = std::thread::Builder::new()
            .name("smsdesk-heartbeat".into())
            .spawn(move || beats.until_released(&rx, &lost))
            .expect("the operating system refused to start the heartbeat thread");
        Heartbeat {
            asks,
            thread: Some(thread),
        }
    }

    /// Records where this process listens in the row, and waits until it is in the file.
    pub(super) fn publish(&self, http_url: Option<String>) {
        let (done, answered) = mpsc::channel();
        if self.asks.send(Ask::Publish(http_url, done)).is_ok() {
            let _ = answered.recv_timeout(Duration::from_secs(10));
        }
    }

    /// Releases the row (a clean stop) and waits for the thread: before the store is closed.
    pub(super) fn release(&mut self) {
        let _ = self.asks.send(Ask::Release);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Drop for Heartbeat {
    fn drop(&mut self) {
        self.release();
    }
}

/// What the heartbeat thread writes with.
struct Beats {
    store: Arc<Store>,
    token: String,
    /// The claim not written yet (the database could not be written when this process started).
    pending: Option<Claim>,
}

/// One write of the heartbeat thread, given the token: false when the row is another's.
type Write = dyn FnOnce(&mut crate::store::WriteTx<'_>, &str) -> Result<bool, StoreError> + Send;

impl Beats {
    /// Writes `write` (a beat, or where this process listens), after the pending claim if there
    /// is one: false when the row is another's.
    fn write(&mut self, write: Box<Write>) -> Result<bool, StoreError> {
        if let Some(claim) = &self.pending {
            if claim.write(&self.store)?.is_err() {
                return Ok(false);
            }
            self.pending = None;
        }
        let t = self.token.clone();
        self.store.writer().write_blocking(move |tx| write(tx, &t))
    }

    fn until_released(&mut self, asks: &mpsc::Receiver<Ask>, lost: &watch::Sender<bool>) {
        let mut failing = false;
        loop {
            let wrote = match asks.recv_timeout(HEARTBEAT) {
                Err(mpsc::RecvTimeoutError::Timeout) => self.write(Box::new(row::beat)),
                Ok(Ask::Publish(url, done)) => {
                    let wrote = self.write(Box::new(move |tx, t| row::publish(tx, t, url.as_deref())));
                    let _ = self.store.checkpoint_truncate();
                    let _ = done.send(());
                    wrote
                }
                Ok(Ask::Release) | Err(mpsc::RecvTimeoutError::Disconnected) => {
                    if self.pending.is_none() {
                        let t = self.token.clone();
                        let _ = self.store.writer().write_blocking(move |tx| row::release(tx, &t));
                    }
                    return;
                }
            };
            if !carry_on(wrote, &mut failing, lost) {
                return;
            }
        }
    }
}

/// Whether to go on beating after `wrote`; says once that beats fail, and when the row was lost.
fn carry_on(wrote: Result<bool, StoreError>, failing: &mut bool, lost: &watch::Sender<bool>) -> bool {
    match wrote {
        Ok(true) => {
            *failing = false;
            true
        }
        Ok(false) => {
            tracing::error!(
                "another smsdesk took this database over (its heartbeat could not be written for a while): this one stops sending; stop it, and find out why two ran on one database"
            );
            let _ = lost.send(true);
            false
        }
        Err(StoreError::Closed) => false,
        Err(e) => {
            if !*failing {
                tracing::warn!(error = %e, "cannot write this process's heartbeat into the database; trying again");
            }
            *failing = true;
            true
        }
    }
}

/// This computer's name.
pub(super) fn host_name() -> String {
    #[cfg(unix)]
    {
        let mut buf = [0u8; 256];
        // SAFETY: the buffer is writable for its whole length, which is what the call is given;
        // it writes a NUL-terminated name into it (truncated to fit) and returns 0 on success.
        let rc = unsafe { libc::gethostname(buf.as_mut_ptr().cast(), buf.len()) };
        if rc == 0 {
            let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
            let name = String::from_utf8_lossy(&buf[..end]).into_owned();
            if !name.is_empty() {
                return name;
            }
        }
    }
    std::env::var("COMPUTERNAME").unwrap_or_else(|_| "an unnamed computer".into())
}

/// The running kernel's boot id (Linux); empty where there is none.
fn boot_id() -> String {
    std::fs::read_to_string("/proc/sys/kernel/random/boot_id")
        .map(|s| s.trim().to_owned())
        .unwrap_or_default()
}
