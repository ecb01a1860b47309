//! The `uncorrelated_wait` table: receipts whose id no message carries yet, waiting a grace
//! period for the submit response that may still bring it.

use rusqlite::params;

use crate::writer::WriteTx;
use crate::Reads;
use crate::StoreError;

/// Marks a logical event as waiting for its id before an exception opens.
pub fn wait(tx: &mut WriteTx<'_>, event: i64, connection: &str, received_at: i64) -> Result<(), StoreError> {
    tx.conn()
        .prepare_cached(
            "INSERT INTO uncorrelated_wait (logical_event_id, connection, received_at) VALUES (?1, ?2, ?3)",
        )?
        .execute(params![event, connection, received_at])?;
    Ok(())
}

/// The logical event no longer waits (its message was found, or its exception opened).
pub fn stop_waiting(tx: &mut WriteTx<'_>, event: i64) -> Result<(), StoreError> {
    tx.conn()
        .prepare_cached("DELETE FROM uncorrelated_wait WHERE logical_event_id = ?1")?
        .execute([event])?;
    Ok(())
}

/// A waiting logical event to give up on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GivenUp {
    pub event: i64,
    pub connection: String,
    /// Its first receipt.
    pub receipt: i64,
    /// The message id that receipt carries, as received.
    pub message_id_raw: Option<String>,
}

/// The waiting logical events to give up on: those received by `waited_since`, and those that no
/// pending try on their connection older than them could still explain.
pub fn given_up(conn: &impl Reads, waited_since: i64) -> Result<Vec<GivenUp>, StoreError> {
    let conn = conn.connection();
    Ok(conn
        .prepare_cached(
            "SELECT w.logical_event_id, w.connection, e.first_receipt_id, r.message_id_raw
             FROM uncorrelated_wait w JOIN logical_event e ON e.id = w.logical_event_id
             JOIN receipt r ON r.id = e.first_receipt_id
             WHERE w.received_at <= ?1
                OR NOT EXISTS (SELECT 1 FROM attempt a WHERE a.outcome = 'pending'
                               AND a.connection = w.connection AND a.created_at <= w.received_at)
             ORDER BY w.logical_event_id",
        )?
        .query_map(params![waited_since], |r| {
            Ok(GivenUp {
                event: r.get(0)?,
                connection: r.get(1)?,
                receipt: r.get(2)?,
                message_id_raw: r.get(3)?,
            })
        })?
        .collect::<Result<_, _>>()?)
}

/// Whether any receipt waits (a read, so that the writer is asked only when there is work).
pub fn any(conn: &impl Reads) -> Result<bool, StoreError> {
    let conn = conn.connection();
    Ok(conn
        .prepare_cached("SELECT EXISTS (SELECT 1 FROM uncorrelated_wait)")?
        .query_row([], |r| r.get(0))?)
}
