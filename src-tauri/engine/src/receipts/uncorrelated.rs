//! Receipts that match no message. Some arrive before the answer to their own submit, which then
//! brings their id a moment later: such a receipt is stored at once, as every receipt is, but a
//! person is asked about it only once no submit on its connection that was written before it
//! arrived still awaits its answer, or after the grace (`receipts.uncorrelated_grace_seconds`),
//! whichever comes first.

use crate::said::{self, Summary, SummaryCode};
use std::sync::Arc;
use std::time::Duration;

use super::exceptions;
use super::policy::ReceiptPolicy;
use crate::domain::ExceptionKind;
use crate::store::tables::uncorrelated_wait;
use crate::store::{Store, StoreError, WriteTx};

pub(crate) use crate::store::tables::uncorrelated_wait::{stop_waiting, wait};

/// Opens the exception of a receipt that matches no message.
pub(crate) fn open_exception(
    tx: &mut WriteTx<'_>,
    event: i64,
    receipt: i64,
    connection: &str,
    message_id_raw: Option<&str>,
) -> Result<i64, StoreError> {
    let summary = match message_id_raw {
        Some(id) => Summary::new(
            SummaryCode::Uncorrelated,
            said::params([("connection", connection.to_owned()), ("id", id.to_owned())]),
            format!(
                "No message sent on {connection} has the provider id {id:?}; kept until one does, or until you attach it."
            ),
        ),
        None => Summary::new(
            SummaryCode::UncorrelatedNoId,
            said::Params::new(),
            "The receipt carries no message id, so no message can be matched to it.".to_owned(),
        ),
    };
    exceptions::open_for_receipt(tx, ExceptionKind::Uncorrelated, None, event, receipt, summary)
}

/// Opens the exceptions of the waiting receipts whose wait is over at `now`: no submit written on
/// their connection before they arrived awaits its answer any more, or the grace has passed.
/// Returns how many were opened.
pub fn sweep(tx: &mut WriteTx<'_>, now: i64, policy: &ReceiptPolicy) -> Result<usize, StoreError> {
    let due = uncorrelated_wait::given_up(&*tx, now - policy.uncorrelated_grace_ms)?;
    for w in &due {
        open_exception(tx, w.event, w.receipt, &w.connection, w.message_id_raw.as_deref())?;
        uncorrelated_wait::stop_waiting(tx, w.event)?;
    }
    Ok(due.len())
}

/// Runs [`sweep`] every `every`, under the rules `policy` gives each time (settings change while it
/// runs); the look for waiting receipts is a read, and the writer is asked only when there are some.
pub async fn keep_sweeping(store: Arc<Store>, policy: impl Fn() -> ReceiptPolicy, every: Duration) {
    let mut tick = tokio::time::interval(every);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        match store.reader().read(uncorrelated_wait::any).await {
            Ok(true) => {}
            Ok(false) => continue,
            Err(e) => {
                tracing::error!(error = %e, "looking for waiting receipts failed");
                continue;
            }
        }
        let policy = policy();
        match store
            .writer()
            .write(move |tx| {
                let now = tx.now_ms();
                sweep(tx, now, &policy)
            })
            .await
        {
            Ok(0) => {}
            Ok(n) => tracing::info!(receipts = n, "receipts that match no message, for a person to look at"),
            Err(e) => tracing::error!(error = %e, "opening exceptions of unmatched receipts failed"),
        }
    }
}
