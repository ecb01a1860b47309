//! Evidence as shown: submit attempts (with each command_status named and explained) and receipts
//! exactly as stored (raw text and hex of the raw bytes, TLVs and headers as JSON, every parsed
//! field), each with what processing made of it. Shared by the message and exception details.

use std::sync::LazyLock;

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::{enum_at, enum_opt, json, ViewError};
use crate::db::{Db, Row};
use crate::tables::receipt::field_columns;
use crate::StoreError;
use smsdesk_core::command_status as status;
use smsdesk_core::domain::{AttemptOutcome, Correlation, DeliveryState, Flag, ReceiptKind, ReceiptSource};
use smsdesk_core::receipts::fields::ReceiptFields;
use smsdesk_core::receipts::rules::state_from_stat;

/// One submit try (one row per part), as recorded before and after the PDU went out.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub struct AttemptView {
    #[ts(type = "number")]
    pub id: i64,
    #[ts(type = "number")]
    pub message_id: i64,
    pub attempt_no: u32,
    /// Which part of a long message (from 1).
    pub segment_no: u32,
    pub connection: String,
    pub session_id: Option<String>,
    pub sequence_number: Option<u32>,
    /// When the try was recorded, before its PDU was written.
    #[ts(type = "number")]
    pub created_at_ms: i64,
    #[ts(type = "number | null")]
    pub sent_at_ms: Option<i64>,
    #[ts(type = "number | null")]
    pub responded_at_ms: Option<i64>,
    /// The SMSC's command_status, when it answered.
    pub command_status: Option<u32>,
    /// The same, as the SMPP specification writes it (`0x0000000B`).
    pub command_status_hex: Option<String>,
    /// Its name (`ESME_RINVDSTADR`), or `UNLISTED` for a vendor code.
    pub command_status_name: Option<String>,
    /// What it means, in plain words.
    pub command_status_meaning: Option<String>,
    /// The provider's message id exactly as returned in submit_sm_resp.
    pub provider_message_id: Option<String>,
    /// Its normalised form, the only thing receipts are matched on.
    pub provider_id_norm: Option<String>,
    pub outcome: AttemptOutcome,
    pub error: Option<String>,
    /// The receipt it asked for (registered_delivery: 0 none, 1 final, 2 on failure only, 17
    /// final and intermediate); `None` for a try recorded before smsdesk kept it.
    pub registered_delivery: Option<u8>,
    /// Why it went out on its connection when that was not its route's first (a failover).
    pub routing: Option<String>,
}

pub(crate) const ATTEMPT_COLUMNS: &str = "a.id, a.message_id, a.attempt_no, a.segment_no, a.connection, a.session_id,
     a.sequence_number, a.created_at, a.sent_at, a.responded_at, a.command_status, a.provider_message_id,
     a.provider_id_norm, a.outcome, a.error, a.registered_delivery, a.routing";

pub(crate) fn attempt_row(r: &Row<'_, '_>) -> Result<AttemptView, StoreError> {
    let command_status: Option<u32> = r.get(10)?;
    let info = command_status.map(status::describe);
    Ok(AttemptView {
        id: r.get(0)?,
        message_id: r.get(1)?,
        attempt_no: r.get(2)?,
        segment_no: r.get(3)?,
        connection: r.get(4)?,
        session_id: r.get(5)?,
        sequence_number: r.get(6)?,
        created_at_ms: r.get(7)?,
        sent_at_ms: r.get(8)?,
        responded_at_ms: r.get(9)?,
        command_status,
        command_status_hex: command_status.map(|s| format!("0x{s:08X}")),
        command_status_name: info.map(|i| i.name.to_owned()),
        command_status_meaning: info.map(|i| i.meaning.to_owned()),
        provider_message_id: r.get(11)?,
        provider_id_norm: r.get(12)?,
        outcome: enum_at(r, 13)?,
        error: r.get(14)?,
        registered_delivery: r.get(15)?,
        routing: r.get(16)?,
    })
}

/// A message's attempts, in the order they were made.
pub(crate) fn attempts_of(c: Db<'_>, message_id: i64) -> Result<Vec<AttemptView>, ViewError> {
    Ok(c.query(
        &format!("SELECT {ATTEMPT_COLUMNS} FROM attempt a WHERE a.message_id = ?1 ORDER BY a.id"),
        &[&message_id],
        attempt_row,
    )?)
}

pub(crate) fn attempt(c: Db<'_>, id: i64) -> Result<Option<AttemptView>, ViewError> {
    Ok(c.query_opt(
        &format!("SELECT {ATTEMPT_COLUMNS} FROM attempt a WHERE a.id = ?1"),
        &[&id],
        attempt_row,
    )?)
}

/// One report exactly as received, with what its fields say and what processing made of it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub struct ReceiptView {
    /// Also the local receive order.
    #[ts(type = "number")]
    pub id: i64,
    #[ts(type = "number")]
    pub received_at_ms: i64,
    pub source: ReceiptSource,
    pub connection: String,
    pub session_id: Option<String>,
    pub sequence_number: Option<u32>,
    /// Its position among the reports read on its session (from 1), when it came over SMPP.
    #[ts(type = "number | null")]
    pub arrival_no: Option<u64>,
    /// The HTTP provider preset that read it.
    pub provider: Option<String>,
    pub source_addr: Option<String>,
    pub destination_addr: Option<String>,
    pub esm_class: Option<u8>,
    pub data_coding: Option<u8>,
    /// Which report of a request that carried several (from 0), and how many it carried.
    pub part: u32,
    pub parts: u32,
    /// The short_message or HTTP body as text.
    pub raw_text: Option<String>,
    /// The same bytes in lower-case hex, exactly as received.
    pub raw_hex: String,
    /// The whole PDU in hex, when the session kept it.
    pub pdu_hex: Option<String>,
    /// HTTP method, content type, query and headers.
    #[ts(type = "unknown")]
    pub headers: Option<serde_json::Value>,
    /// SMPP TLVs: `[{"tag": "0x001e", "hex": "..."}]`.
    #[ts(type = "unknown")]
    pub tlvs: Option<serde_json::Value>,
    pub kind: ReceiptKind,
    pub parser_version: u32,
    pub parse_error: Option<String>,
    /// What the report says, as read (none is invented).
    #[serde(flatten)]
    #[ts(flatten)]
    pub fields: ReceiptFields,
    /// The state this report alone says (from `stat`): what the network reported, not proof that
    /// anyone read the message.
    pub reported_state: Option<DeliveryState>,
    /// The de-duplication unit it belongs to.
    #[ts(type = "number | null")]
    pub logical_event_id: Option<i64>,
    /// The same logical event came before: recorded, and it changed nothing.
    pub is_repeat: bool,
    /// When processing applied it; `None` while it still waits (for example after a crash).
    #[ts(type = "number | null")]
    pub processed_at_ms: Option<i64>,
    /// How its logical event was matched to a message.
    pub correlation: Option<Correlation>,
    /// The message it was matched to by provider id (or attached to by an operator); never a guess.
    #[ts(type = "number | null")]
    pub message_id: Option<i64>,
    /// "system" (the provider id matched) or "operator" (a person attached it).
    pub correlated_by: Option<String>,
    /// Of: mismatch (destination or text differ from the message's), id_disagree (its text id and
    /// TLV id name different messages).
    pub flags: Vec<Flag>,
    /// For a message sent in parts, the parts it reports on: those whose accepted submits carry its
    /// id (all of them when one id names every part). Empty for a message sent whole, or a receipt
    /// a person attached with no submit carrying its id (then it stands for the whole message).
    pub message_parts: Vec<u32>,
}

/// The columns [`receipt_row`] reads: the receipt's own, its processing's, then the fields the
/// report was read into (from column [`FIELDS_AT`]).
fn receipt_columns() -> String {
    format!(
        "r.id, r.received_at, r.source, r.connection, r.session_id, r.sequence_number,
     r.provider, r.source_addr, r.destination_addr, r.esm_class, r.data_coding, r.part, r.parts, r.raw_text, r.raw,
     r.pdu, r.headers_json, r.tlvs_json, r.kind, r.parser_version, r.parse_error, o.logical_event_id,
     coalesce(o.is_repeat, 0), o.processed_at, e.correlation, e.message_id, e.correlated_by, o.flags_json, r.arrival_no,
     (SELECT string_agg(CAST(s.segment_no AS TEXT), ',' ORDER BY s.segment_no) FROM (SELECT DISTINCT a.segment_no
         FROM attempt a JOIN message m ON m.id = a.message_id
         WHERE a.message_id = e.message_id AND m.segments > 1 AND a.connection = e.connection
           AND a.provider_id_norm = e.receipted_id_norm AND a.outcome = 'accepted') s),
     {}",
        field_columns("r")
    )
}

/// The receipts of a message's logical events, in receive order; the text is put together once.
static RECEIPTS_OF: LazyLock<String> = LazyLock::new(|| {
    format!(
        "SELECT {} FROM logical_event e
         JOIN receipt_outcome o ON o.logical_event_id = e.id JOIN receipt r ON r.id = o.receipt_id
         WHERE e.message_id = ?1 ORDER BY r.id",
        receipt_columns()
    )
});

/// One receipt by id, whatever became of it.
static ONE_RECEIPT: LazyLock<String> = LazyLock::new(|| {
    format!(
        "SELECT {} FROM receipt r LEFT JOIN receipt_outcome o ON o.receipt_id = r.id
         LEFT JOIN logical_event e ON e.id = o.logical_event_id WHERE r.id = ?1",
        receipt_columns()
    )
});

/// Where the report's fields start among [`receipt_columns`].
const FIELDS_AT: usize = 30;

fn receipt_row(r: &Row<'_, '_>) -> Result<ReceiptView, StoreError> {
    let fields = crate::tables::receipt::fields(r, FIELDS_AT)?;
    let parts: Option<String> = r.get(29)?;
    let raw: Vec<u8> = r.get(14)?;
    let pdu: Option<Vec<u8>> = r.get(15)?;
    let flags_json: Option<String> = r.get(27)?;
    let flags = flags_json
        .and_then(|t| serde_json::from_str::<serde_json::Map<String, serde_json::Value>>(&t).ok())
        .map(|m| {
            m.into_iter()
                .filter(|(_, v)| v.as_bool() == Some(true))
                .filter_map(|(k, _)| k.parse().ok())
                .collect()
        })
        .unwrap_or_default();
    Ok(ReceiptView {
        id: r.get(0)?,
        received_at_ms: r.get(1)?,
        source: enum_at(r, 2)?,
        connection: r.get(3)?,
        session_id: r.get(4)?,
        sequence_number: r.get(5)?,
        arrival_no: r.get(28)?,
        provider: r.get(6)?,
        source_addr: r.get(7)?,
        destination_addr: r.get(8)?,
        esm_class: r.get(9)?,
        data_coding: r.get(10)?,
        part: r.get(11)?,
        parts: r.get(12)?,
        raw_text: r.get(13)?,
        raw_hex: hex::encode(raw),
        pdu_hex: pdu.map(hex::encode),
        headers: json(r.get(16)?),
        tlvs: json(r.get(17)?),
        kind: enum_at(r, 18)?,
        parser_version: r.get(19)?,
        parse_error: r.get(20)?,
        reported_state: fields.stat.filter(|_| !fields.status_unreadable).map(state_from_stat),
        fields,
        logical_event_id: r.get(21)?,
        is_repeat: r.get(22)?,
        processed_at_ms: r.get(23)?,
        correlation: enum_opt(r, 24)?,
        message_id: r.get(25)?,
        correlated_by: r.get(26)?,
        flags,
        message_parts: parts
            .map(|p| p.split(',').filter_map(|n| n.parse().ok()).collect())
            .unwrap_or_default(),
    })
}

/// Every receipt correlated to a message (through its logical events), in receive order.
pub(crate) fn receipts_of(c: Db<'_>, message_id: i64) -> Result<Vec<ReceiptView>, ViewError> {
    Ok(c.query(&RECEIPTS_OF, &[&message_id], receipt_row)?)
}

/// One receipt by id, with whatever processing made of it (possibly nothing yet).
pub(crate) fn receipt(c: Db<'_>, id: i64) -> Result<Option<ReceiptView>, ViewError> {
    Ok(c.query_opt(&ONE_RECEIPT, &[&id], receipt_row)?)
}
