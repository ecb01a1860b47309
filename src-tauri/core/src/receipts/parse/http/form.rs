//! Form-encoded bodies and query strings.

use crate::receipts::parse::latin1;

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

/// One name or value, its escapes decoded.
fn decode(s: &str) -> String {
    let out = decode_octets(s);
    match String::from_utf8(out) {
        Ok(s) => s,
        Err(e) => latin1(e.as_bytes()),
    }
}

/// The octets of one field of a form body or query string (`name` matched exactly, then in any
/// case), its escapes decoded: for a text whose octets are not UTF-8 (Kannel's UTF-16BE `%b`).
pub(super) fn field_octets(s: &str, name: &str) -> Option<Vec<u8>> {
    let pairs: Vec<(String, &str)> = s
        .split('&')
        .filter_map(|pair| pair.split_once('='))
        .map(|(k, v)| (decode(k), v))
        .collect();
    pairs
        .iter()
        .find(|(k, _)| k == name)
        .or_else(|| pairs.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)))
        .map(|(_, v)| decode_octets(v))
}

/// One name or value as octets, its escapes decoded.
fn decode_octets(s: &str) -> Vec<u8> {
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
    out
}

/// The value of one hex digit.
fn hex_val(c: u8) -> Option<u8> {
    match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        b'A'..=b'F' => Some(c - b'A' + 10),
        _ => None,
    }
}
