//! The HTTP side of starting: where the door listens (bound before anything is served, so the
//! routes know the final URL), what one request may ask of it, and the operator token that lets
//! the command line act as the operator on this running instance.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use tokio::net::TcpListener;
use tokio::sync::watch;

use super::{EngineError, EngineOptions};
use crate::api::{AppInfo, RunMode};
use crate::config::Config;
use crate::door::{self, Door, DoorContext, Open};
use crate::paths::DataDir;
use crate::service::Service;

/// Where the door listens, bound (the routes need the final URL, so the port is bound before
/// anything is served); no listener without a door. An address beyond this computer needs
/// `http.allow_network`.
pub(super) async fn listen(
    config: &Config,
    options: &EngineOptions,
) -> Result<(SocketAddr, Option<TcpListener>), EngineError> {
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

/// Binds the HTTP listener. The window works without its usual port, so it falls back to a free
/// one; a headless server's address is its point, so `serve` fails instead.
async fn bind(addr: SocketAddr, mode: RunMode) -> Result<TcpListener, EngineError> {
    match TcpListener::bind(addr).await {
        Ok(l) => Ok(l),
        Err(e) if mode == RunMode::Window && addr.port() != 0 => {
            tracing::warn!(%addr, error = %e, "HTTP port in use; listening on a free port instead");
            TcpListener::bind(SocketAddr::new(addr.ip(), 0))
                .await
                .map_err(|source| EngineError::Listen { addr, source })
        }
        Err(source) => Err(EngineError::Listen { addr, source }),
    }
}

/// What the door's routes are given, and the sender that tells them the engine is stopping.
pub(super) fn door_context(
    info: &Arc<AppInfo>,
    service: &Service,
    operator_token: String,
    config: &Config,
) -> (DoorContext, watch::Sender<bool>) {
    let (stopping_tx, stopping) = watch::channel(false);
    let ctx = DoorContext {
        info: info.clone(),
        service: service.clone(),
        operator_token: Arc::new(operator_token),
        limits: limits(config),
        allowed_hosts: config.http.allowed_hosts.0.clone().into(),
        stopping,
        trusted_proxies: Arc::new(config.http.trusted_proxies.clone()),
    };
    (ctx, stopping_tx)
}

/// What one request may ask of the door, from the settings.
fn limits(config: &Config) -> door::Limits {
    let seconds = |s: crate::config::AtLeastOne| std::time::Duration::from_secs(s.0.into());
    door::Limits {
        max_body_bytes: config.http.max_body_kib.0 as usize * 1024,
        request_timeout: seconds(config.http.request_timeout_seconds),
        max_callback_body_bytes: config.http.callback_max_body_kib.0 as usize * 1024,
        header_read_timeout: seconds(config.http.header_read_timeout_seconds),
        idle_timeout: seconds(config.http.idle_timeout_seconds),
        max_connections: config.http.max_connections.0 as usize,
        max_connections_per_address: config.http.max_connections_per_address.0 as usize,
        max_unfinished_per_address: config.http.max_unfinished_per_address.0 as usize,
        max_streams_per_caller: config.http.max_streams_per_caller.0 as usize,
    }
}

/// Serves `door` on `listener` (bound to `addr`, which a failure names).
pub(super) fn serve(
    door: &dyn Door,
    listener: TcpListener,
    ctx: DoorContext,
    stopping: watch::Sender<bool>,
    addr: SocketAddr,
) -> Result<Open, EngineError> {
    let server = Open::start(door, listener, ctx, stopping).map_err(|source| EngineError::Listen { addr, source })?;
    tracing::info!(url = %server.url(), "HTTP server listening");
    Ok(server)
}

/// Writes a fresh operator token into the data directory: the file, and the token.
pub(super) fn operator_token(dir: &DataDir) -> Result<(PathBuf, String), EngineError> {
    let token_file = dir.root().join(door::OPERATOR_TOKEN_FILE);
    let token = write_operator_token(&token_file).map_err(|source| EngineError::OperatorToken {
        path: token_file.clone(),
        source,
    })?;
    Ok((token_file, token))
}

/// Writes a fresh operator token, readable by this user only, for the command line to act as the
/// operator on this running instance.
fn write_operator_token(path: &Path) -> std::io::Result<String> {
    use std::io::Write;
    let token = crate::tokens::random_secret("sdop_");
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
