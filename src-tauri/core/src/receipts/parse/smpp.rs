//! SMPP `deliver_sm` / `data_sm` receipts.

use super::scan::{scan, Fields, Key};
use super::{date, hex, is_placeholder, latin1, tag, Parsed, ReceiptKindOut, SmppReport, Stat};
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

    let mut tlv_id: Option<&[u8]> = None;
    let mut tlv_state: Option<&[u8]> = None;
    let mut tlv_nec: Option<&[u8]> = None;
    let mut payload: Option<&[u8]> = None;
    for t in r.tlvs {
        let slot = match t.tag {
            tag::RECEIPTED_MESSAGE_ID => &mut tlv_id,
            tag::MESSAGE_STATE => &mut tlv_state,
            tag::NETWORK_ERROR_CODE => &mut tlv_nec,
            tag::MESSAGE_PAYLOAD => &mut payload,
            _ => continue,
        };
        if slot.is_none() {
            *slot = Some(&t.value);
        }
    }

    let content: &[u8] = match payload {
        Some(pl) if r.short_message.is_empty() => pl,
        _ => r.short_message,
    };
    let udhi = r.esm_class.is_some_and(|e| e & 0x40 != 0);
    let body = skip_udh(content, udhi);
    let ucs2 = matches!(r.data_coding, Some(0x08 | 0x18));

    // Decide how to read the octets.
    let mut decoded: Option<String> = None;
    let fields: Fields;
    if ucs2 {
        let s = utf16be(body);
        let f = scan(s.as_bytes());
        if f.is_receipt(s.as_bytes()) {
            fields = f;
            decoded = Some(s);
        } else {
            let plain = scan(body);
            if plain.is_receipt(body) {
                // data_coding says UCS-2 but the octets are a plain text (node-smpp #68).
                fields = plain;
                p.note("data_coding 8 but the octets are a one-byte receipt text");
            } else {
                fields = f;
                decoded = Some(s);
            }
        }
    } else {
        let plain = scan(body);
        if !plain.is_receipt(body) && looks_utf16be(body) {
            let s = utf16be(body);
            let f = scan(s.as_bytes());
            if f.is_receipt(s.as_bytes()) {
                fields = f;
                decoded = Some(s);
                p.note("receipt text is UTF-16 although data_coding does not say so");
            } else {
                fields = plain;
            }
        } else {
            fields = plain;
        }
    }
    let text: &[u8] = match &decoded {
        Some(s) => s.as_bytes(),
        None => body,
    };
    let as_string = |v: &[u8]| -> String {
        if decoded.is_some() {
            String::from_utf8_lossy(v).into_owned()
        } else {
            latin1(v)
        }
    };
    let value = |key: Key| fields.get(text, key);

    // Text fields.
    let text_id = value(Key::Id).filter(|v| !v.is_empty()).map(as_string);
    let mut text_stat = None;
    let mut text_stat_unreadable = false;
    if let Some(v) = value(Key::Stat).filter(|v| !v.is_empty()) {
        let raw = as_string(v);
        text_stat = Some(match Stat::from_word(&raw) {
            Some(s) => s,
            None => {
                p.note(format!("unrecognised status word `{raw}`"));
                text_stat_unreadable = true;
                Stat::Unknown
            }
        });
        p.stat_raw = Some(raw);
    }
    let keep = |v: Option<&[u8]>| v.map(as_string).filter(|s| !is_placeholder(s));
    p.sub = keep(value(Key::Sub));
    p.dlvrd = keep(value(Key::Dlvrd));
    p.err = keep(value(Key::Err));
    p.submit_date = value(Key::SubmitDate).filter(|v| !v.is_empty()).map(as_string);
    p.done_date = value(Key::DoneDate).filter(|v| !v.is_empty()).map(as_string);
    p.submit_ts = p.submit_date.as_deref().and_then(date::normalise);
    p.done_ts = p.done_date.as_deref().and_then(date::normalise);
    p.text = value(Key::Text).map(as_string);

    // TLVs.
    let tlv_id = tlv_id.map(c_string).filter(|v| !v.is_empty()).map(latin1);
    let mut tlv_stat = None;
    if let Some(v) = tlv_state {
        match v.first() {
            Some(&state) => {
                p.message_state = Some(state);
                tlv_stat = Stat::from_message_state(state);
                if tlv_stat.is_none() {
                    p.note(format!("message_state TLV {state} is no SMPP state"));
                }
            }
            None => p.note("empty message_state TLV"),
        }
    }
    p.network_error_code = tlv_nec.map(hex);

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
    p.stat = tlv_stat.or(text_stat);
    p.stat_unreadable = tlv_stat.is_none() && text_stat_unreadable;

    // Kind.
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
        // esm_class says "an ordinary message": only receipt content (a status beside an id, or
        // a text that starts `id:`) makes it a report. An id TLV alone does not: some SMSCs put
        // a ticket id of the incoming message there.
        Some(0x00) => {
            let receipt_content = p.message_state.is_some()
                || ((tlv_has_id(r) || value(Key::Id).is_some()) && value(Key::Stat).is_some())
                || starts_with_id(text);
            if receipt_content {
                p.decide_kind_from_status();
            } else {
                p.kind = ReceiptKindOut::Mo;
                p.parse_error = None;
            }
        }
        _ => p.decide_kind_from_status(),
    }

    match p.kind {
        ReceiptKindOut::Unparseable => p.note("no message id and no recognisable status in the short_message or TLVs"),
        ReceiptKindOut::Receipt | ReceiptKindOut::Intermediate => {
            if p.message_id.is_none() {
                p.note("no message id");
            }
            if p.stat.is_none() {
                p.note("no status");
            }
            for (name, raw, ts) in [
                ("submit date", &p.submit_date, &p.submit_ts),
                ("done date", &p.done_date, &p.done_ts),
            ] {
                if let (Some(raw), None) = (raw, ts) {
                    if raw.bytes().any(|c| c != b'0') {
                        let msg = format!("{name} `{raw}` is not a date");
                        match &mut p.parse_error {
                            Some(e) => {
                                e.push_str("; ");
                                e.push_str(&msg);
                            }
                            None => p.parse_error = Some(msg),
                        }
                    }
                }
            }
        }
        _ => {}
    }

    // `raw` is the decoded text only when the UCS-2 reading gave a receipt and loses nothing;
    // otherwise the octets themselves (latin-1, lossless).
    p.raw = match decoded {
        Some(s) if body.len() == content.len() && utf16_round_trips(&s, body) => s,
        _ => latin1(content),
    };
    p
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
