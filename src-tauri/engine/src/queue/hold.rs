//! Holding a message for a person (an unknown outcome, a message partly sent) and ending one
//! whose validity ran out.

use crate::domain::{AttemptOutcome, EvidenceRole, ExceptionKind, QueueStatus};
use crate::said::{self, Summary, SummaryCode};
use crate::store::tables::exception::{self, NewException};
use crate::store::tables::queue::parts_accepted;
use crate::store::tables::{attempt, queue};
use crate::store::{StoreError, WriteTx};
use smsdesk_core::retry::GiveUp;

use super::next::Next;
use crate::queue_reason as reason;
use crate::reasons::QueueNote;

/// Marks queued messages whose validity ended as expired, whether or not the link is up. (Claims
/// skip them anyway, so this makes their status say so on time.) Returns how many.
pub fn expire(tx: &mut WriteTx<'_>, now: i64) -> Result<usize, StoreError> {
    // A code that failed and can no longer be sent again is not kept either.
    queue::drop_spent_seals(tx, now)?;
    let ids = queue::validity_ended_by(tx, now)?;
    for &id in &ids {
        validity_ended(tx, id, &reason::validity_ended("the other parts could be sent"))?;
    }
    Ok(ids.len())
}

/// A claimed message whose validity ended before its next PDU was written: expired, or, when some
/// parts went out already, held for a person. `attempt` is a try recorded but not written.
pub fn expire_claimed(tx: &mut WriteTx<'_>, message_id: i64, attempt: Option<i64>) -> Result<Next, StoreError> {
    let why = reason::validity_ended("the submit was written");
    if let Some(a) = attempt {
        attempt::finish_attempt(tx, a, AttemptOutcome::NotSent, None, Some(&why.english), None)?;
    }
    validity_ended(tx, message_id, &why)
}

/// A message whose validity ended: expired when nothing of it went out, else held for a person
/// with a partly-sent exception saying `why`.
fn validity_ended(tx: &mut WriteTx<'_>, message_id: i64, why: &QueueNote) -> Result<Next, StoreError> {
    if parts_accepted(tx, message_id)?.is_empty() {
        queue::set_status(tx, message_id, QueueStatus::Expired, Some(&reason::expired()), None)?;
        return Ok(Next::Failed(GiveUp::ValidityEnded));
    }
    let exception_id = hold(tx, message_id, ExceptionKind::PartlySent, None, why)?;
    Ok(Next::Held { exception_id })
}

/// Holds a message for a person's decision with an exception of `kind` (an unknown outcome, or a
/// long message partly sent), naming where each part stands. `attempt` is the try that caused it;
/// `why` is what happened (its sentence a clause of the exception's).
pub(super) fn hold(
    tx: &mut WriteTx<'_>,
    message_id: i64,
    kind: ExceptionKind,
    attempt: Option<i64>,
    why: &QueueNote,
) -> Result<i64, StoreError> {
    let cause = why;
    let why = &cause.english;
    let (segments, tries) = attempt::current_round(&*tx, message_id)?;
    let parts = smsdesk_core::parts::describe(segments, &tries);
    let english = match (kind, parts) {
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
    let code = match kind {
        ExceptionKind::OutcomeUnknown => SummaryCode::OutcomeUnknown,
        _ => SummaryCode::PartlySent,
    };
    let params = if segments > 1 {
        said::params([("parts", segments.to_string())])
    } else {
        said::Params::new()
    };
    let summary = Summary::new(code, params, english);
    let note = reason::held(kind, cause, segments, summary.english.clone());
    queue::set_status(tx, message_id, QueueStatus::OutcomeUnknown, Some(&note), None)?;
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
