use std::sync::LazyLock;

use crate::db::{Dialect, Row};
use crate::totals::Delta;
use crate::writer::{Entity, WriteTx};
use crate::Reads;
use crate::StoreError;
use crate::Text;
use smsdesk_core::domain::{ReceiptKind, ReceiptSource};
use smsdesk_core::receipts::fields::ReceiptFields;
use smsdesk_core::receipts::parse::Stat;

/// A receipt exactly as received, with what the parser read from it.
#[derive(Debug, Clone, Default)]
pub struct NewReceipt {
    pub received_at: i64,
    pub source: Option<ReceiptSource>,
    pub connection: String,
    pub session_id: Option<String>,
    pub sequence_number: Option<u32>,
    /// Its position among the reports read on its SMPP session (from 1).
    pub arrival_no: Option<u64>,
    pub provider: Option<String>,
    pub source_addr: Option<String>,
    /// The source address's type of number, as the deliver_sm gave it.
    pub source_ton: Option<u8>,
    pub destination_addr: Option<String>,
    pub pdu: Option<Vec<u8>>,
    pub part: u32,
    pub parts: u32,
    pub raw: Vec<u8>,
    pub raw_text: Option<String>,
    pub headers_json: Option<String>,
    pub tlvs_json: Option<String>,
    pub esm_class: Option<u8>,
    pub data_coding: Option<u8>,
    pub kind: Option<ReceiptKind>,
    pub parser_version: u32,
    pub parse_error: Option<String>,
    /// What the report says, as read.
    pub fields: ReceiptFields,
}

impl<'c> WriteTx<'c> {
    /// The receipt log. It can only append.
    pub fn receipts(&mut self) -> ReceiptLog<'_, 'c> {
        ReceiptLog::new(self)
    }
}

/// The receipt table's only write handle: it appends.
pub struct ReceiptLog<'t, 'c> {
    tx: &'t mut WriteTx<'c>,
}

impl<'t, 'c> ReceiptLog<'t, 'c> {
    fn new(tx: &'t mut WriteTx<'c>) -> Self {
        ReceiptLog { tx }
    }

    /// Appends one receipt and returns its local sequence number.
    pub fn append(self, r: &NewReceipt) -> Result<i64, StoreError> {
        let source = r.source.unwrap_or(ReceiptSource::SmppDeliverSm);
        let kind = r.kind.unwrap_or(ReceiptKind::Unparseable);
        let id: i64 = self.tx.db().one(
            "INSERT INTO receipt (received_at, source, connection, session_id, sequence_number, provider,
                     raw, raw_text, headers_json, tlvs_json, esm_class, data_coding, kind, parser_version,
                     parse_error, message_id_raw, text_id, event_id, stat, stat_raw, err, sub, dlvrd,
                     submit_date, done_date, submit_ts, done_ts, message_state, network_error_code,
                     source_addr, destination_addr, pdu, part, parts, arrival_no, id_source, status_unreadable,
                     source_ton)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19,
                     ?20, ?21, ?22, ?23, ?24, ?25, ?26, ?27, ?28, ?29, ?30, ?31, ?32, ?33, ?34, ?35, ?36, ?37, ?38) RETURNING id",
            &[
                &r.received_at,
                &Text(source),
                &r.connection,
                &r.session_id,
                &r.sequence_number,
                &r.provider,
                &r.raw,
                &r.raw_text,
                &r.headers_json,
                &r.tlvs_json,
                &r.esm_class,
                &r.data_coding,
                &Text(kind),
                &r.parser_version,
                &r.parse_error,
                &r.fields.message_id_raw,
                &r.fields.text_id,
                &r.fields.event_id,
                &r.fields.stat.map(Stat::as_str),
                &r.fields.stat_raw,
                &r.fields.err,
                &r.fields.sub,
                &r.fields.dlvrd,
                &r.fields.submit_date,
                &r.fields.done_date,
                &r.fields.submit_ts,
                &r.fields.done_ts,
                &r.fields.message_state,
                &r.fields.network_error_code,
                &r.source_addr,
                &r.destination_addr,
                &r.pdu,
                &r.part,
                &r.parts.max(1),
                &r.arrival_no.map(|n| n as i64),
                &r.fields.id_source.map(Text),
                &r.fields.status_unreadable,
                &r.source_ton,
            ],
        )?;
        self.tx.changed(Entity::Receipt, id);
        if kind != ReceiptKind::Mo {
            // An incoming message is not a report: the charts count reports only.
            self.tx.count(Delta::Receipt { at: r.received_at });
        }
        Ok(id)
    }
}

/// Stored receipts without an outcome, with the columns processing needs (read back by
/// [`read_view_row`]); the text is put together once.
///
/// It reads the receipts listed as deferred ([`defer`]), and those stored after the last receipt
/// that has an outcome, never the whole log: a start on a large database reads what is left to
/// do. Every receipt without an outcome is one of the two, since a receipt is applied, or listed,
/// in the transaction that stores it (and schema 23 listed those stored before).
static UNPROCESSED: LazyLock<String> = LazyLock::new(|| unprocessed_sql("max"));

/// [`UNPROCESSED`] on PostgreSQL, whose `max` takes no two arguments (`greatest` does).
static UNPROCESSED_PG: LazyLock<String> = LazyLock::new(|| unprocessed_sql("greatest"));

fn unprocessed_sql(greatest: &str) -> String {
    format!(
        "SELECT r.id, r.connection, r.kind, r.parse_error, r.source_addr, r.destination_addr, r.raw_text,
             r.received_at, {}
         FROM (SELECT receipt_id AS id FROM receipt_deferred WHERE receipt_id > ?1
               UNION
               SELECT id FROM receipt
               WHERE id > {greatest}(?1, (SELECT coalesce(max(receipt_id), 0) FROM receipt_outcome))) c
         JOIN receipt r ON r.id = c.id
         WHERE NOT EXISTS (SELECT 1 FROM receipt_outcome o WHERE o.receipt_id = r.id)
         ORDER BY c.id LIMIT ?2",
        field_columns("r")
    )
}

fn read_view_row(r: &Row<'_, '_>) -> Result<(i64, NewReceipt), StoreError> {
    Ok((
        r.get(0)?,
        NewReceipt {
            connection: r.get(1)?,
            kind: Some(r.get::<Text<_>>(2)?.0),
            parse_error: r.get(3)?,
            source_addr: r.get(4)?,
            destination_addr: r.get(5)?,
            raw_text: r.get(6)?,
            received_at: r.get(7)?,
            fields: fields(r, 8)?,
            ..NewReceipt::default()
        },
    ))
}

/// The columns of [`ReceiptFields`], in the order [`fields`] reads them.
const FIELD_COLUMNS: [&str; 16] = [
    "message_id_raw",
    "id_source",
    "text_id",
    "event_id",
    "stat",
    "stat_raw",
    "status_unreadable",
    "err",
    "sub",
    "dlvrd",
    "submit_date",
    "done_date",
    "submit_ts",
    "done_ts",
    "message_state",
    "network_error_code",
];

/// The columns of [`ReceiptFields`] of the receipt table known as `alias` in a query.
pub fn field_columns(alias: &str) -> String {
    FIELD_COLUMNS.map(|c| format!("{alias}.{c}")).join(", ")
}

/// The report's fields, from [`field_columns`] starting at column `at`, of a row of either store.
pub fn fields(r: &Row<'_, '_>, at: usize) -> Result<ReceiptFields, StoreError> {
    let stat = match r.get::<Option<String>>(at + 4)? {
        None => None,
        Some(token) => Some(Stat::from_token(&token).ok_or_else(|| {
            StoreError::Corrupt(format!("column {}: `{token}` is not a stored status token", at + 4))
        })?),
    };
    Ok(ReceiptFields {
        message_id_raw: r.get(at)?,
        id_source: r.get::<Option<Text<_>>>(at + 1)?.map(|t| t.0),
        text_id: r.get(at + 2)?,
        event_id: r.get(at + 3)?,
        stat,
        stat_raw: r.get(at + 5)?,
        status_unreadable: r.get(at + 6)?,
        err: r.get(at + 7)?,
        sub: r.get(at + 8)?,
        dlvrd: r.get(at + 9)?,
        submit_date: r.get(at + 10)?,
        done_date: r.get(at + 11)?,
        submit_ts: r.get(at + 12)?,
        done_ts: r.get(at + 13)?,
        message_state: r.get(at + 14)?,
        network_error_code: r.get(at + 15)?,
    })
}

/// Stored receipts that have no outcome yet (their effects failed), in receive order, after
/// receipt `after`, at most `limit`.
pub fn unprocessed(conn: &impl Reads, after: i64, limit: u32) -> Result<Vec<(i64, NewReceipt)>, StoreError> {
    let db = conn.db();
    let sql = match db.dialect() {
        Dialect::Sqlite => &*UNPROCESSED,
        Dialect::Postgres => &*UNPROCESSED_PG,
    };
    db.query(sql, &[&after, &limit], read_view_row)
}

/// Records what processing a receipt came to: its logical event, whether it repeated one, and the
/// flags it raised. Once, for good: a receipt without an outcome is processed again at start.
pub fn record_outcome(
    tx: &mut WriteTx<'_>,
    receipt: i64,
    event: Option<i64>,
    repeat: bool,
    flags: Option<String>,
) -> Result<(), StoreError> {
    let now = tx.now_ms();
    tx.db().execute(
        "INSERT INTO receipt_outcome (receipt_id, logical_event_id, is_repeat, flags_json, processed_at)
         VALUES (?1, ?2, ?3, ?4, ?5)",
        &[&receipt, &event, &repeat, &flags, &now],
    )?;
    if let Some(event) = event {
        crate::tables::redact::on_arrival(tx, event, Some(receipt))?;
    }
    Ok(())
}

/// Lists a stored receipt whose effects failed, for [`unprocessed`] to find at the next start; in
/// the transaction that stores it, so a receipt is never stored unapplied and unlisted.
pub fn defer(tx: &mut WriteTx<'_>, receipt: i64) -> Result<(), StoreError> {
    let now = tx.now_ms();
    tx.db().execute(
        "INSERT INTO receipt_deferred (receipt_id, deferred_at) VALUES (?1, ?2) ON CONFLICT DO NOTHING",
        &[&receipt, &now],
    )?;
    Ok(())
}

/// Takes a receipt off the deferred list once it has its outcome.
pub fn applied_at_last(tx: &mut WriteTx<'_>, receipt: i64) -> Result<(), StoreError> {
    tx.db()
        .execute("DELETE FROM receipt_deferred WHERE receipt_id = ?1", &[&receipt])?;
    Ok(())
}

#[cfg(test)]
mod tests;
