//! An operator's resolution of an exception: it is closed with the note, the decision is
//! audited, and the message's projection folds it in. Resolving never changes evidence. Some
//! decisions drive the queue too: attaching a receipt to a message whose try went unanswered
//! settles it, and an unknown outcome is resolved by resending or marking failed.

use super::evidence::accepted_by_evidence;
use crate::audit::AuditAction;
use crate::domain::{DeliveryState, ExceptionKind, ExceptionStatus, QueueStatus};
use crate::queue::{self, ActionError, DuplicateRisk, RetryLimits};
use crate::receipts::correlate;
use crate::receipts::exceptions::{get, message_facts, receipt_facts, ExceptionRow};
use crate::receipts::project;
use crate::store::tables::{exception, NewAudit};
use crate::store::{Reads, StoreError, WriteTx};
use smsdesk_core::receipts::mismatch::{self, FactCheck, Mismatch};
use smsdesk_core::receipts::policy::ReceiptPolicy;
use smsdesk_core::receipts::rules::Input;

/// What an operator decides.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    /// Set the message's state (conflicts, no receipt by deadline, a status nobody could read).
    ChooseState(DeliveryState),
    /// Attach an uncorrelated or ambiguous receipt to a named message. `mismatches_seen` must be
    /// true when the receipt's facts do not fit the message (see [`preview_attach`]).
    Attach { message_id: i64, mismatches_seen: bool },
    /// Close it without changing any state.
    Dismiss,
    /// Outcome unknown or partly sent: send again what was not accepted. Choosing it accepts the
    /// risk an unknown outcome carries; when evidence says the network had the message (an
    /// accepted try or a receipt), `confirm_duplicate` must say so too.
    Resend {
        confirm_duplicate: bool,
        /// The kind's limits on tries and age, or an admin's override of them.
        limits: RetryLimits,
    },
    /// Outcome unknown or partly sent: settle the message as failed.
    MarkFailed,
}

#[derive(Debug, Clone)]
pub struct Resolution {
    pub exception_id: i64,
    pub action: Action,
    pub note: String,
    /// Who decided (the operator's name).
    pub actor: String,
}

#[derive(Debug, thiserror::Error)]
pub enum ResolveError {
    #[error("a note is required to resolve an exception")]
    NoteRequired,
    #[error("exception {0} does not exist")]
    NotFound(i64),
    #[error("exception {id} is already {status}")]
    NotOpen { id: i64, status: ExceptionStatus },
    #[error("a {kind} exception cannot be resolved by {action}")]
    NotAllowed { kind: ExceptionKind, action: &'static str },
    #[error("message {0} does not exist")]
    MessageNotFound(i64),
    #[error("the receipt does not fit message {message_id} ({}); confirm after reviewing", fields(.mismatches))]
    MismatchesNotSeen { message_id: i64, mismatches: Vec<Mismatch> },
    #[error(transparent)]
    Queue(#[from] ActionError),
    #[error(transparent)]
    Store(#[from] StoreError),
}

fn fields(m: &[Mismatch]) -> String {
    m.iter().map(|m| m.field).collect::<Vec<_>>().join(", ")
}

impl Action {
    fn name(&self) -> &'static str {
        match self {
            Action::ChooseState(_) => "choosing a state",
            Action::Attach { .. } => "attaching it to a message",
            Action::Dismiss => "dismissing it",
            Action::Resend { .. } => "resending the message",
            Action::MarkFailed => "marking the message failed",
        }
    }
}

/// Every fact of the exception's receipt that does not fit `message_id`, for the operator to see
/// before attaching: those [`compare_candidates`] finds differ.
pub fn preview_attach(
    conn: &impl Reads,
    exception_id: i64,
    message_id: i64,
    timezone_minutes: i32,
) -> Result<Vec<Mismatch>, ResolveError> {
    let receipt = exception_receipt(conn, exception_id, "attaching it to a message")?;
    let message = message_facts(conn, message_id)?.ok_or(ResolveError::MessageNotFound(message_id))?;
    Ok(mismatch::check(&receipt, &message, timezone_minutes))
}

/// Every fact of the exception's receipt against each of `message_ids` that exists (in the order
/// given; the others are left out): agrees, differs or cannot be told. What a person compares
/// before choosing the message to attach the receipt to, by the comparison attaching checks.
pub fn compare_candidates(
    conn: &impl Reads,
    exception_id: i64,
    message_ids: &[i64],
    timezone_minutes: i32,
) -> Result<Vec<(i64, Vec<FactCheck>)>, ResolveError> {
    let receipt = exception_receipt(conn, exception_id, "comparing its receipt with messages")?;
    let mut out = Vec::with_capacity(message_ids.len());
    for &id in message_ids {
        if out.iter().any(|(seen, _)| *seen == id) {
            continue;
        }
        if let Some(message) = message_facts(conn, id)? {
            out.push((id, mismatch::compare(&receipt, &message, timezone_minutes)));
        }
    }
    Ok(out)
}

/// The facts of exception `exception_id`'s receipt; refused for an exception about no receipt
/// (`action` says what needed one).
fn exception_receipt(
    conn: &impl Reads,
    exception_id: i64,
    action: &'static str,
) -> Result<mismatch::ReceiptFacts, ResolveError> {
    let (e, _) = get(conn, exception_id)?.ok_or(ResolveError::NotFound(exception_id))?;
    let event = e
        .logical_event_id
        .ok_or(ResolveError::NotAllowed { kind: e.kind, action })?;
    Ok(receipt_facts(conn, event)?)
}

/// Records an operator's decision: the exception is closed with the note, the decision is audited,
/// and the message's projection folds it in. Nothing is written when the decision is refused.
pub fn resolve(tx: &mut WriteTx<'_>, r: &Resolution, policy: &ReceiptPolicy) -> Result<(), ResolveError> {
    let settings = policy.rules();
    if r.note.trim().is_empty() {
        return Err(ResolveError::NoteRequired);
    }
    let (e, _) = get(&*tx, r.exception_id)?.ok_or(ResolveError::NotFound(r.exception_id))?;
    if e.status != ExceptionStatus::Open {
        return Err(ResolveError::NotOpen {
            id: e.id,
            status: e.status,
        });
    }
    let not_allowed = || ResolveError::NotAllowed {
        kind: e.kind,
        action: r.action.name(),
    };
    let (status, resolution) = match (&r.action, e.kind) {
        (
            Action::ChooseState(s),
            ExceptionKind::ConflictingFinal | ExceptionKind::NoReceipt | ExceptionKind::StatusUnreadable,
        ) => {
            let message = e.message_id.ok_or_else(not_allowed)?;
            let input = Input::Decision {
                exception: e.id,
                kind: e.kind,
                state: Some(*s),
            };
            project::apply(tx, message, &input, settings)?;
            (ExceptionStatus::Resolved, format!("state:{s}"))
        }
        (
            Action::Attach {
                message_id,
                mismatches_seen,
            },
            ExceptionKind::Uncorrelated | ExceptionKind::Ambiguous,
        ) => {
            let event = e.logical_event_id.ok_or_else(not_allowed)?;
            attach(tx, &e, event, *message_id, *mismatches_seen, &r.actor, policy)?;
            (ExceptionStatus::Resolved, format!("attached:{message_id}"))
        }
        (Action::Resend { .. } | Action::MarkFailed, kind) if holds_message(kind) => {
            // The queue settles the message and closes this exception with the note, audited.
            let message = e.message_id.ok_or_else(not_allowed)?;
            return settle_sending(tx, message, r);
        }
        // A message held for a decision needs one about the message itself.
        (Action::Dismiss, kind) if holds_message(kind) => return Err(not_allowed()),
        (Action::Dismiss, kind) => {
            if let (Some(message), ExceptionKind::ConflictingFinal | ExceptionKind::NoReceipt) = (e.message_id, kind) {
                let input = Input::Decision {
                    exception: e.id,
                    kind,
                    state: None,
                };
                project::apply(tx, message, &input, settings)?;
            }
            (ExceptionStatus::Dismissed, "dismissed".to_owned())
        }
        _ => return Err(not_allowed()),
    };
    exception::settle(tx, e.id, status, &resolution, r.note.trim(), &r.actor)?;
    tx.audit().append(&NewAudit {
        actor: r.actor.clone(),
        action: AuditAction::ExceptionResolve,
        subject_type: Some("exception".into()),
        subject_id: Some(e.id),
        note: Some(r.note.trim().into()),
        details_json: Some(
            serde_json::json!({ "kind": e.kind, "status": status, "resolution": resolution, "message_id": e.message_id })
                .to_string(),
        ),
    })?;
    Ok(())
}

/// Whether an exception of `kind` holds its message for a decision about sending it (resend or
/// mark failed, never dismiss).
fn holds_message(kind: ExceptionKind) -> bool {
    matches!(
        kind,
        ExceptionKind::OutcomeUnknown
            | ExceptionKind::PartlySent
            | ExceptionKind::OptedOut
            | ExceptionKind::UnusualVolume
    )
}

/// Attaches the receipt of exception `e` (its logical event `event`) to `message_id`, once the
/// operator has seen every fact of it that does not fit the message; a receipt for a message
/// whose try went unanswered settles the unknown.
fn attach(
    tx: &mut WriteTx<'_>,
    e: &ExceptionRow,
    event: i64,
    message_id: i64,
    mismatches_seen: bool,
    actor: &str,
    policy: &ReceiptPolicy,
) -> Result<(), ResolveError> {
    let mismatches = preview_attach(&*tx, e.id, message_id, policy.timezone_minutes)?;
    if !mismatches.is_empty() && !mismatches_seen {
        return Err(ResolveError::MismatchesNotSeen { message_id, mismatches });
    }
    correlate::match_and_apply(tx, event, message_id, "operator", policy)?;
    accepted_by_evidence(tx, message_id, event, actor, policy)?;
    Ok(())
}

/// Resends or marks failed a message held because of an unknown outcome or a partial send (or
/// sends or cancels one held because its number opted out: sending it is refused while the number
/// is on the list). A
/// resend that may deliver twice needs the operator's confirmation, except when the only risk is
/// the unknown outcome the exception is about.
fn settle_sending(tx: &mut WriteTx<'_>, message: i64, r: &Resolution) -> Result<(), ResolveError> {
    match r.action {
        // Not sending a message held because its number opted out is cancelling it.
        Action::MarkFailed if queue::status(tx, message)? == Some(QueueStatus::Held) => {
            queue::cancel(tx, message, &r.actor, &r.note)?
        }
        Action::Resend {
            confirm_duplicate,
            limits,
        } => {
            let risk = queue::duplicate_risk(tx, message)?;
            let confirmed = confirm_duplicate || matches!(risk, None | Some(DuplicateRisk::OutcomeUnknown));
            queue::retry(tx, message, confirmed, limits, &r.actor, &r.note)?
        }
        _ => queue::mark_failed(tx, message, &r.actor, &r.note)?,
    }
    Ok(())
}
