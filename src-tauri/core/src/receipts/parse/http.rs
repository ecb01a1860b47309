//! HTTP DLR callbacks: built-in provider mappings and configurable ones.
//!
//! A mapping names, for each output field, the places to look (first present, non-empty wins):
//! dotted paths into a JSON body (`status.groupName`, `statuses.0.code`), or field names of a
//! form-encoded body or of the query string (exact name first, then any case). `records` names
//! where a body carries several reports (`results`, or `$` for a top-level array).
//!
//! Built-in mappings, from the providers' public callback documentation:
//!
//! | provider | id | status | err | done date |
//! |---|---|---|---|---|
//! | vonage | `messageId` | `status` | `err-code` | `scts` |
//! | twilio | `MessageSid` | `MessageStatus` | `ErrorCode` | `RawDlrDoneDate` |
//! | twilio-eventstreams | `data.messageSid` | `data.messageStatus` | `data.errorCode` | `data.rawDlrDoneDate` |
//! | infobip | `results[].messageId` | `status.groupName` | `error.id` | `doneAt` |
//! | plivo | `MessageUUID` | `Status` | `ErrorCode` | `DeliveryReportTime` |
//! | messagebird | `id` | `status` | `statusErrorCode` | `statusDatetime` |
//! | sinch | `batch_id` | `status` | `code` | `operator_status_at` / `at` |
//! | kannel | the id baked into the dlr-url (`id`, `msgid`, `smsid`, …) | `%d` (`type`, `status`, `dlr`, …) | from `%A` | from `%A` |
//! | jasmin | `id` | `message_status` | `err` | `donedate` |
//! | gatewayapi | `id` | `status` | `code` | `time` (epoch) |
//! | gatewayapi-legacy | `sessionid` | `statuscode` | – | – |
//! | africastalking | `id` | `status` | `failureReason` | – |
//! | tencent | `[].sid` | `report_status` | `errmsg` | `user_receive_time` |
//!
//! The parts: `presets` holds the built-in mappings, `form` decodes form bodies and query
//! strings, `lookup` finds a mapping's fields in a callback, and `report` reads one report
//! from them. `inbound` reads the messages from handsets that providers post, with tables of
//! its own. This file decides what the body is and how many reports it carries.

mod form;
mod inbound;
mod lookup;
mod presets;
mod report;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{latin1, HttpReport, Parsed, ReceiptKindOut, Stat};
use lookup::{json_path, Sources};

pub use form::parse_form;
pub use inbound::{inbound_ack, parse_inbound, Inbound, INBOUND_PROVIDERS};
pub use presets::{builtin_mapping, BUILTIN_PROVIDERS};

/// Where to find each field in a provider's callback. Every list is tried in order; the first
/// present, non-empty value wins. A config file can name a built-in provider or define its own.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct HttpMapping {
    pub message_id: Vec<String>,
    pub status: Vec<String>,
    pub err: Vec<String>,
    pub event_id: Vec<String>,
    pub done_date: Vec<String>,
    pub submit_date: Vec<String>,
    pub sub: Vec<String>,
    pub dlvrd: Vec<String>,
    pub text: Vec<String>,
    /// Fields carrying an SMPP Appendix B receipt text (Kannel's `%A`): read for whatever the
    /// other fields did not give.
    pub receipt_text: Vec<String>,
    /// Where several reports sit in a JSON body: a path to an array, `$` for the body itself.
    pub records: Vec<String>,
    /// Provider words, checked (any case) before the general vendor words of [`Stat::from_word`].
    pub status_words: Vec<(String, Stat)>,
    /// Fields a report carries that are none of the above (for `id_is_the_unnamed_field`).
    pub other: Vec<String>,
    /// When no `message_id` field is present, the one query or form field that no list here
    /// names is the id (a dlr-url whose id parameter the sender named); several such fields
    /// give none.
    pub id_is_the_unnamed_field: bool,
}

/// Reads an HTTP callback with the built-in mapping of `r.provider`. Always at least one
/// element: an unknown provider gives one `unparseable` report saying so.
pub fn parse_http(r: &HttpReport) -> Vec<Parsed> {
    match presets::builtin(r.provider) {
        Some(m) => parse_http_with(r, m),
        None => {
            let mut p = Parsed {
                raw: raw_text(r),
                ..Parsed::default()
            };
            p.note(format!(
                "no mapping for HTTP provider `{}` (built in: {})",
                r.provider,
                BUILTIN_PROVIDERS.join(", ")
            ));
            vec![p]
        }
    }
}

/// Reads an HTTP callback with the given mapping. Always at least one element; a body with
/// several reports gives one element per report, the first carrying `batch_count`.
pub fn parse_http_with(r: &HttpReport, m: &HttpMapping) -> Vec<Parsed> {
    let raw = raw_text(r);
    let body = Body::read(&raw_body(r.body), r.content_type);
    let query = parse_form(r.query.trim_start_matches('?'));
    let src = Sources {
        root: body.json.as_ref(),
        form: &body.form,
        query: &query,
    };
    let records = body.json.as_ref().and_then(|root| records(root, m));

    let mut out = read_reports(m, &src, records);
    for p in &mut out {
        for n in &body.notes {
            p.note(n);
        }
        if p.kind == ReceiptKindOut::Unparseable {
            p.note("no message id and no status found in the callback");
        }
        p.raw.clone_from(&raw);
    }
    out
}

/// What a body starts with when it is JSON: an object or an array. (Kept out of the functions:
/// the house check counts braces to measure them, even quoted ones.)
const JSON_STARTS: [char; 2] = ['{', '['];

/// A callback's body as read: a JSON document, form fields, or neither, and why not when it
/// could not be read.
#[derive(Default)]
struct Body {
    json: Option<Value>,
    form: Vec<(String, String)>,
    notes: Vec<String>,
}

impl Body {
    /// Reads `body` as JSON when it looks like JSON or is labelled JSON (and not also labelled
    /// form data), else as form data when labelled so or when it has a `=`. A body labelled JSON
    /// that is not valid JSON, and does not look like it, is still tried as form data.
    fn read(body: &str, content_type: Option<&str>) -> Body {
        let mut out = Body::default();
        let trimmed = body.trim();
        if trimmed.is_empty() {
            return out;
        }
        let ct = content_type.unwrap_or("").to_ascii_lowercase();
        let looks_json = trimmed.starts_with(JSON_STARTS);
        let says_form = ct.contains("form-urlencoded");
        if looks_json || (ct.contains("json") && !says_form) {
            match serde_json::from_str::<Value>(trimmed) {
                Ok(v) => out.json = Some(v),
                Err(e) => {
                    out.notes.push(format!("body is not valid JSON: {e}"));
                    if !looks_json {
                        out.form = parse_form(trimmed);
                    }
                }
            }
        } else if says_form || trimmed.contains('=') {
            out.form = parse_form(trimmed);
        } else {
            out.notes.push("body is neither JSON nor form data".to_owned());
        }
        out
    }
}

/// The list of reports a JSON body carries: the first of the mapping's `records` paths that
/// leads to an array. `None` when the body is one report.
fn records<'v>(root: &'v Value, m: &HttpMapping) -> Option<&'v [Value]> {
    m.records.iter().find_map(|path| {
        let found = if path == "$" { Some(root) } else { json_path(root, path) };
        match found {
            Some(Value::Array(items)) => Some(items.as_slice()),
            _ => None,
        }
    })
}

/// One report per record, the first one carrying their number; an empty list gives one report
/// (saying the list was empty), and a body without a list is one report.
fn read_reports(m: &HttpMapping, src: &Sources, records: Option<&[Value]>) -> Vec<Parsed> {
    let Some(items) = records else {
        return vec![report::one(m, src, None)];
    };
    let mut out = if items.is_empty() {
        let mut p = report::one(m, src, None);
        p.note("the body carries an empty list of reports");
        vec![p]
    } else {
        items.iter().map(|rec| report::one(m, src, Some(rec))).collect()
    };
    if let Some(first) = out.first_mut() {
        first.batch_count = Some(u32::try_from(items.len()).unwrap_or(u32::MAX));
    }
    out
}

/// The body as text: UTF-8 when valid, else latin-1 (lossless either way).
fn raw_body(body: &[u8]) -> String {
    match std::str::from_utf8(body) {
        Ok(s) => s.to_owned(),
        Err(_) => latin1(body),
    }
}

/// `raw` of an HTTP report: the body, or the query string when the body is empty.
fn raw_text(r: &HttpReport) -> String {
    if r.body.iter().all(u8::is_ascii_whitespace) {
        r.query.to_owned()
    } else {
        raw_body(r.body)
    }
}
