//! Blanks the providers' callback secrets out of what a callback stores as evidence. A provider
//! (or a proxy in front of smsdesk) may repeat the secret anywhere: in another header (the
//! original URL, a referrer, a cookie), inside another parameter, in the body; written as is,
//! percent-encoded in whole or in part, form-encoded, JSON-escaped, or inside Base64 (a copy
//! of a Basic-auth header). Evidence anyone with a key may read must hold none of them, or the
//! reader could forge receipts.

/// What a secret is replaced with.
pub const REDACTED: &str = "REDACTED";

/// `bytes` with every occurrence of each of `secrets` replaced by [`REDACTED`].
pub fn scrub(bytes: &[u8], secrets: &[&str]) -> Vec<u8> {
    let forms: Vec<Vec<u8>> = secrets.iter().flat_map(|s| forms(s.as_bytes())).collect();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    'scan: while i < bytes.len() {
        for form in &forms {
            if let Some(end) = encoded_at(bytes, i, form) {
                out.extend_from_slice(REDACTED.as_bytes());
                i = end;
                continue 'scan;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    out
}

/// Text with the secrets blanked (invalid UTF-8 replaced, as the evidence keeps text).
pub fn scrub_text(text: &str, secrets: &[&str]) -> String {
    String::from_utf8_lossy(&scrub(text.as_bytes(), secrets)).into_owned()
}

/// The secret, and the Base64 characters that only its bytes decide, wherever in the encoded
/// text it starts (three alignments, in the standard and the URL-safe alphabet).
fn forms(secret: &[u8]) -> Vec<Vec<u8>> {
    if secret.is_empty() {
        return Vec::new();
    }
    let mut all = vec![secret.to_vec()];
    for lead in 0..3usize {
        let mut data = vec![0u8; lead];
        data.extend_from_slice(secret);
        let encoded = base64_encode(&data);
        // Character j holds bits 6j..6j+6; those within the secret's bits are its own.
        let first = (8 * lead).div_ceil(6);
        let end = 8 * (lead + secret.len()) / 6;
        let own = encoded[first..end].to_vec();
        let url_safe: Vec<u8> = own
            .iter()
            .map(|c| match c {
                b'+' => b'-',
                b'/' => b'_',
                c => *c,
            })
            .collect();
        all.push(own);
        all.push(url_safe);
    }
    all.sort();
    all.dedup();
    all
}

fn base64_encode(data: &[u8]) -> Vec<u8> {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = Vec::with_capacity(data.len().div_ceil(3) * 4);
    for chunk in data.chunks(3) {
        let n = chunk.iter().fold(0u32, |acc, b| (acc << 8) | u32::from(*b)) << (8 * (3 - chunk.len()));
        for k in 0..=chunk.len() {
            out.push(ALPHABET[((n >> (18 - 6 * k)) & 63) as usize]);
        }
    }
    out
}

/// Where an encoding of `secret` that starts at `at` ends, if one does.
fn encoded_at(bytes: &[u8], at: usize, secret: &[u8]) -> Option<usize> {
    let mut i = at;
    for &want in secret {
        let (byte, len) = decode_one(&bytes[i..])?;
        if byte != want && !(want == b' ' && byte == b'+' && len == 1) {
            return None;
        }
        i += len;
    }
    Some(i)
}

/// The first byte that `bytes` encodes, and how many bytes encode it: itself, `%XX`, `%25XX`
/// (encoded twice), `\u00XX` or `\/` (JSON).
fn decode_one(bytes: &[u8]) -> Option<(u8, usize)> {
    let hex = |s: &[u8]| -> Option<u8> {
        let text = std::str::from_utf8(s.get(..2)?).ok()?;
        u8::from_str_radix(text, 16).ok()
    };
    match bytes {
        [] => None,
        [b'%', b'2', b'5', rest @ ..] if hex(rest).is_some() => Some((hex(rest)?, 5)),
        [b'%', rest @ ..] if hex(rest).is_some() => Some((hex(rest)?, 3)),
        [b'\\', b'u', b'0', b'0', rest @ ..] if hex(rest).is_some() => Some((hex(rest)?, 6)),
        [b'\\', b'/', ..] => Some((b'/', 2)),
        [b, ..] => Some((*b, 1)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECRET: &str = "s3cret value/0123456789";

    fn scrubbed(text: &str) -> String {
        scrub_text(text, &[SECRET])
    }

    #[test]
    fn the_secret_is_blanked_as_is_and_in_every_encoding_a_url_form_or_json_gives_it() {
        for (given, expected) in [
            ("ref=s3cret value/0123456789&x=1", "ref=REDACTED&x=1"),
            ("ref=s3cret+value%2F0123456789", "ref=REDACTED"),
            ("ref=s3cret%20value%2f0123456789", "ref=REDACTED"),
            ("ref=%73%33%63%72%65%74%20value/0123456789", "ref=REDACTED"),
            ("ref=s3cret%2520value%252F0123456789", "ref=REDACTED"),
            (r#"{"t":"s3cret value\/0123456789"}"#, r#"{"t":"REDACTED"}"#),
            (r#"{"t":"\u0073\u0033cret value/0123456789"}"#, r#"{"t":"REDACTED"}"#),
            (
                "/cb?token=s3cret value/0123456789-and-more",
                "/cb?token=REDACTED-and-more",
            ),
        ] {
            assert_eq!(scrubbed(given), expected, "{given}");
        }
    }

    #[test]
    fn a_secret_inside_base64_is_blanked_whatever_its_alignment() {
        for prefix in ["", "a", "ab", "vonage:"] {
            let plain = format!("{prefix}{SECRET}");
            let encoded = String::from_utf8(base64_encode(plain.as_bytes())).unwrap();
            let blanked = scrubbed(&format!("Basic {encoded}"));
            assert!(blanked.contains(REDACTED), "{plain}: {blanked}");
            // What is left around it is at most the bits the secret shares with its neighbours.
            assert!(
                blanked.len() <= "Basic REDACTED".len() + prefix.len() * 4 / 3 + 5,
                "{blanked}"
            );
            let url_safe = encoded.replace('+', "-").replace('/', "_").replace('=', "%3D");
            assert!(scrubbed(&format!("/x/{url_safe}")).contains(REDACTED), "{url_safe}");
        }
    }

    #[test]
    fn text_without_the_secret_is_left_exactly_as_it_was() {
        for text in [
            "messageId=0B00&status=delivered",
            "s3cret value/012345678",
            "%zz%2",
            "dmVyeSBsb25nIGJ1dCBoYXJtbGVzcyB0ZXh0",
        ] {
            assert_eq!(scrubbed(text), text);
        }
    }
}
