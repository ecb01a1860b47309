//! Putting right what a send left half-done, by one rule whenever it is found: a message left
//! `sending` whose tries may have been written (a try's row was committed, its outcome never)
//! is held with an outcome-unknown exception, never resent by itself; a message none of whose
//! tries may be on the wire returns to the queue, where only the parts not accepted go out again.
//!
//! At start ([`recover`]) every pending try and every message left `sending` is the previous
//! process's. While running ([`recover_stranded`]) only the messages no send is under way for:
//! the dispatcher's own claims whose send ended without recording what it came to (a write the
//! full disk refused, a send slot never granted), and any lease that ran out.

use std::collections::{BTreeMap, BTreeSet};

use super::hold::hold;
use crate::audit::AuditAction;
use crate::domain::{AttemptOutcome, ExceptionKind, QueueStatus};
use crate::queue_reason::Unanswered;
use crate::store::tables::{attempt, queue, NewAudit};
use crate::store::{StoreError, WriteTx};

/// After a crash: every pending try was the dead process's, and every message left "sending"
/// too. Returns (messages back in the queue, messages held with an unknown outcome).
pub fn recover(tx: &mut WriteTx<'_>) -> Result<(usize, usize), StoreError> {
    let pending = attempt::pending(tx)?;
    let sending = queue::with_status(tx, QueueStatus::Sending)?;
    settle(tx, pending, sending, Unanswered::Stopped)
}

/// While running: of `candidates` (messages found stranded, less those the dispatcher is still
/// sending), those still `sending` with no lease anyone may send under (ended by `now`, or
/// `owner`'s own) are settled as at start. Returns (back in the queue, held).
pub fn recover_stranded(
    tx: &mut WriteTx<'_>,
    candidates: &[i64],
    now: i64,
    owner: &str,
) -> Result<(usize, usize), StoreError> {
    let still: BTreeSet<i64> = queue::stranded(&*tx, now, owner)?.into_iter().collect();
    let stranded: Vec<i64> = candidates.iter().copied().filter(|id| still.contains(id)).collect();
    let mut pending = Vec::new();
    for &message_id in &stranded {
        pending.extend(
            attempt::pending_of(tx, message_id)?
                .into_iter()
                .map(|a| (a, message_id)),
        );
    }
    settle(tx, pending, stranded, Unanswered::NotRecorded)
}

/// Settles `pending` tries (attempt, message) and the messages left `sending`: a message with a
/// pending try is held, the others go back to the queue. `why` says what interrupted them.
fn settle(
    tx: &mut WriteTx<'_>,
    pending: Vec<(i64, i64)>,
    sending: Vec<i64>,
    why: Unanswered,
) -> Result<(usize, usize), StoreError> {
    let mut unknown = BTreeMap::new();
    for (attempt, message_id) in pending {
        attempt::finish_attempt(tx, attempt, AttemptOutcome::Timeout, None, Some(why.clause()), None)?;
        unknown.entry(message_id).or_insert(attempt);
    }
    for (&message_id, &attempt) in &unknown {
        queue::count_try(tx, message_id)?;
        hold(
            tx,
            message_id,
            ExceptionKind::OutcomeUnknown,
            Some(attempt),
            &why.note(),
        )?;
    }
    let requeue: Vec<i64> = sending.into_iter().filter(|id| !unknown.contains_key(id)).collect();
    for &message_id in &requeue {
        queue::set_status(tx, message_id, QueueStatus::Queued, None, None)?;
    }
    let (requeued, unknown) = (requeue.len(), unknown.len());
    if requeued + unknown > 0 {
        // What the engine did, as facts the screens word: no sentence of its own in the note.
        tx.audit().append(&NewAudit {
            details_json: Some(
                serde_json::json!({
                    "requeued": requeued,
                    "unknown": unknown,
                    "cause": why.note().reason.code.as_str(),
                })
                .to_string(),
            ),
            ..NewAudit::new("system", AuditAction::QueueRecovered)
        })?;
    }
    Ok((requeued, unknown))
}
