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

use std::sync::Arc;
use std::time::Duration;

use super::runtime::Runtime;
use super::shares::{assign, share_of, Share, Shares};
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
