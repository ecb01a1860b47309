//! The accept loop. A client that opens connections and never finishes a request must not hold
//! the server: each connection has a deadline for its request's headers (also while it waits for
//! the next request), one for going without a byte read or written, and at most
//! `Limits::max_connections` are served at once. Over that number the loop stops accepting, so
//! further connections wait in the system's queue rather than take a file each.
//!
//! On stop, no connection is accepted any more, idle ones are closed, and the requests in flight
//! finish (the event stream ends on its own: it watches `ApiContext::stopping`).

use std::io;
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
use tokio::net::TcpListener;
use tokio::sync::{oneshot, watch, OwnedSemaphorePermit, Semaphore};
use tokio::time::Instant;

use smsdesk_engine::door::Limits;

/// Serves `app` on `listener` until `shutdown` resolves (or its sender is dropped), then waits
/// for the open connections to finish.
pub async fn serve(
    listener: TcpListener,
    app: Router,
    limits: Limits,
    mut shutdown: oneshot::Receiver<()>,
) -> io::Result<()> {
    let max = limits.max_connections.clamp(1, Semaphore::MAX_PERMITS);
    let slots = Arc::new(Semaphore::new(max));
    let (stop, stopping) = watch::channel(false);
    loop {
        let slot = tokio::select! {
            _ = &mut shutdown => break,
            slot = slots.clone().acquire_owned() => slot.expect("the semaphore is never closed"),
        };
        let stream = tokio::select! {
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
        let (stream, peer) = stream;
        let _ = stream.set_nodelay(true);
        // Each request knows the address it came from (sign-in slows guessing down per address).
        let app = app.clone().layer(axum::Extension(axum::extract::ConnectInfo(peer)));
        tokio::spawn(connection(stream, app, limits, stopping.clone(), slot));
    }
    drop(listener);
    let _ = stop.send(true);
    // Each connection holds its slot until it ends: all slots back means all connections ended.
    let _ = slots.acquire_many(max as u32).await;
    Ok(())
}

/// Serves one connection until the client closes it, a deadline passes, or the server stops.
async fn connection<S>(
    stream: S,
    app: Router,
    limits: Limits,
    mut stopping: watch::Receiver<bool>,
    _slot: OwnedSemaphorePermit,
) where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let activity = Activity::new();
    let io = TokioIo::new(Watched {
        inner: stream,
        activity: activity.clone(),
    });
    let mut conn = pin!(http1::Builder::new()
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_read_timeout)
        .serve_connection(io, TowerToHyperService::new(app)));
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
        }
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
