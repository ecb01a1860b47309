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
    fn a_batch_body_holds_its_range() {
        let v: serde_json::Value = serde_json::from_slice(&batch_body(10, 13)).unwrap();
        let m = v["messages"].as_array().unwrap();
        assert_eq!(m.len(), 3);
        assert_eq!(m[0]["destination"], destination(10));
        assert_eq!(m[2]["text"], text(12));
    }
}
