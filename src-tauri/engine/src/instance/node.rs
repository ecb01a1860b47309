//! This process as one of the nodes that share the database (`store::tables::node`): it joins
//! under its name, moves its heartbeat on every [`HEARTBEAT`] by the database's clock, says what
//! it runs, and stops cleanly. A node whose heartbeat stood still for [`STALE`] is dead to the
//! others: they settle its leases and take over the connections it ran.
//!
//! A name is free when no live node holds it, or when the row is this node's own previous run: the
//! same computer (name and kernel) and the same data directory, whose lock this process holds, so
//! that a node killed and started again at once need not wait for its old heartbeat to go stale.

use std::sync::{mpsc, Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use tokio::sync::watch;

use super::holder::{Me, HEARTBEAT, STALE};
use crate::store::tables::node::{self as row, NewNode, Node};
use crate::store::{Store, StoreError};

/// What a node says it runs, written with its next heartbeat (JSON), shared with the engine.
#[derive(Debug, Clone)]
pub struct Seat {
    pub name: String,
    runs: Arc<Mutex<String>>,
}

impl Seat {
    /// What this node runs now, as JSON, for its next heartbeat.
    pub fn say_runs(&self, runs: String) {
        *self.runs.lock().unwrap_or_else(|p| p.into_inner()) = runs;
    }

    fn runs(&self) -> String {
        self.runs.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }
}

/// The staleness in milliseconds, as the store's reads take it.
pub fn stale_ms() -> i64 {
    STALE.as_millis() as i64
}

/// This node's name: `configured`, or else the computer's name and a short hash of the data
/// directory (two nodes of one computer differ by their data directories).
pub fn name_of(configured: &str, data_dir: &std::path::Path) -> String {
    use sha2::Digest;
    if !configured.trim().is_empty() {
        return configured.trim().to_owned();
    }
    let dir = std::path::absolute(data_dir).unwrap_or_else(|_| data_dir.to_owned());
    let hash = sha2::Sha256::digest(dir.as_os_str().as_encoded_bytes());
    let short: String = hash.iter().take(3).map(|b| format!("{b:02x}")).collect();
    format!("{}-{short}", super::holder::host_name())
}

/// Records `me` as the node `name` (blocking), or says which live node keeps the name.
pub(super) fn join(store: &Store, me: &Me, name: &str) -> Result<Result<(), Box<Node>>, StoreError> {
    let new = NewNode {
        name: name.to_owned(),
        token: me.0.token.clone(),
        pid: me.0.pid,
        host: me.0.host.clone(),
        boot_id: me.0.boot_id.clone(),
        data_dir: me.0.data_dir.clone(),
        version: env!("CARGO_PKG_VERSION").to_owned(),
    };
    store.writer().write_blocking(move |tx| {
        let own_previous_run = |n: &Node| {
            n.host == new.host && !n.boot_id.is_empty() && n.boot_id == new.boot_id && n.data_dir == new.data_dir
        };
        row::join(tx, &new, stale_ms(), own_previous_run)
    })
}

enum Ask {
    Publish(Option<String>, mpsc::Sender<()>),
    Stop,
}

/// The node's heartbeat, on a thread of its own; a clean stop when released.
#[derive(Debug)]
pub(super) struct Membership {
    seat: Seat,
    asks: mpsc::Sender<Ask>,
    thread: Option<JoinHandle<()>>,
}

impl std::fmt::Debug for Ask {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Ask")
    }
}

impl Membership {
    pub(super) fn start(store: Arc<Store>, name: &str, token: String, lost: watch::Sender<bool>) -> Membership {
        let seat = Seat {
            name: name.to_owned(),
            runs: Arc::new(Mutex::new("[]".into())),
        };
        let (asks, rx) = mpsc::channel();
        let beating = seat.clone();
        let thread = std::thread::Builder::new()
            .name("smsdesk-node".into())
            .spawn(move || beat_until_stopped(&store, &beating, &token, &rx, &lost))
            .expect("the operating system refused to start the node's heartbeat thread");
        Membership {
            seat,
            asks,
            thread: Some(thread),
        }
    }

    pub(super) fn seat(&self) -> Seat {
        self.seat.clone()
    }

    /// Records where this node listens, and waits for the write.
    pub(super) fn publish(&self, http_url: Option<String>) {
        let (done, answered) = mpsc::channel();
        if self.asks.send(Ask::Publish(http_url, done)).is_ok() {
            let _ = answered.recv_timeout(Duration::from_secs(10));
        }
    }

    /// A clean stop, then the thread is waited for: before the store is closed.
    pub(super) fn release(&mut self) {
        let _ = self.asks.send(Ask::Stop);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Drop for Membership {
    fn drop(&mut self) {
        self.release();
    }
}

fn beat_until_stopped(store: &Store, seat: &Seat, token: &str, asks: &mpsc::Receiver<Ask>, lost: &watch::Sender<bool>) {
    let mut failing = false;
    loop {
        let (name, t) = (seat.name.clone(), token.to_owned());
        let wrote = match asks.recv_timeout(HEARTBEAT) {
            Err(mpsc::RecvTimeoutError::Timeout) => {
                let runs = seat.runs();
                store.writer().write_blocking(move |tx| row::beat(tx, &name, &t, &runs))
            }
            Ok(Ask::Publish(url, done)) => {
                let wrote = store
                    .writer()
                    .write_blocking(move |tx| row::publish(tx, &name, &t, url.as_deref()));
                let _ = done.send(());
                wrote
            }
            Ok(Ask::Stop) | Err(mpsc::RecvTimeoutError::Disconnected) => {
                let _ = store.writer().write_blocking(move |tx| row::stop(tx, &name, &t));
                return;
            }
        };
        match wrote {
            Ok(true) => failing = false,
            Ok(false) => {
                tracing::error!(
                    node = %seat.name,
                    "another smsdesk took this node's name over (its heartbeat could not be written for a while): this one stops sending; give each node a name of its own (store.node)"
                );
                let _ = lost.send(true);
                return;
            }
            Err(StoreError::Closed) => return,
            Err(e) => {
                if !failing {
                    tracing::warn!(error = %e, "cannot write this node's heartbeat into the database; trying again");
                }
                failing = true;
            }
        }
    }
}
