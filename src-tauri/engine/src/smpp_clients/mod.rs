//! The office's SMPP clients as the rest of the engine sees them: what the API shows of accounts
//! and sessions (`types`), and the registry of sessions bound now that the SMPP server keeps and
//! the dashboard reads. Below both the service and the server, so neither reaches into the other.

mod types;

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use crate::smpp::session::BindRole;

pub use types::{CreatedSmppAccount, NewSmppAccount, SmppAccountInfo, SmppServerSession, SmppServerStatus};

/// The sessions bound now and the server's own state, for the dashboard.
#[derive(Default)]
pub struct Registry {
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    enabled: bool,
    listening: Option<String>,
    tls: bool,
    problem: Option<String>,
    next_id: u64,
    sessions: BTreeMap<u64, Arc<Stats>>,
}

/// One session's counters.
pub struct Stats {
    pub(crate) id: u64,
    account: String,
    bind: BindRole,
    peer: String,
    tls: bool,
    since_ms: i64,
    submitted: AtomicU64,
    refused: AtomicU64,
    delivered: AtomicU64,
    /// Messages handed in per second, the last [`RATE_SECONDS`] seconds (by second).
    recent: Mutex<[(i64, u64); RATE_SECONDS]>,
}

const RATE_SECONDS: usize = 10;

impl Stats {
    pub(crate) fn submitted(&self, now_ms: i64) {
        self.submitted.fetch_add(1, Ordering::Relaxed);
        let second = now_ms / 1000;
        let mut recent = self.recent.lock().unwrap_or_else(|p| p.into_inner());
        let slot = &mut recent[(second as usize) % RATE_SECONDS];
        if slot.0 != second {
            *slot = (second, 0);
        }
        slot.1 += 1;
    }

    pub(crate) fn refused(&self) {
        self.refused.fetch_add(1, Ordering::Relaxed);
    }

    pub(crate) fn delivered(&self, n: u64) {
        self.delivered.fetch_add(n, Ordering::Relaxed);
    }

    fn view(&self, now_ms: i64) -> SmppServerSession {
        let second = now_ms / 1000;
        let recent = self.recent.lock().unwrap_or_else(|p| p.into_inner());
        let counted: u64 = recent
            .iter()
            .filter(|(s, _)| *s > second - RATE_SECONDS as i64 && *s <= second)
            .map(|(_, n)| n)
            .sum();
        SmppServerSession {
            id: self.id,
            account: self.account.clone(),
            bind: self.bind,
            peer: self.peer.clone(),
            tls: self.tls,
            since_ms: self.since_ms,
            submitted: self.submitted.load(Ordering::Relaxed),
            refused: self.refused.load(Ordering::Relaxed),
            rate_per_s: counted as f64 / RATE_SECONDS as f64,
            delivered: self.delivered.load(Ordering::Relaxed),
        }
    }
}

impl Registry {
    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A session bound: its counters, listed until it ends.
    pub fn bound(&self, account: &str, bind: BindRole, peer: SocketAddr, tls: bool, now_ms: i64) -> Arc<Stats> {
        let mut state = self.lock();
        state.next_id += 1;
        let stats = Arc::new(Stats {
            id: state.next_id,
            account: account.to_owned(),
            bind,
            peer: peer.to_string(),
            tls,
            since_ms: now_ms,
            submitted: AtomicU64::new(0),
            refused: AtomicU64::new(0),
            delivered: AtomicU64::new(0),
            recent: Mutex::new([(0, 0); RATE_SECONDS]),
        });
        state.sessions.insert(stats.id, stats.clone());
        stats
    }

    pub fn ended(&self, id: u64) {
        self.lock().sessions.remove(&id);
    }

    /// The server's state, with `waiting` receipts and replies.
    pub fn status(&self, waiting: i64, now_ms: i64) -> SmppServerStatus {
        let state = self.lock();
        SmppServerStatus {
            enabled: state.enabled,
            listening: state.listening.clone(),
            tls: state.tls,
            problem: state.problem.clone(),
            sessions: state.sessions.values().map(|s| s.view(now_ms)).collect(),
            waiting,
        }
    }

    pub fn set(&self, enabled: bool, tls: bool, listening: Option<String>, problem: Option<String>) {
        let mut state = self.lock();
        state.enabled = enabled;
        state.tls = tls;
        state.listening = listening;
        state.problem = problem;
    }
}
