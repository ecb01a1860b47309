//! The dispatcher: takes messages from the durable queue and sends them over the SMPP session.
//!
//! Order of each send, so that nothing is lost or sent twice by our own doing:
//! 1. a session permit (bound link, window slot, rate) — nothing is claimed while the link is down;
//! 2. a leased claim of the next due message;
//! 3. the attempt row committed with the session and sequence number;
//! 4. the PDU written, the answer awaited;
//! 5. the result committed (accepted, retry, failed, or an outcome-unknown exception).

use std::sync::Arc;
use std::time::Duration;

use rusmpp::pdus::SubmitSm;
use rusmpp::types::{EmptyOrFullCOctetString, OctetString};
use rusmpp::values::{DataCoding, EsmClass, Npi, RegisteredDelivery, Ton};
use tokio::sync::watch;

use super::queue::{self, Claimed, SendPolicy, SubmitResult};
use super::retry::RetryPolicy;
use crate::clock::{jitter, now_ms};
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

/// How often queued messages past their validity are marked expired.
const EXPIRE_EVERY: Duration = Duration::from_secs(5);

/// The rules a dispatcher sends by; replaced while it runs when settings change.
type Rules = (Arc<ReceiptPolicy>, Arc<DispatcherConfig>);

pub struct Dispatcher {
    stop: watch::Sender<bool>,
    rules: watch::Sender<Rules>,
    task: tokio::task::JoinHandle<()>,
}

impl Dispatcher {
    /// Recovers what a previous process left half-done, then starts sending.
    pub async fn start(
        store: Arc<Store>,
        session: SessionHandle,
        receipts: ReceiptPolicy,
        config: DispatcherConfig,
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
        let (rules, current) = watch::channel((Arc::new(receipts), Arc::new(config)));
        let task = tokio::spawn(run(store, session, current, stopped));
        Ok(Dispatcher { stop, rules, task })
    }

    /// New rules (retry limits, classes, receipt policy, sender id) for every message claimed
    /// from now on; sends already under way finish by the rules they started with.
    pub fn reconfigure(&self, receipts: ReceiptPolicy, config: DispatcherConfig) {
        self.rules.send_replace((Arc::new(receipts), Arc::new(config)));
    }

    /// Stops taking new messages; sends in flight finish (or time out) and are recorded.
    pub async fn stop(self) {
        let _ = self.stop.send(true);
        let _ = tokio::time::timeout(Duration::from_secs(30), self.task).await;
    }
}

async fn run(
    store: Arc<Store>,
    session: SessionHandle,
    rules: watch::Receiver<Rules>,
    mut stopped: watch::Receiver<bool>,
) {
    let mut in_flight = tokio::task::JoinSet::new();
    let mut last_expiry = std::time::Instant::now() - EXPIRE_EVERY;
    loop {
        let (receipts, config) = rules.borrow().clone();
        if last_expiry.elapsed() >= EXPIRE_EVERY {
            last_expiry = std::time::Instant::now();
            match store.writer().write(|tx| queue::expire(tx, now_ms())).await {
                Ok(0) => {}
                Ok(n) => tracing::info!(messages = n, "expired before they could be sent"),
                Err(e) => tracing::error!(error = %e, "expiring messages failed"),
            }
        }
        if *stopped.borrow() {
            break;
        }
        while in_flight.len() >= config.max_in_flight.max(1) {
            in_flight.join_next().await;
        }
        let permit = tokio::select! {
            p = session.reserve() => p,
            _ = stopped.changed() => break,
        };
        let Ok(permit) = permit else {
            tokio::time::sleep(config.idle_poll).await;
            continue;
        };
        let (owner, lease, batch) = (
            config.owner.clone(),
            config.lease.as_millis() as i64,
            config.claim_batch.max(1),
        );
        let claimed = store
            .writer()
            .write(move |tx| queue::claim(tx, &owner, now_ms(), lease, batch))
            .await;
        match claimed {
            Ok(claimed) if !claimed.is_empty() => {
                // The first goes with the permit in hand; the others wait for theirs, so nothing is
                // attempted while the link is down even if it drops now.
                let mut permit = Some(permit);
                for message in claimed {
                    let (store, session, receipts, config) =
                        (store.clone(), session.clone(), receipts.clone(), config.clone());
                    let first = permit.take();
                    in_flight.spawn(async move {
                        let permit = match first {
                            Some(p) => p,
                            None => match session.reserve().await {
                                Ok(p) => p,
                                // Stopping: the lease is left for recovery; nothing was attempted.
                                Err(_) => return,
                            },
                        };
                        send(store, session, permit, message, receipts, config).await;
                    });
                }
            }
            Ok(_) => {
                drop(permit);
                tokio::select! {
                    _ = tokio::time::sleep(config.idle_poll) => {}
                    _ = stopped.changed() => break,
                }
            }
            Err(e) => {
                tracing::error!(error = %e, "claiming from the queue failed");
                tokio::time::sleep(config.idle_poll).await;
            }
        }
        while in_flight.try_join_next().is_some() {}
    }
    while in_flight.join_next().await.is_some() {}
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
    let validity = m.valid_until.map(smpp_time).unwrap_or_default();
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

async fn send(
    store: Arc<Store>,
    session: SessionHandle,
    first: Permit,
    m: Claimed,
    receipts: Arc<ReceiptPolicy>,
    config: Arc<DispatcherConfig>,
) {
    let (encoding, parts) = encoding::split(&m.body);
    let total = parts.len();
    let reference = (m.message_id & 0xFF) as u8;
    let mut permit = Some(first);
    let mut accepted_parts = 0usize;
    for (i, part) in parts.iter().enumerate() {
        let permit = match permit.take() {
            Some(p) => p,
            None => match session.reserve().await {
                Ok(p) => p,
                Err(e) => {
                    // Earlier parts went out: the message is neither sent nor safe to resend whole.
                    finish_partial(&store, &m, None, accepted_parts, total, &e.to_string(), &receipts).await;
                    return;
                }
            },
        };
        let (session_id, seq, id, segment) = (
            permit.session_id().to_owned(),
            permit.sequence_number(),
            m.message_id,
            i as u32 + 1,
        );
        let attempt = match store
            .writer()
            .write(move |tx| messages::begin_attempt(tx, id, segment, Some(&session_id)))
            .await
        {
            Ok(a) => a,
            Err(e) => {
                tracing::error!(error = %e, message = id, "cannot record the attempt; the message stays leased until recovery");
                return;
            }
        };
        let udh = (total > 1).then(|| encoding::concat_udh(reference, i as u8 + 1, total as u8));
        let answer = permit
            .submit(submit_pdu(&config, &m, encoding, udh, &part.octets))
            .await;
        let result = match answer {
            Ok(a) => SubmitResult::Answered {
                command_status: a.command_status,
                message_id: a.message_id,
                sequence_number: seq,
            },
            Err(SubmitFailure::NotSent(_)) => SubmitResult::NotSent,
            Err(SubmitFailure::Timeout) => SubmitResult::Timeout,
            Err(SubmitFailure::LinkLost) => SubmitResult::LinkLost,
        };
        let accepted = matches!(result, SubmitResult::Answered { command_status: 0, .. });
        if !accepted && accepted_parts > 0 {
            finish_partial(
                &store,
                &m,
                Some((attempt.id, result)),
                accepted_parts,
                total,
                "a later part was not accepted",
                &receipts,
            )
            .await;
            return;
        }
        let (c, r, policy, cfg) = (m.clone(), result, receipts.clone(), config.clone());
        let recorded = store
            .writer()
            .write(move |tx| {
                queue::record(
                    tx,
                    &c,
                    attempt.id,
                    &r,
                    now_ms(),
                    &policy,
                    cfg.send_policy(c.kind),
                    jitter,
                )
            })
            .await;
        match recorded {
            Ok(_) if accepted => accepted_parts += 1,
            Ok(next) => {
                if matches!(next, queue::Next::RetryAt { slow_down: true, .. }) {
                    session.slow_down();
                }
                tracing::info!(message = id, ?next, "submit not accepted");
                return;
            }
            Err(e) => {
                tracing::error!(error = %e, message = id, "cannot record the submit's result");
                return;
            }
        }
    }
}

/// Some parts of a long message were accepted and one was not: resending the whole would send
/// the accepted parts twice, so the message waits for a person.
async fn finish_partial(
    store: &Arc<Store>,
    m: &Claimed,
    failed: Option<(i64, SubmitResult)>,
    accepted: usize,
    total: usize,
    why: &str,
    receipts: &Arc<ReceiptPolicy>,
) {
    let (c, why, policy) = (
        m.clone(),
        format!("{accepted} of {total} parts accepted; {why}"),
        receipts.clone(),
    );
    // A partly sent message is always held for a person, whatever the resend policy says.
    let (retry, classes) = (RetryPolicy::default_for(m.kind), ClassOverrides::default());
    let result = store
        .writer()
        .write(move |tx| match failed {
            Some((attempt, failure)) => {
                let partial = SubmitResult::Partial {
                    failure: Box::new(failure),
                    why,
                };
                let send = SendPolicy {
                    retry: &retry,
                    classes: &classes,
                    resend_unknown: false,
                };
                queue::record(tx, &c, attempt, &partial, now_ms(), &policy, send, jitter).map(|_| ())
            }
            None => queue::hold(tx, c.message_id, &why).map(|_| ()),
        })
        .await;
    if let Err(e) = result {
        tracing::error!(error = %e, message = m.message_id, "cannot record a partly sent message");
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
