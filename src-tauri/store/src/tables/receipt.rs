use rusqlite::params;

use crate::totals::Delta;
use crate::writer::{Entity, WriteTx};
use crate::Reads;
use crate::StoreError;
use crate::Text;
use smsdesk_core::domain::{ReceiptKind, ReceiptSource};

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
    pub message_id_raw: Option<String>,
    /// Where `message_id_raw` was read.
    pub id_source: Option<smsdesk_core::domain::IdSource>,
    /// The receipt text's id, when the TLV gave `message_id_raw`.
    pub text_id: Option<String>,
    pub event_id: Option<String>,
    pub stat: Option<String>,
    pub stat_raw: Option<String>,
    /// The status word named no known status (`stat` is then UNKNOWN for want of one).
    pub status_unreadable: bool,
    pub err: Option<String>,
    pub sub: Option<String>,
    pub dlvrd: Option<String>,
    pub submit_date: Option<String>,
    pub done_date: Option<String>,
    pub submit_ts: Option<String>,
    pub done_ts: Option<String>,
    pub message_state: Option<u8>,
    pub network_error_code: Option<String>,
}

/// The receipt table's only write handle: it appends.
pub struct ReceiptLog<'t, 'c> {
    tx: &'t mut WriteTx<'c>,
}

impl<'t, 'c> ReceiptLog<'t, 'c> {
    pub(crate) fn new(tx: &'t mut WriteTx<'c>) -> Self {
        ReceiptLog { tx }
    }

    /// Appends one receipt and returns its local sequence number.
    pub fn append(self, r: &NewReceipt) -> Result<i64, StoreError> {
        let source = r.source.unwrap_or(ReceiptSource::SmppDeliverSm);
        let kind = r.kind.unwrap_or(ReceiptKind::Unparseable);
        self.tx
            .conn()
            .prepare_cached(
                "INSERT INTO receipt (received_at, source, connection, session_id, sequence_number, provider,
                 raw, raw_text, headers_json, tlvs_json, esm_class, data_coding, kind, parser_version,
                 parse_error, message_id_raw, text_id, event_id, stat, stat_raw, err, sub, dlvrd,
                 submit_date, done_date, submit_ts, done_ts, message_state, network_error_code,
                 source_addr, destination_addr, pdu, part, parts, arrival_no, id_source, status_unreadable)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19,
                 ?20, ?21, ?22, ?23, ?24, ?25, ?26, ?27, ?28, ?29, ?30, ?31, ?32, ?33, ?34, ?35, ?36, ?37)",
            )?
            .execute(params![
                r.received_at,
                Text(source),
                r.connection,
                r.session_id,
                r.sequence_number,
                r.provider,
                r.raw,
                r.raw_text,
                r.headers_json,
                r.tlvs_json,
                r.esm_class,
                r.data_coding,
                Text(kind),
                r.parser_version,
                r.parse_error,
                r.message_id_raw,
                r.text_id,
                r.event_id,
                r.stat,
                r.stat_raw,
                r.err,
                r.sub,
                r.dlvrd,
                r.submit_date,
                r.done_date,
                r.submit_ts,
                r.done_ts,
                r.message_state,
                r.network_error_code,
                r.source_addr,
                r.destination_addr,
                r.pdu,
                r.part,
                r.parts.max(1),
                r.arrival_no.map(|n| n as i64),
                r.id_source.map(Text),
                r.status_unreadable,
            ])?;
        let id = self.tx.conn().last_insert_rowid();
        self.tx.changed(Entity::Receipt, id);
        if kind != ReceiptKind::Mo {
            // An incoming message is not a report: the charts count reports only.
            self.tx.count(Delta::Receipt { at: r.received_at });
        }
        Ok(id)
    }
}

/// The stored columns processing a receipt needs, read back into a row.
const VIEW_COLUMNS: &str = "id, connection, kind, parse_error, message_id_raw, text_id, event_id, stat, err,
     done_date, message_state, source_addr, destination_addr, raw_text, done_ts, received_at, id_source,
     status_unreadable, stat_raw";

fn read_view_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<(i64, NewReceipt)> {
    Ok((
        r.get(0)?,
        NewReceipt {
            connection: r.get(1)?,
            kind: Some(r.get::<_, Text<_>>(2)?.0),
            parse_error: r.get(3)?,
            message_id_raw: r.get(4)?,
            text_id: r.get(5)?,
            event_id: r.get(6)?,
            stat: r.get(7)?,
            err: r.get(8)?,
            done_date: r.get(9)?,
            message_state: r.get(10)?,
            source_addr: r.get(11)?,
            destination_addr: r.get(12)?,
            raw_text: r.get(13)?,
            done_ts: r.get(14)?,
            received_at: r.get(15)?,
            id_source: r.get::<_, Option<Text<_>>>(16)?.map(|t| t.0),
            status_unreadable: r.get(17)?,
            stat_raw: r.get(18)?,
            ..NewReceipt::default()
        },
    ))
}

/// Stored receipts that have no outcome yet (after a crash, or a failed effect), in receive
/// order, after receipt `after`, at most `limit`.
pub fn unprocessed(conn: &impl Reads, after: i64, limit: u32) -> Result<Vec<(i64, NewReceipt)>, StoreError> {
    let conn = conn.connection();
    Ok(conn
        .prepare_cached(&format!(
            "SELECT {VIEW_COLUMNS} FROM receipt r
             WHERE r.id > ?1 AND NOT EXISTS (SELECT 1 FROM receipt_outcome o WHERE o.receipt_id = r.id)
             ORDER BY id LIMIT ?2"
        ))?
        .query_map(params![after, limit], read_view_row)?
        .collect::<Result<_, _>>()?)
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
    tx.conn()
        .prepare_cached(
            "INSERT INTO receipt_outcome (receipt_id, logical_event_id, is_repeat, flags_json, processed_at)
             VALUES (?1, ?2, ?3, ?4, ?5)",
        )?
        .execute(params![receipt, event, repeat, flags, now])?;
    Ok(())
}
