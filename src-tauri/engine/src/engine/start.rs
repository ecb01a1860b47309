//! [`Engine::start`]: every part started in order, or none. Each step records in [`Started`]
//! what must be stopped should a later step fail, and [`Started::unwind`] stops it, last first.

use std::sync::Arc;

use tokio::net::TcpListener;

use super::background::background;
use super::database::{bring_up_to_date, open_store};
use super::http::{door_context, listen, operator_token, serve};
use super::runtime::Runtime;
use super::sending::{Place, Sending};
use super::shares::Shares;
use super::store_at::{self, StoreAt};
use super::warm::Warming;
use super::{intake_rules, sending, session_lifetimes, Engine, EngineError, EngineOptions, Prepared};
use crate::api::{AppInfo, RunMode};
use crate::config::Config;
use crate::door::Open;
use crate::instance::{InstanceError, InstanceInfo, InstanceLock};
use crate::paths::DataDir;
use crate::permissions;
use crate::receipts::ingest::Ingestor;
use crate::receipts::policy::ReceiptPolicy;
use crate::sealed::Sealer;
use crate::service::Service;
use crate::settings::Settings;
use crate::smpp::session::InboundHandler;
use crate::store::Store;
use crate::webhooks::{target, WebhookConfig, Webhooks};

/// What [`Engine::start`] has started so far, to stop again if a later step fails.
#[derive(Default)]
pub(super) struct Started {
    /// Released last, once the store is closed: nobody else may open the database before.
    lock: Option<InstanceLock>,
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
        match &self.store {
            Some(store) => Engine::close_store(store, self.lock).await,
            None => drop(self.lock),
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
        let Prepared {
            dir,
            config,
            env,
            permissions,
        } = prepared;
        let mut warming = Warming::begin(config.intake.default_region.0.clone());
        let store_at = StoreAt::of(&dir, &config)?;
        let backups = store_at.backup_plan(dir.root(), &config);
        // Before the database is opened: SQLite gives its -wal and -shm the database's mode.
        permissions::restrict_new_files();
        let files = store_at.file().map(permissions::database_files).unwrap_or_default();
        permissions::report(&permissions.and(permissions::tighten(dir.root(), &files)));
        let (d, at) = (dir.clone(), store_at.clone());
        // Blocking: a row another computer may still hold is watched for a few heartbeats.
        started.lock = Some(blocking(move || store_at::lock_for(&d, &at)).await?);
        // The password set from the settings screen lives in the keyring (or encrypted), not in
        // the file: the configuration to run with gets it here.
        let (settings, config) = Settings::open(dir.root(), dir.config_file(), env, config);
        let settings = Arc::new(settings);
        let policy = ReceiptPolicy::for_config(&config);
        // Recorded as soon as it is open, so that a failure from here on closes it.
        let store = started.store.insert(open_store(&store_at, &backups.dir).await?).clone();
        store.set_reserve(u64::from(config.store.reserve_mib) << 20);
        crate::privacy::set_number_key(&store, dir.root())?;
        // This run's key for one-time codes, in memory only.
        crate::privacy::codes::new_run(store.path());
        let place = join_as_node(started, &store, &config, &dir).await?;
        bring_up_to_date(&store, &policy, &config).await?;
        warming.readers(&store);
        let sealer = seal(&store, &dir).await?;

        let (service, window_requests) = build_service(&store, &config, &policy, &settings, options.mode);
        let service = service.with_sealer(sealer.clone()).with_backups(backups.clone());
        let inbound: Arc<dyn InboundHandler> = Arc::new(service.clone());
        started.sending = Some(Sending::start(&config, &store, inbound, &policy, &place).await?);

        let (addr, listener) = listen(&config, &options).await?;
        let info = Arc::new(app_info(&dir, &store, options.mode, listener.as_ref()));
        let (token_file, operator_token) = operator_token(&dir)?;
        let (ctx, stopping_tx) = door_context(&info, &service, operator_token, &config);
        let runtime = Runtime::hand_over(&store, &service, started.sending.take(), &settings, place.clone()).await;
        started.runtime = Some(runtime.clone());
        warming.done().await;
        if let (Some(door), Some(listener)) = (&options.door, listener) {
            started.server = Some(serve(door.as_ref(), listener, ctx, stopping_tx, addr)?);
        }

        let published = instance_info(&info);
        on_lock(started, move |l| l.publish(&published)).await?;

        // Nothing can fail from here on: what was started belongs to the engine.
        let mut background = background(&store, &service, backups);
        if let Some(lock) = &started.lock {
            background.extend(watch_node(lock, &place, &store, &runtime, &settings));
        }
        let webhooks = Webhooks::start(store.clone(), WebhookConfig::from(&config.webhooks), (*sealer).clone()).await;
        let smpp_server = smpp_server(&config, &service, &store).await;
        Ok(Engine {
            store,
            info,
            runtime,
            http: started.server.take(),
            smpp_server,
            webhooks: Some(webhooks),
            service,
            window_requests,
            background,
            token_file,
            lock: started.lock.take(),
        })
    }
}

/// The sealer of what is kept encrypted at rest, once the codes an earlier run sealed (which this
/// one cannot open) are expired, before sending starts, and what is to be sealed is.
async fn seal(store: &Arc<Store>, dir: &DataDir) -> Result<Arc<Sealer>, EngineError> {
    crate::privacy::codes::drop_lost(store).await?;
    let sealer = Arc::new(Sealer::for_data_dir(dir.root())?);
    target::seal_at_rest(store, &sealer).await?;
    Ok(sealer)
}

/// The SMPP server, when the settings enable it. One that cannot listen (its port taken, its
/// certificate unreadable) does not stop the engine: the dashboard and the log say why.
async fn smpp_server(config: &Config, service: &Service, store: &Arc<Store>) -> Option<crate::smpp_server::SmppServer> {
    if !config.smpp_server.enabled {
        return None;
    }
    match crate::smpp_server::SmppServer::start(&config.smpp_server, service.clone(), store.clone()).await {
        Ok(server) => Some(server),
        Err(problem) => {
            tracing::error!(%problem, "the SMPP server does not run");
            None
        }
    }
}

/// While this node runs: sending stops if another process takes its place over, and with several
/// nodes, its shares of the connections follow the nodes alive.
fn watch_node(
    lock: &InstanceLock,
    place: &Place,
    store: &Arc<Store>,
    runtime: &Arc<Runtime>,
    settings: &Arc<Settings>,
) -> Vec<tokio::task::JoinHandle<()>> {
    let mut tasks = vec![tokio::spawn(stop_sending_if_lost(lock.lost(), runtime.clone()))];
    if let (Some(shares), Some(seat)) = (place.shares.clone(), lock.seat()) {
        let sharing = super::nodes::keep_sharing(store.clone(), runtime.clone(), settings.clone(), shares, seat);
        tasks.push(tokio::spawn(sharing));
    }
    tasks
}

/// Records this process as one of the nodes that share the database (on SQLite, as its holder
/// too), inside it (see [`InstanceLock::hold_as_node`]): where its sending side runs.
async fn join_as_node(
    started: &mut Started,
    store: &Arc<Store>,
    config: &Config,
    dir: &DataDir,
) -> Result<Place, InstanceError> {
    let (s, node) = (
        store.clone(),
        crate::instance::node_name(&config.store.node, dir.root()),
    );
    let name = node.clone();
    on_lock(started, move |l| l.hold_as_node(&s, &name)).await?;
    Ok(Place {
        owner: node,
        // Several nodes share a PostgreSQL database's connections; one runs SQLite's.
        shares: store.on_postgres().then(Shares::new),
    })
}

/// Runs `f` on a blocking thread (file locks, waits on another process's heartbeat).
async fn blocking<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    match tokio::task::spawn_blocking(f).await {
        Ok(value) => value,
        Err(join) => std::panic::resume_unwind(join.into_panic()),
    }
}

/// Runs `f` on the instance lock, if one is held, on a blocking thread (it takes file locks and
/// may write to the database), and puts the lock back in `started` whatever `f` answered.
async fn on_lock(
    started: &mut Started,
    f: impl FnOnce(&mut InstanceLock) -> Result<(), InstanceError> + Send + 'static,
) -> Result<(), InstanceError> {
    let mut lock = started.lock.take();
    let (lock, done) = blocking(move || {
        let done = lock.as_mut().map(f).transpose();
        (lock, done)
    })
    .await;
    started.lock = lock;
    done.map(|_| ())
}

/// Stops sending once another process took the database over (see [`InstanceLock::lost`]): two
/// senders on one queue would send twice.
async fn stop_sending_if_lost(mut lost: tokio::sync::watch::Receiver<bool>, runtime: Arc<Runtime>) {
    if lost.wait_for(|&l| l).await.is_err() {
        return;
    }
    if let Some(sending) = runtime.sending.lock().await.take() {
        sending.stop().await;
        tracing::error!("sending stopped: another smsdesk holds the database now");
    }
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
    service.set_retry_limits(sending::retry_policies(&config.retry));
    service.set_session_lifetimes(session_lifetimes(config));
    let (window_requests, _) = tokio::sync::broadcast::channel(4);
    let service = if mode == RunMode::Window {
        service.with_window(window_requests.clone())
    } else {
        service
    };
    (service, window_requests)
}

/// What this instance is, as the API and the window show it; started now.
fn app_info(dir: &DataDir, store: &Store, mode: RunMode, listener: Option<&TcpListener>) -> AppInfo {
    let http_url = listener
        .and_then(|l| l.local_addr().ok())
        .map(|a| format!("http://{a}"));
    AppInfo {
        product: "smsdesk".into(),
        version: crate::VERSION.into(),
        mode,
        data_dir: dir.root().display().to_string(),
        database_path: store.path().display().to_string(),
        config_path: dir.config_file().display().to_string(),
        schema_version: store.migration().to_version,
        http_url,
        started_at_ms: store.clock().now_ms(),
    }
}

/// What the instance file tells a second start (and the command line) about this one.
fn instance_info(info: &AppInfo) -> InstanceInfo {
    InstanceInfo {
        pid: std::process::id(),
        mode: info.mode,
        version: info.version.clone(),
        http_url: info.http_url.clone(),
        started_at_ms: info.started_at_ms,
    }
}
