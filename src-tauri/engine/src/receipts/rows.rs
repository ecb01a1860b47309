//! The receipt rows of what came in: an SMPP deliver_sm or data_sm, or an HTTP callback (one row
//! per report or message it carries), each parsed and keeping what was received.

use super::parse::{self, HttpReport, Parsed, SmppPdu, SmppReport, Tlv};
use crate::domain::ReceiptSource;
use crate::store::tables::NewReceipt;
use smsdesk_smpp::SmppReceived;

/// An HTTP callback as it came in: delivery reports, or messages from handsets.
#[derive(Debug, Clone, Default)]
pub struct HttpReceived {
    /// The provider preset or mapping that reads it (vonage, twilio, kannel, ...).
    pub provider: String,
    /// Whether it came to the provider's inbound webhook: it carries messages from handsets, read
    /// with the provider's inbound mapping, not reports.
    pub inbound: bool,
    /// The connection whose messages its ids refer to.
    pub connection: String,
    pub method: String,
    pub content_type: Option<String>,
    pub query: String,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
    pub received_at: i64,
}

fn opt(s: &str) -> Option<String> {
    (!s.is_empty()).then(|| s.to_owned())
}

fn parsed_fields(mut row: NewReceipt, p: &Parsed) -> NewReceipt {
    row.kind = Some(p.kind);
    row.parser_version = parse::PARSER_VERSION;
    row.parse_error = p.parse_error.clone();
    row.fields = p.fields();
    row
}

fn tlvs_json(tlvs: &[Tlv]) -> Option<String> {
    if tlvs.is_empty() {
        return None;
    }
    let list: Vec<_> = tlvs
        .iter()
        .map(|t| serde_json::json!({ "tag": format!("0x{:04x}", t.tag), "hex": hex(&t.value) }))
        .collect();
    Some(serde_json::Value::Array(list).to_string())
}

pub(crate) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

pub(super) fn smpp_row(r: &SmppReceived) -> NewReceipt {
    let report = SmppReport {
        pdu: if r.data_sm { SmppPdu::DataSm } else { SmppPdu::DeliverSm },
        esm_class: r.esm_class,
        data_coding: r.data_coding,
        short_message: &r.short_message,
        tlvs: &r.tlvs,
    };
    let parsed = parse::parse_smpp(&report);
    let row = NewReceipt {
        received_at: r.received_at,
        source: Some(if r.data_sm {
            ReceiptSource::SmppDataSm
        } else {
            ReceiptSource::SmppDeliverSm
        }),
        connection: r.connection.clone(),
        session_id: r.session_id.clone(),
        sequence_number: r.sequence_number,
        arrival_no: r.arrival_no,
        source_addr: r.source_addr.clone(),
        source_ton: r.source_addr_ton,
        destination_addr: r.destination_addr.clone(),
        pdu: r.pdu.clone(),
        part: 0,
        parts: 1,
        raw: r.short_message.clone(),
        raw_text: Some(parsed.raw.clone()),
        tlvs_json: tlvs_json(&r.tlvs),
        esm_class: r.esm_class,
        data_coding: r.data_coding,
        ..NewReceipt::default()
    };
    parsed_fields(row, &parsed)
}

/// The receipt rows of an HTTP callback: one per report, or per message from a handset (with its
/// sender and recipient), each keeping the whole request.
pub(super) fn http_rows(r: &HttpReceived) -> Vec<NewReceipt> {
    let report = HttpReport {
        provider: &r.provider,
        method: &r.method,
        content_type: r.content_type.as_deref(),
        query: &r.query,
        body: &r.body,
    };
    let parsed: Vec<(Parsed, Option<String>, Option<String>)> = if r.inbound {
        parse::parse_inbound(&report)
            .into_iter()
            .map(|m| (m.parsed, m.from, m.to))
            .collect()
    } else {
        parse::parse_http(&report)
            .into_iter()
            .map(|p| (p, None, None))
            .collect()
    };
    let parts = parsed.len() as u32;
    let mut headers = serde_json::json!({
        "method": r.method,
        "content_type": r.content_type,
        "query": r.query,
        "headers": r.headers,
    });
    if r.inbound {
        headers["route"] = "inbound".into();
    }
    let headers = headers.to_string();
    parsed
        .into_iter()
        .enumerate()
        .map(|(i, (p, from, to))| {
            let row = NewReceipt {
                received_at: r.received_at,
                source: Some(ReceiptSource::Http),
                connection: r.connection.clone(),
                provider: opt(&r.provider),
                part: i as u32,
                parts,
                raw: r.body.clone(),
                raw_text: Some(String::from_utf8_lossy(&r.body).into_owned()),
                headers_json: Some(headers.clone()),
                source_addr: from,
                destination_addr: to,
                ..NewReceipt::default()
            };
            parsed_fields(row, &p)
        })
        .collect()
}
