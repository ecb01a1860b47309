//! The "no receipt by deadline" search, and its frontier.
//!
//! Every message whose id is below the frontier (`deadline_frontier`, schema 14) cannot become due
//! as it stands: settled (a final state, a flag, a decision, a no-receipt exception), no receipt
//! asked for, or not accepted. The search reads from the frontier up, so it costs what the messages
//! still waiting for a receipt cost, not what the whole history does; the engine moves the frontier
//! past what settled since, a bounded stretch at a time. Triggers move it back to any message
//! below it whose queue row, tries or computed state change (its acceptance, a retry, a rebuild),
//! so nothing that may become due is ever behind it.

use smsdesk_core::receipts::policy::ReceiptPolicy;

use crate::writer::WriteTx;
use crate::Reads;
use crate::StoreError;

/// The final states under every policy (an SMSC's acceptance counts as final under some; for the
/// frontier it never does, so a policy change can never leave a message behind it).
const FINALS: &str = "('delivered','expired','deleted','undeliverable','rejected','unknown','skipped')";
const FINALS_OR_ACCEPTED: &str =
    "('delivered','expired','deleted','undeliverable','rejected','unknown','skipped','accepted')";

/// Accepted messages whose deadline passed before `now` without a final state and that are not
/// flagged yet; `only` narrows the search to one message (then the frontier is not consulted). A
/// read: run it on a read connection, so the search never holds up the writer.
pub fn no_receipt_due(
    conn: &impl Reads,
    now: i64,
    policy: &ReceiptPolicy,
    only: Option<i64>,
    limit: u32,
) -> Result<Vec<i64>, StoreError> {
    conn.db().query(
        &no_receipt_sql(policy, only.is_some()),
        &[
            &only,
            &limit,
            &now,
            &policy.deadline_ms[0],
            &policy.deadline_ms[1],
            &policy.deadline_ms[2],
        ],
        |r| r.get(0),
    )
}

/// What settles a message (`q`) for the deadline rule, given the final states.
fn settled_sql(finals: &str) -> String {
    format!(
        "(EXISTS (SELECT 1 FROM projection p WHERE p.message_id = q.message_id
                  AND (p.state IN {finals} OR p.flag_no_receipt = 1 OR p.rule = 'operator_decision'
                       OR p.rule = 'parts_final'))
          OR EXISTS (SELECT 1 FROM exception e WHERE e.message_id = q.message_id AND e.kind = 'no_receipt'))"
    )
}

/// The query of [`no_receipt_due`]: ?1 the one message (`one`) or NULL, ?2 the limit, ?3 now,
/// ?4–?6 the deadlines of OTPs, transactional and bulk messages. One message and the search from
/// the frontier are two statements: written as one range whose ends depend on ?1, the planner
/// kept only its lower end, and re-checking one message read every accepted message after it
/// (28 ms each at a million, 28 s of the writer's time for a sweep of 1,000). Written for both
/// stores: ?1 alone in `IS NULL` and the deadlines inside `max` are cast (PostgreSQL cannot tell
/// their type from there), and the kind's deadline is an aggregate (`m.kind` is one per group,
/// but PostgreSQL takes no column outside GROUP BY, and grouping by it too would change SQLite's
/// plan).
fn no_receipt_sql(policy: &ReceiptPolicy, one: bool) -> String {
    let finals = if policy.accepted_is_final {
        FINALS_OR_ACCEPTED
    } else {
        FINALS
    };
    let settled = settled_sql(finals);
    let which = if one {
        "q.message_id = ?1"
    } else {
        "CAST(?1 AS BIGINT) IS NULL AND q.message_id >= (SELECT frontier FROM deadline_frontier WHERE id = 1)"
    };
    // registered_delivery bit 0 set (1: final on success or failure, 3: on success only) asks for
    // a receipt when all goes well.
    format!(
        "SELECT q.message_id
         FROM queue q JOIN message m ON m.id = q.message_id
             JOIN attempt a ON a.message_id = q.message_id AND a.outcome = 'accepted'
         WHERE q.status = 'accepted'
           -- The key, which an index takes: one message's row, or from the frontier up.
           AND {which}
           AND NOT {settled}
         GROUP BY q.message_id
         HAVING max(a.responded_at)
                <= ?3 - max(CASE m.kind WHEN 'otp' THEN CAST(?4 AS BIGINT)
                                  WHEN 'transactional' THEN CAST(?5 AS BIGINT) ELSE CAST(?6 AS BIGINT) END)
            AND max(coalesce(a.registered_delivery, m.registered_delivery) & 1) = 1
         LIMIT ?2"
    )
}

/// The first message from ?1 to ?2 that may become due as it stands: accepted, a receipt asked
/// for, not settled. One waiting to be sent, or whose outcome waits for a person, is passed: when
/// it is accepted, its queue row changes, and that brings the frontier back to it.
fn first_open_sql() -> String {
    let settled = settled_sql(FINALS);
    format!(
        "SELECT q.message_id FROM queue q JOIN message m ON m.id = q.message_id
         WHERE q.message_id BETWEEN ?1 AND ?2
           AND q.status = 'accepted' AND NOT {settled}
           AND EXISTS (SELECT 1 FROM attempt a WHERE a.message_id = q.message_id
                       AND a.outcome = 'accepted'
                       AND coalesce(a.registered_delivery, m.registered_delivery) & 1 = 1)
         ORDER BY q.message_id
         LIMIT 1"
    )
}

/// The frontier now.
pub fn frontier(conn: &impl Reads) -> Result<i64, StoreError> {
    conn.db()
        .one("SELECT frontier FROM deadline_frontier WHERE id = 1", &[])
}

/// Moves the frontier past the settled messages just above it, looking at no more than `span`
/// message ids ahead (a bounded piece of the writer's time); returns where it stands.
pub fn advance_frontier(tx: &mut WriteTx<'_>, span: i64) -> Result<i64, StoreError> {
    let from = frontier(&*tx)?;
    let db = tx.db();
    let top: i64 = db.one("SELECT coalesce(max(message_id), 0) FROM queue", &[])?;
    let upto = top.min(from.saturating_add(span.max(1) - 1));
    if upto < from {
        return Ok(from);
    }
    let open: Option<i64> = db.query_opt(&first_open_sql(), &[&from, &upto], |r| r.get(0))?;
    let to = open.unwrap_or(upto + 1);
    if to > from {
        db.execute("UPDATE deadline_frontier SET frontier = ?1 WHERE id = 1", &[&to])?;
    }
    Ok(to)
}

#[cfg(test)]
mod tests;
