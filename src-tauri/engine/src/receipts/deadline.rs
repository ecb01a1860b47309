//! Deadlines: a message the SMSC accepted that has no final receipt by the connection's deadline is
//! flagged "no receipt by deadline" and gets an exception. It is shown as neither delivered nor
//! failed: nobody knows yet.

use rusqlite::params;

use super::exceptions::{self, NewException};
use super::policy::ReceiptPolicy;
use super::project;
use super::rules::Input;
use crate::domain::ExceptionKind;
use crate::store::{StoreError, WriteTx};

/// Flags every accepted message whose deadline passed before `now` without a final state.
/// Returns how many were flagged. Each message is flagged once.
pub fn sweep(tx: &mut WriteTx<'_>, now: i64, policy: &ReceiptPolicy, limit: u32) -> Result<usize, StoreError> {
    let finals = if policy.accepted_is_final {
        "('delivered','expired','deleted','undeliverable','rejected','unknown','skipped','accepted')"
    } else {
        "('delivered','expired','deleted','undeliverable','rejected','unknown','skipped')"
    };
    let due: Vec<(i64, i64)> = tx
        .conn()
        .prepare_cached(&format!(
            "SELECT q.message_id, max(a.responded_at) AS accepted_at
             FROM queue q JOIN attempt a ON a.message_id = q.message_id AND a.outcome = 'accepted'
             WHERE q.status = 'accepted'
               AND NOT EXISTS (SELECT 1 FROM projection p WHERE p.message_id = q.message_id
                               AND (p.state IN {finals} OR p.flag_no_receipt = 1 OR p.rule = 'operator_decision'))
               AND NOT EXISTS (SELECT 1 FROM exception e WHERE e.message_id = q.message_id AND e.kind = 'no_receipt')
             GROUP BY q.message_id
             HAVING accepted_at <= ?1
             LIMIT ?2"
        ))?
        .query_map(params![now - policy.deadline_ms, limit], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<Result<_, _>>()?;
    let settings = policy.rules();
    let hours = policy.deadline_ms / 3_600_000;
    for (message_id, _) in &due {
        let summary = format!("No final receipt within {hours} h of acceptance: delivery is not known.");
        let ex = exceptions::open(
            tx,
            &NewException {
                kind: ExceptionKind::NoReceipt,
                message_id: Some(*message_id),
                logical_event_id: None,
                summary,
            },
        )?;
        project::apply(tx, *message_id, &Input::Deadline { exception: ex }, settings)?;
    }
    Ok(due.len())
}
