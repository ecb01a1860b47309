//! The event streams open, by caller (an API key, a browser session, the command line): each may
//! hold at most `http.max_streams_per_caller`, and a further one closes its oldest, so one
//! credential cannot take the server's connections with streams that never end.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};

use tokio::sync::Notify;

use smsdesk_engine::access::Caller;

/// The open streams.
pub struct Streams {
    per_caller: usize,
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    next_id: u64,
    by_caller: HashMap<String, VecDeque<(u64, Arc<Notify>)>>,
    open: usize,
    closed: u64,
}

/// An open stream: it counts until dropped.
pub struct Registered {
    streams: Arc<Streams>,
    caller: String,
    id: u64,
    replaced: Arc<Notify>,
}

/// Whose streams these are: the key, the session, or the person at this computer.
fn holder(caller: &Caller) -> String {
    match caller {
        Caller::Key { id, .. } => format!("key:{id}"),
        Caller::Person { session_id, .. } => format!("session:{session_id}"),
        Caller::Local { .. } => "local".into(),
    }
}

impl Streams {
    pub fn new(per_caller: usize) -> Arc<Streams> {
        Arc::new(Streams {
            per_caller: per_caller.max(1),
            state: Mutex::new(State::default()),
        })
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Counts a new stream of `caller`, closing its oldest ones beyond the cap.
    pub fn open(self: &Arc<Self>, caller: &Caller) -> Registered {
        let key = holder(caller);
        let replaced = Arc::new(Notify::new());
        let mut s = self.state();
        let id = s.next_id;
        s.next_id += 1;
        s.open += 1;
        let mut closed = 0;
        let held = s.by_caller.entry(key.clone()).or_default();
        while held.len() >= self.per_caller {
            if let Some((_, oldest)) = held.pop_front() {
                oldest.notify_one();
                closed += 1;
            }
        }
        held.push_back((id, replaced.clone()));
        s.closed += closed;
        Registered {
            streams: self.clone(),
            caller: key,
            id,
            replaced,
        }
    }

    /// Streams open now, the cap per caller, and how many were closed for it since start.
    pub fn usage(&self) -> (u32, u32, u64) {
        let s = self.state();
        (s.open as u32, self.per_caller as u32, s.closed)
    }
}

impl Registered {
    /// Resolves when a newer stream of the same caller took this one's place.
    pub async fn replaced(&self) {
        self.replaced.notified().await
    }
}

impl Drop for Registered {
    fn drop(&mut self) {
        let mut s = self.streams.state();
        s.open = s.open.saturating_sub(1);
        if let Some(held) = s.by_caller.get_mut(&self.caller) {
            held.retain(|(id, _)| *id != self.id);
            if held.is_empty() {
                s.by_caller.remove(&self.caller);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[tokio::test]
    async fn a_caller_beyond_its_cap_loses_its_oldest_stream_and_others_keep_theirs() {
        let streams = Streams::new(2);
        let (key, other) = (Caller::key(1, "website", &[]), Caller::key(2, "crm", &[]));
        let first = streams.open(&key);
        let theirs = streams.open(&other);
        let _second = streams.open(&key);
        let _third = streams.open(&key);
        tokio::time::timeout(Duration::from_secs(1), first.replaced())
            .await
            .expect("the oldest stream of the key is told to end");
        let not_told = tokio::time::timeout(Duration::from_millis(50), theirs.replaced()).await;
        assert!(not_told.is_err(), "another caller's stream is not touched");
        assert_eq!(
            streams.usage(),
            (4, 2, 1),
            "four open until the first one ends; one closed"
        );
        drop(first);
        assert_eq!(streams.usage().0, 3);
    }
}
