//! What an operator may do with a message (send it again, cancel it, mark it failed, settle it by
//! a receipt they attached), and why such an action may be refused: above all, sending again what
//! may already have reached the network takes a confirmation.

use crate::audit::AuditAction;
use crate::domain::{ExceptionKind, MessageKind, QueueStatus};
use crate::store::tables::queue::{self, status};
use crate::store::tables::{attempt, exception, NewAudit};
use crate::store::{StoreError, WriteTx};
use smsdesk_core::retry::RetryPolicy;

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

/// What a manual retry must respect.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RetryLimits {
    /// Each kind's limits on tries and age (otp, transactional, bulk), as the dispatcher has them.
    Obey([RetryPolicy; 3]),
    /// An admin's override (audited with its note): the limits do not apply; the message's own
    /// validity still does.
    Override,
}

impl RetryLimits {
    /// Each kind's documented limits (otp, transactional, bulk).
    pub const DEFAULT_POLICIES: [RetryPolicy; 3] = [
        RetryPolicy::default_for(MessageKind::Otp),
        RetryPolicy::default_for(MessageKind::Transactional),
        RetryPolicy::default_for(MessageKind::Bulk),
    ];

    /// The documented limits of each kind.
    pub const fn defaults() -> RetryLimits {
        RetryLimits::Obey(Self::DEFAULT_POLICIES)
    }

    fn policy(policies: &[RetryPolicy; 3], kind: MessageKind) -> &RetryPolicy {
        match kind {
            MessageKind::Otp => &policies[0],
            MessageKind::Transactional => &policies[1],
            MessageKind::Bulk => &policies[2],
        }
    }

    /// Refuses a retry that would go past the kind's tries or age.
    fn check(&self, tx: &WriteTx<'_>, message_id: i64) -> Result<(), ActionError> {
        let RetryLimits::Obey(policies) = self else {
            return Ok(());
        };
        let (kind, created_at, tries) =
            attempt::retry_facts(tx, message_id)?.ok_or(ActionError::NotFound(message_id))?;
        let p = Self::policy(policies, kind);
        if tries >= p.max_attempts {
            return Err(ActionError::AttemptsExhausted {
                kind: kind.as_str(),
                tries,
                max: p.max_attempts,
            });
        }
        let age = tx.now_ms() - created_at;
        if age >= p.max_age_ms as i64 {
            return Err(ActionError::TooOld {
                kind: kind.as_str(),
                age_minutes: age / 60_000,
                max_minutes: p.max_age_ms / 60_000,
            });
        }
        Ok(())
    }
}

/// The exceptions that hold a message for a decision about sending it.
const HOLDING: [ExceptionKind; 3] = [
    ExceptionKind::OutcomeUnknown,
    ExceptionKind::PartlySent,
    ExceptionKind::OptedOut,
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
    let refused_for_good = attempt::permanent_failure(&*tx, message_id)?.map(|code| match code {
        Some(code) => {
            let info = crate::command_status::describe(code);
            (info.name.to_owned(), info.meaning.to_owned())
        }
        None => ("an unnamed status".to_owned(), "refused for good".to_owned()),
    });
    let guard = Guard {
        refused_for_good,
        confirmed: confirmed.permanent_failure,
    };
    requeue(tx, message_id, confirmed.duplicate, limits, actor, note, guard)
}

/// The permanent-failure guard of a retry: the status (name, meaning) the last try was refused
/// for good with, if it was, and whether the person confirmed going on anyway.
#[derive(Default)]
struct Guard {
    refused_for_good: Option<(String, String)>,
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

/// [`retry`], with the permanent-failure `guard` checked after every other rule.
fn requeue(
    tx: &mut WriteTx<'_>,
    message_id: i64,
    confirm_duplicate_risk: bool,
    limits: RetryLimits,
    actor: &str,
    note: &str,
    guard: Guard,
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
    limits.check(tx, message_id)?;
    refuse_opted_out(tx, message_id)?;
    let permanent = match guard.refused_for_good {
        Some((status, meaning)) if !guard.confirmed => return Err(ActionError::PermanentFailure { status, meaning }),
        Some((status, _)) => Some(status),
        None => None,
    };
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
/// opted out): it leaves the queue for good, and the exception holding it closes.
pub fn cancel(tx: &mut WriteTx<'_>, message_id: i64, actor: &str, note: &str) -> Result<(), ActionError> {
    let current = status(tx, message_id)?.ok_or(ActionError::NotFound(message_id))?;
    if !matches!(current, QueueStatus::Queued | QueueStatus::Held) {
        return Err(ActionError::NotAllowed(current, "cancelled"));
    }
    queue::set_status(
        tx,
        message_id,
        QueueStatus::Cancelled,
        Some("cancelled by an operator"),
        None,
    )?;
    if let Some(ex) = exception::open_for_message(&*tx, message_id, ExceptionKind::OptedOut)? {
        close_exception(tx, ex, "cancel", actor, note)?;
    }
    audit(tx, actor, AuditAction::MessageCancel, message_id, note)?;
    Ok(())
}

/// Refuses to queue again a message whose number is on the opt-out list for its kind.
fn refuse_opted_out(tx: &WriteTx<'_>, message_id: i64) -> Result<(), ActionError> {
    let Some((phone, kind)) = crate::store::tables::message::destination_and_kind(tx, message_id)? else {
        return Err(ActionError::NotFound(message_id));
    };
    if crate::optouts::blocks(tx, &phone, kind)?.is_some() {
        return Err(ActionError::OptedOut(phone));
    }
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
