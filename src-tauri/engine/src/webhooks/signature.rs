//! The `Smsdesk-Signature` header: `t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>`.
//!
//! The timestamp is signed with the body so a captured request cannot be replayed later than the
//! receiver's tolerance; the body is signed exactly as sent, so a receiver must check the raw
//! bytes before parsing them.

use hmac::{Hmac, Mac};
use sha2::Sha256;

type HmacSha256 = Hmac<Sha256>;

fn mac(secret: &str, t: i64, body: &[u8]) -> HmacSha256 {
    // HMAC takes a key of any length, so this cannot fail.
    let mut mac = HmacSha256::new_from_slice(secret.as_bytes()).expect("HMAC accepts keys of any length");
    mac.update(t.to_string().as_bytes());
    mac.update(b".");
    mac.update(body);
    mac
}

/// The `Smsdesk-Signature` header value for `body` sent at `t` (Unix seconds).
pub fn sign(secret: &str, t: i64, body: &[u8]) -> String {
    let digest = mac(secret, t, body).finalize().into_bytes();
    format!("t={t},v1={}", hex::encode(digest))
}

/// Whether `header_value` is a valid signature of `body` by `secret`, made no more than
/// `tolerance_s` seconds from `now_s` (either way).
///
/// This is what a receiver does: split the header on `,`, take `t` and every `v1`, reject a `t`
/// too far from its own clock, compute HMAC-SHA256 of `"<t>.<raw body>"` with the webhook secret,
/// and compare it in constant time with a `v1` (several `v1` may be present; one must match).
pub fn verify(secret: &str, header_value: &str, body: &[u8], now_s: i64, tolerance_s: i64) -> bool {
    let mut t = None;
    let mut signatures = Vec::new();
    for part in header_value.split(',') {
        match part.trim().split_once('=') {
            Some(("t", v)) => {
                if t.is_some() {
                    return false;
                }
                t = v.parse::<i64>().ok();
                if t.is_none() {
                    return false;
                }
            }
            Some(("v1", v)) => signatures.push(v),
            _ => {}
        }
    }
    let Some(t) = t else {
        return false;
    };
    if now_s.abs_diff(t) > tolerance_s.max(0) as u64 {
        return false;
    }
    signatures.into_iter().any(|s| match hex::decode(s) {
        Ok(bytes) => mac(secret, t, body).verify_slice(&bytes).is_ok(),
        Err(_) => false,
    })
}
