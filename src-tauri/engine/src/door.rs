//! Where requests come in from outside the process. The HTTP server (`smsdesk-http`, above the
//! engine) plugs in here as a [`Door`]: the engine binds its port, hands it what its routes need,
//! and starts and stops it with everything else, without depending on it.

use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use tokio::net::TcpListener;
use tokio::sync::{oneshot, watch};
use tokio::task::JoinHandle;

use crate::api::AppInfo;
use crate::config::Networks;
use crate::service::Service;

/// The file in the data directory holding this run's operator token (readable by its owner
/// only). The command line reads it to act for the operator on a running instance.
pub const OPERATOR_TOKEN_FILE: &str = "operator.token";

/// Limits on what one request, and one connection, may ask of the server.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    pub max_body_bytes: usize,
    pub request_timeout: Duration,
    /// The largest body a provider's callback may carry (receipts are small).
    pub max_callback_body_bytes: usize,
    /// How long a client may take to send a request's headers, and how long an open connection
    /// waits for its next request.
    pub header_read_timeout: Duration,
    /// How long a connection may go without a byte read or written before it is closed.
    pub idle_timeout: Duration,
    /// Connections served at once; for a client that waits, the oldest that has waited over a
    /// quarter of a second for its headers is closed to make room, else it waits to be accepted.
    pub max_connections: usize,
    /// Connections one address may hold open (a trusted proxy's are not counted).
    pub max_connections_per_address: usize,
    /// Connections one address may hold that have waited over a second for their request's
    /// headers; a further connection closes the oldest of them.
    pub max_unfinished_per_address: usize,
    /// Event streams one API key or browser session may hold; a further one closes the oldest.
    pub max_streams_per_caller: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_body_bytes: 1024 * 1024,
            request_timeout: Duration::from_secs(30),
            max_callback_body_bytes: 64 * 1024,
            header_read_timeout: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(60),
            max_connections: 200,
            max_connections_per_address: 50,
            max_unfinished_per_address: 10,
            max_streams_per_caller: 8,
        }
    }
}

/// What a door's routes need from the engine.
#[derive(Clone)]
pub struct DoorContext {
    pub info: Arc<AppInfo>,
    pub service: Service,
    /// The token the command line on this computer presents (see [`OPERATOR_TOKEN_FILE`]).
    pub operator_token: Arc<String>,
    pub limits: Limits,
    /// Host names the door answers to besides IP addresses and `localhost` (`http.allowed_hosts`).
    pub allowed_hosts: Arc<[String]>,
    /// Flips to true when the server stops, so endless streams end.
    pub stopping: watch::Receiver<bool>,
    /// The proxies whose `X-Forwarded-For` names the client (`http.trusted_proxies`).
    pub trusted_proxies: Arc<Networks>,
}

/// A future a door runs on the runtime.
pub type Serving = Pin<Box<dyn Future<Output = std::io::Result<()>> + Send>>;

/// A way in: serves requests on a bound listener until `shutdown` resolves, then finishes the
/// requests in flight.
pub trait Door: Send + Sync + 'static {
    fn serve(&self, listener: TcpListener, ctx: DoorContext, shutdown: oneshot::Receiver<()>) -> Serving;
}

/// A door being served; [`Open::stop`] finishes the requests in flight, then returns.
pub(crate) struct Open {
    addr: SocketAddr,
    stopping: watch::Sender<bool>,
    stop: oneshot::Sender<()>,
    task: JoinHandle<std::io::Result<()>>,
}

impl Open {
    /// Serves `door` on `listener`; `stopping` is the sender of `ctx.stopping`.
    pub(crate) fn start(
        door: &dyn Door,
        listener: TcpListener,
        ctx: DoorContext,
        stopping: watch::Sender<bool>,
    ) -> std::io::Result<Open> {
        let addr = listener.local_addr()?;
        let (stop, stopped) = oneshot::channel();
        let task = tokio::spawn(door.serve(listener, ctx, stopped));
        Ok(Open {
            addr,
            stopping,
            stop,
            task,
        })
    }

    pub(crate) fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    pub(crate) async fn stop(self) {
        let _ = self.stopping.send(true);
        let _ = self.stop.send(());
        match tokio::time::timeout(Duration::from_secs(10), self.task).await {
            Ok(Ok(Ok(()))) => {}
            Ok(Ok(Err(e))) => tracing::warn!(error = %e, "the HTTP server stopped with an error"),
            Ok(Err(e)) => tracing::warn!(error = %e, "the HTTP server task failed"),
            Err(_) => tracing::warn!("the HTTP server did not finish its requests within 10 s"),
        }
    }
}
