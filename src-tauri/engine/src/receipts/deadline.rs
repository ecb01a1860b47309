//! Deadlines: a message the SMSC accepted that has no final receipt by its kind's deadline is
//! flagged "no receipt by deadline" and gets an exception. It is shown as neither delivered nor
//! failed: nobody knows yet. A message whose tries asked for no receipt, or for one on failure only,
//! is never flagged: no receipt is what it expects when all goes well.

use super::exceptions::{self, NewException};
use super::policy::ReceiptPolicy;
use super::project;
use super::rules::Input;
use crate::domain::ExceptionKind;
use crate::said::{self, Summary, SummaryCode};
use crate::store::tables::message;
use crate::store::{StoreError, WriteTx};

pub use crate::store::tables::deadline::advance_frontier;
pub use crate::store::tables::deadline::no_receipt_due as due;

/// Flags the given messages "no receipt by deadline" (each re-checked inside the transaction, so a
/// receipt that arrived since [`due`] ran wins) and opens their exceptions. Returns how many.
pub fn flag(tx: &mut WriteTx<'_>, candidates: &[i64], now: i64, policy: &ReceiptPolicy) -> Result<usize, StoreError> {
    let mut flagged = 0;
    for &message_id in candidates {
        if due(&*tx, now, policy, Some(message_id), 1)?.is_empty() {
            continue;
        }
        let kind = message::kind(&*tx, message_id)?;
        let deadline = policy.deadline_of(kind);
        let summary = Summary::new(
            SummaryCode::NoReceipt,
            said::params([("minutes", (deadline / 60_000).to_string())]),
            format!(
                "No final receipt within {} of acceptance: delivery is not known.",
                duration_words(deadline)
            ),
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
    let candidates = due(&*tx, now, policy, None, limit)?;
    flag(tx, &candidates, now, policy)
}
