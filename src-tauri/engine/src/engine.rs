//! The running engine: configuration, the instance lock, the store and the HTTP server, started
//! and stopped as one. The desktop shell and `smsdesk serve` both run exactly this.
//!
//! [`Engine`] and what it is started from are here; the rest is split by what it does:
//! - `start`: [`Engine::start`], step by step, and what it unwinds when a step fails;
//! - `database`: opening the store and bringing what it holds up to date before anything arrives;
//! - `sending`: the SMPP session, its dispatcher and the sandbox, from the settings;
//! - `runtime`: what settings changes replace while the engine runs;
//! - `http`: where the HTTP door listens, what a request may ask of it, the operator token;
//! - `background`: the periodic sweeps (receipt deadlines, receipts waiting for their message);
//! - `nodes`: with several nodes on one PostgreSQL database, which connections this one runs.

mod background;
mod database;
mod http;
mod nodes;
mod runtime;
mod sending;
mod shares;
mod start;
mod store_at;
mod store_copy;
pub use store_at::StoreAt;
mod warm;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use crate::api::{AppInfo, RunMode};
use crate::config::{self, Config, ConfigError};
use crate::door::{Door, Open};
use crate::instance::{InstanceError, InstanceLock};
use crate::intake::{self, IntakeRules};
use crate::paths::DataDir;
use crate::permissions::{self, Tightening};
use crate::receipts::ingest::Ingestor;
use crate::service::Service;
use crate::smpp::session::SessionHandle;
use crate::store::{Store, StoreError};
use crate::webhooks::Webhooks;

use runtime::Runtime;

/// Why the engine would not start. Each message says what to do about it.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error(transparent)]
    Instance(#[from] InstanceError),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("cannot read or make the data directory's key (secret.key), which seals the stored webhook secrets: {0}")]
    Key(#[from] crate::settings::SecretError),
    #[error("[store]: {0}")]
    StoreSetting(String),
    #[error("cannot start the sandbox SMSC: {0}")]
    Sandbox(std::io::Error),
    #[error("[http] bind is {addr}, beyond this computer: set [http] allow_network = true to let your network reach the API (every request still needs an API key)")]
    NetworkNotAllowed { addr: SocketAddr },
    #[error("cannot write the operator token {path}: {source}")]
    OperatorToken {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot listen on {addr}: {source} (set another port with --http-port or [http] port)")]
    Listen {
        addr: SocketAddr,
        #[source]
        source: std::io::Error,
    },
}

/// A data directory with its configuration loaded: the step before logging and starting.
#[derive(Debug, Clone)]
pub struct Prepared {
    pub dir: DataDir,
    pub config: Config,
    /// The environment's overrides (`SMSDESK_…`), for the settings screen to say which settings
    /// they lock.
    pub env: Vec<(String, String)>,
    /// What was closed to other users in the data directory, to be logged once logging runs
    /// ([`crate::permissions::report`]; [`Engine::start`] logs what is still here).
    pub permissions: Tightening,
}

impl Prepared {
    /// The database file the configuration names.
    pub fn database(&self) -> PathBuf {
        self.dir.database(&self.config.store.database)
    }

    /// The database file, for what copies or reads the file itself (`smsdesk backup`, `restore`,
    /// `export`); on PostgreSQL, a refusal that says to do `instead`.
    pub fn database_file(&self, instead: &str) -> Result<PathBuf, String> {
        match self.config.store.backend {
            config::StoreBackend::Sqlite => Ok(self.database()),
            config::StoreBackend::Postgres => Err(format!(
                "the database is on PostgreSQL ([store] backend), not in a file of this computer: {instead}"
            )),
        }
    }

    /// Where backups go and how long daily ones are kept (`[backup]`).
    pub fn backup_plan(&self) -> crate::backups::BackupPlan {
        crate::backups::BackupPlan::new(self.dir.root(), &self.config)
    }

    /// Loads (creating on first run) the data directory's config file, with environment overrides.
    /// Every file the process writes from here on is its user's alone, and what an earlier run
    /// left open to other users is closed first.
    pub fn load(root: PathBuf, env: impl IntoIterator<Item = (String, String)>) -> Result<Prepared, ConfigError> {
        Prepared::load_dir(DataDir::new(root), env)
    }

    /// As [`Prepared::load`], for a data directory whose config file may live elsewhere.
    pub fn load_dir(dir: DataDir, env: impl IntoIterator<Item = (String, String)>) -> Result<Prepared, ConfigError> {
        permissions::restrict_new_files();
        // A config file kept elsewhere (the service's in /etc/smsdesk) may hold a password too.
        let permissions = permissions::tighten(dir.root(), &[dir.config_file()]);
        let env: Vec<(String, String)> = env
            .into_iter()
            .filter(|(k, _)| k.starts_with(config::ENV_PREFIX))
            .collect();
        let config = config::load(&dir.config_file(), env.clone())?;
        Ok(Prepared {
            dir,
            config,
            env,
            permissions,
        })
    }
}

/// How to start the engine, beyond its config.
pub struct EngineOptions {
    pub mode: RunMode,
    /// `--http-port`, which wins over the config.
    pub http_port: Option<u16>,
    /// The HTTP server (`smsdesk_http::HttpDoor`); none runs without one.
    pub door: Option<Arc<dyn Door>>,
}

/// The running engine.
pub struct Engine {
    store: Arc<Store>,
    info: Arc<AppInfo>,
    runtime: Arc<Runtime>,
    http: Option<Open>,
    /// smsdesk's own SMPP server, when `smpp_server.enabled` and it could listen.
    smpp_server: Option<crate::smpp_server::SmppServer>,
    webhooks: Option<Webhooks>,
    service: Service,
    background: Vec<tokio::task::JoinHandle<()>>,
    token_file: PathBuf,
    lock: Option<InstanceLock>,
    window_requests: tokio::sync::broadcast::Sender<()>,
}

/// How many receipts one recovery or sweep transaction takes.
const CHUNK: u32 = 1_000;

/// The name messages are sent under and receipts recorded with: "sandbox" while the embedded
/// sandbox is the connection, else "smpp".
pub fn connection_name(config: &Config) -> String {
    if config.smpp.sandbox { "sandbox" } else { "smpp" }.to_owned()
}

/// How long browser sessions last, from the settings.
pub fn session_lifetimes(config: &Config) -> crate::accounts::session::Lifetimes {
    crate::accounts::session::Lifetimes {
        idle: std::time::Duration::from_secs(u64::from(config.accounts.session_idle_minutes.0) * 60),
        absolute: std::time::Duration::from_secs(u64::from(config.accounts.session_max_hours.0) * 3600),
    }
}

/// The intake rules the configuration sets.
pub fn intake_rules(config: &Config) -> IntakeRules {
    let r = &config.receipts;
    IntakeRules {
        default_region: config.intake.default_region.0.clone(),
        connection: connection_name(config),
        routes: std::sync::Arc::new(enabled_routes(config)),
        max_segments: intake::MAX_SEGMENTS,
        registered_delivery: [r.otp_request, r.transactional_request, r.bulk_request].map(|q| q.registered_delivery()),
        otp_validity_ms: i64::from(config.retry.otp_max_age_minutes.0) * 60_000,
        smart_encoding: config.intake.smart_encoding,
        guardrails: std::sync::Arc::new(crate::guardrails::GuardrailRules::from_config(config)),
    }
}

/// The routes, each with its enabled connections only.
fn enabled_routes(config: &Config) -> Vec<config::Route> {
    let enabled: Vec<String> = config
        .connection_list()
        .into_iter()
        .filter(|c| c.enabled)
        .map(|c| c.name)
        .collect();
    let mut routes = config.route_list();
    for r in &mut routes {
        r.connections.retain(|c| enabled.contains(c));
    }
    routes
}

impl Engine {
    pub fn info(&self) -> &AppInfo {
        &self.info
    }

    pub fn store(&self) -> &Arc<Store> {
        &self.store
    }

    /// The name messages are sent under (and receipts recorded with): "sandbox" or "smpp".
    pub fn connection(&self) -> String {
        self.service.connection_name()
    }

    /// The SMPP session now (a new one after the connection settings changed), for its link
    /// state, window and rate.
    pub fn session(&self) -> Option<SessionHandle> {
        self.runtime.current.lock().unwrap_or_else(|p| p.into_inner()).0.clone()
    }

    /// Where the SMPP server listens, when it runs.
    pub fn smpp_server_addr(&self) -> Option<std::net::SocketAddr> {
        self.smpp_server.as_ref().map(|s| s.addr())
    }

    /// The operations the window's commands call (the HTTP routes call the same).
    pub fn service(&self) -> &Service {
        &self.service
    }

    /// "Show the window" requests ([`Service::show_window`]): the desktop shell listens here.
    pub fn window_requests(&self) -> tokio::sync::broadcast::Receiver<()> {
        self.window_requests.subscribe()
    }

    /// Where SMPP sessions and HTTP callbacks hand their reports now.
    pub fn ingestor(&self) -> Ingestor {
        self.service.ingestor()
    }

    /// Stops in order: no new requests, finish those in flight, let the writer commit what it
    /// holds, then release the data directory.
    pub async fn shutdown(mut self) {
        if let Some(http) = self.http.take() {
            http.stop().await;
        }
        if let Some(server) = self.smpp_server.take() {
            server.stop().await;
        }
        if let Some(sending) = self.runtime.sending.lock().await.take() {
            sending.stop().await;
        }
        if let Some(w) = self.webhooks.take() {
            w.stop().await;
        }
        let _ = std::fs::remove_file(&self.token_file);
        for task in self.background.drain(..) {
            task.abort();
        }
        Self::close_store(&self.store, self.lock.take()).await;
        tracing::info!("engine stopped");
    }

    /// Releases the row that says this process holds the database, lets the store's writer
    /// finish what is queued, then stops it, and only then lets go of the locks (on a blocking
    /// thread).
    async fn close_store(store: &Arc<Store>, mut lock: Option<InstanceLock>) {
        let store = store.clone();
        let _ = tokio::task::spawn_blocking(move || {
            if let Some(lock) = lock.as_mut() {
                lock.release();
            }
            store.shutdown();
            drop(lock);
        })
        .await;
    }
}
