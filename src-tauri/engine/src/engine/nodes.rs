//! Several nodes on one PostgreSQL database: which connections this node runs, at what share of
//! their rate, and what it tells the others it runs.
//!
//! Every [`HEARTBEAT`] each node reads the live nodes (by the database's clock) and decides, by
//! the same rule as every other node, which nodes run each connection: every live node, or the
//! `smpp.nodes` first ones ranked by a hash of the connection's and the node's names (so that
//! connections spread over the nodes, and a connection moves only when one of its nodes dies or
//! joins). Each node running a connection opens its `smpp.binds` binds and sends at an equal
//! share of its `smpp.tps`: the rate is shared, never multiplied by the number of nodes.
//!
//! A node just joined waits two heartbeats before it binds: by then every other node has seen it
//! and lowered its own share, so the shares never add up to more than the rate. A node found dead
//! stops counting only once its heartbeat is [`STALE`] old: until then the others keep their
//! smaller shares (a while under the rate, never over it).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::runtime::Runtime;
use crate::config::Config;
use crate::domain::ConnectionHold;
use crate::instance::{stale_ms, Seat, HEARTBEAT};
use crate::nodes::NodeRun;
use crate::pace::sending_limits;
use crate::settings::Settings;
use crate::store::tables::node;
use crate::store::Store;

#[cfg(doc)]
use crate::instance::STALE;

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

    fn set(&self, connection: &str, share: Share) -> Option<Share> {
        let mut map = self.map.lock().unwrap_or_else(|p| p.into_inner());
        map.insert(connection.to_owned(), share)
    }

    /// Whether this node has been a member long enough for every other node to have seen it.
    fn settled(&self) -> bool {
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

/// Looks at the nodes every heartbeat and puts this node's shares into effect, until the engine
/// stops (the task is aborted).
pub(super) async fn keep_sharing(
    store: Arc<Store>,
    runtime: Arc<Runtime>,
    settings: Arc<Settings>,
    shares: Arc<Shares>,
    seat: Seat,
) {
    let mut every = tokio::time::interval(HEARTBEAT);
    every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        every.tick().await;
        let now = store.clock().now_ms();
        let live = match store.reader().read(move |c| node::all(c, now, stale_ms())).await {
            Ok(nodes) => nodes
                .into_iter()
                .filter(|n| n.alive)
                .map(|n| n.name)
                .collect::<Vec<_>>(),
            Err(e) => {
                tracing::warn!(error = %e, "cannot read the nodes; keeping this node's shares as they are");
                continue;
            }
        };
        let config = settings.running();
        let runs = share_out(&runtime, &config, &shares, &seat.name, &live).await;
        seat.say_runs(serde_json::to_string(&runs).unwrap_or_else(|_| "[]".into()));
    }
}

/// Decides this node's share of each running connection among `live`, applies what changed to
/// the sessions, and says what it runs.
async fn share_out(runtime: &Runtime, config: &Config, shares: &Shares, me: &str, live: &[String]) -> Vec<NodeRun> {
    let sending = runtime.sending.lock().await;
    let Some(sending) = sending.as_ref() else {
        return Vec::new();
    };
    let mut runs = Vec::new();
    for link in &sending.links {
        let own = config
            .for_connection(&link.connection)
            .unwrap_or_else(|| config.clone());
        let chosen = assign(&link.connection, own.smpp.nodes, live);
        let share = Share {
            runs: shares.settled() && chosen.iter().any(|n| n == me),
            of: (chosen.len() as u32).max(1),
        };
        let session = link.session.handle();
        let limits = sending_limits(&own.smpp);
        if shares.set(&link.connection, share) != Some(share) {
            session.set_limits(limits.window as usize, share_of(limits.tps, share));
            let operator_disabled =
                sending.router.hold(&link.connection).map(|h| h.hold) == Some(ConnectionHold::Disabled);
            match share.runs {
                true if !operator_disabled => {
                    tracing::info!(connection = %link.connection, nodes = share.of, "this node runs the connection");
                    session.set_paused(false);
                }
                true => {}
                false => {
                    tracing::info!(connection = %link.connection, "another node runs the connection");
                    pause_when_quiet(session.clone());
                }
            }
        }
        let bound = session
            .binds()
            .iter()
            .filter(|(_, s)| matches!(s, crate::smpp::session::LinkState::Bound { .. }))
            .count() as u32;
        runs.push(NodeRun {
            connection: link.connection.clone(),
            binds: if share.runs { limits.binds } else { 0 },
            bound,
            tps: if share.runs { share_of(limits.tps, share) } else { 0.0 },
            accepted_per_s: session.accepted_per_s(),
        });
    }
    runs
}

/// A connection's rate, divided among the nodes that run it.
pub(super) fn share_of(tps: u32, share: Share) -> f64 {
    f64::from(tps) / f64::from(share.of.max(1))
}

/// Pauses `session` once nothing is under way on it (or after its answers' longest wait).
fn pause_when_quiet(session: crate::smpp::session::SessionHandle) {
    tokio::spawn(async move {
        let started = tokio::time::Instant::now();
        let most = session.response_timeout() + Duration::from_secs(1);
        let mut quiet = 0;
        while quiet < 2 && started.elapsed() < most {
            quiet = if session.under_way() == 0 { quiet + 1 } else { 0 };
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        session.set_paused(true);
    });
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
