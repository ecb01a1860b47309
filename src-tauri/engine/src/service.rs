//! What people and programs can ask of a running engine, in one place: the HTTP routes, the
//! desktop window's commands and the command line all call these functions, so each behaves the
//! same whichever door it came through.
//!
//! [`Service`] and the settings that change while it runs are here; its operations are spread
//! over submodules by what they do:
//! - `submit`: handing messages in, with idempotency keys ([`Answer`], [`SubmitBatch`]);
//! - `preview`: checking messages as a submit would, writing nothing ([`Preview`]);
//! - `actions`: the operator's actions on messages and exceptions ([`MessageAction`],
//!   [`ResolveRequest`]);
//! - `compare`: an exception's receipt against the messages it may belong to
//!   ([`CandidateComparison`]);
//! - `reads`: lists, details, the dashboard and its pace, CSV export and the audit log;
//! - `admin`: settings (admin only) and API keys;
//! - `accounts`: people's accounts, signing in and out, sessions, the setup link;
//! - `templates`: the office's message templates ([`NewTemplate`]);
//! - `health`: the SMPP connection and how the instance is ([`ConnectionStatus`]);
//! - `reports`: delivery reports coming in, by HTTP callback or SMPP session;
//! - `error`: why a request was refused ([`ServiceError`]).

mod accounts;
mod actions;
mod admin;
mod compare;
mod connections;
mod error;
mod guardrails;
mod health;
pub use guardrails::{GuardrailSettingsView, GuardrailsOverview, SpendQuery, SpendReport};
mod inbox;
#[cfg(test)]
mod known_keys_tests;
mod limits;
mod preview;
pub mod privacy;
mod reads;
mod reports;
mod smpp_server;
mod submit;
#[cfg(test)]
mod submit_tests;
#[cfg(test)]
mod submitted_by_tests;
#[cfg(test)]
mod template_tests;
mod templates;

use std::sync::{Arc, RwLock};

use tokio::sync::broadcast;

use crate::backups::BackupPlan;
use crate::clock::Clock;
use crate::config::CallbackProviders;
use crate::idempotency::InFlight;
use crate::intake::IntakeRules;
use crate::known_keys::KnownKeys;
use crate::queue::RetryLimits;
use crate::receipts::ingest::Ingestor;
use crate::receipts::policy::ReceiptPolicy;
use crate::sealed::Sealer;
use crate::settings::Settings;
use crate::smpp::session::SessionHandle;
use crate::store::Store;
use smsdesk_core::retry::RetryPolicy;

pub use accounts::{Origin, People, SignedIn};
pub use actions::{MessageAction, ResolveRequest};
pub use compare::{CandidateComparison, CannotTell, CompareCandidates, ComparedMessage, Fact, FactCheck, Verdict};
pub use connections::{BindStatus, ConnectionAction, ConnectionCommand, ConnectionStatus, HoldStatus};
pub use error::{ServiceError, TemplateError};
pub use health::{DoorUse, Health, HealthStatus, StorageHealth, WriterHealth};
pub use inbox::{
    MarkRead, NewOptOut, OptOutAdded, OptOutCsv, OptOutImport, OptOutImported, RemoveOptOut, SandboxReply,
};
pub use preview::{Preview, PreviewRow, SmartNote};
pub use reports::CallbackAnswer;
pub use smpp_server::{BindRefused, SmppBound};
pub use submit::{Answer, SubmitBatch, SubmittedBatch};
pub use templates::{NewTemplate, Template};

/// The engine's operations, for every caller.
#[derive(Clone)]
pub struct Service {
    store: Arc<Store>,
    live: Arc<RwLock<Live>>,
    in_flight: Arc<InFlight>,
    settings: Option<Arc<Settings>>,
    /// Where "show the window" requests go, when this instance has one.
    window: Option<broadcast::Sender<()>>,
    /// Sign-in's memory: failed tries, the setup link, session lifetimes.
    people: Arc<People>,
    /// Seals the webhook secrets of new keys (the data directory's key).
    sealer: Option<Arc<Sealer>>,
    /// Where backups go, for the dashboard's last backup.
    backups: Option<Arc<BackupPlan>>,
    /// The API keys requests presented, as last read.
    known_keys: Arc<KnownKeys>,
    /// The connections the settings enable, where no instance runs them (the command line).
    configured: Vec<String>,
    /// `[retention]` where no running engine holds the settings (the command line).
    retention: Option<crate::config::RetentionSettings>,
    /// What the metrics counted of the evidence so far (each scrape counts only what is new).
    metrics: Arc<tokio::sync::Mutex<crate::store::metric_reads::Counted>>,
    /// Each country's usual hourly number of one-time codes (the anomaly guardrail).
    baselines: Arc<crate::guardrails::anomaly::Baselines>,
    /// The SMPP server's sessions (none while it is off).
    smpp_registry: Arc<crate::smpp_clients::Registry>,
}

/// One running connection, as the service reports it.
#[derive(Clone)]
struct LiveLink {
    connection: String,
    sandbox: bool,
    session: SessionHandle,
}

/// What settings may change while the engine runs: replaced whole, read per request.
#[derive(Clone)]
struct Live {
    ingestor: Ingestor,
    rules: Arc<IntakeRules>,
    max_batch: usize,
    /// Each running connection: its name, whether it is the sandbox, and its session (for its
    /// state and the window and rate it applies), in the order the settings list them.
    links: Vec<LiveLink>,
    callbacks: Arc<CallbackProviders>,
    /// Each kind's limits on tries and age (otp, transactional, bulk), which manual retries obey.
    retry: [RetryPolicy; 3],
    /// The sandbox's handsets, while the sandbox SMSC is the connection.
    handsets: Option<crate::sandbox::Handsets>,
    /// Which connection sends what, and the operators' holds (none before sending starts).
    router: Option<Arc<crate::dispatch::routing::Router>>,
}

impl Service {
    pub fn new(store: Arc<Store>, ingestor: Ingestor, rules: IntakeRules, max_batch: usize) -> Service {
        Service {
            store,
            live: Arc::new(RwLock::new(Live {
                ingestor,
                rules: Arc::new(rules),
                max_batch,
                links: Vec::new(),
                callbacks: Arc::default(),
                retry: RetryLimits::DEFAULT_POLICIES,
                handsets: None,
                router: None,
            })),
            in_flight: Arc::default(),
            baselines: Arc::default(),
            settings: None,
            window: None,
            people: Arc::default(),
            sealer: None,
            backups: None,
            known_keys: Arc::default(),
            configured: Vec::new(),
            retention: None,
            metrics: Arc::default(),
            smpp_registry: Arc::default(),
        }
    }

    /// Where no instance runs: the connections the settings enable, which the operators' holds
    /// may name.
    pub fn with_connections(mut self, names: Vec<String>) -> Service {
        self.configured = names;
        self
    }

    /// Seals what must be stored but not shown (new keys' webhook secrets) with this sealer.
    pub fn with_sealer(mut self, sealer: Arc<Sealer>) -> Service {
        self.sealer = Some(sealer);
        self
    }

    /// Runs retention by these settings where no running engine holds the settings.
    pub fn with_retention(mut self, retention: crate::config::RetentionSettings) -> Service {
        self.retention = Some(retention);
        self
    }

    /// The dashboard says when the last backup in this plan's folder was taken.
    pub fn with_backups(mut self, plan: BackupPlan) -> Service {
        self.backups = Some(Arc::new(plan));
        self
    }

    /// This instance has a desktop window, which [`Service::show_window`] brings to the front.
    pub fn with_window(mut self, requests: broadcast::Sender<()>) -> Service {
        self.window = Some(requests);
        self
    }

    /// Asks the desktop window to come to the front: what a second start of the app does instead
    /// of opening a second window on the same data.
    pub fn show_window(&self) -> Result<(), ServiceError> {
        match &self.window {
            Some(requests) if requests.send(()).is_ok() => Ok(()),
            _ => Err(ServiceError::NoWindow),
        }
    }

    /// The HTTP providers allowed to post receipts.
    pub fn with_callbacks(self, providers: CallbackProviders) -> Service {
        self.set_callbacks(providers);
        self
    }

    /// Lets the operator read and change the settings.
    pub fn with_settings(mut self, settings: Arc<Settings>) -> Service {
        self.settings = Some(settings);
        self
    }

    /// The backups as the dashboard shows them (none configured: none, not automatic).
    pub(crate) fn backup_status(&self) -> crate::views::BackupStatus {
        self.backups.as_ref().map(|p| p.status()).unwrap_or_default()
    }

    /// Why the last daily backup failed, if it did.
    pub(crate) fn backup_failure(&self) -> Option<String> {
        self.backups.as_ref().and_then(|p| p.failure())
    }

    /// What the metrics counted of the evidence so far.
    pub(crate) fn metrics_counted(&self) -> &tokio::sync::Mutex<crate::store::metric_reads::Counted> {
        &self.metrics
    }

    /// The seal of the data directory, where this service has one.
    pub(crate) fn sealer(&self) -> Option<&Arc<Sealer>> {
        self.sealer.as_ref()
    }

    /// The settings in force now (a copy: a request keeps the ones it started with).
    fn live(&self) -> Live {
        self.live.read().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// The configuration in force (the defaults where no running engine holds settings).
    pub(crate) fn running_config(&self) -> Arc<crate::config::Config> {
        self.settings.as_ref().map(|s| s.running()).unwrap_or_default()
    }

    /// The office's country (`intake.default_region`): national numbers are read in it, wherever
    /// a number is typed.
    pub(crate) fn region(&self) -> Option<String> {
        self.live().rules.default_region.clone()
    }

    /// Changes the settings in force, for every request from now on.
    fn change(&self, f: impl FnOnce(&mut Live)) {
        f(&mut self.live.write().unwrap_or_else(|p| p.into_inner()));
    }

    /// The sessions (after the connection settings changed) that report from now on: each
    /// connection's name, whether it is the sandbox, and its session.
    pub fn set_links(&self, links: Vec<(String, bool, SessionHandle)>) {
        self.change(|l| {
            l.links = links
                .into_iter()
                .map(|(connection, sandbox, session)| LiveLink {
                    connection,
                    sandbox,
                    session,
                })
                .collect();
        });
    }

    /// The sandbox's handsets, while the sandbox SMSC is the connection (none otherwise).
    pub fn set_handsets(&self, handsets: Option<crate::sandbox::Handsets>) {
        self.change(|l| l.handsets = handsets);
    }

    pub fn set_callbacks(&self, providers: CallbackProviders) {
        self.change(|l| l.callbacks = Arc::new(providers));
    }

    /// New intake rules (region, connection, batch size) for the next request.
    pub fn set_intake(&self, rules: IntakeRules, max_batch: usize) {
        self.change(|l| {
            l.rules = Arc::new(rules);
            l.max_batch = max_batch;
        });
    }

    /// Each kind's limits on tries and age (otp, transactional, bulk), for manual retries from
    /// now on (the dispatcher's own, from the same settings).
    pub fn set_retry_limits(&self, policies: [RetryPolicy; 3]) {
        self.change(|l| l.retry = policies);
    }

    /// A new receipt policy (id rules, deadline) for every receipt from now on.
    pub fn set_ingestor(&self, ingestor: Ingestor) {
        self.change(|l| l.ingestor = ingestor);
    }

    /// Where receipts go now.
    pub fn ingestor(&self) -> Ingestor {
        self.live().ingestor
    }

    /// The HTTP providers allowed to post receipts now.
    pub fn callbacks(&self) -> Arc<CallbackProviders> {
        self.live().callbacks
    }

    /// Requests with an idempotency key being committed right now (a repeat of one gets 409).
    pub fn idempotent_requests_in_flight(&self) -> usize {
        self.in_flight.len()
    }

    pub fn store(&self) -> &Arc<Store> {
        &self.store
    }

    /// The clock every part of the engine reads the time from (the store's).
    pub fn clock(&self) -> &Clock {
        self.store.clock()
    }

    pub fn policy(&self) -> ReceiptPolicy {
        self.live().ingestor.policy().clone()
    }
}
