//! Messages from handsets that HTTP providers posted: read again from the request their receipt
//! row keeps, as a PDU's octets are decoded again from theirs, and told apart from the same message
//! posted again.

use serde::Deserialize;
use smsdesk_core::receipts::parse::{parse_inbound, HttpReport};
use smsdesk_core::sms::decode::{Alphabet, Decoded};

use crate::store::tables::inbound::{self, Arrived};
use crate::store::{Reads, StoreError};

/// Whether the message came from a provider's inbound webhook (the receipt's source `http`).
pub(super) fn is_http(a: &Arrived) -> bool {
    a.source == "http"
}

/// What the receipt log keeps of the request, besides its body.
#[derive(Deserialize, Default)]
#[serde(default)]
struct Request {
    method: String,
    content_type: Option<String>,
    query: String,
}

/// The text of the HTTP message stored as `a` (receipt `receipt_id`), read with its provider's
/// mapping; its raw text when it cannot be read again (a mapping changed since, say).
pub(super) fn decoded(receipt_id: i64, a: &Arrived) -> Decoded {
    let request: Request = a
        .headers_json
        .as_deref()
        .and_then(|j| serde_json::from_str(j).ok())
        .unwrap_or_default();
    let report = HttpReport {
        provider: a.provider.as_deref().unwrap_or(""),
        method: &request.method,
        content_type: request.content_type.as_deref(),
        query: &request.query,
        body: &a.raw,
    };
    let read = parse_inbound(&report)
        .into_iter()
        .nth(a.part as usize)
        .and_then(|i| i.decoded);
    read.unwrap_or_else(|| {
        tracing::warn!(
            receipt_id,
            "a provider's message could not be read again from its request: its raw text is filed"
        );
        Decoded {
            text: a.raw_text.clone().unwrap_or_default(),
            alphabet: Alphabet::Text,
            concat: None,
            notes: vec!["not read again from its request: the request as received".to_owned()],
        }
    })
}

/// The `inbound_message` that the HTTP message `a` repeats, when its provider posted it before
/// (the same message id, from the same sender, filed in `thread` or waiting for its other parts).
pub(super) fn repeat_of(conn: &impl Reads, a: &Arrived, thread: &str) -> Result<Option<i64>, StoreError> {
    let Some(id) = a.message_id_raw.as_deref().filter(|m| is_http(a) && !m.is_empty()) else {
        return Ok(None);
    };
    inbound::with_provider_id(conn, &a.connection, thread, a.source_addr.as_deref(), id)
}
