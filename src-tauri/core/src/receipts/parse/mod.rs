//! The receipt parser: what a delivery report says, read tolerantly.
//!
//! Pure functions, no I/O, never panics. It reads SMPP `deliver_sm`/`data_sm` receipts (SMPP 3.4
//! Appendix B text and its real-world variants, plus the receipt TLVs) and HTTP DLR callbacks of
//! the providers in [`BUILTIN_PROVIDERS`] or of a configured [`HttpMapping`]. The output,
//! [`Parsed`], follows the expectation conventions of `shared/fixtures/receipts/README.md`; the
//! corpus in `tests/fixtures/receipts/` holds the variants, each with its public source.
//!
//! Nothing is ever dropped: a report nothing usable can be read from comes back as
//! [`ReceiptKind::Unparseable`](crate::domain::ReceiptKind) with its `raw` text and a
//! `parse_error`. [`PARSER_VERSION`] changes whenever the output for some input changes.

mod date;
mod http;
pub mod jsonl;
mod scan;
mod smpp;
mod stat;
#[cfg(test)]
mod tests;

use serde::Serialize;

use crate::domain::IdSource;

pub use http::parse_form;
pub use http::{builtin_mapping, parse_http, parse_http_with, HttpMapping, BUILTIN_PROVIDERS};
pub use http::{inbound_ack, parse_inbound, Inbound, INBOUND_PROVIDERS};
pub use smpp::parse_smpp;
pub use stat::{Stat, UnknownStat};

/// Version of the parsing rules; stored beside every parsed receipt.
/// 2: an id TLV alone does not make an ordinary message a report; an event's type names its status
/// before a stale data field; a Kannel dlr-url's id under a name of the caller's; unreadable status
/// words are marked as such.
pub const PARSER_VERSION: u32 = 2;

/// The kind of report, as decided by esm_class and content (`receipt`, `intermediate`,
/// `acknowledgement`, `mo`, `unparseable`).
pub type ReceiptKindOut = crate::domain::ReceiptKind;

pub use crate::tlv::{tag, Tlv};

/// The PDU that carried an SMPP report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SmppPdu {
    DeliverSm,
    DataSm,
}

/// The parts of a `deliver_sm`/`data_sm` the parser reads.
#[derive(Debug, Clone, Copy)]
pub struct SmppReport<'a> {
    pub pdu: SmppPdu,
    /// `None` when unknown (then the content decides).
    pub esm_class: Option<u8>,
    pub data_coding: Option<u8>,
    pub short_message: &'a [u8],
    pub tlvs: &'a [Tlv],
}

/// One HTTP callback as received.
#[derive(Debug, Clone, Copy)]
pub struct HttpReport<'a> {
    /// Which endpoint received it: a built-in provider name or a configured one.
    pub provider: &'a str,
    pub method: &'a str,
    pub content_type: Option<&'a str>,
    /// The raw query string, without `?`.
    pub query: &'a str,
    pub body: &'a [u8],
}

/// What the parser read from one report. Field semantics are the fixtures README's
/// expectation conventions.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Parsed {
    pub kind: ReceiptKindOut,
    /// The id to correlate with: the `receipted_message_id` TLV when present and non-empty,
    /// else the text `id:`; for HTTP the provider's message id. Kept exactly as written.
    pub message_id: Option<String>,
    /// The text `id:`, only when it differs from the TLV id.
    pub text_id: Option<String>,
    /// The text `id:` whenever the TLV gave `message_id`, equal to it or not: what the ids'
    /// agreement is checked on (the same digits may be different numbers in two formats).
    #[serde(skip)]
    pub text_id_seen: Option<String>,
    /// Where `message_id` was read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id_source: Option<IdSource>,
    /// The provider's id of the callback event itself (Twilio Event Streams).
    pub event_id: Option<String>,
    /// Normalised status; the TLV `message_state` wins over the text.
    pub stat: Option<Stat>,
    /// The status token exactly as written in the text / payload.
    pub stat_raw: Option<String>,
    /// The status word names no status anyone knows: `stat` is UNKNOWN because nothing could be
    /// read, not because the network said UNKNOWN.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub stat_unreadable: bool,
    pub err: Option<String>,
    pub sub: Option<String>,
    pub dlvrd: Option<String>,
    pub submit_date: Option<String>,
    pub done_date: Option<String>,
    /// `YYYY-MM-DDTHH:MM:SS`: local when the source has no zone, UTC when it had one.
    pub submit_ts: Option<String>,
    pub done_ts: Option<String>,
    pub message_state: Option<u8>,
    /// Hex of the `network_error_code` TLV's raw value.
    pub network_error_code: Option<String>,
    /// The receipt's `text:` field.
    pub text: Option<String>,
    /// The input as text: latin-1 for SMPP octets (lossless), the decoded text for UCS-2, the
    /// body (or, when empty, the query string) for HTTP.
    pub raw: String,
    /// Why the report was partial or unparseable.
    pub parse_error: Option<String>,
    /// For HTTP bodies carrying several reports: their number, on the first one.
    pub batch_count: Option<u32>,
}

impl Default for Parsed {
    fn default() -> Self {
        Parsed {
            kind: ReceiptKindOut::Unparseable,
            message_id: None,
            text_id: None,
            text_id_seen: None,
            id_source: None,
            event_id: None,
            stat: None,
            stat_raw: None,
            stat_unreadable: false,
            err: None,
            sub: None,
            dlvrd: None,
            submit_date: None,
            done_date: None,
            submit_ts: None,
            done_ts: None,
            message_state: None,
            network_error_code: None,
            text: None,
            raw: String::new(),
            parse_error: None,
            batch_count: None,
        }
    }
}

impl Parsed {
    /// Appends a note to `parse_error`.
    pub(crate) fn note(&mut self, msg: impl AsRef<str>) {
        match &mut self.parse_error {
            Some(e) => {
                e.push_str("; ");
                e.push_str(msg.as_ref());
            }
            None => self.parse_error = Some(msg.as_ref().to_owned()),
        }
    }

    /// Sets the kind from the status: nothing usable → unparseable, a non-final status →
    /// intermediate, otherwise receipt.
    pub(crate) fn decide_kind_from_status(&mut self) {
        self.kind = if self.message_id.is_none() && self.stat.is_none() {
            ReceiptKindOut::Unparseable
        } else if self.stat.is_some_and(|s| !s.is_final()) {
            ReceiptKindOut::Intermediate
        } else {
            ReceiptKindOut::Receipt
        };
    }
}

/// Octets as text, one char per byte (ISO-8859-1): lossless.
pub(crate) fn latin1(b: &[u8]) -> String {
    if b.is_ascii() {
        if let Ok(s) = std::str::from_utf8(b) {
            return s.to_owned();
        }
    }
    b.iter().map(|&c| char::from(c)).collect()
}

/// Values that stand for "nothing": empty, `null`, `...`, `-`, `none`, `n/a`.
pub(crate) fn is_placeholder(v: &str) -> bool {
    let v = v.trim();
    v.is_empty()
        || v.eq_ignore_ascii_case("null")
        || v.eq_ignore_ascii_case("none")
        || v.eq_ignore_ascii_case("nil")
        || v.eq_ignore_ascii_case("n/a")
        || v.bytes().all(|c| c == b'.')
        || v.bytes().all(|c| c == b'-')
}

/// Lower-case hex.
pub(crate) fn hex(b: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(b.len() * 2);
    for &c in b {
        s.push(char::from(DIGITS[usize::from(c >> 4)]));
        s.push(char::from(DIGITS[usize::from(c & 0x0f)]));
    }
    s
}
