//! The accept loop. A client that opens connections and never finishes a request must not hold
//! the server: each connection has a deadline for its request's headers (also while it waits for
//! the next request), one for going without a byte read or written, and at most
//! `Limits::max_connections` are served at once. Over that number, a client accepted meanwhile has
//! the oldest connection that waited over a quarter of a second for its headers closed to make room for it
//! (never one closed for nobody, nor the newcomer itself); until a place frees, the loop accepts no further one, so
//! further connections wait in the system's queue rather than take a file each. What one address
//! may hold is the [`Gate`]'s to say.
//!
//! On stop, no connection is accepted any more, idle ones are closed, and the requests in flight
//! finish (the event stream ends on its own: it watches `ApiContext::stopping`).

use std::io;
use std::net::SocketAddr;
use std::pin::{pin, Pin};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::Router;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{oneshot, watch, OwnedSemaphorePermit, Semaphore};
use tokio::time::Instant;

use smsdesk_engine::api::ErrorCode;
use smsdesk_engine::door::Limits;

use crate::gate::{Gate, Ticket};

/// Seconds a connection refused for its address's cap is told to wait.
const REFUSED_RETRY_AFTER_SECS: u64 = 5;

/// Serves `app` on `listener` until `shutdown` resolves (or its sender is dropped), then waits
/// for the open connections to finish.
pub async fn serve(
    listener: TcpListener,
    app: Router,
    limits: Limits,
    gate: Arc<Gate>,
    mut shutdown: oneshot::Receiver<()>,
) -> io::Result<()> {
    let max = limits.max_connections.clamp(1, Semaphore::MAX_PERMITS);
    let slots = Arc::new(Semaphore::new(max));
    let (stop, stopping) = watch::channel(false);
    loop {
        // Accepted first: room is made only for a client that is there, and only once its
        // address may open one more.
        let (stream, peer) = tokio::select! {
            _ = &mut shutdown => break,
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(e) => {
                    // Out of files, or a connection reset before it was accepted: keep serving
                    // the connections open, and try again shortly.
                    tracing::warn!(error = %e, "accepting an HTTP connection failed");
                    tokio::select! {
                        _ = &mut shutdown => break,
                        _ = tokio::time::sleep(Duration::from_millis(100)) => continue,
                    }
                }
            },
        };
        let Some(ticket) = gate.admit(peer.ip()) else {
            refuse(stream);
            continue;
        };
        let slot = match slots.clone().try_acquire_owned() {
            Ok(slot) => slot,
            Err(_) => match room(&gate, &ticket, &slots, &mut shutdown).await {
                Some(slot) => slot,
                None => break,
            },
        };
        let _ = stream.set_nodelay(true);
        tokio::spawn(connection(
            stream,
            (app.clone(), peer),
            limits,
            stopping.clone(),
            (slot, ticket),
        ));
    }
    drop(listener);
    let _ = stop.send(true);
    // Each connection holds its slot until it ends: all slots back means all connections ended.
    let _ = slots.acquire_many(max as u32).await;
    Ok(())
}

/// How often a full server that is owed a place looks again for a connection to close: one
/// without its headers may have appeared since (an answered one waiting for its next request),
/// or come to have waited long enough.
const ROOM_AGAIN: Duration = Duration::from_millis(50);

/// A place for `newcomer` on a full server: the oldest connection that has waited too long for
/// its headers is closed for it, and again while none ends (one may come to have waited too
/// long meanwhile); `None` when the server stops meanwhile.
async fn room(
    gate: &Gate,
    newcomer: &Ticket,
    slots: &Arc<Semaphore>,
    shutdown: &mut oneshot::Receiver<()>,
) -> Option<OwnedSemaphorePermit> {
    loop {
        gate.make_room_for(newcomer);
        tokio::select! {
            _ = &mut *shutdown => return None,
            slot = slots.clone().acquire_owned() => return Some(slot.expect("the semaphore is never closed")),
            _ = tokio::time::sleep(ROOM_AGAIN) => {}
        }
    }
}

/// Answers a connection its address may not open `429 too_many_connections` and closes it, at
/// once and without waiting on the client: whatever the socket takes now is all it gets.
fn refuse(stream: TcpStream) {
    let mut discard = [0u8; 4096];
    // What the client sent already is read, so that closing does not reset the answer away.
    while matches!(stream.try_read(&mut discard), Ok(n) if n > 0) {}
    let code = ErrorCode::TooManyConnections;
    let body = format!(
        r#"{{"code":"{}","message":"this address has as many connections open as it may (http.max_connections_per_address): close some, or try again later"}}"#,
        code.as_str()
    );
    let answer = format!(
        "HTTP/1.1 {} Too Many Requests\r\ncontent-type: application/json\r\nretry-after: {REFUSED_RETRY_AFTER_SECS}\r\nconnection: close\r\ncontent-length: {}\r\n\r\n{body}",
        code.status(),
        body.len()
    );
    let _ = stream.try_write(answer.as_bytes());
    tracing::debug!("refused a connection over its address's cap");
}

/// Serves one connection until the client closes it, a deadline passes, the gate closes it to
/// make room, or the server stops.
async fn connection<S>(
    stream: S,
    (app, peer): (Router, SocketAddr),
    limits: Limits,
    mut stopping: watch::Receiver<bool>,
    (_slot, ticket): (OwnedSemaphorePermit, Ticket),
) where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let activity = Activity::new();
    let io = TokioIo::new(Watched {
        inner: stream,
        activity: activity.clone(),
    });
    let ticket = Arc::new(ticket);
    let gate = ticket.clone();
    let service = TowerToHyperService::new(app);
    // Called once a request's head is whole: the connection has finished its headers (until its
    // answer is sent: then it waits for the next request's). Each request knows the address it
    // came from (sign-in slows guessing down per address), and its connection's ticket (a route
    // open to anyone counts the connection unfinished again while it reads the body). Put in
    // the request, not layered on the router: layering the router again for each connection
    // rebuilt every route's stack for it.
    let service = hyper::service::service_fn(move |mut request: hyper::Request<hyper::body::Incoming>| {
        gate.started();
        request.extensions_mut().insert(axum::extract::ConnectInfo(peer));
        request.extensions_mut().insert(gate.clone());
        let asked = Asked::of(&request);
        let answered = hyper::service::Service::call(&service, request);
        let ticket = gate.clone();
        async move {
            let response = answered.await?;
            asked.log_if_slow(response.status());
            Ok::<_, std::convert::Infallible>(response.map(|body| Sent { body, ticket }))
        }
    });
    let mut conn = pin!(http1::Builder::new()
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_read_timeout)
        .serve_connection(io, service));
    let mut draining = false;
    loop {
        tokio::select! {
            done = conn.as_mut() => {
                if let Err(e) = done {
                    tracing::debug!(error = %e, "an HTTP connection ended with an error");
                }
                return;
            }
            _ = stopping.changed(), if !draining => {
                draining = true;
                conn.as_mut().graceful_shutdown();
            }
            _ = activity.idle_for(limits.idle_timeout) => {
                tracing::debug!(idle = ?limits.idle_timeout, "closing an HTTP connection that stalled");
                return;
            }
            _ = ticket.closed() => {
                tracing::debug!("closing an HTTP connection without headers to make room for a newer one");
                return;
            }
        }
    }
}

/// An answer's body that, once sent (or given up), counts its connection as waiting for its next
/// request's headers again: an idle kept-alive connection is the first closed to make room.
struct Sent {
    body: axum::body::Body,
    ticket: Arc<Ticket>,
}

impl Drop for Sent {
    fn drop(&mut self) {
        self.ticket.unfinished_again();
    }
}

impl hyper::body::Body for Sent {
    type Data = axum::body::Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<hyper::body::Frame<Self::Data>, Self::Error>>> {
        Pin::new(&mut self.body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> hyper::body::SizeHint {
        self.body.size_hint()
    }
}

/// When a connection last read or wrote a byte.
#[derive(Clone)]
struct Activity {
    start: Instant,
    /// Milliseconds from `start` to the last byte read or written.
    last_ms: Arc<AtomicU64>,
}

impl Activity {
    fn new() -> Activity {
        Activity {
            start: Instant::now(),
            last_ms: Arc::new(AtomicU64::new(0)),
        }
    }

    fn touch(&self) {
        let ms = u64::try_from(self.start.elapsed().as_millis()).unwrap_or(u64::MAX);
        self.last_ms.fetch_max(ms, Ordering::Relaxed);
    }

    /// Resolves once nothing was read or written for `limit`.
    async fn idle_for(&self, limit: Duration) {
        loop {
            let last = self.start + Duration::from_millis(self.last_ms.load(Ordering::Relaxed));
            let deadline = last + limit;
            if Instant::now() >= deadline {
                return;
            }
            tokio::time::sleep_until(deadline).await;
        }
    }
}

/// A stream that notes in its [`Activity`] each time bytes go through it.
struct Watched<S> {
    inner: S,
    activity: Activity,
}

impl<S: AsyncRead + Unpin> AsyncRead for Watched<S> {
    fn poll_read(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.inner).poll_read(cx, buf);
        if matches!(polled, Poll::Ready(Ok(()))) && buf.filled().len() > before {
            self.activity.touch();
        }
        polled
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for Watched<S> {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, data: &[u8]) -> Poll<io::Result<usize>> {
        let polled = Pin::new(&mut self.inner).poll_write(cx, data);
        if matches!(polled, Poll::Ready(Ok(n)) if n > 0) {
            self.activity.touch();
        }
        polled
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let polled = Pin::new(&mut self.inner).poll_write_vectored(cx, bufs);
        if matches!(polled, Poll::Ready(Ok(n)) if n > 0) {
            self.activity.touch();
        }
        polled
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

/// A request as the slow-request log names it: its method and, for the API, its path (without
/// the query); when it was read.
struct Asked {
    method: hyper::Method,
    path: Option<String>,
    at: Instant,
}

impl Asked {
    fn of<B>(request: &hyper::Request<B>) -> Asked {
        let path = request.uri().path();
        Asked {
            method: request.method().clone(),
            path: path.starts_with("/api/").then(|| path.to_owned()),
            at: Instant::now(),
        }
    }

    /// A request answered more than [`SLOW_REQUEST`] after its head was read is logged at debug:
    /// with the writer's log of slow transactions, it says what the request waited for.
    fn log_if_slow(&self, status: hyper::StatusCode) {
        let took = self.at.elapsed();
        if took >= SLOW_REQUEST {
            tracing::debug!(
                method = %self.method,
                path = self.path.as_deref().unwrap_or("(not the API)"),
                status = status.as_u16(),
                took_ms = took.as_secs_f64() * 1e3,
                "slow request"
            );
        }
    }
}

/// A request answered later than this after its head was read is logged (at debug).
const SLOW_REQUEST: Duration = Duration::from_millis(10);
