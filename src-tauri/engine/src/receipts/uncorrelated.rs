//! Receipts that match no message. Some arrive before the answer to their own submit, which then
//! brings their id a moment later: such a receipt is stored at once, as every receipt is, but a
//! person is asked about it only once no submit on its connection that was written before it
//! arrived still awaits its answer, or after the grace (`receipts.uncorrelated_grace_seconds`),
//! whichever comes first.

use std::sync::Arc;
use std::time::Duration;

use rusqlite::params;

use super::exceptions;
use super::policy::ReceiptPolicy;
use crate::clock::now_ms;
use crate::domain::ExceptionKind;
use crate::store::{Store, StoreError, WriteTx};

/// Marks a logical event as waiting for its id before an exception opens.
pub(crate) fn wait(tx: &mut WriteTx<'_>, event: i64, connection: &str, received_at: i64) -> Result<(), StoreError> {
    tx.conn()
        .prepare_cached(
            "INSERT INTO uncorrelated_wait (logical_event_id, connection, received_at) VALUES (?1, ?2, ?3)",
        )?
        .execute(params![event, connection, received_at])?;
    Ok(())
}

/// The logical event no longer waits (its message was found, or its exception opened).
pub(crate) fn stop_waiting(tx: &mut WriteTx<'_>, event: i64) -> Result<(), StoreError> {
    tx.conn()
        .prepare_cached("DELETE FROM uncorrelated_wait WHERE logical_event_id = ?1")?
        .execute([event])?;
    Ok(())
}

/// Opens the exception of a receipt that matches no message.
pub(crate) fn open_exception(
    tx: &mut WriteTx<'_>,
    event: i64,
    receipt: i64,
    connection: &str,
    message_id_raw: Option<&str>,
) -> Result<i64, StoreError> {
    let summary = match message_id_raw {
        Some(id) => format!(
            "No message sent on {connection} has the provider id {id:?}; kept until one does, or until you attach it."
        ),
        None => "The receipt carries no message id, so no message can be matched to it.".to_owned(),
    };
    exceptions::open_for_receipt(tx, ExceptionKind::Uncorrelated, None, event, receipt, summary)
}

/// Opens the exceptions of the waiting receipts whose wait is over at `now`: no submit written on
/// their connection before they arrived awaits its answer any more, or the grace has passed.
/// Returns how many were opened.
pub fn sweep(tx: &mut WriteTx<'_>, now: i64, policy: &ReceiptPolicy) -> Result<usize, StoreError> {
    let due: Vec<(i64, String, i64, Option<String>)> = tx
        .conn()
        .prepare_cached(
            "SELECT w.logical_event_id, w.connection, e.first_receipt_id, r.message_id_raw
             FROM uncorrelated_wait w JOIN logical_event e ON e.id = w.logical_event_id
             JOIN receipt r ON r.id = e.first_receipt_id
             WHERE w.received_at <= ?1
                OR NOT EXISTS (SELECT 1 FROM attempt a WHERE a.outcome = 'pending'
                               AND a.connection = w.connection AND a.created_at <= w.received_at)
             ORDER BY w.logical_event_id",
        )?
        .query_map(params![now - policy.uncorrelated_grace_ms], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
        })?
        .collect::<Result<_, _>>()?;
    for (event, connection, receipt, id) in &due {
        open_exception(tx, *event, *receipt, connection, id.as_deref())?;
        stop_waiting(tx, *event)?;
    }
    Ok(due.len())
}

/// Whether any receipt waits (a read, so that the writer is asked only when there is work).
pub fn any_waiting(conn: &rusqlite::Connection) -> Result<bool, StoreError> {
    Ok(conn
        .prepare_cached("SELECT EXISTS (SELECT 1 FROM uncorrelated_wait)")?
        .query_row([], |r| r.get(0))?)
}

/// Runs [`sweep`] every `every`, under the rules `policy` gives each time (settings change while it
/// runs); the look for waiting receipts is a read, and the writer is asked only when there are some.
pub async fn keep_sweeping(store: Arc<Store>, policy: impl Fn() -> ReceiptPolicy, every: Duration) {
    let mut tick = tokio::time::interval(every);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        match store.reader().read(any_waiting).await {
            Ok(true) => {}
            Ok(false) => continue,
            Err(e) => {
                tracing::error!(error = %e, "looking for waiting receipts failed");
                continue;
            }
        }
        let policy = policy();
        match store.writer().write(move |tx| sweep(tx, now_ms(), &policy)).await {
            Ok(0) => {}
            Ok(n) => tracing::info!(receipts = n, "receipts that match no message, for a person to look at"),
            Err(e) => tracing::error!(error = %e, "opening exceptions of unmatched receipts failed"),
        }
    }
}
