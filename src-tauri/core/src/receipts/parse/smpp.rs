//! SMPP `deliver_sm` / `data_sm` receipts.

use super::scan::{scan, Fields, Key};
use super::{date, hex, is_placeholder, latin1, tag, Parsed, ReceiptKindOut, SmppReport, Stat, Tlv};
use crate::domain::IdSource;

/// Reads one SMPP report. Never panics; always keeps `raw`.
///
/// - The kind comes from `esm_class` bits 2–5 (0x04 receipt, 0x20 intermediate notification,
///   0x08/0x10 SME acknowledgements; UDHI 0x40 may be set); a type-0 `deliver_sm` without
///   receipt content is `mo`; with `esm_class` unknown the content decides. A receipt whose
///   status is not final (ENROUTE, ACCEPTD, SCHEDLD) is `intermediate`. No id and no status:
///   `unparseable`.
/// - The text is `short_message`, or the `message_payload` TLV when `short_message` is empty;
///   UCS-2 (`data_coding` 8) is decoded from UTF-16BE first, unless the octets turn out to be a
///   plain receipt text mislabelled as UCS-2.
/// - TLVs: `receipted_message_id` wins over the text `id:` (which is then kept as `text_id` if
///   different); `message_state` wins over the text `stat:`; `network_error_code` is kept as hex.
pub fn parse_smpp(r: &SmppReport) -> Parsed {
    let mut p = Parsed::default();
    let tlvs = ReceiptTlvs::of(r.tlvs);
    let content: &[u8] = match tlvs.payload {
        Some(pl) if r.short_message.is_empty() => pl,
        _ => r.short_message,
    };
    let udhi = r.esm_class.is_some_and(|e| e & 0x40 != 0);
    let body = skip_udh(content, udhi);
    let ucs2 = matches!(r.data_coding, Some(0x08 | 0x18));

    let reading = Reading::of(body, ucs2);
    if let Some(note) = reading.note {
        p.note(note);
    }
    let text = Text {
        octets: reading.decoded.as_deref().map_or(body, str::as_bytes),
        fields: reading.fields,
        utf8: reading.decoded.is_some(),
    };
    let text_id = text.string_of(Key::Id);
    let (text_stat, text_stat_unreadable) = read_text_status(&mut p, &text);
    read_text_details(&mut p, &text);

    let tlv_stat = read_message_state(&mut p, tlvs.state);
    p.network_error_code = tlvs.network_error_code.map(hex);
    let tlv_id = tlvs.id.map(c_string).filter(|v| !v.is_empty()).map(latin1);
    choose_id(&mut p, tlv_id, text_id);
    p.stat = tlv_stat.or(text_stat);
    p.stat_unreadable = tlv_stat.is_none() && text_stat_unreadable;

    decide_kind(&mut p, r, &text);
    note_gaps(&mut p);
    p.raw = raw_of(reading.decoded, body, content);
    p
}

/// The receipt TLVs of a report, each the first of its tag.
#[derive(Default)]
struct ReceiptTlvs<'a> {
    id: Option<&'a [u8]>,
    state: Option<&'a [u8]>,
    network_error_code: Option<&'a [u8]>,
    payload: Option<&'a [u8]>,
}

impl<'a> ReceiptTlvs<'a> {
    /// Picks the receipt TLVs out of all of them; a repeated tag counts once, the first time.
    fn of(tlvs: &'a [Tlv]) -> Self {
        let mut out = ReceiptTlvs::default();
        for t in tlvs {
            let slot = match t.tag {
                tag::RECEIPTED_MESSAGE_ID => &mut out.id,
                tag::MESSAGE_STATE => &mut out.state,
                tag::NETWORK_ERROR_CODE => &mut out.network_error_code,
                tag::MESSAGE_PAYLOAD => &mut out.payload,
                _ => continue,
            };
            if slot.is_none() {
                *slot = Some(&t.value);
            }
        }
        out
    }
}

/// How the octets were read: the receipt fields found, the text when it was decoded from UTF-16,
/// and a note when the reading differs from what `data_coding` says.
struct Reading {
    fields: Fields,
    decoded: Option<String>,
    note: Option<&'static str>,
}

impl Reading {
    /// Reads `body` as UCS-2 when `data_coding` says so, else one octet a char; each reading
    /// gives way to the other when only the other finds a receipt (and, unlabelled, the octets
    /// look like UTF-16).
    fn of(body: &[u8], ucs2: bool) -> Reading {
        if ucs2 {
            Reading::labelled_ucs2(body)
        } else {
            Reading::unlabelled(body)
        }
    }

    /// UCS-2 (UTF-16BE) first, unless the octets turn out to be a plain receipt text.
    fn labelled_ucs2(body: &[u8]) -> Reading {
        let s = utf16be(body);
        let f = scan(s.as_bytes());
        if !f.is_receipt(s.as_bytes()) {
            let plain = scan(body);
            if plain.is_receipt(body) {
                // data_coding says UCS-2 but the octets are a plain text (node-smpp #68).
                return Reading {
                    fields: plain,
                    decoded: None,
                    note: Some("data_coding 8 but the octets are a one-byte receipt text"),
                };
            }
        }
        Reading {
            fields: f,
            decoded: Some(s),
            note: None,
        }
    }

    /// One octet a char, unless that finds no receipt and the octets look like UTF-16BE text
    /// that does hold one.
    fn unlabelled(body: &[u8]) -> Reading {
        let plain = scan(body);
        let as_is = Reading {
            fields: plain,
            decoded: None,
            note: None,
        };
        if plain.is_receipt(body) || !looks_utf16be(body) {
            return as_is;
        }
        let s = utf16be(body);
        let f = scan(s.as_bytes());
        if !f.is_receipt(s.as_bytes()) {
            return as_is;
        }
        Reading {
            fields: f,
            decoded: Some(s),
            note: Some("receipt text is UTF-16 although data_coding does not say so"),
        }
    }
}

/// The text the receipt fields are read from.
struct Text<'a> {
    /// The octets as received, or the decoded UTF-16 text.
    octets: &'a [u8],
    fields: Fields,
    /// `octets` is UTF-8 (decoded from UTF-16); otherwise one octet is one char (latin-1).
    utf8: bool,
}

impl Text<'_> {
    /// The value of a field, when the text has it.
    fn value(&self, key: Key) -> Option<&[u8]> {
        self.fields.get(self.octets, key)
    }

    /// Octets of the text as a string.
    fn string(&self, v: &[u8]) -> String {
        if self.utf8 {
            String::from_utf8_lossy(v).into_owned()
        } else {
            latin1(v)
        }
    }

    /// The value of a field as a string, when the text has it non-empty.
    fn string_of(&self, key: Key) -> Option<String> {
        self.value(key).filter(|v| !v.is_empty()).map(|v| self.string(v))
    }
}

/// The text's `stat:`, kept as written in `stat_raw`; an unknown word reads as UNKNOWN, is noted,
/// and comes back marked unreadable (the second value).
fn read_text_status(p: &mut Parsed, text: &Text) -> (Option<Stat>, bool) {
    let Some(raw) = text.string_of(Key::Stat) else {
        return (None, false);
    };
    let stat = Stat::from_word(&raw);
    if stat.is_none() {
        p.note(format!("unrecognised status word `{raw}`"));
    }
    p.stat_raw = Some(raw);
    (Some(stat.unwrap_or(Stat::Unknown)), stat.is_none())
}

/// The text's other fields: counts and error (placeholders are none), dates (as written, and
/// normalised) and `text:`.
fn read_text_details(p: &mut Parsed, text: &Text) {
    let keep = |key: Key| text.value(key).map(|v| text.string(v)).filter(|s| !is_placeholder(s));
    p.sub = keep(Key::Sub);
    p.dlvrd = keep(Key::Dlvrd);
    p.err = keep(Key::Err);
    p.submit_date = text.string_of(Key::SubmitDate);
    p.done_date = text.string_of(Key::DoneDate);
    p.submit_ts = p.submit_date.as_deref().and_then(date::normalise);
    p.done_ts = p.done_date.as_deref().and_then(date::normalise);
    p.text = text.value(Key::Text).map(|v| text.string(v));
}

/// The status the `message_state` TLV gives, the state itself kept in `message_state`; an empty
/// TLV or a state SMPP does not define is noted.
fn read_message_state(p: &mut Parsed, tlv: Option<&[u8]>) -> Option<Stat> {
    let v = tlv?;
    let Some(&state) = v.first() else {
        p.note("empty message_state TLV");
        return None;
    };
    p.message_state = Some(state);
    let stat = Stat::from_message_state(state);
    if stat.is_none() {
        p.note(format!("message_state TLV {state} is no SMPP state"));
    }
    stat
}

/// The id: the `receipted_message_id` TLV when it has one, else the text `id:`. Beside a TLV id
/// the text's id is kept in `text_id_seen`, and in `text_id` when it differs.
fn choose_id(p: &mut Parsed, tlv_id: Option<String>, text_id: Option<String>) {
    if tlv_id.is_some() {
        p.text_id_seen.clone_from(&text_id);
    }
    match (&tlv_id, text_id) {
        (Some(t), Some(x)) if *t != x => p.text_id = Some(x),
        (None, Some(x)) => {
            p.message_id = Some(x);
            p.id_source = Some(IdSource::Text);
        }
        _ => {}
    }
    if tlv_id.is_some() {
        p.message_id = tlv_id;
        p.id_source = Some(IdSource::Tlv);
    }
}

/// The kind, from `esm_class` bits 2–5; for an ordinary message or an unknown class, from the
/// content.
fn decide_kind(p: &mut Parsed, r: &SmppReport, text: &Text) {
    let usable = p.message_id.is_some() || p.stat.is_some();
    match r.esm_class.map(|e| e & 0x3C) {
        Some(0x08 | 0x10 | 0x18) => p.kind = ReceiptKindOut::Acknowledgement,
        Some(0x20) => {
            p.kind = if usable {
                ReceiptKindOut::Intermediate
            } else {
                ReceiptKindOut::Unparseable
            }
        }
        Some(0x00) => {
            if has_receipt_content(p, r, text) {
                p.decide_kind_from_status();
            } else {
                p.kind = ReceiptKindOut::Mo;
                p.parse_error = None;
            }
        }
        _ => p.decide_kind_from_status(),
    }
}

/// esm_class says "an ordinary message": only receipt content (a status beside an id, or
/// a text that starts `id:`) makes it a report. An id TLV alone does not: some SMSCs put
/// a ticket id of the incoming message there.
fn has_receipt_content(p: &Parsed, r: &SmppReport, text: &Text) -> bool {
    p.message_state.is_some()
        || ((tlv_has_id(r) || text.value(Key::Id).is_some()) && text.value(Key::Stat).is_some())
        || starts_with_id(text.octets)
}

/// Notes what a report lacks: anything usable, or for a receipt its id, its status and dates
/// that could be read.
fn note_gaps(p: &mut Parsed) {
    match p.kind {
        ReceiptKindOut::Unparseable => p.note("no message id and no recognisable status in the short_message or TLVs"),
        ReceiptKindOut::Receipt | ReceiptKindOut::Intermediate => {
            if p.message_id.is_none() {
                p.note("no message id");
            }
            if p.stat.is_none() {
                p.note("no status");
            }
            let bad_dates: Vec<String> = [
                ("submit date", &p.submit_date, &p.submit_ts),
                ("done date", &p.done_date, &p.done_ts),
            ]
            .into_iter()
            .filter_map(|(name, raw, ts)| not_a_date(name, raw.as_deref(), ts.as_deref()))
            .collect();
            for msg in bad_dates {
                p.note(msg);
            }
        }
        _ => {}
    }
}

/// The note for a date written but not read, unless it is all zeros (a date left blank).
fn not_a_date(name: &str, raw: Option<&str>, ts: Option<&str>) -> Option<String> {
    match (raw, ts) {
        (Some(raw), None) if raw.bytes().any(|c| c != b'0') => Some(format!("{name} `{raw}` is not a date")),
        _ => None,
    }
}

/// `raw` is the decoded text only when the UCS-2 reading gave a receipt and loses nothing;
/// otherwise the octets themselves (latin-1, lossless).
fn raw_of(decoded: Option<String>, body: &[u8], content: &[u8]) -> String {
    match decoded {
        Some(s) if body.len() == content.len() && utf16_round_trips(&s, body) => s,
        _ => latin1(content),
    }
}

/// `s` encodes back to exactly `octets` in UTF-16BE.
fn utf16_round_trips(s: &str, octets: &[u8]) -> bool {
    let mut it = octets.chunks_exact(2);
    if !it.remainder().is_empty() {
        return false;
    }
    s.encode_utf16()
        .all(|u| it.next().is_some_and(|c| u16::from_be_bytes([c[0], c[1]]) == u))
        && it.next().is_none()
}

fn tlv_has_id(r: &SmppReport) -> bool {
    r.tlvs
        .iter()
        .any(|t| t.tag == tag::RECEIPTED_MESSAGE_ID && !c_string(&t.value).is_empty())
}

fn starts_with_id(text: &[u8]) -> bool {
    let t = text
        .iter()
        .position(|&c| !c.is_ascii_whitespace())
        .map_or(&text[..0], |i| &text[i..]);
    t.len() > 3 && t[..3].eq_ignore_ascii_case(b"id:")
}

/// A C-octet string: up to the first NUL, blanks trimmed.
fn c_string(v: &[u8]) -> &[u8] {
    let v = match v.iter().position(|&c| c == 0) {
        Some(i) => &v[..i],
        None => v,
    };
    v.trim_ascii()
}

/// With UDHI set, a plausible user data header (length octet below 0x20) is skipped.
fn skip_udh(content: &[u8], udhi: bool) -> &[u8] {
    match content.first() {
        Some(&len) if udhi && len < 0x20 && usize::from(len) < content.len() => &content[usize::from(len) + 1..],
        _ => content,
    }
}

/// UTF-16BE to text; unpaired surrogates become U+FFFD, an odd last octet is dropped, trailing
/// NULs are removed.
fn utf16be(b: &[u8]) -> String {
    let units = b.chunks_exact(2).map(|c| u16::from_be_bytes([c[0], c[1]]));
    let mut s: String = char::decode_utf16(units)
        .map(|r| r.unwrap_or(char::REPLACEMENT_CHARACTER))
        .collect();
    while s.ends_with('\0') {
        s.pop();
    }
    s
}

/// Octets that look like UTF-16BE ASCII text: every even octet 0, every odd one printable.
fn looks_utf16be(b: &[u8]) -> bool {
    b.len() >= 6
        && b.len().is_multiple_of(2)
        && b.chunks_exact(2)
            .all(|c| c[0] == 0 && (c[1].is_ascii_graphic() || c[1] == b' '))
}
