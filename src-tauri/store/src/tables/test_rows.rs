//! Rows the tests of the tables on both stores stand on, written with plain SQL where the table's
//! own module is not theirs to test: a message, its queue row and a try of it.

use crate::db::Db;
use crate::tables::receipt::NewReceipt;
use crate::writer::WriteTx;
use crate::StoreError;

/// A message to `destination` queued for `connection`, created at the batch's time.
pub(crate) fn message(tx: &WriteTx<'_>, connection: &str, destination: &str, kind: &str) -> Result<i64, StoreError> {
    message_of(tx, connection, destination, kind, None)
}

/// [`message`], handed in with API key `key`.
pub(crate) fn message_of(
    tx: &WriteTx<'_>,
    connection: &str,
    destination: &str,
    kind: &str,
    key: Option<i64>,
) -> Result<i64, StoreError> {
    tx.db().one(
        "INSERT INTO message (created_at, channel, destination_raw, destination, body, encoding, segments, kind,
             priority, registered_delivery, connection, api_key_id, country)
         VALUES (?1, 'api', ?2, ?2, 'hello', 'gsm7', 1, ?3, 0, 1, ?4, ?5, 'FR') RETURNING id",
        &[&tx.now_ms(), &destination, &kind, &connection, &key],
    )
}

/// Message `id`'s queue row, in `status`.
pub(crate) fn queued(db: Db<'_>, id: i64, status: &str, at: i64) -> Result<(), StoreError> {
    db.execute(
        "INSERT INTO queue (message_id, status, priority, next_attempt_at, updated_at) VALUES (?1, ?2, 0, ?3, ?3)",
        &[&id, &status, &at],
    )?;
    Ok(())
}

/// Try `no` of message `id` on `connection`, accepted with the provider id `key`.
pub(crate) fn accepted_try(
    db: Db<'_>,
    id: i64,
    no: i64,
    connection: &str,
    key: &str,
    at: i64,
) -> Result<i64, StoreError> {
    db.one(
        "INSERT INTO attempt (message_id, attempt_no, connection, created_at, outcome, provider_id_norm)
         VALUES (?1, ?2, ?3, ?4, 'accepted', ?5) RETURNING id",
        &[&id, &no, &connection, &at, &key],
    )
}

/// A delivery receipt on `connection` for the provider id `id_raw`, saying `stat`.
pub(crate) fn receipt(tx: &mut WriteTx<'_>, connection: &str, id_raw: &str, stat: &str) -> Result<i64, StoreError> {
    let text = format!("id:{id_raw} sub:001 dlvrd:001 stat:{stat} err:000 text:hello");
    let now = tx.now_ms();
    tx.receipts().append(&NewReceipt {
        received_at: now,
        connection: connection.into(),
        source_addr: Some("+33612345678".into()),
        raw: text.clone().into_bytes(),
        raw_text: Some(text),
        fields: smsdesk_core::receipts::fields::ReceiptFields {
            message_id_raw: Some(id_raw.into()),
            stat_raw: Some(stat.into()),
            ..Default::default()
        },
        ..NewReceipt::default()
    })
}
