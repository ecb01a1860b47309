//! The JSON-lines driver behind `smsdesk parse-receipts`: one report per input line in the
//! fixtures' item format (`id transport pdu esm_class data_coding text text_hex tlvs http`), one
//! JSON object per output line with `id`, every [`Parsed`] field and `parser_version`. An HTTP
//! body with several reports gives the first report's fields and the others under `batch`.
//! A line that cannot be read gives an `unparseable` line with the reason; the run never stops
//! on bad input.

use std::io::{self, BufRead, Write};
use std::panic::{catch_unwind, AssertUnwindSafe};

use serde_json::{Map, Value};

use super::tag;
use super::{parse_http, parse_smpp, HttpReport, Parsed, SmppPdu, SmppReport, Tlv, PARSER_VERSION};

/// Reads JSON lines from `input`, writes one result line per non-blank input line to `output`.
/// Only I/O errors end the run.
pub fn run(input: impl BufRead, output: impl Write) -> io::Result<()> {
    let mut out = io::BufWriter::new(output);
    for line in input.split(b'\n') {
        let line = line?;
        let text = String::from_utf8_lossy(&line);
        let text = text.trim();
        if text.is_empty() {
            continue;
        }
        let value = parse_line(text);
        serde_json::to_writer(&mut out, &value)?;
        out.write_all(b"\n")?;
    }
    out.flush()
}

/// One input line to one output object.
pub fn parse_line(line: &str) -> Value {
    let value: Value = match serde_json::from_str(line) {
        Ok(v) => v,
        Err(e) => return failure(Value::Null, line, format!("input line is not JSON: {e}")),
    };
    let Value::Object(item) = &value else {
        return failure(Value::Null, line, "input line is not a JSON object".to_owned());
    };
    let id = item.get("id").cloned().unwrap_or(Value::Null);
    match catch_unwind(AssertUnwindSafe(|| parse_item(item))) {
        Ok(Ok(parsed)) => render(id, &parsed),
        Ok(Err(msg)) => failure(id, line, msg),
        Err(_) => failure(id, line, "internal error: the parser panicked".to_owned()),
    }
}

fn failure(id: Value, line: &str, msg: String) -> Value {
    let mut p = Parsed {
        raw: line.to_owned(),
        ..Parsed::default()
    };
    p.note(msg);
    render(id, std::slice::from_ref(&p))
}

fn render(id: Value, parsed: &[Parsed]) -> Value {
    let mut out = Map::new();
    out.insert("id".to_owned(), id);
    if let Some(first) = parsed.first() {
        if let Ok(Value::Object(fields)) = serde_json::to_value(first) {
            out.extend(fields);
        }
    }
    out.insert("parser_version".to_owned(), Value::from(PARSER_VERSION));
    if parsed.len() > 1 {
        let rest = parsed[1..]
            .iter()
            .filter_map(|p| match serde_json::to_value(p) {
                Ok(Value::Object(mut m)) => {
                    m.remove("raw");
                    Some(Value::Object(m))
                }
                _ => None,
            })
            .collect();
        out.insert("batch".to_owned(), Value::Array(rest));
    }
    Value::Object(out)
}

fn parse_item(item: &Map<String, Value>) -> Result<Vec<Parsed>, String> {
    let transport = match item.get("transport") {
        Some(Value::String(t)) => t.to_ascii_lowercase(),
        Some(Value::Null) | None if item.get("http").is_some_and(Value::is_object) => "http".to_owned(),
        Some(Value::Null) | None => "smpp".to_owned(),
        Some(other) => return Err(format!("transport {other} is not a string")),
    };
    match transport.as_str() {
        "smpp" => smpp_item(item).map(|p| vec![p]),
        "http" => http_item(item),
        other => Err(format!("unknown transport `{other}` (expected smpp or http)")),
    }
}

fn smpp_item(item: &Map<String, Value>) -> Result<Parsed, String> {
    let pdu = match item.get("pdu").and_then(Value::as_str) {
        Some(p) if p.eq_ignore_ascii_case("data_sm") => SmppPdu::DataSm,
        _ => SmppPdu::DeliverSm,
    };
    let esm_class = octet(item.get("esm_class"), "esm_class")?;
    let data_coding = octet(item.get("data_coding"), "data_coding")?;
    let short_message = match (item.get("text_hex"), item.get("text")) {
        (Some(Value::String(h)), _) if !h.trim().is_empty() => {
            unhex(h).ok_or_else(|| "text_hex is not hex".to_owned())?
        }
        (_, Some(Value::String(t))) => latin1_bytes(t),
        _ => Vec::new(),
    };
    let tlvs = match item.get("tlvs") {
        Some(Value::Object(m)) => tlvs(m)?,
        Some(Value::Null) | None => Vec::new(),
        Some(_) => return Err("tlvs is not an object".to_owned()),
    };
    Ok(parse_smpp(&SmppReport {
        pdu,
        esm_class,
        data_coding,
        short_message: &short_message,
        tlvs: &tlvs,
    }))
}

fn http_item(item: &Map<String, Value>) -> Result<Vec<Parsed>, String> {
    let Some(Value::Object(h)) = item.get("http") else {
        return Err("http transport without an http object".to_owned());
    };
    let text = |key: &str| -> String {
        match h.get(key) {
            Some(Value::String(s)) => s.clone(),
            Some(Value::Null) | None => String::new(),
            Some(other) => other.to_string(),
        }
    };
    let provider = text("provider");
    let method = match text("method") {
        m if m.is_empty() => "POST".to_owned(),
        m => m,
    };
    let content_type = match h.get("content_type") {
        Some(Value::String(s)) => Some(s.clone()),
        _ => None,
    };
    let query = match h.get("query") {
        Some(Value::Object(q)) => q
            .iter()
            .map(|(k, v)| match v {
                Value::String(s) => format!("{}={}", encode(k), encode(s)),
                other => format!("{}={}", encode(k), encode(&other.to_string())),
            })
            .collect::<Vec<_>>()
            .join("&"),
        _ => text("query"),
    };
    let body = text("body");
    Ok(parse_http(&HttpReport {
        provider: &provider,
        method: &method,
        content_type: content_type.as_deref(),
        query: &query,
        body: body.as_bytes(),
    }))
}

fn tlvs(m: &Map<String, Value>) -> Result<Vec<Tlv>, String> {
    let mut named = Vec::new();
    let mut numbered = Vec::new();
    let string = |v: &Value| match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    };
    let has_payload_hex = m.get("message_payload_hex").is_some_and(|v| !v.is_null());
    for (key, v) in m {
        if v.is_null() {
            continue;
        }
        match key.as_str() {
            "receipted_message_id" => {
                let s = string(v).ok_or("receipted_message_id is not a string")?;
                let mut value = latin1_bytes(&s);
                value.push(0);
                named.push(Tlv {
                    tag: tag::RECEIPTED_MESSAGE_ID,
                    value,
                });
            }
            "message_state" => {
                let n = match v {
                    Value::Number(n) => n.as_u64(),
                    Value::String(s) => s.trim().parse().ok(),
                    _ => None,
                }
                .and_then(|n| u8::try_from(n).ok())
                .ok_or("message_state is not an octet")?;
                named.push(Tlv {
                    tag: tag::MESSAGE_STATE,
                    value: vec![n],
                });
            }
            "network_error_code" => {
                let s = string(v).ok_or("network_error_code is not a string")?;
                let value = unhex(&s).ok_or("network_error_code is not hex")?;
                named.push(Tlv {
                    tag: tag::NETWORK_ERROR_CODE,
                    value,
                });
            }
            "message_payload" if !has_payload_hex => {
                let s = string(v).ok_or("message_payload is not a string")?;
                named.push(Tlv {
                    tag: tag::MESSAGE_PAYLOAD,
                    value: latin1_bytes(&s),
                });
            }
            "message_payload_hex" => {
                let s = string(v).ok_or("message_payload_hex is not a string")?;
                let value = unhex(&s).ok_or("message_payload_hex is not hex")?;
                named.push(Tlv {
                    tag: tag::MESSAGE_PAYLOAD,
                    value,
                });
            }
            k if k.len() > 2 && (k.starts_with("0x") || k.starts_with("0X")) => {
                let tag = u16::from_str_radix(&k[2..], 16).map_err(|_| format!("TLV key `{k}` is no 16-bit tag"))?;
                let s = string(v).ok_or_else(|| format!("TLV {k} is not a hex string"))?;
                let value = unhex(&s).ok_or_else(|| format!("TLV {k} is not hex"))?;
                numbered.push(Tlv { tag, value });
            }
            _ => {}
        }
    }
    named.extend(numbered);
    Ok(named)
}

/// An octet given as a number, or as text (`"4"`, `"0x44"`); `null` is `None`.
fn octet(v: Option<&Value>, name: &str) -> Result<Option<u8>, String> {
    let n = match v {
        None | Some(Value::Null) => return Ok(None),
        Some(Value::Number(n)) => n.as_u64(),
        Some(Value::String(s)) => {
            let s = s.trim();
            match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
                Some(h) => u64::from_str_radix(h, 16).ok(),
                None => s.parse().ok(),
            }
        }
        Some(_) => None,
    };
    n.and_then(|n| u8::try_from(n).ok())
        .map(Some)
        .ok_or_else(|| format!("{name} is not an octet"))
}

/// Text whose chars stand for octets (latin-1); a char above U+00FF is kept as its UTF-8.
fn latin1_bytes(s: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(s.len());
    for c in s.chars() {
        match u8::try_from(u32::from(c)) {
            Ok(b) => out.push(b),
            Err(_) => out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes()),
        }
    }
    out
}

fn unhex(s: &str) -> Option<Vec<u8>> {
    let digits: Vec<u8> = s.bytes().filter(|c| !c.is_ascii_whitespace()).collect();
    if !digits.len().is_multiple_of(2) {
        return None;
    }
    digits
        .chunks_exact(2)
        .map(|p| {
            let h = char::from(p[0]).to_digit(16)?;
            let l = char::from(p[1]).to_digit(16)?;
            u8::try_from(h << 4 | l).ok()
        })
        .collect()
}

fn encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}
