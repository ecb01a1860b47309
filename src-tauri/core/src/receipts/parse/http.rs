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

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::scan::{scan, Key};
use super::{date, is_placeholder, latin1, HttpReport, Parsed, ReceiptKindOut, Stat};
use crate::domain::IdSource;

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

/// The providers with a built-in mapping.
pub const BUILTIN_PROVIDERS: &[&str] = &[
    "vonage",
    "twilio",
    "twilio-eventstreams",
    "infobip",
    "plivo",
    "messagebird",
    "sinch",
    "kannel",
    "jasmin",
    "gatewayapi",
    "gatewayapi-legacy",
    "africastalking",
    "tencent",
];

fn list(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| (*s).to_owned()).collect()
}

fn words(items: &[(&str, Stat)]) -> Vec<(String, Stat)> {
    items.iter().map(|(w, s)| ((*w).to_owned(), *s)).collect()
}

/// The provider's canonical name (`Nexmo` → `vonage`, `africas_talking` → `africastalking`).
fn canonical(provider: &str) -> Option<&'static str> {
    let p: String = provider
        .trim()
        .chars()
        .filter(|c| !matches!(c, '-' | '_' | ' ' | '\'' | '.'))
        .map(|c| c.to_ascii_lowercase())
        .collect();
    Some(match p.as_str() {
        "vonage" | "nexmo" => "vonage",
        "twilio" => "twilio",
        "twilioeventstreams" | "twilioevents" => "twilio-eventstreams",
        "infobip" => "infobip",
        "plivo" => "plivo",
        "messagebird" | "bird" => "messagebird",
        "sinch" => "sinch",
        "kannel" => "kannel",
        "jasmin" => "jasmin",
        "gatewayapi" => "gatewayapi",
        "gatewayapilegacy" => "gatewayapi-legacy",
        "africastalking" | "at" => "africastalking",
        "tencent" | "tencentcloud" => "tencent",
        _ => return None,
    })
}

/// The built-in mapping of a provider, `None` when there is none.
pub fn builtin_mapping(provider: &str) -> Option<HttpMapping> {
    builtin(provider).cloned()
}

/// The built-in mappings, made once: a callback is read with one of them, not with a copy.
fn builtin(provider: &str) -> Option<&'static HttpMapping> {
    static ALL: std::sync::LazyLock<Vec<(&'static str, HttpMapping)>> = std::sync::LazyLock::new(|| {
        BUILTIN_PROVIDERS
            .iter()
            .filter_map(|&p| Some((p, make_builtin(p)?)))
            .collect()
    });
    let name = canonical(provider)?;
    ALL.iter().find(|(p, _)| *p == name).map(|(_, m)| m)
}

fn make_builtin(provider: &str) -> Option<HttpMapping> {
    let m = match canonical(provider)? {
        "vonage" => HttpMapping {
            message_id: list(&["messageId", "message-id", "message_uuid"]),
            status: list(&["status"]),
            err: list(&["err-code", "error.type"]),
            done_date: list(&["scts", "timestamp"]),
            ..HttpMapping::default()
        },
        "twilio" => HttpMapping {
            message_id: list(&["MessageSid", "SmsSid"]),
            status: list(&["MessageStatus", "SmsStatus"]),
            err: list(&["ErrorCode"]),
            done_date: list(&["RawDlrDoneDate"]),
            // `failed` never left Twilio: a refusal, not a network failure.
            status_words: words(&[("failed", Stat::Rejectd), ("canceled", Stat::Deleted)]),
            ..HttpMapping::default()
        },
        "twilio-eventstreams" => HttpMapping {
            message_id: list(&["data.messageSid", "data.MessageSid"]),
            // The event's type says what happened; `data.messageStatus` is a snapshot that may
            // lag behind it (Twilio's own delivered event carries QUEUED there).
            status: list(&["type", "data.messageStatus"]),
            err: list(&["data.errorCode"]),
            event_id: list(&["id"]),
            done_date: list(&["data.rawDlrDoneDate", "data.timestamp"]),
            records: list(&["$"]),
            status_words: words(&[("failed", Stat::Rejectd), ("canceled", Stat::Deleted)]),
            ..HttpMapping::default()
        },
        "infobip" => HttpMapping {
            message_id: list(&["messageId"]),
            status: list(&["status.groupName", "status.name"]),
            err: list(&["error.id", "error.name"]),
            done_date: list(&["doneAt"]),
            submit_date: list(&["sentAt"]),
            records: list(&["results"]),
            ..HttpMapping::default()
        },
        "plivo" => HttpMapping {
            message_id: list(&["MessageUUID"]),
            status: list(&["Status"]),
            err: list(&["ErrorCode"]),
            done_date: list(&["DeliveryReportTime"]),
            ..HttpMapping::default()
        },
        "messagebird" => HttpMapping {
            message_id: list(&["id", "message.id"]),
            status: list(&["status", "message.status"]),
            err: list(&["statusErrorCode", "message.statusErrorCode"]),
            done_date: list(&["statusDatetime", "message.statusDatetime"]),
            ..HttpMapping::default()
        },
        "sinch" => HttpMapping {
            message_id: list(&["batch_id"]),
            status: list(&["status", "statuses.0.status"]),
            err: list(&["code", "statuses.0.code"]),
            done_date: list(&["operator_status_at", "at"]),
            ..HttpMapping::default()
        },
        "kannel" => HttpMapping {
            message_id: list(&[
                "id",
                "uuid",
                "guid",
                "msg_uuid",
                "message_uuid",
                "msgid",
                "msg_id",
                "message_id",
                "messageid",
                "smsid",
                "sms_id",
                "myid",
                "dlrid",
                "dlr_id",
                "smslog_id",
                "ref",
                "reference",
            ]),
            status: list(&[
                "type",
                "status",
                "dlr",
                "dlr-type",
                "dlr_type",
                "dlrtype",
                "dlrstatus",
                "dlr_status",
                "state",
                "d",
            ]),
            receipt_text: list(&["answer", "reply", "smsc_reply", "smscreply", "report", "a"]),
            // The rest of what a dlr-url may carry besides the id: Kannel's other escapes
            // (%p %P %q %Q %t %T %i %I %n %F %B %o %O %a %b %k %c %m %M %s %S %u %U).
            other: list(&[
                "to",
                "from",
                "phone",
                "sender",
                "receiver",
                "recipient",
                "msisdn",
                "p",
                "q",
                "time",
                "ts",
                "timestamp",
                "date",
                "t",
                "smsc",
                "smsc_id",
                "smscid",
                "i",
                "service",
                "n",
                "binfo",
                "b",
                "account",
                "o",
                "c",
                "coding",
                "charset",
                "m",
                "mclass",
                "u",
                "udh",
                "k",
                "keyword",
                "text",
                "msg",
                "meta",
                "meta_data",
                "token",
                "secret",
                "key",
                "api_key",
                "apikey",
            ]),
            // The id is the caller's own, baked into the dlr-url under a name of its choosing:
            // when none of the usual names is there, the one field no list names is it.
            id_is_the_unnamed_field: true,
            // Kannel's %d: DLR_SUCCESS 1, DLR_FAIL 2, DLR_BUFFERED 4, DLR_SMSC_SUCCESS 8,
            // DLR_SMSC_FAIL 16, DLR_EXPIRED 0x22, DLR_UNKNOWN 0x42.
            status_words: words(&[
                ("1", Stat::Delivrd),
                ("2", Stat::Undeliv),
                ("4", Stat::Enroute),
                ("8", Stat::Acceptd),
                ("16", Stat::Rejectd),
                ("34", Stat::Expired),
                ("66", Stat::Unknown),
            ]),
            ..HttpMapping::default()
        },
        "jasmin" => HttpMapping {
            message_id: list(&["id"]),
            status: list(&["message_status"]),
            err: list(&["err"]),
            done_date: list(&["donedate"]),
            submit_date: list(&["subdate"]),
            sub: list(&["sub"]),
            dlvrd: list(&["dlvrd"]),
            text: list(&["text"]),
            ..HttpMapping::default()
        },
        "gatewayapi" => HttpMapping {
            message_id: list(&["id"]),
            status: list(&["status"]),
            err: list(&["code", "error"]),
            done_date: list(&["time"]),
            records: list(&["$"]),
            ..HttpMapping::default()
        },
        "gatewayapi-legacy" => HttpMapping {
            message_id: list(&["sessionid"]),
            status: list(&["statuscode"]),
            status_words: words(&[
                ("1", Stat::Delivrd),
                ("2", Stat::Undeliv),
                ("3", Stat::Rejectd),
                ("4", Stat::Undeliv),
                ("5", Stat::Unknown),
                ("6", Stat::Expired),
                ("7", Stat::Undeliv),
                ("8", Stat::Deleted),
            ]),
            ..HttpMapping::default()
        },
        "africastalking" => HttpMapping {
            message_id: list(&["id"]),
            status: list(&["status"]),
            err: list(&["failureReason"]),
            ..HttpMapping::default()
        },
        "tencent" => HttpMapping {
            message_id: list(&["sid", "SerialNo"]),
            status: list(&["report_status", "ReportStatus"]),
            err: list(&["errmsg", "ErrMsg"]),
            done_date: list(&["user_receive_time", "UserReceiveTime"]),
            records: list(&["$"]),
            status_words: words(&[("SUCCESS", Stat::Delivrd), ("FAIL", Stat::Undeliv)]),
            ..HttpMapping::default()
        },
        _ => return None,
    };
    Some(m)
}

/// Reads an HTTP callback with the built-in mapping of `r.provider`. Always at least one
/// element: an unknown provider gives one `unparseable` report saying so.
pub fn parse_http(r: &HttpReport) -> Vec<Parsed> {
    match builtin(r.provider) {
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
    let mut notes: Vec<String> = Vec::new();

    let ct = r.content_type.unwrap_or("").to_ascii_lowercase();
    let body = raw_body(r.body);
    let trimmed = body.trim();
    let mut json: Option<Value> = None;
    let mut form: Vec<(String, String)> = Vec::new();
    if !trimmed.is_empty() {
        let looks_json = trimmed.starts_with('{') || trimmed.starts_with('[');
        let says_form = ct.contains("form-urlencoded");
        // JSON when it looks like JSON, or is labelled JSON (and not also labelled form data).
        if looks_json || (ct.contains("json") && !says_form) {
            match serde_json::from_str::<Value>(trimmed) {
                Ok(v) => json = Some(v),
                Err(e) => {
                    notes.push(format!("body is not valid JSON: {e}"));
                    if !looks_json {
                        form = parse_form(trimmed);
                    }
                }
            }
        } else if says_form || trimmed.contains('=') {
            form = parse_form(trimmed);
        } else {
            notes.push("body is neither JSON nor form data".to_owned());
        }
    }
    let query = parse_form(r.query.trim_start_matches('?'));
    let src = Sources {
        root: json.as_ref(),
        form: &form,
        query: &query,
    };

    let mut records: Option<Vec<&Value>> = None;
    if let Some(root) = &json {
        for path in &m.records {
            let found = if path == "$" { Some(root) } else { json_path(root, path) };
            if let Some(Value::Array(items)) = found {
                records = Some(items.iter().collect());
                break;
            }
        }
    }

    let mut out = match &records {
        Some(items) if items.is_empty() => {
            let mut p = one(m, &src, None);
            p.note("the body carries an empty list of reports");
            vec![p]
        }
        Some(items) => items.iter().map(|rec| one(m, &src, Some(rec))).collect(),
        None => vec![one(m, &src, None)],
    };
    if let (Some(items), Some(first)) = (&records, out.first_mut()) {
        first.batch_count = Some(u32::try_from(items.len()).unwrap_or(u32::MAX));
    }
    for p in &mut out {
        for n in &notes {
            p.note(n);
        }
        if p.kind == ReceiptKindOut::Unparseable {
            p.note("no message id and no status found in the callback");
        }
        p.raw.clone_from(&raw);
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

struct Sources<'a> {
    root: Option<&'a Value>,
    form: &'a [(String, String)],
    query: &'a [(String, String)],
}

/// A value found: text, or a JSON number (kept as its text; a number date is epoch).
enum Found {
    Text(String),
    Number(String),
}

impl Found {
    fn into_string(self) -> String {
        match self {
            Found::Text(s) | Found::Number(s) => s,
        }
    }
}

fn found_json(v: &Value) -> Option<Found> {
    match v {
        Value::String(s) if !s.trim().is_empty() => Some(Found::Text(s.clone())),
        Value::Number(n) => Some(Found::Number(n.to_string())),
        Value::Bool(b) => Some(Found::Text(b.to_string())),
        _ => None,
    }
}

fn json_path<'v>(v: &'v Value, path: &str) -> Option<&'v Value> {
    if path == "$" {
        return Some(v);
    }
    if let Value::Object(map) = v {
        if let Some(x) = map.get(path) {
            return Some(x);
        }
    }
    let mut cur = v;
    for seg in path.split('.') {
        cur = match cur {
            Value::Object(map) => match map.get(seg) {
                Some(x) => x,
                None => map.iter().find(|(k, _)| k.eq_ignore_ascii_case(seg))?.1,
            },
            Value::Array(items) => items.get(seg.parse::<usize>().ok()?)?,
            _ => return None,
        };
    }
    Some(cur)
}

fn form_get<'f>(fields: &'f [(String, String)], name: &str) -> Option<&'f str> {
    fields
        .iter()
        .find(|(k, _)| k == name)
        .or_else(|| fields.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)))
        .map(|(_, v)| v.as_str())
        .filter(|v| !v.trim().is_empty())
}

/// The first path with a present, non-empty value: the record, then the body, the form body
/// and the query string.
fn find(paths: &[String], src: &Sources, rec: Option<&Value>) -> Option<Found> {
    for path in paths {
        if let Some(rec) = rec {
            if let Some(f) = json_path(rec, path).and_then(found_json) {
                return Some(f);
            }
        }
        if let Some(root) = src.root {
            if !rec.is_some_and(|r| std::ptr::eq(r, root)) {
                if let Some(f) = json_path(root, path).and_then(found_json) {
                    return Some(f);
                }
            }
        }
        if let Some(v) = form_get(src.form, path).or_else(|| form_get(src.query, path)) {
            return Some(Found::Text(v.to_owned()));
        }
    }
    None
}

/// The status a provider's word says, and the word that said it.
fn map_status(m: &HttpMapping, word: &str) -> Option<(Stat, String)> {
    let w = word.trim();
    let lookup = |w: &str| {
        m.status_words
            .iter()
            .find(|(k, _)| k.trim().eq_ignore_ascii_case(w))
            .map(|(_, s)| *s)
            .or_else(|| Stat::from_word(w))
            .map(|s| (s, w.to_owned()))
    };
    lookup(w).or_else(|| {
        // `com.twilio.messaging.message.delivered` → `delivered`.
        let last = w.rsplit('.').next().filter(|_| w.contains('.'))?;
        lookup(last)
    })
}

/// The one query or form field, with a value, that no list of the mapping names (when the
/// mapping says its id comes so); None when there is none or several.
fn unnamed_field(m: &HttpMapping, src: &Sources) -> Option<String> {
    if !m.id_is_the_unnamed_field {
        return None;
    }
    let named = |k: &str| {
        [
            &m.message_id,
            &m.status,
            &m.err,
            &m.event_id,
            &m.done_date,
            &m.submit_date,
            &m.sub,
            &m.dlvrd,
            &m.text,
            &m.receipt_text,
            &m.other,
        ]
        .iter()
        .any(|list| list.iter().any(|n| n.eq_ignore_ascii_case(k)))
    };
    let mut unnamed = src
        .query
        .iter()
        .chain(src.form)
        .filter(|(k, v)| !v.trim().is_empty() && !named(k));
    match (unnamed.next(), unnamed.next()) {
        (Some((_, v)), None) => Some(v.trim().to_owned()),
        _ => None,
    }
}

fn date_of(found: Option<Found>) -> (Option<String>, Option<String>) {
    match found {
        None => (None, None),
        Some(Found::Number(n)) => {
            let ts = date::normalise_number(&n);
            (Some(n), ts)
        }
        Some(Found::Text(t)) => {
            let ts = date::normalise_lenient(&t);
            (Some(t), ts)
        }
    }
}

/// One report.
fn one(m: &HttpMapping, src: &Sources, rec: Option<&Value>) -> Parsed {
    let mut p = Parsed::default();
    let get = |paths: &[String]| find(paths, src, rec);
    let keep = |f: Option<Found>| f.map(Found::into_string).filter(|s| !is_placeholder(s));

    p.message_id = get(&m.message_id)
        .map(|f| f.into_string().trim().to_owned())
        .or_else(|| unnamed_field(m, src));
    p.id_source = p.message_id.as_ref().map(|_| IdSource::Http);
    p.event_id = get(&m.event_id).map(Found::into_string);
    // The first status field that says something known; else the first present, unreadable.
    let mut unreadable: Option<String> = None;
    let known = m.status.iter().find_map(|path| {
        let word = find(std::slice::from_ref(path), src, rec)?.into_string();
        let known = map_status(m, &word);
        if known.is_none() && unreadable.is_none() {
            unreadable = Some(word.trim().to_owned());
        }
        known
    });
    match (known, unreadable) {
        (Some((stat, word)), _) => {
            p.stat = Some(stat);
            p.stat_raw = Some(word);
        }
        (None, Some(raw)) => {
            p.note(format!("unrecognised status word `{raw}`"));
            p.stat = Some(Stat::Unknown);
            p.stat_unreadable = true;
            p.stat_raw = Some(raw);
        }
        (None, None) => {}
    }
    p.err = keep(get(&m.err));
    p.sub = keep(get(&m.sub));
    p.dlvrd = keep(get(&m.dlvrd));
    (p.done_date, p.done_ts) = date_of(get(&m.done_date));
    (p.submit_date, p.submit_ts) = date_of(get(&m.submit_date));
    p.text = get(&m.text).map(Found::into_string);

    // An embedded receipt text fills what the fields did not give.
    if let Some(rt) = get(&m.receipt_text) {
        let t = rt.into_string();
        let b = t.as_bytes();
        let f = scan(b);
        if f.is_receipt(b) || f.keys > 1 {
            let val = |k: Key| f.get(b, k).map(|v| String::from_utf8_lossy(v).into_owned());
            if p.stat.is_none() {
                if let Some(w) = val(Key::Stat).filter(|w| !w.is_empty()) {
                    let stat = Stat::from_word(&w);
                    p.stat_unreadable = stat.is_none();
                    p.stat = Some(stat.unwrap_or(Stat::Unknown));
                    p.stat_raw = Some(w);
                }
            }
            if p.err.is_none() {
                p.err = val(Key::Err).filter(|s| !is_placeholder(s));
            }
            if p.sub.is_none() {
                p.sub = val(Key::Sub).filter(|s| !is_placeholder(s));
            }
            if p.dlvrd.is_none() {
                p.dlvrd = val(Key::Dlvrd).filter(|s| !is_placeholder(s));
            }
            if p.submit_date.is_none() {
                p.submit_date = val(Key::SubmitDate).filter(|s| !s.is_empty());
                p.submit_ts = p.submit_date.as_deref().and_then(date::normalise);
            }
            if p.done_date.is_none() {
                p.done_date = val(Key::DoneDate).filter(|s| !s.is_empty());
                p.done_ts = p.done_date.as_deref().and_then(date::normalise);
            }
            if p.text.is_none() {
                p.text = val(Key::Text);
            }
            if p.message_id.is_none() {
                p.message_id = val(Key::Id).filter(|s| !s.is_empty());
                p.id_source = p.message_id.as_ref().map(|_| IdSource::Text);
            }
        }
    }

    if p.message_id.as_deref().is_some_and(str::is_empty) {
        p.message_id = None;
    }
    p.decide_kind_from_status();
    if p.kind != ReceiptKindOut::Unparseable {
        if p.message_id.is_none() {
            p.note("no message id");
        }
        if p.stat.is_none() {
            p.note("no status");
        }
    }
    p
}

/// `application/x-www-form-urlencoded` (and query strings): `+` is a space, `%XX` an octet;
/// malformed escapes are kept as written. Octets that are not UTF-8 are read as latin-1.
pub fn parse_form(s: &str) -> Vec<(String, String)> {
    s.split('&')
        .filter(|pair| !pair.is_empty())
        .map(|pair| match pair.split_once('=') {
            Some((k, v)) => (decode(k), decode(v)),
            None => (decode(pair), String::new()),
        })
        .collect()
}

fn decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < b.len() => match (hex_val(b[i + 1]), hex_val(b[i + 2])) {
                (Some(h), Some(l)) => {
                    out.push(h << 4 | l);
                    i += 3;
                    continue;
                }
                _ => out.push(b'%'),
            },
            c => out.push(c),
        }
        i += 1;
    }
    match String::from_utf8(out) {
        Ok(s) => s,
        Err(e) => latin1(e.as_bytes()),
    }
}

fn hex_val(c: u8) -> Option<u8> {
    match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        b'A'..=b'F' => Some(c - b'A' + 10),
        _ => None,
    }
}
