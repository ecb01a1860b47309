//! The sending side: one SMPP session per enabled connection, the dispatcher that sends on them
//! by the routes, and the sandbox when it is one of the connections, all made from the settings.
//! A session's window and rate are the sandbox's own while it is the sandbox, the account's
//! settings otherwise ([`sending_limits`]).

use std::sync::Arc;
use std::time::Duration;

use super::shares::{share_of, Shares};
use super::EngineError;
use crate::clock::Clock;
use crate::config::{Config, OnUnknownOutcome, RetrySettings, SmppSettings};
use crate::dispatch::routing::{RouteTable, Router};
use crate::dispatch::worker::{Dispatcher, DispatcherConfig, Lane};
use crate::domain::{ConnectionHold, MessageKind};
use crate::pace::sending_limits;
use crate::receipts::policy::ReceiptPolicy;
use crate::sandbox::{Sandbox, SandboxConfig, SandboxTls};
use crate::smpp::session::{pin_of, InboundHandler, Session, SessionConfig, TlsSettings};
use crate::smpp::status::ClassOverrides;
use crate::store::tables::connection_hold;
use crate::store::Store;
use smsdesk_core::retry::RetryPolicy;

/// Where the sending side runs: the node whose name its leases carry, and, with several nodes on
/// one PostgreSQL database, this node's shares of the connections (see `nodes`).
#[derive(Debug, Clone)]
pub(super) struct Place {
    pub(super) owner: String,
    pub(super) shares: Option<Arc<Shares>>,
}

impl Place {
    /// The rate this node sends `connection` at, of `tps`: all of it alone, its share among nodes.
    fn tps(&self, connection: &str, tps: u32) -> f64 {
        match &self.shares {
            Some(shares) => share_of(tps, shares.of(connection)),
            None => f64::from(tps),
        }
    }

    /// Whether `connection` is another node's to run now (its session stays unbound here).
    fn elsewhere(&self, connection: &str) -> bool {
        self.shares.as_ref().is_some_and(|s| !s.of(connection).runs)
    }
}

/// One connection's link: its session, and the sandbox when it is the sandbox.
pub(super) struct Link {
    pub(super) connection: String,
    pub(super) sandbox: Option<Sandbox>,
    pub(super) session: Session,
}

/// The sending side: every enabled connection's link, and the dispatcher.
pub(super) struct Sending {
    /// In the order the settings list them: the first is the one shown alone.
    pub(super) links: Vec<Link>,
    pub(super) dispatcher: Dispatcher,
    /// Which connection sends what, and the operators' holds.
    pub(super) router: Arc<Router>,
    place: Place,
}

impl Sending {
    /// Starts the sandbox (when a connection is the sandbox), a session per enabled connection,
    /// and the dispatcher that sends on them by the routes.
    pub(super) async fn start(
        config: &Config,
        store: &Arc<Store>,
        inbound: Arc<dyn InboundHandler>,
        policy: &ReceiptPolicy,
        place: &Place,
    ) -> Result<Sending, EngineError> {
        // The operators' holds outlast a restart: a disabled connection's session starts paused.
        let holds = store.reader().read(connection_hold::all).await?;
        let disabled = |name: &str| {
            holds
                .iter()
                .any(|h| h.connection == name && h.hold == ConnectionHold::Disabled)
        };
        let mut links = Vec::new();
        for c in config.connection_list().into_iter().filter(|c| c.enabled) {
            let own = config.for_connection(&c.name).unwrap_or_else(|| config.clone());
            let (sandbox, mut session_config) = if c.smpp.sandbox {
                let (sandbox, config) = sandbox_link(&own.smpp, store.clock(), &c.name).await?;
                (Some(sandbox), config)
            } else {
                let config = session_config(&own.smpp, store.clock(), &c.name, &c.smpp.host, c.smpp.port);
                (None, config)
            };
            session_config.tps = place.tps(&c.name, sending_limits(&own.smpp).tps);
            let paused = disabled(&c.name) || place.elsewhere(&c.name);
            let session = Session::start_as(session_config, inbound.clone(), paused);
            links.push(Link {
                connection: c.name,
                sandbox,
                session,
            });
        }
        let states = links
            .iter()
            .map(|l| (l.connection.clone(), l.session.handle().state()))
            .collect();
        let router = Arc::new(Router::new(
            RouteTable::from_config(config),
            states,
            store.clock().now_ms(),
        ));
        for h in holds {
            tracing::info!(connection = %h.connection, hold = %h.hold, actor = %h.actor, "an operator's hold on a connection is in force");
            router.set_hold(&h.connection.clone(), Some(h));
        }
        let lanes = links
            .iter()
            .map(|l| Lane {
                session: l.session.handle(),
                receipts: policy.clone(),
                config: lane_config(config, &l.connection, &place.owner),
            })
            .collect();
        let dispatcher = Dispatcher::start_lanes(store.clone(), lanes, router.clone()).await?;
        Ok(Sending {
            links,
            dispatcher,
            router,
            place: place.clone(),
        })
    }

    /// The first connection's link: the one the single-link status shows.
    pub(super) fn first(&self) -> Option<&Link> {
        self.links.first()
    }

    /// Puts new rules (retry, classes, sender id, pace) into effect on every running link.
    pub(super) fn reconfigure(&self, config: &Config, policy: &ReceiptPolicy) {
        for l in &self.links {
            let own = config.for_connection(&l.connection).unwrap_or_else(|| config.clone());
            let limits = sending_limits(&own.smpp);
            l.session
                .handle()
                .set_limits(limits.window as usize, self.place.tps(&l.connection, limits.tps));
            let rules = lane_config(config, &l.connection, &self.place.owner);
            self.dispatcher.reconfigure_lane(&l.connection, policy.clone(), rules);
        }
    }

    /// Stops the dispatcher, then the sessions, then the sandbox.
    pub(super) async fn stop(self) {
        self.dispatcher.stop().await;
        for l in self.links {
            l.session.stop().await;
            if let Some(s) = l.sandbox {
                s.stop();
            }
        }
    }
}

/// How the dispatcher sends on `connection`: by its own settings (sender id, window, codes), its
/// leases under `owner`'s name.
fn lane_config(config: &Config, connection: &str, owner: &str) -> DispatcherConfig {
    DispatcherConfig {
        owner: owner.to_owned(),
        ..dispatcher_config(&config.for_connection(connection).unwrap_or_else(|| config.clone()))
    }
}

/// Starts the embedded sandbox, and says how to bind to it. With `tls = true` it serves TLS with a
/// certificate made for this run, which the session pins: a real handshake, to try the setting.
async fn sandbox_link(
    smpp: &SmppSettings,
    clock: &Clock,
    connection: &str,
) -> Result<(Sandbox, SessionConfig), EngineError> {
    let tls = match smpp.tls {
        true => Some(
            SandboxTls::self_signed(&["localhost", "127.0.0.1"])
                .map_err(|e| EngineError::Sandbox(std::io::Error::other(e)))?,
        ),
        false => None,
    };
    let pin = tls.as_ref().and_then(|t| t.leaf_der().ok()).map(|der| pin_of(&der));
    let sandbox = Sandbox::start(SandboxConfig {
        tls,
        ..SandboxConfig::default()
    })
    .await
    .map_err(EngineError::Sandbox)?;
    let port = sandbox.tls_addr().unwrap_or(sandbox.addr()).port();
    tracing::info!(
        port,
        connection,
        tls = smpp.tls,
        "the sandbox SMSC is a connection: no real SMS is sent on it"
    );
    let mut config = session_config(smpp, clock, connection, "127.0.0.1", port);
    if let Some(tls) = config.tls.as_mut() {
        *tls = TlsSettings {
            pin_sha256: pin,
            ..TlsSettings::default()
        };
    }
    Ok((sandbox, config))
}

/// How the session binds and paces itself, from the settings, to `host:port`. The sandbox binds
/// one transceiver, at its own pace.
fn session_config(smpp: &SmppSettings, clock: &Clock, connection: &str, host: &str, port: u16) -> SessionConfig {
    let limits = sending_limits(smpp);
    SessionConfig {
        system_id: smpp.system_id.clone(),
        password: smpp.password.clone(),
        system_type: smpp.system_type.clone(),
        address_range: smpp.address_range.clone(),
        interface_version: smpp.interface_version.0,
        bind_mode: crate::smpp::bind_mode(smpp.bind_mode, smpp.sandbox),
        binds: limits.binds as usize,
        window: limits.window as usize,
        tps: f64::from(limits.tps),
        enquire_link_every: Duration::from_secs(smpp.enquire_link_seconds.0.into()),
        response_timeout: Duration::from_secs(smpp.response_timeout_seconds.0.into()),
        tls: crate::smpp::tls_settings(smpp),
        clock: clock.clone(),
        ..SessionConfig::new(connection, host, port)
    }
}

/// How the dispatcher sends, from the settings: it keeps up to twice the session's windows (all
/// its binds') claimed, so the next ones are ready as answers come back.
pub(super) fn dispatcher_config(config: &Config) -> DispatcherConfig {
    DispatcherConfig {
        source_addr: config.smpp.source_addr.clone(),
        max_in_flight: {
            let limits = sending_limits(&config.smpp);
            (limits.window * limits.binds) as usize * 2
        },
        retry: retry_policies(&config.retry),
        classes: ClassOverrides {
            throttled: config.retry.throttled_codes.0.clone(),
            temporary: config.retry.temporary_codes.0.clone(),
            permanent: config.retry.permanent_codes.0.clone(),
        },
        resend_unknown: [
            config.retry.otp_on_unknown_outcome == OnUnknownOutcome::Resend,
            config.retry.transactional_on_unknown_outcome == OnUnknownOutcome::Resend,
            config.retry.bulk_on_unknown_outcome == OnUnknownOutcome::Resend,
        ],
        ..DispatcherConfig::default()
    }
}

/// The retry limits of each kind (otp, transactional, bulk): the documented backoff, with the
/// configured attempts and ages.
pub(super) fn retry_policies(r: &RetrySettings) -> [RetryPolicy; 3] {
    let with = |kind, attempts: u32, age_minutes: u32| RetryPolicy {
        max_attempts: attempts,
        unlisted_max_attempts: r.unlisted_max_attempts.0.min(attempts),
        max_age_ms: u64::from(age_minutes) * 60_000,
        ..RetryPolicy::default_for(kind)
    };
    [
        with(MessageKind::Otp, r.otp_max_attempts.0, r.otp_max_age_minutes.0),
        with(
            MessageKind::Transactional,
            r.transactional_max_attempts.0,
            r.transactional_max_age_minutes.0,
        ),
        with(MessageKind::Bulk, r.bulk_max_attempts.0, r.bulk_max_age_minutes.0),
    ]
}
