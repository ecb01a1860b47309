//! Recording what a submit came to: accepted (wholly or in part), queued again for a retry with
//! backoff, failed for good, or held for a person when the outcome is unknown or the message can
//! only be partly sent.

use super::hold::{expire_claimed, hold};
use super::next::Next;
use crate::command_status::{self as status, ErrorClass};
use crate::domain::{AttemptOutcome, ExceptionKind, QueueStatus};
use crate::queue_reason::{self as reason, Unanswered};
use crate::reasons::QueueNote;
use crate::store::tables::attempt::{self, AcceptedSubmit};
use crate::store::tables::queue;
use crate::store::tables::queue::{parts_accepted, Claimed};
use crate::store::{StoreError, WriteTx};
use smsdesk_core::receipts::policy::ReceiptPolicy;
use smsdesk_core::retry::{self, Decision, Failed, RetryPolicy};

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

/// Records the result of one submit (one part) and moves the message on: accepted (when every
/// part is); queued again for a retry (backoff with jitter from `random`; only parts not accepted
/// go out again); failed with the status's name and meaning; or, when the outcome is unknown or
/// the message can only be partly sent, held with an exception for the operator. A submit that
/// was never written is not a try: the message simply waits for the link again.
///
/// An acceptance recorded here matches nothing: the receipts that arrived before it and wait for
/// its id are matched by `decisions::record_submit`, which is what the dispatcher calls.
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
    let (class, status_code) = match result {
        SubmitResult::Answered {
            command_status: 0,
            message_id,
            ..
        } => {
            let provider_id = message_id.as_deref().unwrap_or_default();
            let accepted = accept(tx, attempt_id, written_at, provider_id, receipts)?;
            return Ok(if accepted.whole {
                Next::Accepted
            } else {
                Next::PartAccepted
            });
        }
        SubmitResult::Answered { command_status, .. } => {
            (status::classify(*command_status, policy.classes), *command_status)
        }
        SubmitResult::NotSent => {
            let why = reason::no_link();
            attempt::finish_attempt(tx, attempt_id, AttemptOutcome::NotSent, None, Some(&why.english), None)?;
            return wait_for_the_link(tx, claimed, now, &why);
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
    let error = reason::refused(status_code, class, claimed.attempts + 1);
    attempt::finish_attempt(
        tx,
        attempt_id,
        outcome,
        Some(status_code),
        Some(&error.english),
        written_at,
    )?;
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
        // Parts already accepted are not sent again, so a retry is safe; on the same connection,
        // whose SMSC holds the parts that went out.
        Decision::Retry { .. } => {
            if !claimed.parts_accepted.is_empty() || !parts_accepted(tx, m)?.is_empty() {
                queue::pin_to_attempt(tx, m, attempt_id)?;
            }
            settle(tx, m, decision, &error)
        }
        Decision::GiveUp { .. } if !parts_accepted(tx, m)?.is_empty() => {
            queue::pin_to_attempt(tx, m, attempt_id)?;
            let exception_id = hold(tx, m, ExceptionKind::PartlySent, Some(attempt_id), &error)?;
            Ok(Next::Held { exception_id })
        }
        Decision::GiveUp { .. } => settle(tx, m, decision, &error),
    }
}

/// Records an accepted submit_sm_resp on its try and the queue (see [`attempt::record_accepted`]),
/// with the provider's id keyed under the id rules of the connection it was written to (read only
/// when connections have rules of their own).
pub fn accept(
    tx: &mut WriteTx<'_>,
    attempt_id: i64,
    written_at: Option<i64>,
    provider_message_id: &str,
    policy: &ReceiptPolicy,
) -> Result<AcceptedSubmit, StoreError> {
    let policy = match policy.connections.is_empty() {
        true => policy,
        false => policy.on(&attempt::connection_of(tx, attempt_id)?),
    };
    let key = policy.response_key(provider_message_id);
    attempt::record_accepted(tx, attempt_id, written_at, provider_message_id, &key)
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
        (AttemptOutcome::Timeout, Unanswered::Timeout)
    } else {
        (AttemptOutcome::LinkLost, Unanswered::LinkLost)
    };
    attempt::finish_attempt(tx, attempt_id, outcome, None, Some(why.clause()), result.written_at())?;
    queue::count_try(tx, m)?;
    // Whatever comes next, it stays on this connection: the SMSC may have it.
    queue::pin_to_attempt(tx, m, attempt_id)?;
    let partly = !parts_accepted(tx, m)?.is_empty();
    // A long message partly out is always held: resending it whole would repeat parts.
    if partly || !policy.resend_unknown {
        let exception_id = hold(tx, m, ExceptionKind::OutcomeUnknown, Some(attempt_id), &why.note())?;
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
        &reason::resent_by_policy(why),
    )
}

/// A submit that never reached the wire: the message waits for the link again, with nothing
/// counted, unless its validity has ended meanwhile.
fn wait_for_the_link(tx: &mut WriteTx<'_>, claimed: &Claimed, now: i64, why: &QueueNote) -> Result<Next, StoreError> {
    if claimed.expires_at.is_some_and(|v| v <= now) {
        return expire_claimed(tx, claimed.message_id, None);
    }
    queue::set_status(tx, claimed.message_id, QueueStatus::Queued, Some(why), Some(now))?;
    Ok(Next::RetryAt {
        at: now,
        slow_down: false,
    })
}

/// Queues the message again for a retry, or gives it up, with what caused it.
fn settle(tx: &mut WriteTx<'_>, m: i64, decision: Decision, cause: &QueueNote) -> Result<Next, StoreError> {
    match decision {
        Decision::Retry { at, slow_down } => {
            queue::set_status(tx, m, QueueStatus::Queued, Some(&reason::retrying(cause, at)), Some(at))?;
            Ok(Next::RetryAt { at, slow_down })
        }
        Decision::GiveUp { reason: why } => {
            let (status, note) = reason::given_up(cause, why);
            queue::set_status(tx, m, status, Some(&note), None)?;
            Ok(Next::Failed(why))
        }
    }
}
