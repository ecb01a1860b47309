//! The `logical_event` table: one row per event a provider reported, whatever number of receipts
//! carried it.

use smsdesk_core::domain::{Correlation, IdSource};
use smsdesk_core::receipts::dedup::DedupKey;

use crate::writer::{Entity, WriteTx};
use crate::Reads;
use crate::{StoreError, Text};

/// The connection of a logical event, the key of the message id it reports and that id as its
/// first receipt carried it.
pub fn receipted_id(conn: &impl Reads, event: i64) -> Result<(String, Option<String>, Option<String>), StoreError> {
    conn.db().query_row(
        "SELECT e.connection, e.receipted_id_norm, r.message_id_raw FROM logical_event e
         JOIN receipt r ON r.id = e.first_receipt_id WHERE e.id = ?1",
        &[&event],
        |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
    )
}

/// The logical events on `connection` reporting the id `key` that no message was matched to yet,
/// oldest first.
pub fn waiting_for(conn: &impl Reads, connection: &str, key: &str) -> Result<Vec<i64>, StoreError> {
    conn.db().query(
        "SELECT id FROM logical_event
         WHERE connection = ?1 AND receipted_id_norm = ?2 AND correlation IN ('pending', 'none') ORDER BY id",
        &[&connection, &key],
        |r| r.get(0),
    )
}

/// Records that a logical event belongs to a message, matched `by` the system or an operator.
pub fn mark_matched(tx: &mut WriteTx<'_>, event: i64, message_id: i64, by: &str) -> Result<(), StoreError> {
    let now = tx.now_ms();
    tx.db().execute(
        "UPDATE logical_event SET correlation = ?5, message_id = ?2, correlated_at = ?3, correlated_by = ?4
         WHERE id = ?1",
        &[&event, &message_id, &now, &by, &Text(Correlation::Matched)],
    )?;
    tx.changed(Entity::LogicalEvent, event);
    crate::tables::redact::on_arrival(tx, event, None)
}

/// The first receipt that carried a logical event, and its status word as received.
pub fn first_receipt_status(conn: &impl Reads, event: i64) -> Result<(i64, Option<String>), StoreError> {
    conn.db().query_row(
        "SELECT r.id, r.stat_raw FROM logical_event e JOIN receipt r ON r.id = e.first_receipt_id
         WHERE e.id = ?1",
        &[&event],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )
}

/// The logical events on `connection` not matched to a message whose first receipt carries an id:
/// (event, the id as received, where it was read).
pub fn unmatched_ids(conn: &impl Reads, connection: &str) -> Result<Vec<(i64, String, Option<IdSource>)>, StoreError> {
    conn.db().query(
        "SELECT e.id, r.message_id_raw, r.id_source FROM logical_event e JOIN receipt r ON r.id = e.first_receipt_id
         WHERE e.connection = ?1 AND e.correlation IN ('pending', 'none') AND r.message_id_raw IS NOT NULL",
        &[&connection],
        |r| Ok((r.get(0)?, r.get(1)?, r.get::<Option<Text<_>>>(2)?.map(|t| t.0))),
    )
}

/// Sets the key a logical event's reported id is matched by.
pub fn set_receipted_key(tx: &mut WriteTx<'_>, event: i64, key: &str) -> Result<(), StoreError> {
    tx.db().execute(
        "UPDATE logical_event SET receipted_id_norm = ?2 WHERE id = ?1",
        &[&event, &key],
    )?;
    tx.changed(Entity::LogicalEvent, event);
    Ok(())
}

/// A logical event to record, first seen in receipt `first_receipt_id`.
pub struct NewEvent<'a> {
    pub connection: &'a str,
    pub key: &'a DedupKey,
    pub first_receipt_id: i64,
    pub correlation: Correlation,
    /// The message it was matched to, by the system, if one was.
    pub message_id: Option<i64>,
}

/// Records a new logical event with its correlation; None when the event is already recorded
/// (a repeat).
pub fn record(tx: &mut WriteTx<'_>, e: &NewEvent<'_>) -> Result<Option<i64>, StoreError> {
    let now = tx.now_ms();
    let key = e.key;
    let inserted: Option<i64> = tx.db().query_opt(
        "INSERT INTO logical_event (connection, dedup_key, key_source, receipted_id_norm, stat, err, done_date,
             message_state, receipt_kind, first_receipt_id, created_at, correlation, message_id, correlated_at,
             correlated_by)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)
         ON CONFLICT (connection, dedup_key) DO NOTHING RETURNING id",
        &[
            &e.connection,
            &key.key,
            &key.source.as_str(),
            &key.receipted_id,
            &key.stat,
            &key.err,
            &key.done_date,
            &key.message_state,
            &Text(key.kind),
            &e.first_receipt_id,
            &now,
            &Text(e.correlation),
            &e.message_id,
            &e.message_id.map(|_| now),
            &e.message_id.map(|_| "system"),
        ],
        |r| r.get(0),
    )?;
    let Some(event) = inserted else {
        return Ok(None);
    };
    tx.changed(Entity::LogicalEvent, event);
    Ok(Some(event))
}

/// The logical event recorded on `connection` under `dedup_key`.
pub fn by_dedup_key(conn: &impl Reads, connection: &str, dedup_key: &str) -> Result<i64, StoreError> {
    conn.db().one(
        "SELECT id FROM logical_event WHERE connection = ?1 AND dedup_key = ?2",
        &[&connection, &dedup_key],
    )
}

/// What is stored of a logical event and its first receipt, for recomputing what it says.
pub struct StoredEvent {
    pub stat: Option<String>,
    pub id: Option<String>,
    pub text_id: Option<String>,
    pub unreadable: bool,
    pub connection: String,
    pub key: Option<String>,
}

/// A logical event as stored, if it exists.
pub fn stored(conn: &impl Reads, event: i64) -> Result<Option<StoredEvent>, StoreError> {
    conn.db().query_opt(
        "SELECT e.stat, r.message_id_raw, r.text_id, r.status_unreadable, e.connection, e.receipted_id_norm
         FROM logical_event e JOIN receipt r ON r.id = e.first_receipt_id WHERE e.id = ?1",
        &[&event],
        |r| {
            Ok(StoredEvent {
                stat: r.get(0)?,
                id: r.get(1)?,
                text_id: r.get(2)?,
                unreadable: r.get(3)?,
                connection: r.get(4)?,
                key: r.get(5)?,
            })
        },
    )
}
