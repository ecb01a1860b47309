//! What settings changes replace while the engine runs: the service's live settings, the receipt
//! rules (with the stored id keys made again), and the sending side (a new bind when the
//! connection settings changed, new limits on the running session otherwise).

use std::net::SocketAddr;
use std::sync::Arc;

use super::database::rekey_all;
use super::intake_rules;
use super::sending::{Place, Sending};
use crate::config::{self, Config, SmppSettings};
use crate::receipts::ingest::Ingestor;
use crate::receipts::policy::ReceiptPolicy;
use crate::sandbox::Sandbox;
use crate::service::Service;
use crate::settings::{Apply, Settings};
use crate::smpp::session::{InboundHandler, SessionHandle};
use crate::store::Store;

/// The parts of the running engine that settings change while it runs.
pub(super) struct Runtime {
    store: Arc<Store>,
    service: Service,
    pub(super) sending: tokio::sync::Mutex<Option<Sending>>,
    /// Where the sending side runs (this node), for each new one.
    place: Place,
    /// The session now and the sandbox's address, for readers that cannot wait for the lock.
    pub(super) current: std::sync::Mutex<(Option<SessionHandle>, Option<SocketAddr>)>,
}

impl Runtime {
    /// Takes over the sending side (so that settings changes can replace it) and listens to
    /// settings changes.
    pub(super) async fn hand_over(
        store: &Arc<Store>,
        service: &Service,
        sending: Option<Sending>,
        settings: &Arc<Settings>,
        place: Place,
    ) -> Arc<Runtime> {
        let runtime = Arc::new(Runtime {
            store: store.clone(),
            service: service.clone(),
            place,
            sending: tokio::sync::Mutex::new(None),
            current: std::sync::Mutex::new((None, None)),
        });
        if let Some(s) = &sending {
            runtime.publish(s);
        }
        *runtime.sending.lock().await = sending;
        let applier: Arc<dyn Apply> = runtime.clone();
        settings.attach(Arc::downgrade(&applier));
        runtime
    }

    /// Makes `s` the sending side the service and the engine's readers see.
    fn publish(&self, s: &Sending) {
        self.service.set_links(
            s.links
                .iter()
                .map(|l| (l.connection.clone(), l.sandbox.is_some(), l.session.handle()))
                .collect(),
        );
        self.service.set_router(Some(s.router.clone()));
        let sandbox = s.links.iter().find_map(|l| l.sandbox.as_ref());
        self.service.set_handsets(sandbox.map(Sandbox::handsets));
        *self.current.lock().unwrap_or_else(|p| p.into_inner()) =
            (s.first().map(|l| l.session.handle()), sandbox.map(Sandbox::addr));
    }

    /// Applies changed settings; true when the SMPP session was replaced (bound again).
    async fn reconfigure(&self, old: Arc<Config>, new: Arc<Config>) -> bool {
        let policy = ReceiptPolicy::for_config(&new);
        self.service
            .set_intake(intake_rules(&new), new.intake.max_batch.0 as usize);
        self.service.set_callbacks(new.callbacks.providers.clone());
        self.service
            .set_retry_limits(super::sending::retry_policies(&new.retry));
        self.service.set_session_lifetimes(super::session_lifetimes(&new));
        let id_rules_changed = old.receipts != new.receipts || unpriced(&old) != unpriced(&new);
        if id_rules_changed || old.inbox != new.inbox || old.intake.default_region != new.intake.default_region {
            self.service
                .set_ingestor(Ingestor::new(self.store.writer().clone(), policy.clone()));
        }
        if id_rules_changed {
            if let Err(e) = rekey_all(&self.store, &policy, &new).await {
                tracing::error!(error = %e, "making the stored id keys by the new rules failed");
            }
        }
        let mut sending = self.sending.lock().await;
        if rebind_needed(&old, &new) {
            self.rebind(&mut sending, &new, &policy).await;
            return true;
        }
        if let Some(s) = sending.as_ref() {
            // The same rule the sessions started with: the sandbox keeps its own pace.
            s.reconfigure(&new, &policy);
        }
        false
    }

    /// Replaces the sending side: the old one drains what is in flight and stops, then a new one
    /// binds with the new settings. Should it fail to start, there is none until the next change.
    async fn rebind(&self, sending: &mut Option<Sending>, new: &Config, policy: &ReceiptPolicy) {
        tracing::info!("SMPP connection settings changed: draining what is in flight, then binding again");
        if let Some(s) = sending.take() {
            s.stop().await;
        }
        // Messages waiting on a route or a connection the new settings no longer have take a
        // route now, not at the next start.
        if let Err(e) = super::database::route_unrouted(self.store.writer(), new).await {
            tracing::error!(error = %e, "giving the waiting messages a route by the new routes failed");
        }
        let inbound: Arc<dyn InboundHandler> = Arc::new(self.service.clone());
        match Sending::start(new, &self.store, inbound, policy, &self.place).await {
            Ok(s) => {
                self.publish(&s);
                *sending = Some(s);
            }
            Err(e) => tracing::error!(error = %e, "cannot start the new SMPP connection"),
        }
    }
}

impl Apply for Runtime {
    fn apply(
        &self,
        old: Arc<Config>,
        new: Arc<Config>,
    ) -> std::pin::Pin<Box<dyn std::future::Future<Output = bool> + Send + '_>> {
        Box::pin(self.reconfigure(old, new))
    }

    fn sandbox_addr(&self) -> Option<SocketAddr> {
        self.current.lock().unwrap_or_else(|p| p.into_inner()).1
    }
}

/// Whether a change of settings needs new sessions (new binds): a connection added, removed,
/// enabled, disabled or changed beyond its window, rate and sender id, or the routes changed.
/// The window, the rate and the sender id change on the running sessions.
/// The connections without their prices, which intake reads (a new price neither rebinds nor
/// rekeys anything).
fn unpriced(c: &Config) -> Vec<config::ConnectionSettings> {
    let mut list = c.connection_list();
    for l in &mut list {
        l.smpp.prices = config::Prices::default();
    }
    list
}

fn rebind_needed(old: &Config, new: &Config) -> bool {
    let same_session = |s: &SmppSettings| SmppSettings {
        source_addr: String::new(),
        window: config::AtLeastOne(1),
        tps: config::AtLeastOne(1),
        prices: config::Prices::default(),
        ..s.clone()
    };
    let links = |c: &Config| -> Vec<(String, bool, SmppSettings)> {
        c.connection_list()
            .into_iter()
            .map(|l| (l.name, l.enabled, same_session(&l.smpp)))
            .collect()
    };
    links(old) != links(new) || old.route_list() != new.route_list() || old.routing != new.routing
}
