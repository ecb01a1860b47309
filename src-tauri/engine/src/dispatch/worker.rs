//! The dispatcher: takes messages from the durable queue and sends them over the SMPP session.
//!
//! Order of each send, so that nothing is lost or sent twice by our own doing:
//! 1. a session permit (bound link, window slot, rate) — nothing is claimed while the link is down;
//! 2. a leased claim of the next due message;
//! 3. the attempt row committed with the session and sequence number;
//! 4. the PDU written, the answer awaited;
//! 5. the result committed (accepted, retry, failed, or an outcome-unknown exception); a result
//!    the database refuses (a full disk) is tried again for up to a lease, and a send that ends
//!    without its result committed is settled by in-run recovery (`upkeep`), never resent blindly.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use rusmpp::pdus::SubmitSm;
use rusmpp::types::{EmptyOrFullCOctetString, OctetString};
use rusmpp::values::{DataCoding, EsmClass, Npi, RegisteredDelivery, Ton};
use tokio::sync::watch;

use super::lanes;
use super::queue::{self, Claimed, SendPolicy, SubmitResult};
use super::retry::RetryPolicy;
use super::routing::{RouteTable, Router};
use super::upkeep::{self, Claims};
use crate::clock::{jitter, Clock};
use crate::domain::MessageKind;
use crate::messages;
use crate::receipts::policy::ReceiptPolicy;
use crate::smpp::cstr;
use crate::smpp::session::{Permit, SessionHandle, SubmitFailure};
use crate::smpp::status::ClassOverrides;
use crate::sms::encoding::{self, Encoding};
use crate::store::{Store, StoreError};

#[derive(Debug, Clone)]
pub struct DispatcherConfig {
    /// Who holds the leases (one dispatcher per process).
    pub owner: String,
    pub lease: Duration,
    /// How long to wait before looking again when nothing is due.
    pub idle_poll: Duration,
    /// The sender id (alphanumeric) or number messages go out from.
    pub source_addr: String,
    /// Retry limits by message kind (otp, transactional, bulk).
    pub retry: [RetryPolicy; 3],
    /// Messages claimed in one transaction; each still waits for its own session permit.
    pub claim_batch: u32,
    /// Status codes classed otherwise than the documented defaults.
    pub classes: ClassOverrides,
    /// Per kind (otp, transactional, bulk): resend after an unknown outcome instead of holding
    /// the message for a person.
    pub resend_unknown: [bool; 3],
    /// Messages claimed and not yet finished at most (keep it near the session's window, so
    /// priorities still hold for what arrives meanwhile).
    pub max_in_flight: usize,
}

impl DispatcherConfig {
    fn send_policy(&self, kind: MessageKind) -> SendPolicy<'_> {
        let k = kind.priority() as usize;
        SendPolicy {
            retry: &self.retry[k],
            classes: &self.classes,
            resend_unknown: self.resend_unknown[k],
        }
    }
}

impl Default for DispatcherConfig {
    fn default() -> Self {
        DispatcherConfig {
            owner: format!("dispatcher-{}", std::process::id()),
            lease: Duration::from_secs(120),
            idle_poll: Duration::from_millis(200),
            source_addr: "smsdesk".into(),
            claim_batch: 32,
            max_in_flight: 64,
            classes: ClassOverrides::default(),
            resend_unknown: [false; 3],
            retry: [
                RetryPolicy::default_for(MessageKind::Otp),
                RetryPolicy::default_for(MessageKind::Transactional),
                RetryPolicy::default_for(MessageKind::Bulk),
            ],
        }
    }
}

/// The rules a dispatcher sends by; replaced while it runs when settings change.
pub(super) type Rules = (Arc<ReceiptPolicy>, Arc<DispatcherConfig>);

/// One connection the dispatcher sends on, with the rules it sends by there.
pub struct Lane {
    pub session: SessionHandle,
    pub receipts: ReceiptPolicy,
    pub config: DispatcherConfig,
}

pub struct Dispatcher {
    stop: watch::Sender<bool>,
    rules: HashMap<String, watch::Sender<Rules>>,
    task: tokio::task::JoinHandle<()>,
}

impl Dispatcher {
    /// Recovers what a previous process left half-done, then sends on one connection the
    /// messages queued for it (no routes: as earlier versions did, and as tests of one link do).
    pub async fn start(
        store: Arc<Store>,
        session: SessionHandle,
        receipts: ReceiptPolicy,
        config: DispatcherConfig,
    ) -> Result<Dispatcher, StoreError> {
        let link = vec![(session.connection().to_owned(), session.state())];
        let router = Arc::new(Router::new(RouteTable::none(), link, store.clock().now_ms()));
        let lane = Lane {
            session,
            receipts,
            config,
        };
        Dispatcher::start_lanes(store, vec![lane], router).await
    }

    /// Recovers what a previous process left half-done (once, for every connection), then sends
    /// on each lane the messages `router` gives its connection.
    pub async fn start_lanes(
        store: Arc<Store>,
        lanes: Vec<Lane>,
        router: Arc<Router>,
    ) -> Result<Dispatcher, StoreError> {
        let (requeued, unknown) = store.writer().write(queue::recover).await?;
        if requeued + unknown > 0 {
            tracing::warn!(
                requeued,
                unknown,
                "recovered messages left mid-send by the previous run"
            );
        }
        let (stop, stopped) = watch::channel(false);
        let claims = Arc::new(Claims::default());
        let first = lanes.first().map(|l| l.config.clone()).unwrap_or_default();
        let recovery = tokio::spawn(upkeep::recover_stranded(
            store.clone(),
            claims.clone(),
            first.owner.clone(),
            upkeep::sweep_every(first.lease),
            stopped.clone(),
        ));
        let expiry = tokio::spawn(upkeep::expire_on_time(store.clone(), stopped.clone()));
        let mut rules = HashMap::new();
        let mut runs = Vec::new();
        for lane in lanes {
            let (tx, current) = watch::channel((Arc::new(lane.receipts), Arc::new(lane.config)));
            rules.insert(lane.session.connection().to_owned(), tx);
            let run = lanes::run(
                store.clone(),
                lane.session,
                current,
                claims.clone(),
                router.clone(),
                stopped.clone(),
            );
            runs.push(tokio::spawn(run));
        }
        let task = tokio::spawn(async move {
            for run in runs {
                let _ = run.await;
            }
            let _ = expiry.await;
            let _ = recovery.await;
        });
        Ok(Dispatcher { stop, rules, task })
    }

    /// New rules (retry limits, classes, receipt policy, sender id) on every connection for
    /// every message claimed from now on; sends already under way finish by the rules they
    /// started with.
    pub fn reconfigure(&self, receipts: ReceiptPolicy, config: DispatcherConfig) {
        for rules in self.rules.values() {
            rules.send_replace((Arc::new(receipts.clone()), Arc::new(config.clone())));
        }
    }

    /// New rules on one connection (see [`Dispatcher::reconfigure`]).
    pub fn reconfigure_lane(&self, connection: &str, receipts: ReceiptPolicy, config: DispatcherConfig) {
        if let Some(rules) = self.rules.get(connection) {
            rules.send_replace((Arc::new(receipts), Arc::new(config)));
        }
    }

    /// Stops taking new messages; sends in flight finish (or time out) and are recorded.
    pub async fn stop(self) {
        let _ = self.stop.send(true);
        let _ = tokio::time::timeout(Duration::from_secs(30), self.task).await;
    }
}

/// SMPP absolute time `YYMMDDhhmmss000+` (UTC) for a validity end.
fn smpp_time(ms: i64) -> String {
    let (y, mo, d, h, mi, sec) = crate::clock::civil(ms);
    format!("{:02}{mo:02}{d:02}{h:02}{mi:02}{sec:02}000+", y % 100)
}

fn submit_pdu(
    config: &DispatcherConfig,
    m: &Claimed,
    encoding: Encoding,
    udh: Option<[u8; 6]>,
    octets: &[u8],
) -> SubmitSm {
    let alphanumeric = config.source_addr.chars().any(|c| c.is_ascii_alphabetic());
    let (src_ton, src_npi) = if alphanumeric {
        (Ton::Alphanumeric, Npi::Unknown)
    } else {
        (Ton::International, Npi::Isdn)
    };
    let mut short_message = Vec::with_capacity(octets.len() + 6);
    short_message.extend(udh.iter().flatten());
    short_message.extend_from_slice(octets);
    let validity = m.expires_at.map(smpp_time).unwrap_or_default();
    SubmitSm::builder()
        .source_addr_ton(src_ton)
        .source_addr_npi(src_npi)
        .source_addr(cstr(&config.source_addr))
        .dest_addr_ton(Ton::International)
        .dest_addr_npi(Npi::Isdn)
        .destination_addr(cstr(m.destination.trim_start_matches('+')))
        // Set explicitly: rusmpp's default esm_class is 0x08 (a delivery acknowledgement).
        .esm_class(EsmClass::from(if udh.is_some() { 0x40 } else { 0x00 }))
        .registered_delivery(RegisteredDelivery::from(m.registered_delivery))
        .validity_period(
            EmptyOrFullCOctetString::from_vec({
                let mut v = validity.into_bytes();
                v.push(0);
                v
            })
            .unwrap_or_default(),
        )
        .data_coding(DataCoding::from(encoding.data_coding()))
        .short_message(OctetString::from_vec(short_message).unwrap_or_default())
        .build()
}

/// Sends every part of the message not accepted yet, one submit each, stopping at the first that
/// is not accepted. Each part's validity is checked right before its attempt is recorded and again
/// right before its PDU is written.
pub(super) async fn send(
    store: Arc<Store>,
    session: SessionHandle,
    first: Permit,
    m: Claimed,
    (receipts, config): Rules,
    patience: &Patience,
    routing: Option<String>,
) {
    let (encoding, parts) = encoding::split(&m.body);
    let total = parts.len();
    let reference = (m.message_id & 0xFF) as u8;
    let mut permit = Some(first);
    for (i, part) in parts.iter().enumerate() {
        let segment = i as u32 + 1;
        if m.parts_accepted.contains(&segment) {
            continue;
        }
        let Some(permit) = window_slot(permit.take(), &session).await else {
            // Stopping: the message stays leased, and recovery puts back what was not
            // accepted; nothing of this part was recorded, let alone written.
            return;
        };
        let Some(attempt) = record_attempt(&store, &permit, &m, segment, patience, routing.clone()).await else {
            return;
        };
        let udh = (total > 1).then(|| encoding::concat_udh(reference, i as u8 + 1, total as u8));
        let result = submit(permit, submit_pdu(&config, &m, encoding, udh, &part.octets)).await;
        let next = record_result(&store, &m, attempt, result, (&receipts, &config), patience).await;
        if !next_part_may_go(next, &session, m.message_id) {
            return;
        }
    }
}

/// The permit in hand, else the next one the session grants (a bound link, a window slot, the
/// rate); None when the session grants none.
pub(super) async fn window_slot(held: Option<Permit>, session: &SessionHandle) -> Option<Permit> {
    match held {
        Some(p) => Some(p),
        None => session.reserve().await.ok(),
    }
}

/// Records the attempt for one part (with the session and sequence number it goes out under)
/// before anything is written, so a crash after the write leaves a try to hold the message by,
/// never a blind resend. The validity is checked right before and again right after: a message
/// past its validity is expired (or held, when parts went out) instead. Returns the attempt's id
/// when the part may be written; None when it may not (expired, or the attempt could not be
/// recorded, in which case the message stays `sending` until in-run recovery settles it).
async fn record_attempt(
    store: &Arc<Store>,
    permit: &Permit,
    m: &Claimed,
    segment: u32,
    patience: &Patience,
    routing: Option<String>,
) -> Option<i64> {
    let id = m.message_id;
    if past_validity(m, store.clock()) {
        finish(store, move |tx| queue::expire_claimed(tx, id, None), id, patience).await;
        return None;
    }
    let (connection, session_id, seq) = (
        permit.connection().to_owned(),
        permit.session_id().to_owned(),
        permit.sequence_number(),
    );
    let registered_delivery = m.registered_delivery;
    let attempt = match store
        .writer()
        .write_replayable(move |tx| {
            let wire = messages::Wire {
                connection: &connection,
                session_id: &session_id,
                sequence_number: seq,
                routing: routing.as_deref(),
            };
            messages::begin_attempt(tx, id, segment, wire, registered_delivery)
        })
        .await
    {
        Ok(a) => a,
        Err(e) => {
            tracing::error!(error = %e, message = id, "cannot record the attempt; in-run recovery will put the message back in the queue");
            return None;
        }
    };
    if past_validity(m, store.clock()) {
        finish(
            store,
            move |tx| queue::expire_claimed(tx, id, Some(attempt.id)),
            id,
            patience,
        )
        .await;
        return None;
    }
    Some(attempt.id)
}

/// Writes the submit and waits for its answer, as the queue records it.
async fn submit(permit: Permit, pdu: SubmitSm) -> SubmitResult {
    match permit.submit(pdu).await {
        Ok(a) => SubmitResult::Answered {
            command_status: a.command_status,
            message_id: a.message_id,
            written_at: Some(a.written_at),
        },
        Err(SubmitFailure::NotSent(_)) => SubmitResult::NotSent,
        Err(SubmitFailure::Timeout { written_at }) => SubmitResult::Timeout { written_at },
        Err(SubmitFailure::LinkLost { written_at }) => SubmitResult::LinkLost { written_at },
    }
}

/// Records what the submit of `attempt` came to, by the rules the send started with: the queue
/// decides whether the message is accepted, retried, failed or held. None when it cannot be
/// recorded.
async fn record_result(
    store: &Arc<Store>,
    m: &Claimed,
    attempt: i64,
    result: SubmitResult,
    (receipts, config): (&Arc<ReceiptPolicy>, &Arc<DispatcherConfig>),
    patience: &Patience,
) -> Option<queue::Next> {
    let (c, policy, cfg) = (m.clone(), receipts.clone(), config.clone());
    finish(
        store,
        move |tx| {
            let now = tx.now_ms();
            queue::record(tx, &c, attempt, &result, now, &policy, cfg.send_policy(c.kind), jitter)
        },
        m.message_id,
        patience,
    )
    .await
}

/// Whether the next part may go out: only after this one was accepted. A submit throttled by the
/// SMSC slows the session down.
fn next_part_may_go(next: Option<queue::Next>, session: &SessionHandle, id: i64) -> bool {
    match next {
        Some(queue::Next::PartAccepted) => true,
        Some(queue::Next::Accepted) | None => false,
        Some(next) => {
            if matches!(next, queue::Next::RetryAt { slow_down: true, .. }) {
                session.slow_down();
            }
            tracing::info!(message = id, ?next, "submit not accepted");
            false
        }
    }
}

fn past_validity(m: &Claimed, clock: &Clock) -> bool {
    m.expires_at.is_some_and(|v| v <= clock.now_ms())
}

/// How long a send keeps trying to record what it came to while the database refuses the write.
pub(super) struct Patience {
    /// A lease: past it, in-run recovery settles the message instead.
    pub(super) lease: Duration,
    /// A stopping dispatcher does not wait: start-up recovery settles the message instead.
    pub(super) stopped: watch::Receiver<bool>,
}

/// Records what became of a send. A write refused for want of room (or whose commit failed) is
/// tried again, with growing pauses, within `patience`: what the SMSC answered is known only
/// here, and recording it beats holding the message as an unknown outcome. Logs (and returns
/// None) when it cannot be recorded: the message stays `sending` until recovery settles it.
async fn finish(
    store: &Arc<Store>,
    op: impl Fn(&mut crate::store::WriteTx<'_>) -> Result<queue::Next, StoreError> + Clone + Send + 'static,
    message: i64,
    patience: &Patience,
) -> Option<queue::Next> {
    let started = tokio::time::Instant::now();
    let mut pause = Duration::from_millis(100);
    let mut stopped = patience.stopped.clone();
    loop {
        let e = match store.writer().write_replayable(op.clone()).await {
            Ok(next) => return Some(next),
            Err(e) => e,
        };
        let again = e.is_storage_full() || matches!(e, StoreError::Commit(_));
        let stopping = *stopped.borrow();
        if !again || stopping || started.elapsed() + pause > patience.lease {
            tracing::error!(error = %e, message, "cannot record what became of a submit; recovery will settle it");
            return None;
        }
        tracing::warn!(error = %e, message, "cannot record what became of a submit yet; trying again");
        tokio::select! {
            _ = tokio::time::sleep(pause) => {}
            _ = stopped.changed() => {}
        }
        pause = (pause * 2).min(Duration::from_secs(5));
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn validity_is_written_as_smpp_absolute_time_in_utc() {
        assert_eq!(super::smpp_time(0), "700101000000000+");
        assert_eq!(super::smpp_time(1_795_979_115_800), "261129190515000+");
    }
}
