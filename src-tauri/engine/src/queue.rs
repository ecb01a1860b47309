//! The durable queue's transitions, as writer operations: claim under a lease (priorities,
//! per-ordering-key FIFO, scheduled sends), expire what outlived its validity, record what a
//! submit came to, and recover after a crash without ever submitting anything twice.
//!
//! Where each part lives:
//! - here: claiming, expiry, and holding a message for a person;
//! - `recover`: putting right what a send left half-done, after a crash or while running;
//! - `results`: recording the result of one submit (retry with backoff, give up, or hold);
//! - `actions`: an operator's retry, cancel and mark-failed, and the duplicate-risk confirmation.

mod actions;
mod recover;
mod results;

pub use self::actions::{
    accepted_by_evidence, cancel, duplicate_risk, mark_failed, operator_retry, retry, ActionError, Confirmed,
    DuplicateRisk, RetryLimits,
};
pub use self::recover::{recover, recover_stranded};
pub use self::results::{record, Next, SendPolicy, SubmitResult};
pub use crate::store::tables::queue::{
    expiry_due, parts_accepted, queued_for, set_route, status, stranded, unrouted, Claimed, Serving, Unrouted,
};

use super::retry::GiveUp;
use crate::domain::{AttemptOutcome, EvidenceRole, ExceptionKind, QueueStatus};
use crate::said::{self, Summary, SummaryCode};
use crate::store::tables::exception::{self, NewException};
use crate::store::tables::{attempt, queue};
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
    serving: &queue::Serving,
) -> Result<Vec<Claimed>, StoreError> {
    let claimed = queue::due(tx, now, limit, serving)?;
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
        // The last word before a message goes out: a number that opted out while it waited (or
        // while an earlier try was on the wire) gets nothing more.
        if let Some(entry) = crate::optouts::blocks(&*tx, &c.destination, c.kind)? {
            crate::optouts::hold(tx, c.message_id, &c.destination, entry, "found when it was due")?;
            continue;
        }
        queue::lease(tx, c.message_id, owner, now + lease_ms)?;
        out.push(c);
    }
    Ok(out)
}

/// A message claimed and not tried (no attempt recorded) goes back to the queue as it was, for
/// whichever connection claims it next; `why` is kept as its last word.
pub fn give_back(tx: &mut WriteTx<'_>, message_id: i64, why: &str) -> Result<(), StoreError> {
    if queue::status(&*tx, message_id)? == Some(QueueStatus::Sending) {
        queue::set_status(tx, message_id, QueueStatus::Queued, Some(why), None)?;
    }
    Ok(())
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
    queue::set_status(
        tx,
        message_id,
        QueueStatus::OutcomeUnknown,
        Some(&summary.english),
        None,
    )?;
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
