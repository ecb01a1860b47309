//! Messages from handsets that HTTP providers post (their "inbound" or "MO" webhooks, received at
//! `/api/v1/callbacks/{provider}/inbound`), read with one small table per provider, from its
//! public documentation:
//!
//! | provider | from | to | text | id | a long message |
//! |---|---|---|---|---|---|
//! | twilio | `From` | `To` | `Body` | `MessageSid` | joined by Twilio (`NumSegments` parts) |
//! | vonage | `msisdn` | `to` | `text`; `data` (hex) when `type` is `binary` | `messageId` | in parts: `concat-ref`, `concat-total`, `concat-part` |
//! | plivo | `From` | `To` | `Text` | `MessageUUID` | joined by Plivo |
//! | messagebird | `originator` | `recipient` | `body`, `payload`, `message` | `id` | – |
//! | infobip | `results[].from` | `results[].to` | `text`, `cleanText` | `messageId` | joined by Infobip; several messages a request |
//! | kannel | `from` | `to` | `text` (UTF-16BE octets when `charset` says so) | `id` | joined by Kannel |
//! | jasmin | `from` | `to` | `content`; `binary` (hex) read by `coding` when that is no text coding | `id` | joined by Jasmin |
//!
//! Kannel posts what its `sms-service` group's `get-url` says; the one to give it is
//! `…/api/v1/callbacks/kannel/inbound?token=SECRET&from=%p&to=%P&text=%b&charset=%C&id=%I`
//! (`%a` for the text works too, its spaces squeezed).
//!
//! A message needs a sender, and a text or an id; anything else is kept as unparseable, with why.
//! The parts of a long message that the provider does not join are put back together by the inbox,
//! as an SMSC's are.

use serde_json::Value;

use super::form::field_octets;
use super::lookup::{find, json_path, Found, Sources};
use super::{parse_form, raw_body, raw_text, Body};
use crate::domain::IdSource;
use crate::providers::canonical;
use crate::receipts::parse::{HttpReport, Parsed, ReceiptKindOut};
use crate::sms::decode::{self, Alphabet, Concat, Decoded, UserData};

/// The providers whose inbound webhooks are read.
pub const INBOUND_PROVIDERS: &[&str] = &[
    "twilio",
    "vonage",
    "plivo",
    "messagebird",
    "infobip",
    "kannel",
    "jasmin",
];

/// One message from a handset, as a provider posted it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Inbound {
    /// What the receipt log keeps of it: kind `mo` (or `unparseable`, with why), the provider's
    /// id of the message, the request as text.
    pub parsed: Parsed,
    /// The sender's address, as written.
    pub from: Option<String>,
    /// Our number or sender id it was sent to.
    pub to: Option<String>,
    /// Its text, and its place when it is a part of a long message; `None` when unparseable.
    pub decoded: Option<Decoded>,
}

/// Where each field of a message is, in one provider's webhook.
struct Mapping {
    from: &'static [&'static str],
    to: &'static [&'static str],
    text: &'static [&'static str],
    id: &'static [&'static str],
    /// Where several messages sit in a JSON body.
    records: Option<&'static str>,
    /// The reference, number of parts and part number of a part of a long message.
    concat: Option<[&'static str; 3]>,
    coding: NotText,
}

/// How a provider says its text is not plain text.
#[derive(Clone, Copy)]
enum NotText {
    /// It never does.
    Never,
    /// Vonage: `type` `binary`, the octets in `data`, in hex.
    VonageType,
    /// Jasmin: `coding` is the SMPP data_coding, `binary` the octets in hex.
    JasminCoding,
    /// Kannel: `charset` (its `%C`) `UTF-16BE` or `binary` says what the text field's octets are.
    KannelCharset,
}

fn mapping(provider: &str) -> Option<Mapping> {
    let plain = |from, to, text, id| Mapping {
        from,
        to,
        text,
        id,
        records: None,
        concat: None,
        coding: NotText::Never,
    };
    Some(match canonical(provider)? {
        "twilio" => plain(
            &["From"],
            &["To"],
            &["Body"],
            &["MessageSid", "SmsMessageSid", "SmsSid"],
        ),
        "vonage" => Mapping {
            concat: Some(["concat-ref", "concat-total", "concat-part"]),
            coding: NotText::VonageType,
            ..plain(&["msisdn"], &["to"], &["text"], &["messageId", "message-id"])
        },
        "plivo" => plain(&["From"], &["To"], &["Text"], &["MessageUUID"]),
        "messagebird" => plain(
            &["originator"],
            &["recipient"],
            &["body", "payload", "message"],
            &["id", "mid"],
        ),
        "infobip" => Mapping {
            records: Some("results"),
            ..plain(&["from"], &["to"], &["text", "cleanText"], &["messageId"])
        },
        "kannel" => Mapping {
            coding: NotText::KannelCharset,
            ..plain(
                &["from", "sender"],
                &["to", "receiver"],
                &["text", "msg", "message"],
                &["id", "msgid", "uuid"],
            )
        },
        "jasmin" => Mapping {
            coding: NotText::JasminCoding,
            ..plain(&["from"], &["to"], &["content"], &["id"])
        },
        _ => return None,
    })
}

/// What a provider expects in answer to a message it posted, when smsdesk's JSON would not do:
/// its content type and body.
pub fn inbound_ack(provider: &str) -> Option<(&'static str, &'static str)> {
    match canonical(provider)? {
        // Jasmin posts the message again until the answer is exactly this.
        "jasmin" => Some(("text/plain", "ACK/Jasmin")),
        // Kannel would send an answer's text to the handset as a reply.
        "kannel" => Some(("text/plain", "")),
        // Twilio and Plivo read the answer as instructions (TwiML, Plivo XML): none.
        "twilio" | "plivo" => Some(("application/xml", "<Response></Response>")),
        _ => None,
    }
}

/// Reads the messages of an inbound webhook. Always at least one element: an unknown provider,
/// or a request without a message, gives one `unparseable` element saying why.
pub fn parse_inbound(r: &HttpReport) -> Vec<Inbound> {
    let raw = raw_text(r);
    let Some(m) = mapping(r.provider) else {
        let mut parsed = Parsed {
            raw,
            ..Parsed::default()
        };
        parsed.note(format!(
            "no inbound mapping for HTTP provider `{}` (built in: {})",
            r.provider,
            INBOUND_PROVIDERS.join(", ")
        ));
        return vec![unparseable(parsed)];
    };
    let body_text = raw_body(r.body);
    let body = Body::read(&body_text, r.content_type);
    let query_text = r.query.trim_start_matches('?');
    let query = parse_form(query_text);
    let src = Sources {
        root: body.json.as_ref(),
        form: &body.form,
        query: &query,
    };
    let fields = Fields {
        src,
        body: (!body.form.is_empty()).then_some(body_text.as_str()),
        query: query_text,
    };
    let items = m
        .records
        .zip(body.json.as_ref())
        .and_then(|(path, root)| json_path(root, path))
        .and_then(Value::as_array)
        .filter(|items| !items.is_empty());
    let mut out: Vec<Inbound> = match items {
        Some(items) => items.iter().map(|rec| one(&m, &fields, Some(rec))).collect(),
        None => vec![one(&m, &fields, None)],
    };
    if let (Some(items), Some(first)) = (items, out.first_mut()) {
        first.parsed.batch_count = Some(u32::try_from(items.len()).unwrap_or(u32::MAX));
    }
    for i in &mut out {
        for n in &body.notes {
            i.parsed.note(n);
        }
        i.parsed.raw.clone_from(&raw);
    }
    out
}

fn unparseable(parsed: Parsed) -> Inbound {
    Inbound {
        parsed,
        from: None,
        to: None,
        decoded: None,
    }
}

/// What a request carries, read and as sent (for a text's octets).
struct Fields<'a> {
    src: Sources<'a>,
    /// The form body, when the body is one.
    body: Option<&'a str>,
    query: &'a str,
}

impl Fields<'_> {
    /// The first of `paths` with a value, in the record, the body or the query string.
    fn get(&self, paths: &[&str], rec: Option<&Value>) -> Option<String> {
        find(paths, &self.src, rec).map(Found::into_string)
    }

    /// The octets of the first of `names` sent in the query string or the form body.
    fn octets(&self, names: &[&str]) -> Option<Vec<u8>> {
        names
            .iter()
            .find_map(|n| field_octets(self.query, n).or_else(|| self.body.and_then(|b| field_octets(b, n))))
    }
}

/// One message: `rec` is its element of a list of messages, `None` when the request is the one
/// message.
fn one(m: &Mapping, f: &Fields, rec: Option<&Value>) -> Inbound {
    let trimmed = |paths: &[&str]| f.get(paths, rec).map(|s| s.trim().to_owned()).filter(|s| !s.is_empty());
    let from = trimmed(m.from);
    let to = trimmed(m.to);
    let id = trimmed(m.id);
    let mut parsed = Parsed {
        message_id: id.clone(),
        id_source: id.as_ref().map(|_| IdSource::Http),
        ..Parsed::default()
    };
    let decoded = text_of(m, f, rec);
    if from.is_none() {
        parsed.note("no sender in the message");
        return unparseable(parsed);
    }
    if decoded.is_none() && id.is_none() {
        parsed.note("no text and no message id in the message");
        return unparseable(parsed);
    }
    let mut decoded = decoded.unwrap_or_else(|| {
        parsed.note("no text: an empty message");
        as_text(String::new())
    });
    if let Some(names) = m.concat {
        decoded.concat = concat_of(names, f, rec, &mut decoded.notes);
    }
    for n in &decoded.notes {
        parsed.note(n);
    }
    parsed.kind = ReceiptKindOut::Mo;
    Inbound {
        parsed,
        from,
        to,
        decoded: Some(decoded),
    }
}

/// The text as the provider sent it: read from octets when it says they are not text.
fn text_of(m: &Mapping, f: &Fields, rec: Option<&Value>) -> Option<Decoded> {
    let get = |names: &[&str]| f.get(names, rec);
    let from_octets = match m.coding {
        NotText::Never => None,
        NotText::VonageType => get(&["type"])
            .filter(|t| t.trim().eq_ignore_ascii_case("binary"))
            .map(|_| from_hex(get(&["data"]), 0x04)),
        NotText::JasminCoding => get(&["coding"])
            .and_then(|c| c.trim().parse::<u8>().ok())
            .filter(|&dc| !matches!(dc, 0x00 | 0x01 | 0x03))
            .map(|dc| from_hex(get(&["binary"]), dc)),
        NotText::KannelCharset => {
            let charset = get(&["charset"]).unwrap_or_default().to_ascii_lowercase();
            let dc = match charset.trim() {
                "utf-16be" | "utf16-be" | "utf-16" | "ucs-2" | "ucs2" => Some(0x08),
                "binary" => Some(0x04),
                _ => None,
            };
            dc.zip(f.octets(m.text)).map(|(dc, octets)| read_octets(&octets, dc))
        }
    };
    from_octets.or_else(|| get(m.text).map(as_text))
}

/// A text received as text.
fn as_text(text: String) -> Decoded {
    Decoded {
        text,
        alphabet: Alphabet::Text,
        concat: None,
        notes: Vec::new(),
    }
}

/// The octets of a hex field read by SMPP data coding `dc`; an absent or unreadable field is
/// noted, and read as an empty text.
fn from_hex(hex: Option<String>, dc: u8) -> Decoded {
    match hex.as_deref().map(str::trim).and_then(hex_octets) {
        Some(octets) => read_octets(&octets, dc),
        None => {
            let mut d = as_text(String::new());
            d.notes
                .push(format!("data coding {dc} but no octets in hex: the text is empty"));
            d
        }
    }
}

fn read_octets(octets: &[u8], dc: u8) -> Decoded {
    decode::decode(&UserData {
        esm_class: None,
        data_coding: Some(dc),
        short_message: octets,
        tlvs: &[],
    })
}

fn hex_octets(s: &str) -> Option<Vec<u8>> {
    if !s.len().is_multiple_of(2) {
        return None;
    }
    (0..s.len())
        .step_by(2)
        .map(|i| s.get(i..i + 2).and_then(|b| u8::from_str_radix(b, 16).ok()))
        .collect()
}

/// The place of a part of a long message (reference, number of parts, part number), when all
/// three fields are there and make sense; otherwise the part is a message of its own, noted.
fn concat_of(names: [&str; 3], f: &Fields, rec: Option<&Value>, notes: &mut Vec<String>) -> Option<Concat> {
    let [reference, total, seq] = names.map(|n| f.get(&[n], rec));
    let (reference, total, seq) = (reference?, total?, seq?);
    let read = (
        reference.trim().parse::<u16>(),
        total.trim().parse::<u8>(),
        seq.trim().parse::<u8>(),
    );
    match read {
        (Ok(reference), Ok(total), Ok(seq)) if seq >= 1 && seq <= total => {
            (total > 1).then_some(Concat { reference, total, seq })
        }
        _ => {
            notes.push(format!(
                "part {seq} of {total} with reference {reference} cannot be put together: filed as a message of its own"
            ));
            None
        }
    }
}

#[cfg(test)]
mod tests;
