//! The SMPP client session of one connection: its binds (one or more transceivers, or transmitters
//! and a receiver), each an owner task, behind one cloneable handle. Each bind keeps its link
//! alive with enquire_link, reconnects with exponential backoff and jitter, stops (and says so)
//! when the credentials are refused instead of hammering the provider, and hands every
//! deliver_sm/data_sm to an inbound handler, answering deliver_sm_resp only once the handler says
//! the report is committed. The rate is the connection's, shared by its sending binds; each
//! sending bind has its own window.
//!
//! Sending is in two steps so the dispatcher can commit its attempt row before the PDU is written:
//! [`SessionHandle::reserve`] waits for a bound link, a free window slot and the rate limit, and
//! names the session and sequence number; [`Permit::submit`] writes the PDU and waits for the
//! answer. A timeout or a lost link after the write is reported as such: the outcome is unknown,
//! and nothing here ever resends.
//!
//! Where things are:
//! - here: the state the tasks and the handles share ([`Session`], `Inner`, `Link`, `Outgoing`);
//! - `config`: [`SessionConfig`], [`BindMode`], [`BindRole`] and [`LinkState`];
//! - `binds`: each bind's link and state, the connection's state, and finding a free slot;
//! - `handle`: [`SessionHandle::reserve`], [`Permit::submit`] and what a submit comes back with;
//! - `rate`: the window and the rate limit (and slowing down when the SMSC throttles);
//! - `connect`: connecting and binding, and the trial bind ([`probe`]);
//! - `tls`: TLS to the SMSC ([`TlsSettings`]) and its failures in words;
//! - `reconnect`: a bind's owner task's loop: bind, run the link, back off, again;
//! - `link`: one bound link: reading, writing, keepalive, and how it ends;
//! - `inbound`: what the link does with each PDU the SMSC sends, and storing reports in order.

mod answer;
mod binds;
mod config;
mod connect;
mod handle;
mod inbound;
mod link;
mod rate;
mod reconnect;
mod tls;

use std::collections::HashMap;
use std::sync::atomic::{AtomicU32, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rusmpp::tokio_codec::CommandCodec;
use rusmpp::Command;
use tokio::sync::{mpsc, oneshot, watch, Notify};
use tokio::time::Instant;
use tokio_util::codec::Framed;

pub use answer::{SubmitAnswer, SubmitFailure};
pub use config::{BindMode, BindRole, LinkState, SessionConfig};
pub use connect::{probe, Probe};
pub use handle::{Permit, SessionHandle};
pub use inbound::{raw_tlv, InboundHandler};
pub use reconnect::reconnect_wait;
pub use tls::{pin_of, server_acceptor, TlsSettings};
pub use tokio_rustls::TlsAcceptor;

/// A byte stream to the SMSC: TCP, or TLS over TCP.
trait Stream: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send {}
impl<T: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send> Stream for T {}

/// The connection to the SMSC, framed as SMPP commands.
type Wire = Framed<Box<dyn Stream>, CommandCodec>;

/// Who waits for the answer to each request in flight, by sequence number.
type Pending = Arc<Mutex<HashMap<u32, oneshot::Sender<Command>>>>;

/// What the writer of a link reports about one frame: `Ok(at)` once it was flushed to the socket,
/// `Err(at)` when the write failed part-way (the SMSC may have read it all the same). A frame the
/// link ended before writing reports nothing: its sender is dropped.
type Written = oneshot::Sender<Result<i64, i64>>;

/// A frame waiting to be written, and who wants to hear that it was.
struct Outgoing {
    command: Command,
    written: Option<Written>,
}

impl From<Command> for Outgoing {
    fn from(command: Command) -> Outgoing {
        Outgoing { command, written: None }
    }
}

/// A bound link, as the senders see it.
#[derive(Clone)]
struct Link {
    session_id: String,
    out: mpsc::UnboundedSender<Outgoing>,
    pending: Pending,
    seq: Arc<AtomicU32>,
}

impl Link {
    fn next_seq(&self) -> u32 {
        self.seq.fetch_add(1, Ordering::Relaxed)
    }

    fn send(&self, command: Command) {
        let _ = self.out.send(command.into());
    }

    fn forget(&self, sequence_number: u32) {
        self.pending
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(&sequence_number);
    }
}

/// What the owner tasks (one per bind) and every handle share.
struct Inner {
    config: SessionConfig,
    /// The connection's state, made from its binds' ([`binds::overall`]).
    state: watch::Sender<LinkState>,
    binds: Vec<binds::Bind>,
    /// Pinged when a bind's link or state changes and when a window slot comes back.
    changed: Arc<Notify>,
    /// Submits looking for a window slot wait here, in the order they came.
    turn: tokio::sync::Mutex<()>,
    /// The bind the next look for a slot starts from.
    next_bind: AtomicUsize,
    /// The window and rate now (settings change them while the session runs). The rate is the
    /// connection's, shared by its binds.
    limits: Mutex<(usize, f64)>,
    next_slot: Mutex<Instant>,
    /// Until when the rate is cut after the SMSC said ESME_RTHROTTLED.
    slowed_until: Mutex<Option<Instant>>,
    /// Whether the binds run, are paused (unbound until resumed), or stop for good.
    run: watch::Sender<Run>,
    /// Window slots taken and not yet given back: submits between their permit and their answer.
    under_way: Arc<AtomicUsize>,
    /// Submits the SMSC accepted, by second, over the last minute.
    accepted: Arc<handle::Accepted>,
}

/// What the bind tasks are asked to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Run {
    Go,
    /// Unbind, and stay unbound until asked to go again.
    Pause,
    Stop,
}

/// Resolves once the binds are asked to stop or pause (or the session is dropped).
async fn until_stopped(control: &mut watch::Receiver<Run>) {
    while *control.borrow_and_update() == Run::Go {
        if control.changed().await.is_err() {
            return;
        }
    }
}

/// Why a bound link ended.
enum LinkEnd {
    Stop,
    Lost(String),
}

/// The running session.
pub struct Session {
    handle: SessionHandle,
    tasks: Vec<tokio::task::JoinHandle<()>>,
}

impl Session {
    /// Opens the connection's binds (each its own owner task) and shares their rate.
    pub fn start(config: SessionConfig, inbound: Arc<dyn InboundHandler>) -> Session {
        Session::start_as(config, inbound, false)
    }

    /// The same; paused (no bind opened until [`SessionHandle::set_paused`] resumes it) when
    /// `paused`.
    pub fn start_as(config: SessionConfig, inbound: Arc<dyn InboundHandler>, paused: bool) -> Session {
        let window = config.window.max(1);
        let binds = config
            .bind_plan()
            .into_iter()
            .map(|(role, label)| binds::Bind::new(role, label, window))
            .collect::<Vec<_>>();
        let (state, _) = watch::channel(LinkState::Connecting { attempt: 1 });
        let limits = Mutex::new((window, config.tps));
        let inner = Arc::new(Inner {
            config,
            state,
            binds,
            changed: Arc::new(Notify::new()),
            turn: tokio::sync::Mutex::new(()),
            next_bind: AtomicUsize::new(0),
            limits,
            next_slot: Mutex::new(Instant::now()),
            slowed_until: Mutex::new(None),
            run: watch::channel(if paused { Run::Pause } else { Run::Go }).0,
            under_way: Arc::default(),
            accepted: Arc::default(),
        });
        let tasks = (0..inner.binds.len())
            .map(|i| tokio::spawn(reconnect::run(inner.clone(), i, inbound.clone(), inner.run.subscribe())))
            .collect();
        Session {
            handle: SessionHandle { inner },
            tasks,
        }
    }

    pub fn handle(&self) -> SessionHandle {
        self.handle.clone()
    }

    /// Unbinds (when bound) and stops.
    pub async fn stop(self) {
        self.handle.inner.run.send_replace(Run::Stop);
        let _ = tokio::time::timeout(Duration::from_secs(5), futures::future::join_all(self.tasks)).await;
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::reconnect_wait;

    #[test]
    fn reconnect_waits_grow_with_each_failure_up_to_the_cap_and_never_fall_below_the_minimum() {
        let (min, max) = (Duration::from_secs(1), Duration::from_secs(60));
        let longest = |attempt| reconnect_wait(min, max, attempt, 0.999_999);
        assert!(
            longest(1) > Duration::from_millis(1_999) && longest(1) < Duration::from_secs(2),
            "up to twice the minimum after the first failure: {:?}",
            longest(1)
        );
        assert!(longest(2) > longest(1) && longest(3) > longest(2), "the bound doubles");
        assert!(
            longest(20) <= max && longest(20) > Duration::from_secs(59),
            "capped at the maximum"
        );
        for attempt in [1, 2, 5, 30] {
            assert_eq!(
                reconnect_wait(min, max, attempt, 0.0),
                min,
                "never sooner than the minimum, whatever the jitter"
            );
            for j in [0.1, 0.5, 0.9] {
                let w = reconnect_wait(min, max, attempt, j);
                assert!(w >= min && w <= longest(attempt), "jitter stays in [min, bound]: {w:?}");
            }
        }
    }
}
