//! Deadlines: a message the SMSC accepted that has no final receipt by its kind's deadline is
//! flagged "no receipt by deadline" and gets an exception. It is shown as neither delivered nor
//! failed: nobody knows yet. A message whose tries asked for no receipt, or for one on failure only,
//! is never flagged: no receipt is what it expects when all goes well.

use rusqlite::{params, Connection};

use super::exceptions::{self, NewException};
use super::policy::ReceiptPolicy;
use super::project;
use super::rules::Input;
use crate::domain::{ExceptionKind, MessageKind};
use crate::store::Text;
use crate::store::{StoreError, WriteTx};

/// Accepted messages whose deadline passed before `now` without a final state and that are not
/// flagged yet; `only` narrows the search to one message. A read: run it on a read connection, so
/// the scan never holds up the writer.
pub fn due(
    conn: &Connection,
    now: i64,
    policy: &ReceiptPolicy,
    only: Option<i64>,
    limit: u32,
) -> Result<Vec<i64>, StoreError> {
    let finals = if policy.accepted_is_final {
        "('delivered','expired','deleted','undeliverable','rejected','unknown','skipped','accepted')"
    } else {
        "('delivered','expired','deleted','undeliverable','rejected','unknown','skipped')"
    };
    // registered_delivery bit 0 set (1: final on success or failure, 3: on success only) asks for
    // a receipt when all goes well.
    Ok(conn
        .prepare_cached(&format!(
            "SELECT q.message_id
             FROM queue q JOIN message m ON m.id = q.message_id
                 JOIN attempt a ON a.message_id = q.message_id AND a.outcome = 'accepted'
             WHERE q.status = 'accepted' AND (?1 IS NULL OR q.message_id = ?1)
               AND NOT EXISTS (SELECT 1 FROM projection p WHERE p.message_id = q.message_id
                               AND (p.state IN {finals} OR p.flag_no_receipt = 1 OR p.rule = 'operator_decision'
                                    OR p.rule = 'parts_final'))
               AND NOT EXISTS (SELECT 1 FROM exception e WHERE e.message_id = q.message_id AND e.kind = 'no_receipt')
             GROUP BY q.message_id
             HAVING max(a.responded_at) <= ?3 - CASE m.kind WHEN 'otp' THEN ?4 WHEN 'transactional' THEN ?5 ELSE ?6 END
                AND max(coalesce(a.registered_delivery, m.registered_delivery) & 1) = 1
             LIMIT ?2"
        ))?
        .query_map(
            params![
                only,
                limit,
                now,
                policy.deadline_ms[0],
                policy.deadline_ms[1],
                policy.deadline_ms[2]
            ],
            |r| r.get(0),
        )?
        .collect::<Result<_, _>>()?)
}

/// Flags the given messages "no receipt by deadline" (each re-checked inside the transaction, so a
/// receipt that arrived since [`due`] ran wins) and opens their exceptions. Returns how many.
pub fn flag(tx: &mut WriteTx<'_>, candidates: &[i64], now: i64, policy: &ReceiptPolicy) -> Result<usize, StoreError> {
    let mut flagged = 0;
    for &message_id in candidates {
        if due(tx.conn(), now, policy, Some(message_id), 1)?.is_empty() {
            continue;
        }
        let kind: MessageKind = tx
            .conn()
            .prepare_cached("SELECT kind FROM message WHERE id = ?1")?
            .query_row([message_id], |r| r.get::<_, Text<_>>(0).map(|t| t.0))?;
        let summary = format!(
            "No final receipt within {} of acceptance: delivery is not known.",
            duration_words(policy.deadline_of(kind))
        );
        let ex = exceptions::open(
            tx,
            &NewException {
                kind: ExceptionKind::NoReceipt,
                message_id: Some(message_id),
                logical_event_id: None,
                summary,
            },
        )?;
        project::apply(tx, message_id, &Input::Deadline { exception: ex }, policy.rules())?;
        flagged += 1;
    }
    Ok(flagged)
}

/// "15 min", "48 h", "2 h 30 min".
fn duration_words(ms: i64) -> String {
    let minutes = ms / 60_000;
    match (minutes / 60, minutes % 60) {
        (0, m) => format!("{m} min"),
        (h, 0) => format!("{h} h"),
        (h, m) => format!("{h} h {m} min"),
    }
}

/// [`due`] and [`flag`] in one transaction (for tests and small databases).
pub fn sweep(tx: &mut WriteTx<'_>, now: i64, policy: &ReceiptPolicy, limit: u32) -> Result<usize, StoreError> {
    let candidates = due(tx.conn(), now, policy, None, limit)?;
    flag(tx, &candidates, now, policy)
}
