//! The SMPP client session: an owner task behind a cloneable handle. It binds as a transceiver,
//! keeps the link alive with enquire_link, reconnects with exponential backoff and jitter, stops
//! (and says so) when a bind is refused instead of hammering the provider, and hands every
//! deliver_sm/data_sm to an inbound handler, answering deliver_sm_resp only once the handler says
//! the report is committed.
//!
//! Sending is in two steps so the dispatcher can commit its attempt row before the PDU is written:
//! [`SessionHandle::reserve`] waits for a bound link, a free window slot and the rate limit, and
//! names the session and sequence number; [`Permit::submit`] writes the PDU and waits for the
//! answer. A timeout or a lost link after the write is reported as such: the outcome is unknown,
//! and nothing here ever resends.

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::{SinkExt, StreamExt};
use rusmpp::encode::Encode;
use rusmpp::pdus::{BindTransceiver, SubmitSm};
use rusmpp::tlvs::Tlv as SmppTlv;
use rusmpp::tokio_codec::CommandCodec;
use rusmpp::values::InterfaceVersion;
use rusmpp::{Command, CommandId, CommandStatus, Pdu};
use serde::Serialize;
use tokio::net::TcpStream;
use tokio::sync::{mpsc, oneshot, watch, OwnedSemaphorePermit, Semaphore};
use tokio::time::Instant;
use tokio_util::codec::Framed;

use smsdesk_core::command_status as status;
use smsdesk_core::time::{jitter, Clock};

use crate::cstr;
use crate::{SmppReceived, Tlv};

/// How to reach and use one SMPP account.
#[derive(Debug, Clone)]
pub struct SessionConfig {
    /// The connection's name (as messages and receipts record it).
    pub connection: String,
    pub host: String,
    pub port: u16,
    pub system_id: String,
    pub password: String,
    pub system_type: String,
    /// The bind's address_range (empty for none).
    pub address_range: String,
    /// 0x34 for SMPP 3.4, 0x50 for 5.0.
    pub interface_version: u8,
    pub enquire_link_every: Duration,
    pub response_timeout: Duration,
    /// Requests awaiting their answer at most.
    pub window: usize,
    /// Submits per second at most.
    pub tps: f64,
    pub reconnect_min: Duration,
    pub reconnect_max: Duration,
    /// Where the session reads the time it dates states, writes and reports with.
    pub clock: Clock,
}

impl SessionConfig {
    pub fn new(connection: &str, host: &str, port: u16) -> SessionConfig {
        SessionConfig {
            connection: connection.into(),
            host: host.into(),
            port,
            system_id: "smsdesk".into(),
            password: "smsdesk".into(),
            system_type: String::new(),
            address_range: String::new(),
            interface_version: 0x34,
            enquire_link_every: Duration::from_secs(30),
            response_timeout: Duration::from_secs(10),
            window: 10,
            tps: 10.0,
            reconnect_min: Duration::from_secs(1),
            reconnect_max: Duration::from_secs(60),
            clock: Clock::system(),
        }
    }
}

/// The state of the link, for the dashboard and the dispatcher.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize, ts_rs::TS, utoipa::ToSchema)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum LinkState {
    Connecting {
        attempt: u32,
    },
    Bound {
        session_id: String,
        #[ts(type = "number")]
        since_ms: i64,
    },
    /// Lost or not reachable; trying again after `retry_in_ms`.
    Down {
        error: String,
        #[ts(type = "number")]
        since_ms: i64,
        #[ts(type = "number")]
        retry_in_ms: u64,
    },
    /// The provider refused the credentials (wrong password or system_id): stopped until
    /// reconfigured, rather than hammering the provider.
    BindRefused {
        status: u32,
        name: String,
        #[ts(type = "number")]
        since_ms: i64,
    },
    Stopped,
}

/// Where inbound reports go. The session hands them over in the order their PDUs arrived, a batch
/// at a time, and hands over the next batch only once this one is answered: reports of one
/// session are stored in arrival order. `deliver` answers, for each report of the batch, whether
/// it is durably stored; only then is it acknowledged to the SMSC (false answers ESME_RX_T_APPN so
/// the SMSC sends it again).
pub trait InboundHandler: Send + Sync + 'static {
    fn deliver(&self, reports: Vec<SmppReceived>) -> Pin<Box<dyn Future<Output = Vec<bool>> + Send + '_>>;
}

/// Why a submit did not get an answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SubmitFailure {
    /// Nothing was written: safe to try again later.
    #[error("not sent: {0}")]
    NotSent(String),
    /// Written (at `written_at`, when the write finished in time), but no answer came in time: it
    /// may or may not have been accepted.
    #[error("no answer within the response timeout; the outcome is unknown")]
    Timeout { written_at: Option<i64> },
    /// Handed to the socket (at `written_at`; a write that failed part-way counts), then the link
    /// went down before the answer: the outcome is unknown.
    #[error("the link was lost before the answer; the outcome is unknown")]
    LinkLost { written_at: Option<i64> },
}

/// The SMSC's answer to a submit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SubmitAnswer {
    pub command_status: u32,
    /// The provider's message id exactly as returned (accepted submits only).
    pub message_id: Option<String>,
    /// When the submit's frame was flushed to the socket.
    pub written_at: i64,
}

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

struct Inner {
    config: SessionConfig,
    state: watch::Sender<LinkState>,
    link: watch::Sender<Option<Link>>,
    window: Arc<Semaphore>,
    /// The window and rate now (settings change them while the session runs).
    limits: Mutex<(usize, f64)>,
    next_slot: tokio::sync::Mutex<Instant>,
    /// Until when the rate is cut after the SMSC said ESME_RTHROTTLED.
    slowed_until: Mutex<Option<Instant>>,
}

/// After ESME_RTHROTTLED, the rate is divided by this for [`SLOW_DOWN_FOR`].
const SLOW_DOWN_FACTOR: f64 = 4.0;
const SLOW_DOWN_FOR: Duration = Duration::from_secs(10);

/// A cloneable handle to the session task.
#[derive(Clone)]
pub struct SessionHandle {
    inner: Arc<Inner>,
}

/// The right to send one submit: a window slot, a rate token, and its sequence number.
pub struct Permit {
    link: Link,
    connection: String,
    sequence_number: u32,
    response_timeout: Duration,
    _slot: OwnedSemaphorePermit,
}

impl Permit {
    /// The connection the submit goes out on.
    pub fn connection(&self) -> &str {
        &self.connection
    }

    pub fn session_id(&self) -> &str {
        &self.link.session_id
    }

    pub fn sequence_number(&self) -> u32 {
        self.sequence_number
    }

    /// Writes the submit and waits for its answer. A submit counts as written once its frame was
    /// flushed to the socket; one the link ended before writing is [`SubmitFailure::NotSent`].
    pub async fn submit(self, pdu: SubmitSm) -> Result<SubmitAnswer, SubmitFailure> {
        let (answered, answer) = oneshot::channel();
        self.link
            .pending
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(self.sequence_number, answered);
        let (written, write) = oneshot::channel();
        let frame = Outgoing {
            command: Command::new(CommandStatus::EsmeRok, self.sequence_number, pdu),
            written: Some(written),
        };
        if self.link.out.send(frame).is_err() {
            self.link.forget(self.sequence_number);
            return Err(SubmitFailure::NotSent("the link closed before the write".into()));
        }
        let written_at = match tokio::time::timeout(self.response_timeout, write).await {
            Ok(Ok(Ok(at))) => at,
            Ok(Ok(Err(at))) => {
                self.link.forget(self.sequence_number);
                return Err(SubmitFailure::LinkLost { written_at: Some(at) });
            }
            Ok(Err(_)) => {
                self.link.forget(self.sequence_number);
                return Err(SubmitFailure::NotSent(
                    "the link closed before the submit was written".into(),
                ));
            }
            // Still in the socket's hands: it may yet reach the SMSC.
            Err(_) => {
                self.link.forget(self.sequence_number);
                return Err(SubmitFailure::Timeout { written_at: None });
            }
        };
        match tokio::time::timeout(self.response_timeout, answer).await {
            Ok(Ok(answer)) => Ok(SubmitAnswer {
                command_status: u32::from(answer.status()),
                message_id: match answer.pdu() {
                    Some(Pdu::SubmitSmResp(r)) if answer.status() == CommandStatus::EsmeRok => {
                        Some(r.message_id().to_string())
                    }
                    _ => None,
                },
                written_at,
            }),
            Ok(Err(_)) => Err(SubmitFailure::LinkLost {
                written_at: Some(written_at),
            }),
            Err(_) => {
                self.link.forget(self.sequence_number);
                Err(SubmitFailure::Timeout {
                    written_at: Some(written_at),
                })
            }
        }
    }
}

impl SessionHandle {
    pub fn state(&self) -> watch::Receiver<LinkState> {
        self.inner.state.subscribe()
    }

    /// The SMSC asked us to slow down (ESME_RTHROTTLED): the rate is cut to a quarter for a while.
    pub fn slow_down(&self) {
        *self.inner.slowed_until.lock().unwrap_or_else(|p| p.into_inner()) = Some(Instant::now() + SLOW_DOWN_FOR);
        tracing::info!("throttled by the SMSC: sending at a quarter of the rate for {SLOW_DOWN_FOR:?}");
    }

    /// The window and the rate in force: (requests awaiting an answer at most, submits per second).
    pub fn limits(&self) -> (usize, f64) {
        *self.inner.limits.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Changes the window and the rate without touching the link. A smaller window takes effect
    /// as answers come back: nothing in flight is cut short.
    pub fn set_limits(&self, window: usize, tps: f64) {
        let window = window.max(1);
        let old = {
            let mut limits = self.inner.limits.lock().unwrap_or_else(|p| p.into_inner());
            let old = limits.0;
            *limits = (window, tps);
            old
        };
        if window > old {
            self.inner.window.add_permits(window - old);
        } else if window < old {
            let excess = old - window;
            let forgotten = self.inner.window.forget_permits(excess);
            if forgotten < excess {
                let window = self.inner.window.clone();
                tokio::spawn(async move {
                    if let Ok(p) = window.acquire_many_owned((excess - forgotten) as u32).await {
                        p.forget();
                    }
                });
            }
        }
        tracing::info!(window, tps, "SMPP window and rate changed");
    }

    /// Waits for a bound link, a free window slot and the rate limit. Spends nothing while the
    /// link is down.
    pub async fn reserve(&self) -> Result<Permit, SubmitFailure> {
        let slot = self
            .inner
            .window
            .clone()
            .acquire_owned()
            .await
            .map_err(|_| SubmitFailure::NotSent("stopped".into()))?;
        {
            // Token bucket of one: submits are spaced at least 1/tps apart.
            let mut next = self.inner.next_slot.lock().await;
            let now = Instant::now();
            if *next > now {
                tokio::time::sleep_until(*next).await;
            }
            let slowed = self
                .inner
                .slowed_until
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .is_some_and(|u| u > now);
            let tps = self.limits().1.max(0.001) / if slowed { SLOW_DOWN_FACTOR } else { 1.0 };
            let gap = Duration::from_secs_f64(1.0 / tps);
            *next = (*next).max(now) + gap;
        }
        let mut links = self.inner.link.subscribe();
        let link = loop {
            if let Some(link) = links.borrow_and_update().clone() {
                break link;
            }
            if matches!(
                *self.inner.state.borrow(),
                LinkState::Stopped | LinkState::BindRefused { .. }
            ) {
                return Err(SubmitFailure::NotSent("the session is stopped".into()));
            }
            links
                .changed()
                .await
                .map_err(|_| SubmitFailure::NotSent("stopped".into()))?;
        };
        let sequence_number = link.next_seq();
        Ok(Permit {
            link,
            connection: self.inner.config.connection.clone(),
            sequence_number,
            response_timeout: self.inner.config.response_timeout,
            _slot: slot,
        })
    }
}

/// The running session.
pub struct Session {
    handle: SessionHandle,
    stop: watch::Sender<bool>,
    task: tokio::task::JoinHandle<()>,
}

impl Session {
    pub fn start(config: SessionConfig, inbound: Arc<dyn InboundHandler>) -> Session {
        let (state, _) = watch::channel(LinkState::Connecting { attempt: 1 });
        let (link, _) = watch::channel(None);
        let window = Arc::new(Semaphore::new(config.window.max(1)));
        let limits = Mutex::new((config.window.max(1), config.tps));
        let inner = Arc::new(Inner {
            config,
            state,
            link,
            window,
            limits,
            next_slot: tokio::sync::Mutex::new(Instant::now()),
            slowed_until: Mutex::new(None),
        });
        let (stop, stopped) = watch::channel(false);
        let task = tokio::spawn(run(inner.clone(), inbound, stopped));
        Session {
            handle: SessionHandle { inner },
            stop,
            task,
        }
    }

    pub fn handle(&self) -> SessionHandle {
        self.handle.clone()
    }

    /// Unbinds (when bound) and stops.
    pub async fn stop(self) {
        let _ = self.stop.send(true);
        let _ = tokio::time::timeout(Duration::from_secs(5), self.task).await;
    }
}

enum LinkEnd {
    Stop,
    Lost(String),
}

async fn run(inner: Arc<Inner>, inbound: Arc<dyn InboundHandler>, mut stopped: watch::Receiver<bool>) {
    let mut attempt: u32 = 0;
    let mut session_no: u64 = 0;
    loop {
        attempt += 1;
        inner.state.send_replace(LinkState::Connecting { attempt });
        let error = match connect_and_bind(&inner.config).await {
            Ok(framed) => {
                attempt = 0;
                session_no += 1;
                let session_id = format!(
                    "{}#{}@{}",
                    inner.config.connection,
                    session_no,
                    inner.config.clock.now_ms()
                );
                match run_link(&inner, &inbound, framed, session_id, &mut stopped).await {
                    LinkEnd::Stop => break,
                    LinkEnd::Lost(e) => e,
                }
            }
            // Wrong credentials will not fix themselves: stop and say so. Other refusals
            // (ESME_RBINDFAIL during maintenance, say) are retried with backoff.
            Err(Bind::Refused(status)) if matches!(status, 0x0E | 0x0F) => {
                let info = status::describe(status);
                tracing::error!(
                    status = info.name,
                    "the SMSC refused the bind; not retrying until reconfigured"
                );
                inner.state.send_replace(LinkState::BindRefused {
                    status,
                    name: info.name.into(),
                    since_ms: inner.config.clock.now_ms(),
                });
                until_stopped(&mut stopped).await;
                break;
            }
            Err(Bind::Refused(status)) => {
                let info = status::describe(status);
                format!("bind refused: {} ({})", info.name, info.meaning)
            }
            Err(Bind::Failed(e) | Bind::Unreachable(e) | Bind::TimedOut(e)) => e,
        };
        let wait = reconnect_wait(
            inner.config.reconnect_min,
            inner.config.reconnect_max,
            attempt,
            jitter(),
        );
        tracing::warn!(error = %error, retry_in_ms = wait.as_millis() as u64, "SMPP link down");
        inner.state.send_replace(LinkState::Down {
            error,
            since_ms: inner.config.clock.now_ms(),
            retry_in_ms: wait.as_millis() as u64,
        });
        tokio::select! {
            _ = tokio::time::sleep(wait) => {}
            _ = until_stopped(&mut stopped) => break,
        }
    }
    inner.link.send_replace(None);
    inner.state.send_replace(LinkState::Stopped);
}

/// How long to wait before connecting again after the `attempt`th failure in a row: exponential
/// backoff with full jitter (`jitter` in [0, 1)) between `min` and a bound that doubles with each
/// attempt up to `max`; never less than `min`, so a refusing SMSC is never hammered.
pub fn reconnect_wait(min: Duration, max: Duration, attempt: u32, jitter: f64) -> Duration {
    let bound = min.saturating_mul(1 << attempt.min(16)).min(max);
    min.max(bound.mul_f64(jitter.clamp(0.0, 1.0)))
}

/// Resolves once a stop is asked for (or the session is dropped).
async fn until_stopped(stopped: &mut watch::Receiver<bool>) {
    while !*stopped.borrow_and_update() {
        if stopped.changed().await.is_err() {
            return;
        }
    }
}

enum Bind {
    Refused(u32),
    /// No TCP connection (refused, no route, unknown host).
    Unreachable(String),
    /// Nothing answered in time (the connection or the bind).
    TimedOut(String),
    Failed(String),
}

/// What a trial bind found (the Settings screen's "test connection").
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Probe {
    /// Bound, then unbound.
    Bound,
    /// The SMSC answered the bind with this command_status.
    Refused(u32),
    /// No TCP connection (refused, no route, unknown host).
    Unreachable(String),
    /// No answer in time.
    TimedOut(String),
    /// Connected, but what came back was not a bind answer.
    Failed(String),
}

/// Binds once with `config` (its response timeout bounds each step), unbinds, and says how it
/// went. Nothing is sent but the bind and the unbind.
pub async fn probe(config: &SessionConfig) -> Probe {
    match connect_and_bind(config).await {
        Ok(mut framed) => {
            let _ = framed.send(Command::new(CommandStatus::EsmeRok, 2, Pdu::Unbind)).await;
            let _ = tokio::time::timeout(Duration::from_secs(2), framed.next()).await;
            Probe::Bound
        }
        Err(Bind::Refused(status)) => Probe::Refused(status),
        Err(Bind::TimedOut(e)) => Probe::TimedOut(e),
        Err(Bind::Unreachable(e)) => Probe::Unreachable(e),
        Err(Bind::Failed(e)) => Probe::Failed(e),
    }
}

async fn connect_and_bind(config: &SessionConfig) -> Result<Framed<TcpStream, CommandCodec>, Bind> {
    let addr = format!("{}:{}", config.host, config.port);
    let stream = tokio::time::timeout(config.response_timeout, TcpStream::connect(&addr))
        .await
        .map_err(|_| Bind::TimedOut(format!("connecting to {addr} timed out")))?
        .map_err(|e| Bind::Unreachable(format!("cannot connect to {addr}: {e}")))?;
    let _ = stream.set_nodelay(true);
    let mut framed = Framed::new(stream, CommandCodec::new());
    let bind = BindTransceiver::builder()
        .system_id(cstr(&config.system_id))
        .password(cstr(&config.password))
        .system_type(cstr(&config.system_type))
        .address_range(cstr(&config.address_range))
        .interface_version(if config.interface_version == 0x50 {
            InterfaceVersion::Smpp5_0
        } else {
            InterfaceVersion::Smpp3_4
        })
        .build();
    framed
        .send(Command::new(CommandStatus::EsmeRok, 1, bind))
        .await
        .map_err(|e| Bind::Failed(format!("cannot send the bind: {e}")))?;
    let answer = tokio::time::timeout(config.response_timeout, framed.next())
        .await
        .map_err(|_| Bind::TimedOut("no answer to the bind".into()))?;
    match answer {
        Some(Ok(c)) if c.id() == CommandId::BindTransceiverResp && c.status() == CommandStatus::EsmeRok => Ok(framed),
        Some(Ok(c)) if c.id() == CommandId::BindTransceiverResp => Err(Bind::Refused(u32::from(c.status()))),
        Some(Ok(c)) => Err(Bind::Failed(format!("unexpected answer to the bind: {:?}", c.id()))),
        Some(Err(e)) => Err(Bind::Failed(format!("unreadable answer to the bind: {e}"))),
        None => Err(Bind::Failed("the SMSC closed the connection during the bind".into())),
    }
}

async fn run_link(
    inner: &Arc<Inner>,
    inbound: &Arc<dyn InboundHandler>,
    framed: Framed<TcpStream, CommandCodec>,
    session_id: String,
    stopped: &mut watch::Receiver<bool>,
) -> LinkEnd {
    let (mut sink, mut source) = framed.split();
    let (out, mut outgoing) = mpsc::unbounded_channel::<Outgoing>();
    let pending: Pending = Arc::default();
    let link = Link {
        session_id: session_id.clone(),
        out: out.clone(),
        pending: pending.clone(),
        seq: Arc::new(AtomicU32::new(2)),
    };
    inner.link.send_replace(Some(link.clone()));
    inner.state.send_replace(LinkState::Bound {
        session_id: session_id.clone(),
        since_ms: inner.config.clock.now_ms(),
    });
    tracing::info!(session_id, "SMPP link bound");

    // Reports go to one task, in the order they arrived, so that they are stored in that order.
    let (arrivals, arrived) = mpsc::unbounded_channel::<Arrival>();
    let delivery = tokio::spawn(store_in_order(inbound.clone(), arrived, link.clone()));
    let mut incoming = Incoming {
        connection: &inner.config.connection,
        clock: &inner.config.clock,
        link: &link,
        arrivals: &arrivals,
        arrived: 0,
        awaiting_keepalive: None,
    };

    let mut keepalive = tokio::time::interval(inner.config.enquire_link_every);
    keepalive.tick().await;
    let end = loop {
        tokio::select! {
            next = source.next() => match next {
                Some(Ok(command)) => {
                    if let Some(end) = incoming.on(command) {
                        break end;
                    }
                }
                Some(Err(e)) => break LinkEnd::Lost(format!("unreadable PDU: {e}")),
                None => break LinkEnd::Lost("the SMSC closed the connection".into()),
            },
            Some(Outgoing { command, written }) = outgoing.recv() => {
                let result = sink.send(command).await;
                if let Some(written) = written {
                    let at = inner.config.clock.now_ms();
                    let _ = written.send(if result.is_ok() { Ok(at) } else { Err(at) });
                }
                if let Err(e) = result {
                    break LinkEnd::Lost(format!("write failed: {e}"));
                }
            }
            _ = keepalive.tick() => {
                if let Some((_, sent)) = incoming.awaiting_keepalive {
                    if sent.elapsed() >= inner.config.response_timeout {
                        break LinkEnd::Lost("no answer to enquire_link".into());
                    }
                    continue;
                }
                let seq = link.next_seq();
                incoming.awaiting_keepalive = Some((seq, Instant::now()));
                link.send(Command::new(CommandStatus::EsmeRok, seq, Pdu::EnquireLink));
            }
            _ = until_stopped(stopped) => {
                let seq = link.next_seq();
                let _ = sink.send(Command::new(CommandStatus::EsmeRok, seq, Pdu::Unbind)).await;
                let _ = tokio::time::timeout(Duration::from_secs(2), source.next()).await;
                break LinkEnd::Stop;
            }
        }
    };
    // Senders whose frames were never written learn it (not sent); those waiting for answers
    // learn the link is gone (their outcome is unknown).
    inner.link.send_replace(None);
    drop(outgoing);
    pending.lock().unwrap_or_else(|p| p.into_inner()).clear();
    // Reports already read are stored before the next session starts, so nothing of this session
    // is stored after what the next one brings. (Their acknowledgements no longer reach the SMSC,
    // which sends them again: repeats, recorded as such.)
    drop(arrivals);
    if tokio::time::timeout(STORE_ARRIVED_FOR, delivery).await.is_err() {
        tracing::warn!("reports of the lost session were still being stored when the next one started");
    }
    end
}

/// How long the end of a session waits for the reports it read to be stored.
const STORE_ARRIVED_FOR: Duration = Duration::from_secs(10);

/// Reports stored in one writer operation at most.
const ARRIVALS_PER_BATCH: usize = 1_024;

/// A deliver_sm or data_sm as read off the link, waiting to be stored and acknowledged.
struct Arrival {
    report: SmppReceived,
    sequence_number: u32,
    data_sm: bool,
}

/// Stores reports in the order they arrived, a batch at a time, and acknowledges each once it is
/// committed.
async fn store_in_order(inbound: Arc<dyn InboundHandler>, mut arrived: mpsc::UnboundedReceiver<Arrival>, link: Link) {
    let mut batch = Vec::new();
    while arrived.recv_many(&mut batch, ARRIVALS_PER_BATCH).await > 0 {
        let acks: Vec<(u32, bool)> = batch.iter().map(|a| (a.sequence_number, a.data_sm)).collect();
        let reports = batch.drain(..).map(|a| a.report).collect();
        let stored = inbound.deliver(reports).await;
        for (i, (seq, data_sm)) in acks.into_iter().enumerate() {
            let status = if stored.get(i).copied().unwrap_or(false) {
                CommandStatus::EsmeRok
            } else {
                CommandStatus::EsmeRxTAppn
            };
            let pdu = if data_sm {
                Pdu::DataSmResp(Default::default())
            } else {
                Pdu::DeliverSmResp(Default::default())
            };
            link.send(Command::new(status, seq, pdu));
        }
    }
}

/// What a bound link does with each PDU the SMSC sends.
struct Incoming<'a> {
    connection: &'a str,
    clock: &'a Clock,
    link: &'a Link,
    arrivals: &'a mpsc::UnboundedSender<Arrival>,
    /// Reports read on this session so far: the next one's arrival position.
    arrived: u64,
    awaiting_keepalive: Option<(u32, Instant)>,
}

impl Incoming<'_> {
    fn on(&mut self, command: Command) -> Option<LinkEnd> {
        let seq = command.sequence_number();
        match command.id() {
            CommandId::EnquireLinkResp => {
                if self.awaiting_keepalive.is_some_and(|(s, _)| s == seq) {
                    self.awaiting_keepalive = None;
                }
            }
            CommandId::EnquireLink => {
                self.link
                    .send(Command::new(CommandStatus::EsmeRok, seq, Pdu::EnquireLinkResp));
            }
            CommandId::Unbind => {
                self.link
                    .send(Command::new(CommandStatus::EsmeRok, seq, Pdu::UnbindResp));
                return Some(LinkEnd::Lost("the SMSC unbound".into()));
            }
            CommandId::DeliverSm | CommandId::DataSm => {
                self.arrived += 1;
                let report = received(
                    self.connection,
                    &self.link.session_id,
                    self.arrived,
                    &command,
                    self.clock.now_ms(),
                );
                let arrival = Arrival {
                    report,
                    sequence_number: seq,
                    data_sm: command.id() == CommandId::DataSm,
                };
                // The task storing them ends only after this sender is dropped.
                let _ = self.arrivals.send(arrival);
            }
            _ => match self.link.pending.lock().unwrap_or_else(|p| p.into_inner()).remove(&seq) {
                Some(waiter) => {
                    let _ = waiter.send(command);
                }
                None => tracing::warn!(seq, id = ?command.id(), "an answer nobody waits for (late after a timeout?)"),
            },
        }
        None
    }
}

fn raw_tlv(tlv: &SmppTlv) -> Tlv {
    let value = tlv.value().map(|v| {
        let mut buf = vec![0u8; rusmpp::encode::Length::length(v)];
        v.encode(&mut buf);
        buf
    });
    Tlv {
        tag: u16::from(tlv.tag()),
        value: value.unwrap_or_default(),
    }
}

/// The report as the receipt log keeps it.
fn received(connection: &str, session_id: &str, arrival_no: u64, command: &Command, now_ms: i64) -> SmppReceived {
    let mut r = SmppReceived {
        connection: connection.into(),
        session_id: Some(session_id.into()),
        sequence_number: Some(command.sequence_number()),
        arrival_no: Some(arrival_no),
        received_at: now_ms,
        ..SmppReceived::default()
    };
    match command.pdu() {
        Some(Pdu::DeliverSm(d)) => {
            r.esm_class = Some(d.esm_class.into());
            r.data_coding = Some(d.data_coding.into());
            r.source_addr = Some(d.source_addr.to_string());
            r.destination_addr = Some(d.destination_addr.to_string());
            r.short_message = d.short_message().as_ref().to_vec();
            r.tlvs = d.tlvs().iter().map(raw_tlv).collect();
        }
        Some(Pdu::DataSm(d)) => {
            r.data_sm = true;
            r.esm_class = Some(d.esm_class.into());
            r.data_coding = Some(d.data_coding.into());
            r.source_addr = Some(d.source_addr.to_string());
            r.destination_addr = Some(d.destination_addr.to_string());
            r.tlvs = d.tlvs().iter().map(raw_tlv).collect();
        }
        _ => {}
    }
    r
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
