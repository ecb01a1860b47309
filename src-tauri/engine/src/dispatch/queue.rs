//! The durable queue's transitions, as writer operations: claim under a lease (priorities,
//! per-ordering-key FIFO, scheduled sends), expire what outlived its validity, record what a
//! submit came to, and recover after a crash without ever submitting anything twice.

use super::retry::{self, Decision, Failed, GiveUp, RetryPolicy};
use crate::domain::{AttemptOutcome, EvidenceRole, ExceptionKind, QueueStatus};
use crate::messages;
use crate::receipts::policy::ReceiptPolicy;
use crate::smpp::status::{self, ErrorClass};
use crate::store::tables::exception::{self, NewException};
use crate::store::tables::{attempt, logical_event, queue, NewAudit};
use crate::store::{StoreError, WriteTx};

/// Marks queued messages whose validity ended as expired, whether or not the link is up. (Claims
/// skip them anyway, so this makes their status say so on time.) Returns how many.
pub fn expire(tx: &mut WriteTx<'_>, now: i64) -> Result<usize, StoreError> {
    let ids = queue::validity_ended_by(tx, now)?;
    for &id in &ids {
        validity_ended(tx, id, "its validity ended before the other parts could be sent")?;
    }
    Ok(ids.len())
}

/// Claims up to `limit` messages that are due, under a lease held by `owner` until
/// `now + lease_ms`: OTPs first, then transactional, then bulk; within a priority, the earliest
/// due; never one past its validity; and never a message whose ordering key has an earlier message
/// still queued, sending (a long message stays so until every part is accepted), or waiting for a
/// decision, so messages about one order never overtake each other (also across retries).
pub fn claim(
    tx: &mut WriteTx<'_>,
    owner: &str,
    now: i64,
    lease_ms: i64,
    limit: u32,
) -> Result<Vec<Claimed>, StoreError> {
    let claimed = queue::due(tx, now, limit)?;
    let mut out = Vec::with_capacity(claimed.len());
    for (mut c, segments) in claimed {
        if segments > 1 {
            c.parts_accepted = parts_accepted(tx, c.message_id)?;
            if c.parts_accepted.len() as u32 >= segments {
                // Nothing left to send (every part was accepted before it was queued again).
                queue::set_status(tx, c.message_id, QueueStatus::Accepted, None, None)?;
                continue;
            }
        }
        queue::lease(tx, c.message_id, owner, now + lease_ms)?;
        out.push(c);
    }
    Ok(out)
}

/// What a submit came to, as the dispatcher saw it. `written_at` is when its PDU was written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SubmitResult {
    /// The SMSC answered with this command_status (0 = accepted, with the provider's id).
    Answered {
        command_status: u32,
        message_id: Option<String>,
        written_at: Option<i64>,
    },
    /// Nothing was written (the link closed first): not a try.
    NotSent,
    /// Written, but no answer came in time.
    Timeout { written_at: Option<i64> },
    /// Written, then the link was lost before the answer.
    LinkLost { written_at: Option<i64> },
}

impl SubmitResult {
    fn written_at(&self) -> Option<i64> {
        match self {
            SubmitResult::Answered { written_at, .. }
            | SubmitResult::Timeout { written_at }
            | SubmitResult::LinkLost { written_at } => *written_at,
            SubmitResult::NotSent => None,
        }
    }
}

/// How a connection treats a failed submit of one message kind.
#[derive(Debug, Clone, Copy)]
pub struct SendPolicy<'a> {
    pub retry: &'a RetryPolicy,
    pub classes: &'a status::ClassOverrides,
    /// Resend after an unknown outcome instead of holding the message for a person.
    pub resend_unknown: bool,
}

/// What the queue did with the message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Next {
    /// Every part is accepted.
    Accepted,
    /// This part is accepted; others remain to be sent.
    PartAccepted,
    RetryAt {
        at: i64,
        slow_down: bool,
    },
    Failed(GiveUp),
    /// The outcome is unknown, or some parts went out and others cannot: an exception waits for a
    /// person (never resent blindly).
    Held {
        exception_id: i64,
    },
}

/// Records the result of one submit (one part) and moves the message on: accepted (when every
/// part is); queued again for a retry (backoff with jitter from `random`; only parts not accepted
/// go out again); failed with the status's name and meaning; or, when the outcome is unknown or
/// the message can only be partly sent, held with an exception for the operator. A submit that
/// was never written is not a try: the message simply waits for the link again.
#[allow(clippy::too_many_arguments)]
pub fn record(
    tx: &mut WriteTx<'_>,
    claimed: &Claimed,
    attempt_id: i64,
    result: &SubmitResult,
    now: i64,
    receipts: &ReceiptPolicy,
    policy: SendPolicy<'_>,
    random: impl FnOnce() -> f64,
) -> Result<Next, StoreError> {
    let m = claimed.message_id;
    let written_at = result.written_at();
    let (class, status_code, error) = match result {
        SubmitResult::Answered {
            command_status: 0,
            message_id,
            ..
        } => {
            let provider_id = message_id.clone().unwrap_or_default();
            let accepted = messages::record_accepted(tx, attempt_id, written_at, &provider_id, receipts)?;
            return Ok(if accepted.whole {
                Next::Accepted
            } else {
                Next::PartAccepted
            });
        }
        SubmitResult::Answered { command_status, .. } => {
            let info = status::describe(*command_status);
            (
                status::classify(*command_status, policy.classes),
                Some(*command_status),
                format!("{} (0x{:08X}): {}", info.name, command_status, info.meaning),
            )
        }
        SubmitResult::NotSent => {
            let why = "not sent: the link closed before the write";
            attempt::finish_attempt(tx, attempt_id, AttemptOutcome::NotSent, None, Some(why), None)?;
            return wait_for_the_link(tx, claimed, now, why);
        }
        SubmitResult::Timeout { .. } | SubmitResult::LinkLost { .. } => {
            return unknown_outcome(tx, claimed, attempt_id, result, now, policy, random);
        }
    };
    let outcome = match class {
        ErrorClass::Throttled => AttemptOutcome::Throttled,
        ErrorClass::Permanent => AttemptOutcome::Permanent,
        _ => AttemptOutcome::Temporary,
    };
    attempt::finish_attempt(tx, attempt_id, outcome, status_code, Some(&error), written_at)?;
    queue::count_try(tx, m)?;
    let failed = Failed {
        class,
        attempts: claimed.attempts + 1,
        created_at: claimed.created_at,
        valid_until: claimed.expires_at,
        now,
    };
    let decision = retry::decide(policy.retry, &failed, random);
    match decision {
        // Parts already accepted are not sent again, so a retry is safe.
        Decision::Retry { .. } => settle(tx, m, decision, &error),
        Decision::GiveUp { .. } if !parts_accepted(tx, m)?.is_empty() => {
            let exception_id = hold(tx, m, ExceptionKind::PartlySent, Some(attempt_id), &error)?;
            Ok(Next::Held { exception_id })
        }
        Decision::GiveUp { .. } => settle(tx, m, decision, &error),
    }
}

/// A submit written whose answer never came (a timeout, or the link lost after the write): the
/// message is held for a person, unless the connection's policy for its kind accepts a possible
/// duplicate and it went out whole; then it is retried like a temporary error.
fn unknown_outcome(
    tx: &mut WriteTx<'_>,
    claimed: &Claimed,
    attempt_id: i64,
    result: &SubmitResult,
    now: i64,
    policy: SendPolicy<'_>,
    random: impl FnOnce() -> f64,
) -> Result<Next, StoreError> {
    let m = claimed.message_id;
    let (outcome, why) = if matches!(result, SubmitResult::Timeout { .. }) {
        (AttemptOutcome::Timeout, "no answer within the response timeout")
    } else {
        (
            AttemptOutcome::LinkLost,
            "the link was lost after the submit was written",
        )
    };
    attempt::finish_attempt(tx, attempt_id, outcome, None, Some(why), result.written_at())?;
    queue::count_try(tx, m)?;
    let partly = !parts_accepted(tx, m)?.is_empty();
    // A long message partly out is always held: resending it whole would repeat parts.
    if partly || !policy.resend_unknown {
        let exception_id = hold(tx, m, ExceptionKind::OutcomeUnknown, Some(attempt_id), why)?;
        return Ok(Next::Held { exception_id });
    }
    let failed = Failed {
        class: ErrorClass::Temporary,
        attempts: claimed.attempts + 1,
        created_at: claimed.created_at,
        valid_until: claimed.expires_at,
        now,
    };
    settle(
        tx,
        m,
        retry::decide(policy.retry, &failed, random),
        &format!("{why}; resent by policy"),
    )
}

/// A submit that never reached the wire: the message waits for the link again, with nothing
/// counted, unless its validity has ended meanwhile.
fn wait_for_the_link(tx: &mut WriteTx<'_>, claimed: &Claimed, now: i64, why: &str) -> Result<Next, StoreError> {
    if claimed.expires_at.is_some_and(|v| v <= now) {
        return expire_claimed(tx, claimed.message_id, None);
    }
    queue::set_status(tx, claimed.message_id, QueueStatus::Queued, Some(why), Some(now))?;
    Ok(Next::RetryAt {
        at: now,
        slow_down: false,
    })
}

/// A claimed message whose validity ended before its next PDU was written: expired, or, when some
/// parts went out already, held for a person. `attempt` is a try recorded but not written.
pub fn expire_claimed(tx: &mut WriteTx<'_>, message_id: i64, attempt: Option<i64>) -> Result<Next, StoreError> {
    let why = "its validity ended before the submit was written";
    if let Some(a) = attempt {
        attempt::finish_attempt(tx, a, AttemptOutcome::NotSent, None, Some(why), None)?;
    }
    validity_ended(tx, message_id, why)
}

/// A message whose validity ended: expired when nothing of it went out, else held for a person
/// with a partly-sent exception saying `why`.
fn validity_ended(tx: &mut WriteTx<'_>, message_id: i64, why: &str) -> Result<Next, StoreError> {
    if parts_accepted(tx, message_id)?.is_empty() {
        queue::set_status(
            tx,
            message_id,
            QueueStatus::Expired,
            Some("its validity ended before it could be sent"),
            None,
        )?;
        return Ok(Next::Failed(GiveUp::ValidityEnded));
    }
    let exception_id = hold(tx, message_id, ExceptionKind::PartlySent, None, why)?;
    Ok(Next::Held { exception_id })
}

/// Queues the message again for a retry, or gives it up with the reason.
fn settle(tx: &mut WriteTx<'_>, m: i64, decision: Decision, error: &str) -> Result<Next, StoreError> {
    match decision {
        Decision::Retry { at, slow_down } => {
            queue::set_status(tx, m, QueueStatus::Queued, Some(error), Some(at))?;
            Ok(Next::RetryAt { at, slow_down })
        }
        Decision::GiveUp { reason } => {
            let (status, why) = match reason {
                GiveUp::ValidityEnded => (
                    QueueStatus::Expired,
                    format!("{error}; its validity ends before a retry"),
                ),
                GiveUp::Permanent => (QueueStatus::Failed, error.to_owned()),
                GiveUp::AttemptsExhausted => (QueueStatus::Failed, format!("{error}; no attempts left")),
                GiveUp::TooOld => (QueueStatus::Failed, format!("{error}; too old to retry")),
            };
            queue::set_status(tx, m, status, Some(&why), None)?;
            Ok(Next::Failed(reason))
        }
    }
}

/// Holds a message for a person's decision with an exception of `kind` (an unknown outcome, or a
/// long message partly sent), naming where each part stands. `attempt` is the try that caused it.
fn hold(
    tx: &mut WriteTx<'_>,
    message_id: i64,
    kind: ExceptionKind,
    attempt: Option<i64>,
    why: &str,
) -> Result<i64, StoreError> {
    let (segments, tries) = attempt::current_round(&*tx, message_id)?;
    let parts = smsdesk_core::parts::describe(segments, &tries);
    let summary = match (kind, parts) {
        (ExceptionKind::OutcomeUnknown, None) => {
            format!("A submit was written but {why}: it may or may not have been accepted. Resend, or mark failed.")
        }
        (ExceptionKind::OutcomeUnknown, Some(parts)) => format!(
            "A part was written but {why}: it may or may not have been accepted. {parts} \
             Resend what was not accepted, or mark failed."
        ),
        (_, parts) => format!(
            "The message went out only in part: {why}. {} Resend what was not accepted, or mark failed.",
            parts.unwrap_or_default()
        ),
    };
    queue::set_status(tx, message_id, QueueStatus::OutcomeUnknown, Some(&summary), None)?;
    let ex = match exception::open_for_message(&*tx, message_id, kind)? {
        Some(ex) => ex,
        None => exception::open(
            tx,
            &NewException {
                kind,
                message_id: Some(message_id),
                logical_event_id: None,
                summary,
            },
        )?,
    };
    if let Some(attempt) = attempt {
        exception::link_attempt(&*tx, ex, attempt, EvidenceRole::Unanswered)?;
    }
    Ok(ex)
}

/// After a crash: every pending try was the dead process's, and every message left "sending" too.
/// A try that may have been written (its row was committed) makes its message an outcome-unknown
/// exception; a message none of whose tries may be on the wire returns to the queue, where only
/// the parts not accepted go out again. Nothing is submitted again by itself.
pub fn recover(tx: &mut WriteTx<'_>) -> Result<(usize, usize), StoreError> {
    let pending = attempt::pending(tx)?;
    let why = "smsdesk stopped before the answer was recorded";
    let mut unknown = std::collections::BTreeMap::new();
    for (attempt, message_id) in pending {
        attempt::finish_attempt(tx, attempt, AttemptOutcome::Timeout, None, Some(why), None)?;
        unknown.entry(message_id).or_insert(attempt);
    }
    for (&message_id, &attempt) in &unknown {
        queue::count_try(tx, message_id)?;
        hold(tx, message_id, ExceptionKind::OutcomeUnknown, Some(attempt), why)?;
    }
    let sending = queue::with_status(tx, QueueStatus::Sending)?;
    for &message_id in &sending {
        queue::set_status(tx, message_id, QueueStatus::Queued, None, None)?;
    }
    let (requeued, unknown) = (sending.len(), unknown.len());
    if requeued + unknown > 0 {
        tx.audit().append(&NewAudit {
            actor: "system".into(),
            action: "queue.recovered".into(),
            note: Some(format!(
                "{requeued} message(s) back in the queue, {unknown} with an unknown outcome"
            )),
            ..NewAudit::default()
        })?;
    }
    Ok((requeued, unknown))
}

pub use crate::store::tables::queue::{expiry_due, parts_accepted, status, Claimed};

/// Why an operator's action on a message was refused.
#[derive(Debug, thiserror::Error)]
pub enum ActionError {
    #[error("message {0} does not exist")]
    NotFound(i64),
    #[error("a message that is {0} cannot be {1}")]
    NotAllowed(QueueStatus, &'static str),
    #[error("{0}: sending it again may deliver it twice; confirm to go on")]
    ConfirmationRequired(DuplicateRisk),
    #[error("its validity has ended; it is never sent late")]
    ValidityEnded,
    #[error(transparent)]
    Store(#[from] StoreError),
}

fn audit(tx: &mut WriteTx<'_>, actor: &str, action: &str, message_id: i64, note: &str) -> Result<(), StoreError> {
    tx.audit().append(&NewAudit {
        actor: actor.into(),
        action: action.into(),
        subject_type: Some("message".into()),
        subject_id: Some(message_id),
        note: (!note.trim().is_empty()).then(|| note.trim().to_owned()),
        details_json: None,
    })?;
    Ok(())
}

/// Why sending a message again may deliver it twice.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DuplicateRisk {
    /// The SMSC accepted a try of it (some part of it, for a long message).
    Accepted,
    /// A try was written and its answer never came.
    OutcomeUnknown,
    /// A receipt for it was received: the network had it.
    Receipt,
}

impl std::fmt::Display for DuplicateRisk {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            DuplicateRisk::Accepted => "the SMSC accepted a try of this message",
            DuplicateRisk::OutcomeUnknown => "a try of this message was written and its answer never came",
            DuplicateRisk::Receipt => "a receipt for this message was received",
        })
    }
}

/// Whether sending the message again may deliver it twice, and why: the evidence that what a
/// retry would send (the whole message once it was accepted whole, else the parts not accepted)
/// may have reached the network already.
pub fn duplicate_risk(tx: &WriteTx<'_>, message_id: i64) -> Result<Option<DuplicateRisk>, StoreError> {
    let row = queue::duplicate_evidence(tx, message_id)?;
    Ok(match row {
        Some((_, _, true)) => Some(DuplicateRisk::Receipt),
        Some((true, _, _)) => Some(DuplicateRisk::Accepted),
        Some((_, true, _)) => Some(DuplicateRisk::OutcomeUnknown),
        _ => None,
    })
}

/// The exceptions that hold a message for a decision about sending it.
const HOLDING: [ExceptionKind; 2] = [ExceptionKind::OutcomeUnknown, ExceptionKind::PartlySent];

/// Puts a message back in the queue to be sent now, with a fresh set of tries. What was already
/// accepted is not sent again, except for a message accepted whole, which goes out whole again.
/// Sending again a message of which anything may have reached the network (an accepted or
/// unanswered try, a receipt) may deliver it twice, so that takes `confirm_duplicate_risk`. An
/// open exception holding the message is closed as "resend".
pub fn retry(
    tx: &mut WriteTx<'_>,
    message_id: i64,
    confirm_duplicate_risk: bool,
    actor: &str,
    note: &str,
) -> Result<(), ActionError> {
    let current = status(tx, message_id)?.ok_or(ActionError::NotFound(message_id))?;
    if matches!(current, QueueStatus::Queued | QueueStatus::Sending) {
        return Err(ActionError::NotAllowed(current, "retried"));
    }
    if let (Some(risk), false) = (duplicate_risk(tx, message_id)?, confirm_duplicate_risk) {
        return Err(ActionError::ConfirmationRequired(risk));
    }
    let expires_at = queue::expires_at(tx, message_id)?;
    let now = tx.now_ms();
    if expires_at.is_some_and(|v| v <= now) {
        return Err(ActionError::ValidityEnded);
    }
    queue::queue_again(tx, message_id)?;
    for kind in HOLDING {
        if let Some(ex) = exception::open_for_message(&*tx, message_id, kind)? {
            close_exception(tx, ex, "resend", actor, note)?;
        }
    }
    audit(
        tx,
        actor,
        if confirm_duplicate_risk {
            "message.retry_confirmed"
        } else {
            "message.retry"
        },
        message_id,
        note,
    )?;
    Ok(())
}

/// A person attached a receipt (its logical event `event`) to a message held because a try's
/// outcome is unknown: the network had it, so the unknown is settled. When that try is the only
/// part of the message not accepted, the message is accepted by that evidence, its exception
/// closes, and the try takes the receipt's id, so that the message's later receipts find it by
/// themselves (and so do others already waiting for that id). Returns whether it was settled.
pub fn accepted_by_evidence(
    tx: &mut WriteTx<'_>,
    message_id: i64,
    event: i64,
    actor: &str,
    policy: &ReceiptPolicy,
) -> Result<bool, StoreError> {
    if status(tx, message_id)? != Some(QueueStatus::OutcomeUnknown) {
        return Ok(false);
    }
    // The tries in the current round of parts not accepted, and the parts with no try at all.
    let (unknown, untried) = queue::unsettled_parts(tx, message_id)?;
    let [(attempt, connection)] = unknown.as_slice() else {
        return Ok(false);
    };
    if untried > 0 {
        return Ok(false);
    }
    let (event_connection, key, raw) = logical_event::receipted_id(&*tx, event)?;
    let key = key.filter(|_| event_connection == *connection);
    if let Some(key) = &key {
        attempt::adopt_provider_id(tx, *attempt, raw.as_deref(), key)?;
    }
    let why = format!("accepted by evidence: a receipt attached by {actor} shows the SMSC had it");
    queue::set_status(tx, message_id, QueueStatus::Accepted, Some(&why), None)?;
    if let Some(ex) = exception::open_for_message(&*tx, message_id, ExceptionKind::OutcomeUnknown)? {
        let note = format!(
            "A receipt attached by {actor} shows the SMSC had accepted the message: its outcome is no longer \
             unknown, and nothing is sent again."
        );
        close_exception(tx, ex, "accepted_by_evidence", "system", &note)?;
    }
    audit(tx, actor, "message.accepted_by_evidence", message_id, "")?;
    if let Some(key) = key {
        let why = "a receipt attached by a person brought its id.";
        crate::receipts::correlate::on_key(tx, connection, &key, message_id, policy, why)?;
    }
    Ok(true)
}

/// Cancels a message that has not been sent: it leaves the queue for good.
pub fn cancel(tx: &mut WriteTx<'_>, message_id: i64, actor: &str, note: &str) -> Result<(), ActionError> {
    let current = status(tx, message_id)?.ok_or(ActionError::NotFound(message_id))?;
    if current != QueueStatus::Queued {
        return Err(ActionError::NotAllowed(current, "cancelled"));
    }
    queue::set_status(
        tx,
        message_id,
        QueueStatus::Cancelled,
        Some("cancelled by an operator"),
        None,
    )?;
    audit(tx, actor, "message.cancel", message_id, note)?;
    Ok(())
}

/// Settles a message held for a decision (its outcome unknown, or partly sent) as failed: the
/// operator decided not to resend.
pub fn mark_failed(tx: &mut WriteTx<'_>, message_id: i64, actor: &str, note: &str) -> Result<(), ActionError> {
    let current = status(tx, message_id)?.ok_or(ActionError::NotFound(message_id))?;
    if current != QueueStatus::OutcomeUnknown {
        return Err(ActionError::NotAllowed(current, "marked failed"));
    }
    queue::set_status(
        tx,
        message_id,
        QueueStatus::Failed,
        Some("marked failed by an operator (outcome unknown)"),
        None,
    )?;
    for kind in HOLDING {
        if let Some(ex) = exception::open_for_message(&*tx, message_id, kind)? {
            close_exception(tx, ex, "mark_failed", actor, note)?;
        }
    }
    audit(tx, actor, "message.mark_failed", message_id, note)?;
    Ok(())
}

fn close_exception(tx: &mut WriteTx<'_>, id: i64, resolution: &str, actor: &str, note: &str) -> Result<(), StoreError> {
    let note = if note.trim().is_empty() {
        format!("{resolution} by {actor}")
    } else {
        note.trim().to_owned()
    };
    exception::close(tx, id, resolution, &note, actor)
}
