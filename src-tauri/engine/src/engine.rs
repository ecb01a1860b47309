//! The running engine: configuration, the instance lock, the store and the HTTP server, started
//! and stopped as one. The desktop shell and `smsdesk serve` both run exactly this.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use crate::api::{AppInfo, RunMode};
use crate::config::{self, Config, ConfigError, OnUnknownOutcome, RetrySettings, SmppSettings};
use crate::dispatch::retry::RetryPolicy;
use crate::dispatch::worker::{Dispatcher, DispatcherConfig};
use crate::domain::MessageKind;
use crate::door::{self, Door, DoorContext, Open};
use crate::instance::{InstanceError, InstanceInfo, InstanceLock};
use crate::intake::{self, IntakeRules};
use crate::paths::DataDir;
use crate::receipts::ingest::{self, Ingestor};
use crate::receipts::policy::ReceiptPolicy;
use crate::receipts::{deadline, rebuild, rekey, uncorrelated};
use crate::sandbox::{Sandbox, SandboxConfig};
use crate::service::Service;
use crate::settings::{Apply, Settings};
use crate::smpp::session::{InboundHandler, Session, SessionConfig, SessionHandle};
use crate::smpp::status::ClassOverrides;
use crate::store::{Store, StoreError, Writer};
use crate::webhooks::{WebhookConfig, Webhooks};

/// Why the engine would not start. Each message says what to do about it.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error(transparent)]
    Instance(#[from] InstanceError),
    #[error(transparent)]
    Store(#[from] StoreError),
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
}

impl Prepared {
    /// Loads (creating on first run) the data directory's config file, with environment overrides.
    pub fn load(root: PathBuf, env: impl IntoIterator<Item = (String, String)>) -> Result<Prepared, ConfigError> {
        let dir = DataDir::new(root);
        let env: Vec<(String, String)> = env
            .into_iter()
            .filter(|(k, _)| k.starts_with(config::ENV_PREFIX))
            .collect();
        let config = config::load(&dir.config_file(), env.clone())?;
        Ok(Prepared { dir, config, env })
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
    webhooks: Option<Webhooks>,
    service: Service,
    background: Vec<tokio::task::JoinHandle<()>>,
    token_file: PathBuf,
    lock: Option<InstanceLock>,
    window_requests: tokio::sync::broadcast::Sender<()>,
}

/// The sending side: the SMPP session, its dispatcher, and the sandbox when it is the connection.
struct Sending {
    connection: String,
    sandbox: Option<Sandbox>,
    session: Session,
    dispatcher: Dispatcher,
}

impl Sending {
    async fn start(
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
        let session = Session::start(
            SessionConfig {
                system_id: smpp.system_id.clone(),
                password: smpp.password.clone(),
                system_type: smpp.system_type.clone(),
                address_range: smpp.address_range.clone(),
                interface_version: smpp.interface_version.0,
                window: smpp.window.0 as usize,
                tps: f64::from(smpp.tps.0),
                enquire_link_every: std::time::Duration::from_secs(smpp.enquire_link_seconds.0.into()),
                response_timeout: std::time::Duration::from_secs(smpp.response_timeout_seconds.0.into()),
                clock: store.clock().clone(),
                ..SessionConfig::new(&connection, &host, port)
            },
            inbound,
        );
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

    async fn stop(self) {
        self.dispatcher.stop().await;
        self.session.stop().await;
        if let Some(s) = self.sandbox {
            s.stop();
        }
    }
}

/// How the dispatcher sends, from the settings.
fn dispatcher_config(config: &Config) -> DispatcherConfig {
    DispatcherConfig {
        source_addr: config.smpp.source_addr.clone(),
        max_in_flight: config.smpp.window.0 as usize * 2,
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

/// Whether a change of SMPP settings needs a new session (a new bind); the window, the rate and
/// the sender id change on the running one.
fn rebind_needed(old: &SmppSettings, new: &SmppSettings) -> bool {
    let same_session = |s: &SmppSettings| SmppSettings {
        source_addr: String::new(),
        window: config::AtLeastOne(1),
        tps: config::AtLeastOne(1),
        ..s.clone()
    };
    same_session(old) != same_session(new)
}

/// The parts of the running engine that settings change while it runs.
struct Runtime {
    store: Arc<Store>,
    service: Service,
    sending: tokio::sync::Mutex<Option<Sending>>,
    /// The session now and the sandbox's address, for readers that cannot wait for the lock.
    current: std::sync::Mutex<(Option<SessionHandle>, Option<SocketAddr>)>,
}

impl Runtime {
    /// Takes over the sending side (so that settings changes can replace it) and listens to
    /// settings changes.
    async fn hand_over(
        store: &Arc<Store>,
        service: &Service,
        sending: Option<Sending>,
        settings: &Arc<Settings>,
    ) -> Arc<Runtime> {
        let runtime = Arc::new(Runtime {
            store: store.clone(),
            service: service.clone(),
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

    fn publish(&self, s: &Sending) {
        self.service
            .set_link(&s.connection, s.sandbox.is_some(), s.session.handle().state());
        *self.current.lock().unwrap_or_else(|p| p.into_inner()) =
            (Some(s.session.handle()), s.sandbox.as_ref().map(Sandbox::addr));
    }

    async fn reconfigure(&self, old: Arc<Config>, new: Arc<Config>) -> bool {
        let policy = ReceiptPolicy::from(&new.receipts);
        self.service
            .set_intake(intake_rules(&new), new.intake.max_batch.0 as usize);
        self.service.set_callbacks(new.callbacks.providers.clone());
        if old.receipts != new.receipts {
            self.service
                .set_ingestor(Ingestor::new(self.store.writer().clone(), policy.clone()));
            if let Err(e) = rekey(&self.store, &policy, &connection_name(&new)).await {
                tracing::error!(error = %e, "making the stored id keys by the new rules failed");
            }
        }
        let mut sending = self.sending.lock().await;
        if rebind_needed(&old.smpp, &new.smpp) {
            tracing::info!("SMPP connection settings changed: draining what is in flight, then binding again");
            if let Some(s) = sending.take() {
                s.stop().await;
            }
            let inbound: Arc<dyn InboundHandler> = Arc::new(self.service.clone());
            match Sending::start(&new, &self.store, inbound, &policy).await {
                Ok(s) => {
                    self.publish(&s);
                    *sending = Some(s);
                }
                Err(e) => tracing::error!(error = %e, "cannot start the new SMPP connection"),
            }
            return true;
        }
        if let Some(s) = sending.as_ref() {
            s.session
                .handle()
                .set_limits(new.smpp.window.0 as usize, f64::from(new.smpp.tps.0));
            s.dispatcher.reconfigure(policy, dispatcher_config(&new));
        }
        false
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

/// The name messages are sent under and receipts recorded with: "sandbox" while the embedded
/// sandbox is the connection, else "smpp".
pub fn connection_name(config: &Config) -> String {
    if config.smpp.sandbox { "sandbox" } else { "smpp" }.to_owned()
}

/// The intake rules the configuration sets.
pub fn intake_rules(config: &Config) -> IntakeRules {
    let r = &config.receipts;
    IntakeRules {
        default_region: config.intake.default_region.0.clone(),
        connection: connection_name(config),
        max_segments: intake::MAX_SEGMENTS,
        registered_delivery: [r.otp_request, r.transactional_request, r.bulk_request].map(|q| q.registered_delivery()),
        otp_validity_ms: i64::from(config.retry.otp_max_age_minutes.0) * 60_000,
    }
}

/// The retry limits of each kind (otp, transactional, bulk): the documented backoff, with the
/// configured attempts and ages.
fn retry_policies(r: &RetrySettings) -> [RetryPolicy; 3] {
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

/// Makes the stored id keys by the id rules in force, where earlier rules made them.
async fn rekey(store: &Store, policy: &ReceiptPolicy, connection: &str) -> Result<(), StoreError> {
    let (p, c) = (policy.clone(), connection.to_owned());
    let done = store.writer().write(move |tx| rekey::apply(tx, &p, &c)).await?;
    if !done.connections.is_empty() {
        tracing::info!(
            connections = ?done.connections,
            keys = done.keys,
            matched = done.matched,
            "stored id keys made again by the new id rules"
        );
    }
    Ok(())
}

/// How often receipts waiting for their message are looked at.
const UNCORRELATED_SWEEP_EVERY: std::time::Duration = std::time::Duration::from_secs(1);
/// How often overdue receipt deadlines are looked for.
const DEADLINE_SWEEP_EVERY: std::time::Duration = std::time::Duration::from_secs(60);
/// How many receipts one recovery or sweep transaction takes.
const CHUNK: u32 = 1_000;

/// Opens the database (migrating it), then brings what it holds up to date before anything new
/// arrives: id keys made by the id rules in force, receipts stored but never applied, projections
/// made by older rules. The store is recorded in `started` as soon as it is open.
async fn open_store(
    path: &std::path::Path,
    policy: &ReceiptPolicy,
    connection: &str,
    started: &mut Started,
) -> Result<Arc<Store>, EngineError> {
    let store = {
        let path = path.to_owned();
        tokio::task::spawn_blocking(move || Store::open(&path))
            .await
            .map_err(|_| StoreError::Aborted)??
    };
    let report = store.migration().clone();
    if report.applied.is_empty() {
        tracing::info!(schema = report.to_version, db = %path.display(), "database opened");
    } else {
        tracing::info!(from = report.from_version, to = report.to_version, db = %path.display(), "database migrated");
    }
    let store = started.store.insert(Arc::new(store)).clone();
    rekey(&store, policy, connection).await?;
    apply_pending_receipts(store.writer(), policy).await?;
    rebuild_wanted(store.writer(), policy).await?;
    Ok(store)
}

/// The service every door calls, and the channel of "show the window" requests it sends on.
fn build_service(
    store: &Arc<Store>,
    config: &Config,
    policy: &ReceiptPolicy,
    settings: &Arc<Settings>,
    mode: RunMode,
) -> (Service, tokio::sync::broadcast::Sender<()>) {
    let ingestor = Ingestor::new(store.writer().clone(), policy.clone());
    let service = Service::new(
        store.clone(),
        ingestor,
        intake_rules(config),
        config.intake.max_batch.0 as usize,
    )
    .with_callbacks(config.callbacks.providers.clone())
    .with_settings(settings.clone());
    let (window_requests, _) = tokio::sync::broadcast::channel(4);
    let service = if mode == RunMode::Window {
        service.with_window(window_requests.clone())
    } else {
        service
    };
    (service, window_requests)
}

/// Where the door listens, bound (the routes need the final URL, so the port is bound before
/// anything is served); no listener without a door. An address beyond this computer needs
/// `http.allow_network`.
async fn listen(
    config: &Config,
    options: &EngineOptions,
) -> Result<(SocketAddr, Option<tokio::net::TcpListener>), EngineError> {
    let addr = SocketAddr::new(config.http.bind, options.http_port.unwrap_or(config.http.port));
    if options.door.is_none() {
        return Ok((addr, None));
    }
    if !addr.ip().is_loopback() {
        if !config.http.allow_network {
            return Err(EngineError::NetworkNotAllowed { addr });
        }
        tracing::warn!(%addr, "the HTTP server listens beyond this computer: anyone on the network with an API key can use it");
    }
    Ok((addr, Some(bind(addr, options.mode).await?)))
}

/// What one request may ask of the door, from the settings.
fn limits(config: &Config) -> door::Limits {
    door::Limits {
        max_body_bytes: config.http.max_body_kib.0 as usize * 1024,
        request_timeout: std::time::Duration::from_secs(config.http.request_timeout_seconds.0.into()),
    }
}

/// The periodic work that runs beside the rest: overdue receipt deadlines, and receipts that
/// waited long enough for their message.
fn background(store: &Arc<Store>, service: &Service) -> Vec<tokio::task::JoinHandle<()>> {
    vec![
        tokio::spawn(sweep_deadlines(store.clone(), service.clone())),
        tokio::spawn({
            let service = service.clone();
            uncorrelated::keep_sweeping(store.clone(), move || service.policy(), UNCORRELATED_SWEEP_EVERY)
        }),
    ]
}

/// What [`Engine::start`] has started so far, to stop again if a later step fails.
#[derive(Default)]
struct Started {
    store: Option<Arc<Store>>,
    sending: Option<Sending>,
    /// Holds the sending side once it is handed over (settings changes may replace it).
    runtime: Option<Arc<Runtime>>,
    server: Option<Open>,
}

impl Started {
    /// Stops what was started, last first.
    async fn unwind(self) {
        if let Some(server) = self.server {
            server.stop().await;
        }
        let handed_over = match &self.runtime {
            Some(runtime) => runtime.sending.lock().await.take(),
            None => None,
        };
        if let Some(sending) = self.sending.or(handed_over) {
            sending.stop().await;
        }
        if let Some(store) = &self.store {
            Engine::close_store(store).await;
        }
    }
}

impl Engine {
    /// Starts everything, or nothing: a failure part-way stops what had started.
    pub async fn start(prepared: Prepared, options: EngineOptions) -> Result<Engine, EngineError> {
        let mut started = Started::default();
        match Self::start_parts(prepared, options, &mut started).await {
            Ok(engine) => Ok(engine),
            Err(e) => {
                started.unwind().await;
                Err(e)
            }
        }
    }

    /// The steps of [`Engine::start`], each recording in `started` what must be stopped should a
    /// later one fail: the store (opened, migrated, brought up to date), the service, the sending
    /// side, the HTTP server; then the instance is published and the background work begins.
    async fn start_parts(
        prepared: Prepared,
        options: EngineOptions,
        started: &mut Started,
    ) -> Result<Engine, EngineError> {
        let Prepared { dir, config, env } = prepared;
        let lock = InstanceLock::acquire(&dir)?;
        // The password set from the settings screen lives in the keyring (or encrypted), not in
        // the file: the configuration to run with gets it here.
        let (settings, config) = Settings::open(dir.root(), dir.config_file(), env, config);
        let settings = Arc::new(settings);
        let db_path = dir.database(&config.store.database);
        let policy = ReceiptPolicy::from(&config.receipts);
        let store = open_store(&db_path, &policy, &connection_name(&config), started).await?;
        let schema_version = store.migration().to_version;

        let (service, window_requests) = build_service(&store, &config, &policy, &settings, options.mode);
        let inbound: Arc<dyn InboundHandler> = Arc::new(service.clone());
        started.sending = Some(Sending::start(&config, &store, inbound, &policy).await?);

        let (addr, listener) = listen(&config, &options).await?;
        let http_url = listener
            .as_ref()
            .and_then(|l| l.local_addr().ok())
            .map(|a| format!("http://{a}"));
        let info = Arc::new(AppInfo {
            product: "smsdesk".into(),
            version: crate::VERSION.into(),
            mode: options.mode,
            data_dir: dir.root().display().to_string(),
            database_path: db_path.display().to_string(),
            config_path: dir.config_file().display().to_string(),
            schema_version,
            http_url,
            started_at_ms: store.clock().now_ms(),
        });
        let token_file = dir.root().join(door::OPERATOR_TOKEN_FILE);
        let operator_token = write_operator_token(&token_file).map_err(|source| EngineError::OperatorToken {
            path: token_file.clone(),
            source,
        })?;
        let (stopping_tx, stopping) = tokio::sync::watch::channel(false);
        let ctx = DoorContext {
            info: info.clone(),
            service: service.clone(),
            operator_token: Arc::new(operator_token),
            limits: limits(&config),
            stopping,
        };
        let runtime = Runtime::hand_over(&store, &service, started.sending.take(), &settings).await;
        started.runtime = Some(runtime.clone());
        if let (Some(door), Some(listener)) = (&options.door, listener) {
            let server = started.server.insert(
                Open::start(door.as_ref(), listener, ctx, stopping_tx)
                    .map_err(|source| EngineError::Listen { addr, source })?,
            );
            tracing::info!(url = %server.url(), "HTTP server listening");
        }

        lock.publish(&InstanceInfo {
            pid: std::process::id(),
            mode: info.mode,
            version: info.version.clone(),
            http_url: info.http_url.clone(),
            started_at_ms: info.started_at_ms,
        })?;

        // Nothing can fail from here on: what was started belongs to the engine.
        let background = background(&store, &service);
        let webhooks = Webhooks::start(store.clone(), WebhookConfig::from(&config.webhooks)).await;
        Ok(Engine {
            store,
            info,
            runtime,
            http: started.server.take(),
            webhooks: Some(webhooks),
            service,
            window_requests,
            background,
            token_file,
            lock: Some(lock),
        })
    }

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
        Self::close_store(&self.store).await;
        self.lock.take();
        tracing::info!("engine stopped");
    }

    async fn close_store(store: &Arc<Store>) {
        let store = store.clone();
        let _ = tokio::task::spawn_blocking(move || store.shutdown()).await;
    }
}

/// Writes a fresh operator token, readable by this user only, for the command line to act as the
/// operator on this running instance.
fn write_operator_token(path: &std::path::Path) -> std::io::Result<String> {
    use std::io::Write;
    let token = crate::apikeys::random_secret("sdop_");
    let _ = std::fs::remove_file(path);
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut f = options.open(path)?;
    f.write_all(token.as_bytes())?;
    f.sync_all()?;
    Ok(token)
}

/// Rebuilds, from the evidence, the projections computed by earlier rules: those a migration asked
/// for, and every one whose stored rules version is older than these rules'.
async fn rebuild_wanted(writer: &Writer, policy: &ReceiptPolicy) -> Result<(), StoreError> {
    writer.write(rebuild::older_rules).await?;
    let (mut looked, mut changed) = (0, 0);
    loop {
        let p = policy.clone();
        let (n, c) = writer.write(move |tx| rebuild::wanted(tx, &p, CHUNK)).await?;
        looked += n;
        changed += c;
        if n < CHUNK as usize {
            break;
        }
    }
    if looked > 0 {
        tracing::info!(
            messages = looked,
            changed,
            rules_version = crate::receipts::rules::RULES_VERSION,
            "projections computed by earlier rules rebuilt from their evidence"
        );
    }
    Ok(())
}

/// Applies receipts that were stored but never applied (a crash between the two, or a failed
/// effect), before anything new arrives.
async fn apply_pending_receipts(writer: &Writer, policy: &ReceiptPolicy) -> Result<(), StoreError> {
    let mut after = 0;
    let mut total = 0;
    loop {
        let p = policy.clone();
        let (n, last) = writer
            .write(move |tx| ingest::process_pending(tx, &p, after, CHUNK))
            .await?;
        total += n;
        after = last;
        if n < CHUNK as usize {
            break;
        }
    }
    if total > 0 {
        tracing::warn!(
            receipts = total,
            "applied receipts that were stored but not applied before the last stop"
        );
    }
    Ok(())
}

/// Flags accepted messages whose final receipt is overdue, once a minute. The search runs on a
/// read connection; only the flagging goes through the writer.
async fn sweep_deadlines(store: Arc<Store>, service: Service) {
    let mut every = tokio::time::interval(DEADLINE_SWEEP_EVERY);
    loop {
        every.tick().await;
        // Read each time: the deadline is a setting that changes without a restart.
        let policy = service.policy();
        let now = store.clock().now_ms();
        let p = policy.clone();
        let due = match store
            .reader()
            .read(move |c| deadline::due(c, now, &p, None, CHUNK))
            .await
        {
            Ok(d) if d.is_empty() => continue,
            Ok(d) => d,
            Err(e) => {
                tracing::error!(error = %e, "deadline search failed");
                continue;
            }
        };
        let p = policy.clone();
        match store.writer().write(move |tx| deadline::flag(tx, &due, now, &p)).await {
            Ok(0) => {}
            Ok(n) => tracing::info!(messages = n, "no final receipt by the deadline"),
            Err(e) => tracing::error!(error = %e, "deadline sweep failed"),
        }
    }
}

/// Binds the HTTP listener. The window works without its usual port, so it falls back to a free
/// one; a headless server's address is its point, so `serve` fails instead.
async fn bind(addr: SocketAddr, mode: RunMode) -> Result<tokio::net::TcpListener, EngineError> {
    match tokio::net::TcpListener::bind(addr).await {
        Ok(l) => Ok(l),
        Err(e) if mode == RunMode::Window && addr.port() != 0 => {
            tracing::warn!(%addr, error = %e, "HTTP port in use; listening on a free port instead");
            tokio::net::TcpListener::bind(SocketAddr::new(addr.ip(), 0))
                .await
                .map_err(|source| EngineError::Listen { addr, source })
        }
        Err(source) => Err(EngineError::Listen { addr, source }),
    }
}
