//! The messages every benchmark sends: each one distinct (its own destination and text), so that
//! nothing is de-duplicated by an idempotency record or by the SMSC's counters, and each one the
//! sandbox SMSC delivers plainly.

use serde_json::json;

/// The `i`-th destination: a French mobile number whose last two digits are 50 to 99, which the
/// sandbox SMSC accepts and reports delivered (00 to 28 play its other scenarios).
pub fn destination(i: usize) -> String {
    format!("+336{:06}{:02}", i / 50, 50 + i % 50)
}

/// The `i`-th text: one SMS in the GSM alphabet, unlike every other.
pub fn text(i: usize) -> String {
    format!("Your order {i} has shipped and will arrive tomorrow.")
}

/// The body of `POST /api/v1/messages` for message `i`.
pub fn single_body(i: usize) -> Vec<u8> {
    json!({ "destination": destination(i), "text": text(i) })
        .to_string()
        .into_bytes()
}

/// The body of `POST /api/v1/messages/batch` for messages `from..to`.
pub fn batch_body(from: usize, to: usize) -> Vec<u8> {
    let messages: Vec<_> = (from..to)
        .map(|i| json!({ "destination": destination(i), "text": text(i) }))
        .collect();
    json!({ "messages": messages }).to_string().into_bytes()
}

/// Kannel's `sendsms` request for message `i`, signed in as `user` (its password the same), a
/// final report (delivered or not: dlr-mask 3) asked for at the receiver on `dlr`
/// ([`crate::dlr`]: `/dlr?i=I&t=TYPE`).
pub fn sendsms_path(i: usize, user: &str, dlr: std::net::SocketAddr) -> String {
    let dlr_url = format!("http://{dlr}/dlr?i={i}&t=%d");
    format!(
        "/cgi-bin/sendsms?username={user}&password={user}&from=smsdesk&to={}&text={}&dlr-mask=3&dlr-url={}",
        query_escaped(&destination(i)),
        query_escaped(&text(i)),
        query_escaped(&dlr_url)
    )
}

/// `s` with every byte but the unreserved ones (RFC 3986) percent-encoded.
fn query_escaped(s: &str) -> String {
    let mut out = String::with_capacity(s.len() * 3);
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_message_differs_and_ends_in_a_delivered_scenario() {
        let all: std::collections::BTreeSet<_> = (0..10_000).map(|i| (destination(i), text(i))).collect();
        assert_eq!(all.len(), 10_000);
        let destinations: std::collections::BTreeSet<_> = (0..10_000).map(destination).collect();
        assert_eq!(destinations.len(), 10_000);
        for i in [0, 1, 49, 50, 12_345, 999_999] {
            let d = destination(i);
            let tail: u32 = d[d.len() - 2..].parse().unwrap();
            assert!((50..=99).contains(&tail), "{d}");
            assert_eq!(d.len(), 12, "{d}");
        }
    }

    #[test]
    fn a_sendsms_request_escapes_the_number_the_text_and_the_report_url() {
        let p = sendsms_path(3, "bench", "127.0.0.1:9".parse().unwrap());
        assert!(p.starts_with("/cgi-bin/sendsms?username=bench&password=bench&"), "{p}");
        assert!(p.contains("&to=%2B33600000053&"), "{p}");
        assert!(p.contains("&text=Your%20order%203%20has%20shipped"), "{p}");
        assert!(
            p.ends_with("&dlr-url=http%3A%2F%2F127.0.0.1%3A9%2Fdlr%3Fi%3D3%26t%3D%25d"),
            "{p}"
        );
    }

    #[test]
    fn a_batch_body_holds_its_range() {
        let v: serde_json::Value = serde_json::from_slice(&batch_body(10, 13)).unwrap();
        let m = v["messages"].as_array().unwrap();
        assert_eq!(m.len(), 3);
        assert_eq!(m[0]["destination"], destination(10));
        assert_eq!(m[2]["text"], text(12));
    }
}
