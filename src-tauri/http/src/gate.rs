//! Who holds the server's connections. Without any credential, a client can open connections and
//! never finish a request; one address must not be able to hold them all:
//! - an address may hold at most `max_connections_per_address` open; a further one is answered
//!   429 `too_many_connections` and closed at once;
//! - of those, at most `max_unfinished_per_address` may have waited over [`PATIENCE`] for their
//!   first request's headers; a further connection closes the oldest of them (a browser sends
//!   its headers at once; a burst of connections that all send theirs is not cut short);
//! - when every slot of the server is taken and a client waits, the oldest connection that has
//!   waited over [`ROOM_PATIENCE`] for its headers, from any address, is closed to make room for
//!   it (a younger one may not have had its turn to send them yet). That is shorter than
//!   [`PATIENCE`]: whoever waits for room (a health probe, a person's page) waits about as long.
//!
//! A trusted proxy (`http.trusted_proxies`) carries everyone's connections: its address is not
//! held to the per-address caps.

use std::collections::{BTreeMap, HashMap};
use std::net::IpAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::sync::Notify;

use smsdesk_engine::config::Networks;
use smsdesk_engine::door::Limits;
use smsdesk_engine::service::DoorUse;

/// How long a connection may wait for its headers before it may be closed for a newer one of its
/// own address.
pub const PATIENCE: Duration = Duration::from_secs(1);

/// How long a connection may wait for its headers before it may be closed to make room on a full
/// server: a client sends its headers as it connects (a few milliseconds here), and a client
/// waiting for room should not wait a second for every burst that fills the server.
pub const ROOM_PATIENCE: Duration = Duration::from_millis(250);

/// The connections open now, by address, and those still waiting for their headers.
pub struct Gate {
    limits: Limits,
    trusted: Arc<Networks>,
    patience: Duration,
    room_patience: Duration,
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    next_id: u64,
    open: usize,
    by_address: HashMap<IpAddr, Held>,
    /// Connections without their first headers yet, oldest first (ids only grow).
    unfinished: BTreeMap<u64, Unfinished>,
    refused: u64,
    closed_unfinished: u64,
}

#[derive(Default, Clone, Copy)]
struct Held {
    open: usize,
    unfinished: usize,
}

#[derive(Clone)]
struct Unfinished {
    ip: IpAddr,
    since: Instant,
    close: Arc<Notify>,
}

/// A connection let in: it counts until dropped.
pub struct Ticket {
    gate: Arc<Gate>,
    id: u64,
    ip: IpAddr,
    since: Instant,
    started: AtomicBool,
    close: Arc<Notify>,
}

impl Gate {
    pub fn new(limits: Limits, trusted: Arc<Networks>) -> Arc<Gate> {
        Arc::new(Gate {
            limits,
            trusted,
            patience: PATIENCE,
            room_patience: ROOM_PATIENCE,
            state: Mutex::new(State::default()),
        })
    }

    /// The oldest connection of `ip` that has waited long enough for its headers to be closed
    /// for a newer one of the same address.
    fn overdue(&self, s: &State, ip: IpAddr) -> Option<u64> {
        s.unfinished
            .iter()
            .take_while(|(_, u)| u.since.elapsed() >= self.patience)
            .find(|(_, u)| u.ip == ip)
            .map(|(id, _)| *id)
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Lets a connection from `ip` in, or refuses it (`None`) because its address holds its cap.
    pub fn admit(self: &Arc<Self>, ip: IpAddr) -> Option<Ticket> {
        let ip = ip.to_canonical();
        let counted = !self.trusted.contains(ip);
        let mut s = self.state();
        let held = s.by_address.get(&ip).copied().unwrap_or_default();
        if counted && held.open >= self.limits.max_connections_per_address {
            s.refused += 1;
            return None;
        }
        if counted && held.unfinished >= self.limits.max_unfinished_per_address {
            if let Some(id) = self.overdue(&s, ip) {
                close_unfinished(&mut s, id);
            }
        }
        let (id, close) = (s.next_id, Arc::new(Notify::new()));
        s.next_id += 1;
        s.open += 1;
        let held = s.by_address.entry(ip).or_default();
        held.open += 1;
        held.unfinished += 1;
        let since = Instant::now();
        s.unfinished.insert(
            id,
            Unfinished {
                ip,
                since,
                close: close.clone(),
            },
        );
        Some(Ticket {
            gate: self.clone(),
            id,
            ip,
            since,
            started: AtomicBool::new(false),
            close,
        })
    }

    /// Closes the oldest connection still without its headers that has waited over [`ROOM_PATIENCE`]
    /// for them, from any address, to make room for `newcomer` (never itself); whether there was
    /// one. A younger one is let be: it may not have had its turn to send them yet (a connection
    /// accepted just before a burst would otherwise be the oldest, and closed unheard).
    pub fn make_room_for(&self, newcomer: &Ticket) -> bool {
        let mut s = self.state();
        let oldest = s
            .unfinished
            .iter()
            .take_while(|(_, u)| u.since.elapsed() >= self.room_patience)
            .map(|(id, _)| *id)
            .find(|id| *id != newcomer.id);
        match oldest {
            Some(id) => {
                close_unfinished(&mut s, id);
                true
            }
            None => false,
        }
    }

    /// The connections now, and the caps (streams are the event streams' to fill in).
    pub fn usage(&self) -> DoorUse {
        let s = self.state();
        let busiest = s.by_address.values().map(|h| h.open).max().unwrap_or(0);
        DoorUse {
            connections: s.open as u32,
            max_connections: self.limits.max_connections as u32,
            unfinished: s.unfinished.len() as u32,
            max_connections_per_address: self.limits.max_connections_per_address as u32,
            max_unfinished_per_address: self.limits.max_unfinished_per_address as u32,
            busiest_address_connections: busiest as u32,
            refused_connections: s.refused,
            closed_unfinished: s.closed_unfinished,
            streams: 0,
            max_streams_per_caller: self.limits.max_streams_per_caller as u32,
            closed_streams: 0,
        }
    }
}

/// Takes connection `id` off the unfinished list and tells it to close.
fn close_unfinished(s: &mut State, id: u64) {
    if let Some(u) = s.unfinished.remove(&id) {
        if let Some(held) = s.by_address.get_mut(&u.ip) {
            held.unfinished = held.unfinished.saturating_sub(1);
        }
        s.closed_unfinished += 1;
        u.close.notify_one();
    }
}

impl Ticket {
    /// The connection's first request's headers arrived: it no longer counts as unfinished.
    pub fn started(&self) {
        if self.started.swap(true, Ordering::Relaxed) {
            return;
        }
        let mut s = self.gate.state();
        if s.unfinished.remove(&self.id).is_some() {
            if let Some(held) = s.by_address.get_mut(&self.ip) {
                held.unfinished = held.unfinished.saturating_sub(1);
            }
        }
    }

    /// The connection waits again for what anyone may send without a credential (its next
    /// request's headers, the body of sign-in): it counts as unfinished, as old as it is, until
    /// [`Ticket::started`] again.
    pub fn unfinished_again(&self) {
        if !self.started.swap(false, Ordering::Relaxed) {
            return;
        }
        let mut s = self.gate.state();
        let u = Unfinished {
            ip: self.ip,
            since: self.since,
            close: self.close.clone(),
        };
        if s.unfinished.insert(self.id, u).is_none() {
            s.by_address.entry(self.ip).or_default().unfinished += 1;
        }
    }

    /// Resolves when the gate closes this connection to make room.
    pub async fn closed(&self) {
        self.close.notified().await
    }
}

impl Drop for Ticket {
    fn drop(&mut self) {
        let mut s = self.gate.state();
        s.open = s.open.saturating_sub(1);
        let was_unfinished = s.unfinished.remove(&self.id).is_some();
        if let Some(held) = s.by_address.get_mut(&self.ip) {
            held.open = held.open.saturating_sub(1);
            if was_unfinished {
                held.unfinished = held.unfinished.saturating_sub(1);
            }
            if held.open == 0 {
                s.by_address.remove(&self.ip);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gate(per_address: usize, unfinished: usize, trusted: &str) -> Arc<Gate> {
        let limits = Limits {
            max_connections_per_address: per_address,
            max_unfinished_per_address: unfinished,
            ..Limits::default()
        };
        let trusted = <Networks as smsdesk_engine::config::SettingValue>::from_env(trusted).unwrap();
        let mut gate = Gate::new(limits, Arc::new(trusted));
        let g = Arc::get_mut(&mut gate).unwrap();
        (g.patience, g.room_patience) = (Duration::ZERO, Duration::ZERO);
        gate
    }

    fn ip(text: &str) -> IpAddr {
        text.parse().unwrap()
    }

    #[test]
    fn an_address_holds_at_most_its_cap_and_others_are_let_in() {
        let g = gate(3, 10, "");
        let held: Vec<_> = (0..3).map(|_| g.admit(ip("10.0.0.66")).unwrap()).collect();
        assert!(
            g.admit(ip("10.0.0.66")).is_none(),
            "a fourth from the same address is refused"
        );
        assert!(g.admit(ip("10.0.0.7")).is_some(), "another address is let in");
        drop(held);
        assert!(
            g.admit(ip("10.0.0.66")).is_some(),
            "closed connections give their place back"
        );
        let u = g.usage();
        assert_eq!(u.refused_connections, 1);
        assert_eq!(u.connections, 0, "every ticket dropped: nothing counts");
    }

    #[tokio::test]
    async fn a_further_unfinished_connection_closes_the_oldest_of_its_address() {
        let g = gate(50, 2, "");
        let first = g.admit(ip("10.0.0.66")).unwrap();
        let second = g.admit(ip("10.0.0.66")).unwrap();
        let other = g.admit(ip("10.0.0.7")).unwrap();
        second.started();
        let _third = g.admit(ip("10.0.0.66")).unwrap();
        let _fourth = g.admit(ip("10.0.0.66")).unwrap();
        tokio::time::timeout(std::time::Duration::from_secs(1), first.closed())
            .await
            .expect("the oldest unfinished connection of the address is told to close");
        assert_eq!(
            g.usage().closed_unfinished,
            1,
            "the started one and the other address's stay"
        );
        let newcomer = g.admit(ip("10.0.0.8")).unwrap();
        assert!(
            g.make_room_for(&newcomer),
            "room is made from the oldest of any address"
        );
        tokio::time::timeout(std::time::Duration::from_secs(1), other.closed())
            .await
            .expect("the oldest unfinished connection overall is the other address's");
    }

    #[test]
    fn a_connection_that_just_opened_is_not_closed_for_a_newer_one() {
        let g = Gate::new(
            Limits {
                max_unfinished_per_address: 1,
                ..Limits::default()
            },
            Arc::default(),
        );
        let (_first, second) = (g.admit(ip("10.0.0.66")).unwrap(), g.admit(ip("10.0.0.66")).unwrap());
        assert_eq!(
            g.usage().closed_unfinished,
            0,
            "a burst that sends its headers at once is let be"
        );
        assert_eq!(g.usage().unfinished, 2);
        let newcomer = g.admit(ip("10.0.0.7")).unwrap();
        assert!(
            !g.make_room_for(&newcomer),
            "nor closed to make room while it may not have had its turn to send its headers"
        );
        assert_eq!(g.usage().closed_unfinished, 0);
        drop(second);
    }

    #[test]
    fn a_full_server_makes_room_with_the_oldest_that_waited_over_its_patience() {
        let mut g = Gate::new(Limits::default(), Arc::default());
        Arc::get_mut(&mut g).unwrap().room_patience = Duration::from_millis(50);
        let old = g.admit(ip("10.0.0.66")).unwrap();
        std::thread::sleep(Duration::from_millis(80));
        let (_young, newcomer) = (g.admit(ip("10.0.0.8")).unwrap(), g.admit(ip("10.0.0.9")).unwrap());
        assert!(g.make_room_for(&newcomer), "the one that waited is closed");
        assert_eq!(g.usage().closed_unfinished, 1);
        assert!(!g.make_room_for(&newcomer), "the young one is let be");
        drop(old);
    }

    #[test]
    fn a_full_server_makes_room_sooner_than_an_address_replaces_its_own() {
        assert!(ROOM_PATIENCE < PATIENCE);
        let mut g = gate(50, 1, "");
        let patient = Arc::get_mut(&mut g).unwrap();
        (patient.patience, patient.room_patience) = (PATIENCE, ROOM_PATIENCE);
        let old = g.admit(ip("10.0.0.66")).unwrap();
        std::thread::sleep(ROOM_PATIENCE + Duration::from_millis(20));
        let same = g.admit(ip("10.0.0.66")).unwrap();
        assert_eq!(
            g.usage().closed_unfinished,
            0,
            "a newer connection of its own address waits for the longer patience"
        );
        let newcomer = g.admit(ip("10.0.0.9")).unwrap();
        assert!(g.make_room_for(&newcomer), "a client waiting for room does not");
        assert_eq!(g.usage().closed_unfinished, 1);
        drop((old, same, newcomer));
    }

    #[test]
    fn room_is_never_made_from_the_newcomer_itself() {
        let g = gate(50, 10, "");
        let started = g.admit(ip("10.0.0.66")).unwrap();
        started.started();
        let newcomer = g.admit(ip("10.0.0.7")).unwrap();
        assert!(
            !g.make_room_for(&newcomer),
            "the only connection without its headers is the newcomer: no one to close"
        );
        assert_eq!(g.usage().closed_unfinished, 0);
        assert_eq!(g.usage().unfinished, 1, "the newcomer waits for its headers as before");
    }

    #[test]
    fn a_connection_reading_a_body_without_a_credential_counts_as_unfinished_again() {
        let g = gate(50, 10, "");
        let t = g.admit(ip("10.0.0.66")).unwrap();
        t.started();
        assert_eq!(g.usage().unfinished, 0);
        t.unfinished_again();
        assert_eq!(
            g.usage().unfinished,
            1,
            "a slow body on sign-in may be closed to make room"
        );
        t.started();
        drop(t);
        let u = g.usage();
        assert_eq!((u.unfinished, u.connections), (0, 0), "every count is given back");
    }

    #[test]
    fn a_trusted_proxy_is_not_held_to_the_per_address_caps() {
        let g = gate(2, 1, "127.0.0.1");
        let held: Vec<_> = (0..10).map(|_| g.admit(ip("127.0.0.1"))).collect();
        assert!(
            held.iter().all(Option::is_some),
            "the proxy carries everyone's connections"
        );
        assert_eq!(g.usage().busiest_address_connections, 10);
    }
}
