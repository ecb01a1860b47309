//! smsdesk's own SMPP server, for the office's systems that send SMS only over SMPP (a PBX, a
//! laboratory system, an old CRM): a bound client hands messages into the same queue as the API,
//! and gets their receipts back as deliver_sm.
//!
//! - An account is an API key with an SMPP password ([`crate::service`]'s `create_smpp_account`):
//!   its name is the system_id, and its scopes, limits, guardrails and routes are the key's. Its
//!   messages are its own: query_sm and cancel_sm reach no other.
//! - A submit_sm is committed to the queue before its submit_sm_resp answers with smsdesk's id
//!   (the message's id, in decimal). The parts of a long message (UDH or SAR) are held until the
//!   last arrives, then handed in as one message, and every part is answered with its id.
//! - Receipts are owed from the transaction that makes a message's state final (store:
//!   `tables::smpp`), and sent while the client is bound until it answers each: at least once,
//!   across restarts and reconnections.
//! - Each session keeps its account's rate (tps) and window: beyond them a submit is answered
//!   ESME_RTHROTTLED; a full disk or the key's daily limit answer ESME_RMSGQFUL.
//!
//! Where things are: here the server and the sessions' registry; `session` one client's
//! connection; `submit` a submit_sm read into a message (and the parts of long ones); `outbox`
//! the receipts sent to a bound client. What the API shows, and the sessions' registry the
//! dashboard reads, are in `crate::smpp_clients`.

mod outbox;
mod session;
mod submit;

use std::net::SocketAddr;
use std::sync::Arc;

use tokio::net::TcpListener;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use crate::smpp_clients::Stats;
pub use crate::smpp_clients::{
    CreatedSmppAccount, NewSmppAccount, Registry, SmppAccountInfo, SmppServerSession, SmppServerStatus,
};

use crate::config::SmppServerSettings;
use crate::service::Service;
use crate::smpp::session::{server_acceptor, TlsAcceptor};
use crate::store::Store;

/// What every session of the server shares.
pub(crate) struct Ctx {
    pub(crate) service: Service,
    pub(crate) store: Arc<Store>,
    pub(crate) registry: Arc<Registry>,
    pub(crate) stop: CancellationToken,
}

/// A running SMPP server.
pub struct SmppServer {
    stop: CancellationToken,
    task: JoinHandle<()>,
    addr: SocketAddr,
}

impl SmppServer {
    /// Listens as `settings` say and serves until stopped. A port that cannot be had or a
    /// certificate that cannot be read is an error, also shown on the dashboard.
    pub async fn start(
        settings: &SmppServerSettings,
        service: Service,
        store: Arc<Store>,
    ) -> Result<SmppServer, String> {
        let registry = service.smpp_registry();
        let started = listen(settings).await;
        let (listener, acceptor) = match started {
            Ok(l) => l,
            Err(problem) => {
                registry.set(true, settings.tls, None, Some(problem.clone()));
                return Err(problem);
            }
        };
        let addr = listener.local_addr().map_err(|e| e.to_string())?;
        registry.set(true, settings.tls, Some(addr.to_string()), None);
        tracing::info!(%addr, tls = settings.tls, "the SMPP server listens");
        let stop = CancellationToken::new();
        let ctx = Arc::new(Ctx {
            service,
            store,
            registry,
            stop: stop.clone(),
        });
        let task = tokio::spawn(accept(listener, acceptor, ctx));
        Ok(SmppServer { stop, task, addr })
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Stops listening and ends every session (their clients see the connection close; what was
    /// committed stays committed, what is owed stays owed).
    pub async fn stop(self) {
        self.stop.cancel();
        let _ = self.task.await;
    }
}

async fn listen(settings: &SmppServerSettings) -> Result<(TcpListener, Option<TlsAcceptor>), String> {
    let acceptor = match settings.tls {
        true => Some(tls_acceptor(&settings.tls_cert_file, &settings.tls_key_file)?),
        false => None,
    };
    let listener = TcpListener::bind((settings.bind, settings.port))
        .await
        .map_err(|e| format!("cannot listen on {}:{}: {e}", settings.bind, settings.port))?;
    Ok((listener, acceptor))
}

/// The server's TLS from its certificate chain and key (PEM files).
fn tls_acceptor(cert: &str, key: &str) -> Result<TlsAcceptor, String> {
    if cert.trim().is_empty() || key.trim().is_empty() {
        return Err("smpp_server.tls needs smpp_server.tls_cert_file and smpp_server.tls_key_file".into());
    }
    server_acceptor(std::path::Path::new(cert.trim()), std::path::Path::new(key.trim()))
}

async fn accept(listener: TcpListener, acceptor: Option<TlsAcceptor>, ctx: Arc<Ctx>) {
    let mut sessions = tokio::task::JoinSet::new();
    loop {
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(a) => a,
                Err(e) => {
                    tracing::warn!(error = %e, "the SMPP server could not accept a connection");
                    tokio::time::sleep(std::time::Duration::from_millis(100)).await;
                    continue;
                }
            },
            _ = ctx.stop.cancelled() => break,
        };
        let _ = stream.set_nodelay(true);
        let ctx = ctx.clone();
        match acceptor.clone() {
            None => sessions.spawn(session::run(stream, peer, false, ctx)),
            Some(acceptor) => sessions.spawn(async move {
                let handshake = tokio::time::timeout(session::BIND_TIMEOUT, acceptor.accept(stream)).await;
                match handshake {
                    Ok(Ok(tls)) => session::run(tls, peer, true, ctx).await,
                    _ => tracing::info!(%peer, "an SMPP client's TLS handshake failed"),
                }
            }),
        };
        while sessions.try_join_next().is_some() {}
    }
    // Each session says unbind and closes; those that do not within a moment are cut.
    let _ = tokio::time::timeout(std::time::Duration::from_secs(2), async {
        while sessions.join_next().await.is_some() {}
    })
    .await;
    sessions.shutdown().await;
    ctx.registry.set(false, false, None, None);
}
