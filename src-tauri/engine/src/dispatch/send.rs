//! One message's send: every part not accepted yet, each with its attempt recorded before its PDU
//! is written and its result recorded after (see the dispatcher's order of each send in
//! `worker`).

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::watch;

use super::config::{DispatcherConfig, Rules};
use crate::clock::{jitter, Clock};
use crate::decisions;
use crate::messages;
use crate::queue::{self, Claimed, SubmitResult};
use crate::smpp::session::{Permit, SessionHandle, SubmitFailure};
use crate::sms::encoding;
use crate::store::{Store, StoreError};
use smsdesk_core::receipts::policy::ReceiptPolicy;
use smsdesk_smpp::submit::Submit;

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
    // A one-time code is opened only here, in memory, right before it is split into PDUs.
    let Some(text) = crate::privacy::codes::text_to_send(store.path(), &m.body, m.sealed.as_deref()) else {
        code_lost(&store, m.message_id).await;
        return;
    };
    let (encoding, parts) = encoding::split(&text);
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
        let owner = config.owner.clone();
        let Some(attempt) = record_attempt(&store, &permit, &m, segment, patience, (owner, routing.clone())).await
        else {
            return;
        };
        let wire = Submit {
            source_addr: &config.source_addr,
            destination: &m.destination,
            registered_delivery: m.registered_delivery,
            valid_until: m.expires_at,
            data_coding: encoding.data_coding(),
            udh: (total > 1).then(|| encoding::concat_udh(reference, i as u8 + 1, total as u8)),
            octets: &part.octets,
        };
        let result = submit(permit, wire).await;
        let next = record_result(&store, &m, attempt, result, (&receipts, &config), patience).await;
        if !next_part_may_go(next, &session, m.message_id) {
            return;
        }
    }
}

/// A claimed code this process cannot open (sealed by an earlier run): expired, nothing sent.
async fn code_lost(store: &Store, message_id: i64) {
    let write = store
        .writer()
        .write(move |tx| {
            crate::store::tables::queue::set_status(
                tx,
                message_id,
                crate::domain::QueueStatus::Expired,
                Some(&crate::queue_reason::code_lost()),
                None,
            )
        })
        .await;
    if let Err(e) = write {
        // Still leased: recovery puts it back, and the start's check expires it then.
        tracing::error!(message_id, error = %e, "a one-time code that cannot be opened could not be marked expired");
    }
}

/// The permit in hand, else the next one the session grants (a bound link, a window slot, the
/// rate); None when the session grants none.
async fn window_slot(held: Option<Permit>, session: &SessionHandle) -> Option<Permit> {
    match held {
        Some(p) => Some(p),
        None => session.reserve().await.ok(),
    }
}

/// Records the attempt for one part (with the session and sequence number it goes out under)
/// before anything is written, so a crash after the write leaves a try to hold the message by,
/// never a blind resend. The validity is checked right before and again right after: a message
/// past its validity is expired (or held, when parts went out) instead. Returns the attempt's id
/// when the part may be written; None when it may not (expired; no longer under `owner`'s lease,
/// because another node found this one dead and settled the message; or the attempt could not be
/// recorded, in which case the message stays `sending` until in-run recovery settles it).
async fn record_attempt(
    store: &Arc<Store>,
    permit: &Permit,
    m: &Claimed,
    segment: u32,
    patience: &Patience,
    (owner, routing): (String, Option<String>),
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
            // The last check before the wire, under the row's lock: the lease is still this
            // node's, or another settled the message and nothing may go out.
            if !queue::leased_to(tx, id, &owner)? {
                return Ok(None);
            }
            let wire = messages::Wire {
                connection: &connection,
                session_id: &session_id,
                sequence_number: seq,
                routing: routing.as_deref(),
            };
            messages::begin_attempt(tx, id, segment, wire, registered_delivery).map(Some)
        })
        .await
    {
        Ok(Some(a)) => a,
        Ok(None) => {
            tracing::warn!(
                message = id,
                "the message is no longer this node's to send (another settled it): nothing written"
            );
            return None;
        }
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
async fn submit(permit: Permit, part: Submit<'_>) -> SubmitResult {
    match permit.submit(part.pdu()).await {
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
            decisions::record_submit(tx, &c, attempt, &result, now, &policy, cfg.send_policy(c.kind), jitter)
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
