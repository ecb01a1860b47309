//! One bound link: it reads the SMSC's PDUs, writes ours (telling each submit when its frame was
//! flushed), keeps the link alive with enquire_link, unbinds when asked to stop, and on the way
//! out tells every sender what became of its submit.

use std::sync::atomic::AtomicU32;
use std::sync::Arc;
use std::time::Duration;

use futures::stream::{SplitSink, SplitStream};
use futures::{SinkExt, StreamExt};
use rusmpp::tokio_codec::DecodeError;
use rusmpp::{Command, CommandStatus, Pdu};
use tokio::sync::{mpsc, watch};
use tokio::task::JoinHandle;
use tokio::time::Instant;

use smsdesk_core::time::Clock;

use super::inbound::{store_in_order, Arrival, Incoming, STORE_ARRIVED_FOR};
use super::{until_stopped, InboundHandler, Inner, Link, LinkEnd, LinkState, Outgoing, Run, Wire};

/// Runs a freshly bound link until it is lost or the session stops, and says which.
pub(super) async fn run_link(
    inner: &Arc<Inner>,
    i: usize,
    inbound: &Arc<dyn InboundHandler>,
    framed: Wire,
    session_id: String,
    stopped: &mut watch::Receiver<Run>,
) -> LinkEnd {
    let (out, mut outgoing) = mpsc::unbounded_channel::<Outgoing>();
    let link = Link {
        session_id,
        out,
        pending: Arc::default(),
        // 1 was the bind's.
        seq: Arc::new(AtomicU32::new(2)),
    };
    announce_bound(inner, i, &link);

    // Reports go to one task, in the order they arrived, so that they are stored in that order.
    let (arrivals, arrived) = mpsc::unbounded_channel::<Arrival>();
    let delivery = tokio::spawn(store_in_order(inbound.clone(), arrived, link.clone()));
    let mut incoming = Incoming::new(&inner.config, &link, &arrivals);

    let end = serve(inner, &link, &mut incoming, framed, &mut outgoing, stopped).await;
    wind_down(inner, i, &link, outgoing, arrivals, delivery).await;
    end
}

/// Hands the link to the senders and says (in the log and the state) that it is bound.
fn announce_bound(inner: &Inner, i: usize, link: &Link) {
    if inner.binds[i].role.sends() {
        inner.set_link(i, Some(link.clone()));
    }
    inner.set_state(
        i,
        LinkState::Bound {
            session_id: link.session_id.clone(),
            since_ms: inner.config.clock.now_ms(),
        },
    );
    tracing::info!(session_id = link.session_id, "SMPP link bound");
}

/// The link's loop: whatever comes first of a PDU read, a frame to write, a keepalive tick and a
/// stop, until one of them ends the link.
async fn serve(
    inner: &Inner,
    link: &Link,
    incoming: &mut Incoming<'_>,
    framed: Wire,
    outgoing: &mut mpsc::UnboundedReceiver<Outgoing>,
    stopped: &mut watch::Receiver<Run>,
) -> LinkEnd {
    let (mut sink, mut source) = framed.split();
    let mut keepalive = tokio::time::interval(inner.config.enquire_link_every);
    keepalive.tick().await;
    loop {
        let end = tokio::select! {
            next = source.next() => on_read(incoming, next),
            Some(frame) = outgoing.recv() => write(&mut sink, frame, &inner.config.clock).await,
            _ = keepalive.tick() => keep_alive(link, &mut incoming.awaiting_keepalive, inner.config.response_timeout),
            _ = until_stopped(stopped) => Some(unbind(&mut sink, &mut source, link).await),
        };
        if let Some(end) = end {
            return end;
        }
    }
}

/// What was read: a PDU is handled; an unreadable one, or the end of the stream, loses the link.
fn on_read(incoming: &mut Incoming<'_>, next: Option<Result<Command, DecodeError>>) -> Option<LinkEnd> {
    match next {
        Some(Ok(command)) => incoming.on(command),
        Some(Err(e)) => Some(LinkEnd::Lost(format!("unreadable PDU: {e}"))),
        None => Some(LinkEnd::Lost("the SMSC closed the connection".into())),
    }
}

/// Writes one frame and tells whoever waits on it when it was flushed, or that the write failed
/// part-way (the SMSC may have read it all the same); a failed write loses the link.
async fn write(sink: &mut SplitSink<Wire, Command>, frame: Outgoing, clock: &Clock) -> Option<LinkEnd> {
    let Outgoing { command, written } = frame;
    let result = sink.send(command).await;
    if let Some(written) = written {
        let at = clock.now_ms();
        let _ = written.send(if result.is_ok() { Ok(at) } else { Err(at) });
    }
    result.err().map(|e| LinkEnd::Lost(format!("write failed: {e}")))
}

/// A keepalive tick: sends an enquire_link, unless one is still unanswered; that one loses the
/// link once it is older than the response timeout.
fn keep_alive(link: &Link, awaiting: &mut Option<(u32, Instant)>, response_timeout: Duration) -> Option<LinkEnd> {
    if let Some((_, sent)) = *awaiting {
        return (sent.elapsed() >= response_timeout).then(|| LinkEnd::Lost("no answer to enquire_link".into()));
    }
    let seq = link.next_seq();
    *awaiting = Some((seq, Instant::now()));
    link.send(Command::new(CommandStatus::EsmeRok, seq, Pdu::EnquireLink));
    None
}

/// Asked to stop: unbinds, waiting (2 s at most) for the answer.
async fn unbind(sink: &mut SplitSink<Wire, Command>, source: &mut SplitStream<Wire>, link: &Link) -> LinkEnd {
    let seq = link.next_seq();
    let _ = sink.send(Command::new(CommandStatus::EsmeRok, seq, Pdu::Unbind)).await;
    let _ = tokio::time::timeout(Duration::from_secs(2), source.next()).await;
    LinkEnd::Stop
}

/// After the link ended: takes it from the senders and waits (a while) for the reports it read.
async fn wind_down(
    inner: &Inner,
    i: usize,
    link: &Link,
    outgoing: mpsc::UnboundedReceiver<Outgoing>,
    arrivals: mpsc::UnboundedSender<Arrival>,
    delivery: JoinHandle<()>,
) {
    // Senders whose frames were never written learn it (not sent); those waiting for answers
    // learn the link is gone (their outcome is unknown).
    inner.set_link(i, None);
    drop(outgoing);
    link.pending.lock().unwrap_or_else(|p| p.into_inner()).clear();
    // Reports already read are stored before the next session starts, so nothing of this session
    // is stored after what the next one brings. (Their acknowledgements no longer reach the SMSC,
    // which sends them again: repeats, recorded as such.)
    drop(arrivals);
    if tokio::time::timeout(STORE_ARRIVED_FOR, delivery).await.is_err() {
        tracing::warn!("reports of the lost session were still being stored when the next one started");
    }
}
