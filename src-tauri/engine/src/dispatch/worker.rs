//! The dispatcher: takes messages from the durable queue and sends them over the SMPP session.
//!
//! Order of each send, so that nothing is lost or sent twice by our own doing:
//! 1. a session permit (bound link, window slot, rate) — nothing is claimed while the link is down;
//! 2. a leased claim of the next due message;
//! 3. the attempt row committed with the session and sequence number;
//! 4. the PDU written, the answer awaited;
//! 5. the result committed (accepted, retry, failed, or an outcome-unknown exception); a result
//!    the database refuses (a full disk) is tried again for up to a lease, and a send that ends
//!    without its result committed is settled by in-run recovery (`upkeep`), never resent blindly.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::watch;

pub use super::config::DispatcherConfig;

use super::config::Rules;
use super::lanes;
use super::routing::{RouteTable, Router};
use super::upkeep::{self, Claims};
use crate::queue;
use crate::smpp::session::SessionHandle;
use crate::store::{Store, StoreError};
use smsdesk_core::receipts::policy::ReceiptPolicy;

/// One connection the dispatcher sends on, with the rules it sends by there.
pub struct Lane {
    pub session: SessionHandle,
    pub receipts: ReceiptPolicy,
    pub config: DispatcherConfig,
}

pub struct Dispatcher {
    stop: watch::Sender<bool>,
    rules: HashMap<String, watch::Sender<Rules>>,
    task: tokio::task::JoinHandle<()>,
}

impl Dispatcher {
    /// Recovers what a previous process left half-done, then sends on one connection the
    /// messages queued for it (no routes: as earlier versions did, and as tests of one link do).
    pub async fn start(
        store: Arc<Store>,
        session: SessionHandle,
        receipts: ReceiptPolicy,
        config: DispatcherConfig,
    ) -> Result<Dispatcher, StoreError> {
        let link = vec![(session.connection().to_owned(), session.state())];
        let router = Arc::new(Router::new(RouteTable::none(), link, store.clock().now_ms()));
        let lane = Lane {
            session,
            receipts,
            config,
        };
        Dispatcher::start_lanes(store, vec![lane], router).await
    }

    /// Recovers what a previous process left half-done (once, for every connection), then sends
    /// on each lane the messages `router` gives its connection.
    pub async fn start_lanes(
        store: Arc<Store>,
        lanes: Vec<Lane>,
        router: Arc<Router>,
    ) -> Result<Dispatcher, StoreError> {
        let owner = lanes.first().map(|l| l.config.owner.clone()).unwrap_or_default();
        let (requeued, unknown) = store.writer().write(move |tx| queue::recover(tx, &owner)).await?;
        if requeued + unknown > 0 {
            tracing::warn!(
                requeued,
                unknown,
                "recovered messages left mid-send by the previous run"
            );
        }
        let (stop, stopped) = watch::channel(false);
        let claims = Arc::new(Claims::default());
        let first = lanes.first().map(|l| l.config.clone()).unwrap_or_default();
        let recovery = tokio::spawn(upkeep::recover_stranded(
            store.clone(),
            claims.clone(),
            first.owner.clone(),
            upkeep::sweep_every(first.lease),
            stopped.clone(),
        ));
        let expiry = tokio::spawn(upkeep::expire_on_time(store.clone(), stopped.clone()));
        let mut rules = HashMap::new();
        let mut runs = Vec::new();
        for lane in lanes {
            let (tx, current) = watch::channel((Arc::new(lane.receipts), Arc::new(lane.config)));
            rules.insert(lane.session.connection().to_owned(), tx);
            let run = lanes::run(
                store.clone(),
                lane.session,
                current,
                claims.clone(),
                router.clone(),
                stopped.clone(),
            );
            runs.push(tokio::spawn(run));
        }
        let task = tokio::spawn(async move {
            for run in runs {
                let _ = run.await;
            }
            let _ = expiry.await;
            let _ = recovery.await;
        });
        Ok(Dispatcher { stop, rules, task })
    }

    /// New rules (retry limits, classes, receipt policy, sender id) on every connection for
    /// every message claimed from now on; sends already under way finish by the rules they
    /// started with.
    pub fn reconfigure(&self, receipts: ReceiptPolicy, config: DispatcherConfig) {
        for rules in self.rules.values() {
            rules.send_replace((Arc::new(receipts.clone()), Arc::new(config.clone())));
        }
    }

    /// New rules on one connection (see [`Dispatcher::reconfigure`]).
    pub fn reconfigure_lane(&self, connection: &str, receipts: ReceiptPolicy, config: DispatcherConfig) {
        if let Some(rules) = self.rules.get(connection) {
            rules.send_replace((Arc::new(receipts), Arc::new(config)));
        }
    }

    /// Stops taking new messages; sends in flight finish (or time out) and are recorded.
    pub async fn stop(self) {
        let _ = self.stop.send(true);
        let _ = tokio::time::timeout(Duration::from_secs(30), self.task).await;
    }
}
