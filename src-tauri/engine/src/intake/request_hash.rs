//! A request body's fingerprint, to tell a retried request from a different one under the same
//! idempotency key.

use serde_json::Value;
use sha2::{Digest, Sha256};

/// SHA-256, in lowercase hex, of the body's canonical JSON: object keys sorted, no whitespace.
/// Key order and formatting do not change it; any value does.
pub fn request_hash(body: &Value) -> String {
    let mut canonical = String::new();
    write_canonical(body, &mut canonical);
    hex::encode(Sha256::digest(canonical.as_bytes()))
}

// Sorted here rather than trusting serde_json's Map: with its `preserve_order` feature (which any
// crate in the build may turn on) the map keeps insertion order.
fn write_canonical(value: &Value, out: &mut String) {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<_> = map.iter().collect();
            entries.sort_by(|a, b| a.0.cmp(b.0));
            out.push('{');
            for (i, (key, v)) in entries.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String(key.clone()).to_string());
                out.push(':');
                write_canonical(v, out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, v) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_canonical(v, out);
            }
            out.push(']');
        }
        scalar => out.push_str(&scalar.to_string()),
    }
}
