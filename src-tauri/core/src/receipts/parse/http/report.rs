//! Reading one report out of a callback with a mapping.

use serde_json::Value;

use super::lookup::{find, unnamed_field, Found, Sources};
use super::HttpMapping;
use crate::domain::IdSource;
use crate::receipts::parse::scan::{scan, Key};
use crate::receipts::parse::{date, is_placeholder, Parsed, ReceiptKindOut, Stat};

/// One report: `rec` is its element of a list of reports, `None` when the callback is the one
/// report. Fields are read where the mapping says, then an embedded receipt text fills what they
/// did not give, then the kind is decided.
pub(super) fn one(m: &HttpMapping, src: &Sources, rec: Option<&Value>) -> Parsed {
    let mut p = Parsed::default();
    let get = |paths: &[String]| find(paths, src, rec);
    let keep = |f: Option<Found>| f.map(Found::into_string).filter(|s| !is_placeholder(s));

    p.message_id = get(&m.message_id)
        .map(|f| f.into_string().trim().to_owned())
        .or_else(|| unnamed_field(m, src));
    p.id_source = p.message_id.as_ref().map(|_| IdSource::Http);
    p.event_id = get(&m.event_id).map(Found::into_string);
    set_status(&mut p, read_status(m, src, rec));
    p.err = keep(get(&m.err));
    p.sub = keep(get(&m.sub));
    p.dlvrd = keep(get(&m.dlvrd));
    (p.done_date, p.done_ts) = date_of(get(&m.done_date));
    (p.submit_date, p.submit_ts) = date_of(get(&m.submit_date));
    p.text = get(&m.text).map(Found::into_string);

    if let Some(rt) = get(&m.receipt_text) {
        fill_from_receipt_text(&mut p, &rt.into_string());
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

/// What the status fields of a report say.
enum StatusRead {
    /// A status, and the word that said it.
    Known(Stat, String),
    /// Only words nobody knows: the first of them.
    Unreadable(String),
    /// No status field present.
    Absent,
}

/// The first status field that says something known; else the first present, unreadable.
fn read_status(m: &HttpMapping, src: &Sources, rec: Option<&Value>) -> StatusRead {
    let mut unreadable: Option<String> = None;
    for path in &m.status {
        let Some(word) = find(std::slice::from_ref(path), src, rec).map(Found::into_string) else {
            continue;
        };
        if let Some((stat, word)) = map_status(m, &word) {
            return StatusRead::Known(stat, word);
        }
        if unreadable.is_none() {
            unreadable = Some(word.trim().to_owned());
        }
    }
    match unreadable {
        Some(raw) => StatusRead::Unreadable(raw),
        None => StatusRead::Absent,
    }
}

/// Sets the status of `p`: an unreadable word gives UNKNOWN, marked unreadable, and a note.
fn set_status(p: &mut Parsed, read: StatusRead) {
    match read {
        StatusRead::Known(stat, word) => {
            p.stat = Some(stat);
            p.stat_raw = Some(word);
        }
        StatusRead::Unreadable(raw) => {
            p.note(format!("unrecognised status word `{raw}`"));
            p.stat = Some(Stat::Unknown);
            p.stat_unreadable = true;
            p.stat_raw = Some(raw);
        }
        StatusRead::Absent => {}
    }
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

/// A date as written and as normalised: a JSON number is epoch time, a text is read leniently
/// (receipt and ISO formats, epoch digits).
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

/// An embedded receipt text (Kannel's `%A`) fills what the fields did not give, when it is a
/// receipt or carries more than one receipt field.
fn fill_from_receipt_text(p: &mut Parsed, t: &str) {
    let b = t.as_bytes();
    let f = scan(b);
    if !(f.is_receipt(b) || f.keys > 1) {
        return;
    }
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
