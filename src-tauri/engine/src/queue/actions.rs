//! What an operator may do with a message (send it again, cancel it, mark it failed, settle it by
//! a receipt they attached), and why such an action may be refused: above all, sending again what
//! may already have reached the network takes a confirmation.

use super::rules::{self, DuplicateRisk, LimitHit, RetryCheck, RetryLimits};
use crate::audit::AuditAction;
use crate::domain::{ExceptionKind, QueueStatus};
use crate::queue_reason::{self as reason, Settled};
use crate::store::tables::queue::{self, status};
use crate::store::tables::{exception, NewAudit};
use crate::store::{StoreError, WriteTx};

/// Why an operator's action on a message was refused.
#[derive(Debug, thiserror::Error)]
pub enum ActionError {
    #[error("message {0} does not exist")]
    NotFound(i64),
    #[error("a message that is {0} cannot be {1}")]
    NotAllowed(QueueStatus, &'static str),
    #[error("{}", confirmation_needed(.0))]
    ConfirmationRequired(DuplicateRisk),
    #[error("its validity has ended; it is never sent late")]
    ValidityEnded,
    #[error("it was tried {tries} times, and a {kind} message may be tried {max} times in all (retry.{kind}_max_attempts); an admin may override with a note")]
    AttemptsExhausted { kind: &'static str, tries: u32, max: u32 },
    #[error("it is {age_minutes} minutes old, and a {kind} message is not sent later than {max_minutes} minutes after it was created (retry.{kind}_max_age_minutes); an admin may override with a note")]
    TooOld {
        kind: &'static str,
        age_minutes: i64,
        max_minutes: u64,
    },
    #[error("{0} is on the opt-out list for this kind of message: take it off the list first")]
    OptedOut(String),
    #[error("its last try was refused for good by the SMSC ({status}: {meaning}); sending it again will fail the same way unless that changed: confirm to go on")]
    PermanentFailure { status: String, meaning: String },
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// What a retry that may repeat (or repeat a refusal of) a message must be confirmed for.
fn confirmation_needed(risk: &DuplicateRisk) -> String {
    match risk {
        DuplicateRisk::Rejected(_) => format!(
            "{risk}: sending it again makes a new message, which will most likely be refused the same way; confirm to go on"
        ),
        _ => format!("{risk}: sending it again may deliver it twice; confirm to go on"),
    }
}

pub(crate) fn audit(
    tx: &mut WriteTx<'_>,
    actor: &str,
    action: AuditAction,
    message_id: i64,
    note: &str,
) -> Result<(), StoreError> {
    audit_with(tx, actor, action, message_id, note, None)
}

fn audit_with(
    tx: &mut WriteTx<'_>,
    actor: &str,
    action: AuditAction,
    message_id: i64,
    note: &str,
    details_json: Option<String>,
) -> Result<(), StoreError> {
    tx.audit().append(&NewAudit {
        actor: actor.into(),
        action,
        subject_type: Some("message".into()),
        subject_id: Some(message_id),
        note: (!note.trim().is_empty()).then(|| note.trim().to_owned()),
        details_json,
    })?;
    Ok(())
}

/// The refusal a retry answers with when it stops at `check`.
fn refusal(check: RetryCheck) -> ActionError {
    match check {
        RetryCheck::InFlight(status) => ActionError::NotAllowed(status, "retried"),
        RetryCheck::ValidityEnded => ActionError::ValidityEnded,
        RetryCheck::OptedOut(phone) => ActionError::OptedOut(phone),
        RetryCheck::Limit(LimitHit::Tries { kind, tries, max }) => ActionError::AttemptsExhausted {
            kind: kind.as_str(),
            tries,
            max,
        },
        RetryCheck::Limit(LimitHit::Age {
            kind,
            age_minutes,
            max_minutes,
        }) => ActionError::TooOld {
            kind: kind.as_str(),
            age_minutes,
            max_minutes,
        },
        RetryCheck::Duplicate(risk) => ActionError::ConfirmationRequired(risk),
        RetryCheck::Permanent { status, meaning } => ActionError::PermanentFailure { status, meaning },
    }
}

/// The exceptions that hold a message for a decision about sending it.
const HOLDING: [ExceptionKind; 4] = [
    ExceptionKind::OutcomeUnknown,
    ExceptionKind::PartlySent,
    ExceptionKind::OptedOut,
    ExceptionKind::UnusualVolume,
];

/// What a person confirmed when sending a message again.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Confirmed {
    /// That it may arrive twice (a try was accepted or unanswered, or a receipt came).
    pub duplicate: bool,
    /// That its last try was refused for good (an invalid destination, say) and it will likely
    /// fail again.
    pub permanent_failure: bool,
}

/// The operator's retry of a message: [`retry`], with one more rule after its others. When the
/// last try of the message (of any of its parts) was refused for good by the SMSC, as the
/// dispatcher classed its status (an invalid destination, a barred number), sending it again will
/// most likely fail the same way: that is refused, naming the status, unless
/// `confirmed.permanent_failure`. Such a confirmed retry is audited as
/// `message.retry_permanent_confirmed`, with the status in its details.
pub fn operator_retry(
    tx: &mut WriteTx<'_>,
    message_id: i64,
    confirmed: Confirmed,
    limits: RetryLimits,
    actor: &str,
    note: &str,
) -> Result<(), ActionError> {
    let guard = Guard {
        applies: true,
        confirmed: confirmed.permanent_failure,
    };
    requeue(tx, message_id, confirmed.duplicate, limits, actor, note, guard)
}

/// The permanent-failure guard of a retry: whether the rule applies, and whether the person
/// confirmed going on anyway.
#[derive(Default)]
struct Guard {
    applies: bool,
    confirmed: bool,
}

/// Puts a message back in the queue to be sent now, with a fresh set of tries. What was already
/// accepted is not sent again, except for a message accepted whole, which goes out whole again.
/// Sending again a message of which anything may have reached the network (an accepted or
/// unanswered try, a receipt) may deliver it twice, so that takes `confirm_duplicate_risk`. An
/// open exception holding the message is closed as "resend".
pub fn retry(
    tx: &mut WriteTx<'_>,
    message_id: i64,
    confirm_duplicate_risk: bool,
    limits: RetryLimits,
    actor: &str,
    note: &str,
) -> Result<(), ActionError> {
    requeue(
        tx,
        message_id,
        confirm_duplicate_risk,
        limits,
        actor,
        note,
        Guard::default(),
    )
}

/// [`retry`], with the permanent-failure `guard` checked after every other rule. The rules are
/// [`rules::checks`], the ones the message's retry advice shows: the first not confirmed away is
/// the refusal.
fn requeue(
    tx: &mut WriteTx<'_>,
    message_id: i64,
    confirm_duplicate_risk: bool,
    limits: RetryLimits,
    actor: &str,
    note: &str,
    guard: Guard,
) -> Result<(), ActionError> {
    let now = tx.now_ms();
    let policies = match limits {
        RetryLimits::Obey(policies) => policies,
        RetryLimits::Override => RetryLimits::DEFAULT_POLICIES,
    };
    let found =
        rules::checks(&*tx, message_id, now, &policies, guard.applies)?.ok_or(ActionError::NotFound(message_id))?;
    let mut permanent = None;
    for check in found {
        match check {
            RetryCheck::Limit(_) if limits == RetryLimits::Override => {}
            RetryCheck::Duplicate(_) if confirm_duplicate_risk => {}
            RetryCheck::Permanent { status, .. } if guard.confirmed => permanent = Some(status),
            refused => return Err(refusal(refused)),
        }
    }
    queue::queue_again(tx, message_id)?;
    for kind in HOLDING {
        if let Some(ex) = exception::open_for_message(&*tx, message_id, kind)? {
            close_exception(tx, ex, "resend", actor, note)?;
        }
    }
    // An admin's override of the kind's limits is the act to find in the log; a confirmed
    // permanent refusal it also passed is in its details.
    let action = match (&permanent, limits, confirm_duplicate_risk) {
        (_, RetryLimits::Override, _) => AuditAction::MessageRetryOverride,
        (Some(_), _, _) => AuditAction::MessageRetryPermanentConfirmed,
        (None, _, true) => AuditAction::MessageRetryConfirmed,
        (None, _, false) => AuditAction::MessageRetry,
    };
    let details = permanent.map(|status| {
        serde_json::json!({
            "command_status": status,
            "override_limits": limits == RetryLimits::Override,
            "confirm_duplicate": confirm_duplicate_risk,
        })
        .to_string()
    });
    audit_with(tx, actor, action, message_id, note, details)?;
    Ok(())
}

/// Cancels a message that has not been sent (waiting in the queue, or held because its number
/// opted out or its country's codes surged): it leaves the queue for good, and the exception
/// holding it closes.
pub fn cancel(tx: &mut WriteTx<'_>, message_id: i64, actor: &str, note: &str) -> Result<(), ActionError> {
    let current = status(tx, message_id)?.ok_or(ActionError::NotFound(message_id))?;
    if !matches!(current, QueueStatus::Queued | QueueStatus::Held) {
        return Err(ActionError::NotAllowed(current, "cancelled"));
    }
    let why = reason::by_operator(Settled::Cancelled, actor);
    queue::set_status(tx, message_id, QueueStatus::Cancelled, Some(&why), None)?;
    for kind in [ExceptionKind::OptedOut, ExceptionKind::UnusualVolume] {
        if let Some(ex) = exception::open_for_message(&*tx, message_id, kind)? {
            close_exception(tx, ex, "cancel", actor, note)?;
        }
    }
    audit(tx, actor, AuditAction::MessageCancel, message_id, note)?;
    Ok(())
}

/// Settles a message held for a decision (its outcome unknown, or partly sent) as failed: the
/// operator decided not to resend.
pub fn mark_failed(tx: &mut WriteTx<'_>, message_id: i64, actor: &str, note: &str) -> Result<(), ActionError> {
    let current = status(tx, message_id)?.ok_or(ActionError::NotFound(message_id))?;
    if current != QueueStatus::OutcomeUnknown {
        return Err(ActionError::NotAllowed(current, "marked failed"));
    }
    let why = reason::by_operator(Settled::MarkedFailed, actor);
    queue::set_status(tx, message_id, QueueStatus::Failed, Some(&why), None)?;
    for kind in HOLDING {
        if let Some(ex) = exception::open_for_message(&*tx, message_id, kind)? {
            close_exception(tx, ex, "mark_failed", actor, note)?;
        }
    }
    audit(tx, actor, AuditAction::MessageMarkFailed, message_id, note)?;
    Ok(())
}

pub(crate) fn close_exception(
    tx: &mut WriteTx<'_>,
    id: i64,
    resolution: &str,
    actor: &str,
    note: &str,
) -> Result<(), StoreError> {
    let note = if note.trim().is_empty() {
        format!("{resolution} by {actor}")
    } else {
        note.trim().to_owned()
    };
    exception::close(tx, id, resolution, &note, actor)
}
