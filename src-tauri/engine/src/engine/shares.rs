//! This node's share of each connection among the nodes that run it: which nodes run a
//! connection (by a rule every node applies alike), and the rate each of them sends at.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use crate::instance::HEARTBEAT;

/// Whether this node runs a connection, and among how many.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Share {
    pub(super) runs: bool,
    /// Nodes running it (this one among them when it runs it): its rate is divided by this.
    pub(super) of: u32,
}

/// This node's shares of each connection, as the last look at the nodes decided.
#[derive(Debug)]
pub(super) struct Shares {
    joined: Instant,
    map: Mutex<HashMap<String, Share>>,
}

impl Shares {
    pub(super) fn new() -> Arc<Shares> {
        Arc::new(Shares {
            joined: Instant::now(),
            map: Mutex::new(HashMap::new()),
        })
    }

    /// This node's share of `connection`: none before the first look.
    pub(super) fn of(&self, connection: &str) -> Share {
        let map = self.map.lock().unwrap_or_else(|p| p.into_inner());
        map.get(connection).copied().unwrap_or(Share { runs: false, of: 1 })
    }

    pub(super) fn set(&self, connection: &str, share: Share) -> Option<Share> {
        let mut map = self.map.lock().unwrap_or_else(|p| p.into_inner());
        map.insert(connection.to_owned(), share)
    }

    /// Whether this node has been a member long enough for every other node to have seen it.
    pub(super) fn settled(&self) -> bool {
        self.joined.elapsed() >= 2 * HEARTBEAT
    }
}

/// The nodes that run `connection` out of `live` (names): every one when `wanted` is 0 or at
/// least their number, else the `wanted` first by a hash of the connection's and the node's
/// names (rendezvous hashing: one node's death or arrival moves only its own connections).
pub(super) fn assign(connection: &str, wanted: u32, live: &[String]) -> Vec<String> {
    let mut ranked: Vec<(u64, &String)> = live.iter().map(|n| (rank(connection, n), n)).collect();
    ranked.sort();
    let take = match wanted {
        0 => ranked.len(),
        n => (n as usize).min(ranked.len()),
    };
    let mut chosen: Vec<String> = ranked.into_iter().take(take).map(|(_, n)| n.clone()).collect();
    chosen.sort();
    chosen
}

fn rank(connection: &str, node: &str) -> u64 {
    use sha2::Digest;
    let digest = sha2::Sha256::digest(format!("{connection}\n{node}").as_bytes());
    u64::from_be_bytes(digest[..8].try_into().expect("eight bytes"))
}

/// A connection's rate, divided among the nodes that run it.
pub(super) fn share_of(tps: u32, share: Share) -> f64 {
    f64::from(tps) / f64::from(share.of.max(1))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(n: &[&str]) -> Vec<String> {
        n.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn every_live_node_runs_a_connection_unless_fewer_are_asked_for_and_a_death_moves_only_its_own() {
        let live = names(&["a", "b", "c"]);
        assert_eq!(assign("acme", 0, &live), live, "0: every live node");
        assert_eq!(assign("acme", 5, &live), live, "more asked than there are");
        let one = assign("acme", 1, &live);
        assert_eq!(one.len(), 1);
        // Its node dies: another takes it; a node that did not run it dying moves nothing.
        let without = |gone: &str| live.iter().filter(|n| *n != gone).cloned().collect::<Vec<_>>();
        let moved = assign("acme", 1, &without(&one[0]));
        assert_eq!(moved.len(), 1);
        assert_ne!(moved, one);
        let other = live.iter().find(|n| **n != one[0]).unwrap();
        assert_eq!(
            assign("acme", 1, &without(other)),
            one,
            "a death elsewhere moves nothing"
        );
        // Connections spread: of many connections run by one node each, every node runs some.
        let mut runs: HashMap<String, usize> = HashMap::new();
        for i in 0..30 {
            for n in assign(&format!("conn-{i}"), 1, &live) {
                *runs.entry(n).or_default() += 1;
            }
        }
        assert_eq!(runs.len(), 3, "{runs:?}");
        assert!(assign("acme", 1, &[]).is_empty());
    }

    #[test]
    fn the_rate_is_divided_among_the_nodes_that_run_the_connection() {
        assert_eq!(share_of(100, Share { runs: true, of: 2 }), 50.0);
        assert_eq!(share_of(100, Share { runs: true, of: 0 }), 100.0);
        assert_eq!(share_of(90, Share { runs: true, of: 3 }), 30.0);
    }
}
