//! The sending side: the SMPP session, its dispatcher, and the sandbox when it is the connection,
//! all made from the settings. The session's window and rate are the sandbox's own while it is the
//! connection, the account's settings otherwise ([`sending_limits`]).

use std::sync::Arc;
use std::time::Duration;

use super::{connection_name, EngineError};
use crate::clock::Clock;
use crate::config::{Config, OnUnknownOutcome, RetrySettings, SmppSettings};
use crate::dispatch::retry::RetryPolicy;
use crate::dispatch::worker::{Dispatcher, DispatcherConfig};
use crate::domain::MessageKind;
use crate::pace::sending_limits;
use crate::receipts::policy::ReceiptPolicy;
use crate::sandbox::{Sandbox, SandboxConfig};
use crate::smpp::session::{InboundHandler, Session, SessionConfig};
use crate::smpp::status::ClassOverrides;
use crate::store::Store;

/// The sending side: the SMPP session, its dispatcher, and the sandbox when it is the connection.
pub(super) struct Sending {
    pub(super) connection: String,
    pub(super) sandbox: Option<Sandbox>,
    pub(super) session: Session,
    pub(super) dispatcher: Dispatcher,
}

impl Sending {
    /// Starts the sandbox (when it is the connection), the session to it or to the configured
    /// SMSC, and the dispatcher that sends on that session.
    pub(super) async fn start(
        config: &Config,
        store: &Arc<Store>,
        inbound: Arc<dyn InboundHandler>,
        policy: &ReceiptPolicy,
    ) -> Result<Sending, EngineError> {
        let smpp = &config.smpp;
        let (sandbox, connection, host, port) = if smpp.sandbox {
            let sandbox = Sandbox::start(SandboxConfig::default())
                .await
                .map_err(EngineError::Sandbox)?;
            let port = sandbox.addr().port();
            tracing::info!(port, "sandbox SMSC is the connection: no real SMS is sent");
            (Some(sandbox), connection_name(config), "127.0.0.1".to_owned(), port)
        } else {
            (None, connection_name(config), smpp.host.clone(), smpp.port)
        };
        let session = Session::start(session_config(smpp, store.clock(), &connection, &host, port), inbound);
        let dispatcher = Dispatcher::start(
            store.clone(),
            session.handle(),
            policy.clone(),
            dispatcher_config(config),
        )
        .await?;
        Ok(Sending {
            connection,
            sandbox,
            session,
            dispatcher,
        })
    }

    /// Stops the dispatcher, then the session, then the sandbox.
    pub(super) async fn stop(self) {
        self.dispatcher.stop().await;
        self.session.stop().await;
        if let Some(s) = self.sandbox {
            s.stop();
        }
    }
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
