//! Putting right what a send left half-done, by one rule whenever it is found: a message left
//! `sending` whose tries may have been written (a try's row was committed, its outcome never)
//! is held with an outcome-unknown exception, never resent by itself; a message none of whose
//! tries may be on the wire returns to the queue, where only the parts not accepted go out again.
//!
//! At start ([`recover`]) on SQLite, every pending try and every message left `sending` is the
//! previous process's; on PostgreSQL, where other nodes send from the same queue, only what this
//! node's previous run leased, what dead nodes leased, and any lease that ran out. While running
//! ([`recover_stranded`]) only the messages no send is under way for: the dispatcher's own claims
//! whose send ended without recording what it came to (a write the full disk refused, a send
//! slot never granted), any lease that ran out, and the leases of nodes found dead. A node still
//! sending a message settled so checks its lease before it records a try, under the row's lock
//! (`queue::leased_to`), and writes nothing.

use std::collections::{BTreeMap, BTreeSet};

use super::hold::hold;
use crate::audit::AuditAction;
use crate::domain::{AttemptOutcome, ExceptionKind, QueueStatus};
use crate::instance::STALE;
use crate::queue_reason::Unanswered;
use crate::store::tables::{attempt, node, queue, NewAudit};
use crate::store::{Reads, StoreError, WriteTx};

/// At start, before `owner` sends anything. On SQLite every pending try was the dead process's,
/// and every message left "sending" too. On PostgreSQL, the messages `owner`'s previous run or a
/// dead node (see [`dead_owners`]) leased, or whose lease ran out, with their pending tries.
/// Returns (messages back in the queue, messages held with an unknown outcome).
pub fn recover(tx: &mut WriteTx<'_>, owner: &str) -> Result<(usize, usize), StoreError> {
    if tx.on_postgres() {
        let now = tx.now_ms();
        let dead = dead_owners(tx, now, owner)?;
        let stranded = queue::stranded_locked(tx, now, owner, &dead)?;
        return settle_stranded(tx, stranded, Unanswered::Stopped);
    }
    let pending = attempt::pending(tx)?;
    let sending = queue::with_status(tx, QueueStatus::Sending)?;
    settle(tx, pending, sending, Unanswered::Stopped)
}

/// The owners of leases that are no live node's (stopped, silent for [`STALE`] by the database's
/// clock, `now` on SQLite, or of a version before nodes), never `owner` itself. A read.
pub fn dead_owners(conn: &impl Reads, now: i64, owner: &str) -> Result<Vec<String>, StoreError> {
    node::dead_lease_owners(conn, now, STALE.as_millis() as i64, owner)
}

/// While running: of `candidates` (messages found stranded, less those the dispatcher is still
/// sending), those still `sending` with no lease anyone may send under (ended by `now`, `owner`'s
/// own, or a node's among `dead`) are settled as at start. Returns (back in the queue, held).
pub fn recover_stranded(
    tx: &mut WriteTx<'_>,
    candidates: &[i64],
    now: i64,
    owner: &str,
    dead: &[String],
) -> Result<(usize, usize), StoreError> {
    let still: BTreeSet<i64> = queue::stranded_locked(tx, now, owner, dead)?.into_iter().collect();
    let stranded: Vec<i64> = candidates.iter().copied().filter(|id| still.contains(id)).collect();
    settle_stranded(tx, stranded, Unanswered::NotRecorded)
}

/// Settles the messages `stranded` (left `sending`, their rows locked), by their pending tries.
fn settle_stranded(tx: &mut WriteTx<'_>, stranded: Vec<i64>, why: Unanswered) -> Result<(usize, usize), StoreError> {
    let mut pending = Vec::new();
    for &message_id in &stranded {
        pending.extend(
            attempt::pending_of(tx, message_id)?
                .into_iter()
                .map(|a| (a, message_id)),
        );
    }
    settle(tx, pending, stranded, why)
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
