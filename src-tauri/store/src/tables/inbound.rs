//! The `inbound_message` table: messages from handsets (mobile-originated), kept with the receipt
//! row they arrived as.

use rusqlite::params;

use crate::writer::WriteTx;
use crate::StoreError;

/// A message from a handset, as it arrived.
pub struct NewInbound<'a> {
    pub receipt_id: i64,
    pub connection: &'a str,
    pub source_addr: Option<&'a str>,
    pub destination_addr: Option<&'a str>,
    pub body: Option<&'a str>,
    pub received_at: i64,
}

/// Stores a message from a handset; returns its id.
pub fn insert(tx: &mut WriteTx<'_>, m: &NewInbound<'_>) -> Result<i64, StoreError> {
    tx.conn()
        .prepare_cached(
            "INSERT INTO inbound_message (receipt_id, connection, source_addr, destination_addr, body, received_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        )?
        .execute(params![
            m.receipt_id,
            m.connection,
            m.source_addr,
            m.destination_addr,
            m.body,
            m.received_at
        ])?;
    Ok(tx.conn().last_insert_rowid())
}
