//! Idempotency keys: a client that did not hear our answer (a timeout, a dropped connection) sends
//! the same request again with the same `Idempotency-Key`, and gets the first answer back instead
//! of a second message.
//!
//! - The first request with a key is processed, and its answer is stored in the same transaction
//!   as the messages it created: either both are committed or neither is.
//! - The same key (within the caller's scope) with the same body gets the stored answer again.
//! - The same key with another body is refused: the client has a bug, and guessing which request
//!   it meant would be wrong either way.
//! - While the first request is still being processed, a second one with its key is refused with
//!   409: it may try again in a moment and then receive the replay.
//!
//! Only successful answers are stored: a refused request (bad input) left nothing behind, so the
//! client may correct it and send it again under the same key.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};

pub use crate::store::tables::idempotency::{lookup, record, Recorded};

/// Longest key accepted (Stripe allows 255 as well).
pub const MAX_KEY_LEN: usize = 255;

/// An `Idempotency-Key` as the API describes it: 1 to 255 ([`MAX_KEY_LEN`]) printable ASCII characters,
/// neither starting nor ending with a space (the server trims, and refuses control characters).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize, ts_rs::TS)]
pub struct IdempotencyKey(pub String);

impl utoipa::PartialSchema for IdempotencyKey {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        use utoipa::openapi::schema::{ObjectBuilder, Type};
        ObjectBuilder::new()
            .schema_type(Type::String)
            .min_length(Some(1))
            .max_length(Some(MAX_KEY_LEN))
            .pattern(Some("^[!-~]([ -~]{0,253}[!-~])?$"))
            .description(Some(
                "Makes a repeat of a request return its first answer instead of doing it twice",
            ))
            .into()
    }
}

impl utoipa::ToSchema for IdempotencyKey {}

/// The hash of a request body as it was sent: SHA-256 of its JSON, re-serialised with sorted keys,
/// so whitespace and key order do not make two equal requests differ. What keys were recorded
/// with before requests were compared as intake reads them ([`normalised_hash`]); a repeat of
/// such a request is still recognised by it.
pub fn request_hash(route: &str, body: &serde_json::Value) -> String {
    crate::intake::request_hash(&serde_json::json!({ "route": route, "body": body }))
}

/// The hash a request is compared by: of the request as intake reads it ([`crate::intake::normalise`]),
/// so that a repeat spelling out a default, or writing a number or a time another way, is the
/// same request. (Its own JSON shape, so it never equals a [`request_hash`].)
pub fn normalised_hash(route: &str, read: &serde_json::Value) -> String {
    crate::intake::request_hash(&serde_json::json!({ "route": route, "normalised": 1, "read": read }))
}

/// Keys whose first request is being processed right now.
#[derive(Debug, Default)]
pub struct InFlight(Mutex<HashSet<(String, String)>>);

/// Holds a key as in flight until dropped.
#[derive(Debug)]
pub struct InFlightGuard {
    set: Arc<InFlight>,
    entry: (String, String),
}

impl InFlight {
    /// How many keys are held now.
    pub fn len(&self) -> usize {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Marks `(scope, key)` as in flight; `None` when another request holds it.
    pub fn enter(self: &Arc<Self>, scope: &str, key: &str) -> Option<InFlightGuard> {
        let entry = (scope.to_owned(), key.to_owned());
        let mut set = self.0.lock().unwrap_or_else(|p| p.into_inner());
        if !set.insert(entry.clone()) {
            return None;
        }
        Some(InFlightGuard {
            set: self.clone(),
            entry,
        })
    }
}

impl Drop for InFlightGuard {
    fn drop(&mut self) {
        let mut set = self.set.0.lock().unwrap_or_else(|p| p.into_inner());
        set.remove(&self.entry);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_bodies_hash_equal_whatever_their_key_order_and_routes_differ() {
        let a: serde_json::Value = serde_json::from_str(r#"{"text":"hi","destination":"+33612345678"}"#).unwrap();
        let b: serde_json::Value = serde_json::from_str(r#"{ "destination": "+33612345678", "text": "hi" }"#).unwrap();
        let c: serde_json::Value = serde_json::from_str(r#"{"text":"hi!","destination":"+33612345678"}"#).unwrap();
        assert_eq!(request_hash("messages", &a), request_hash("messages", &b));
        assert_ne!(request_hash("messages", &a), request_hash("messages", &c));
        assert_ne!(request_hash("messages", &a), request_hash("batch", &a));
    }

    #[test]
    fn a_request_read_by_intake_never_hashes_as_a_body_as_sent() {
        let v: serde_json::Value = serde_json::from_str(r#"{"text":"hi","destination":"+33612345678"}"#).unwrap();
        assert_ne!(normalised_hash("messages", &v), request_hash("messages", &v));
        assert_ne!(normalised_hash("messages", &v), normalised_hash("messages/batch", &v));
    }

    #[test]
    fn a_key_is_held_once_until_its_guard_drops() {
        let f = Arc::new(InFlight::default());
        let g = f.enter("key:1", "k").expect("first");
        assert!(f.enter("key:1", "k").is_none(), "a concurrent duplicate is refused");
        assert!(f.enter("key:2", "k").is_some(), "scopes are apart");
        drop(g);
        assert!(f.enter("key:1", "k").is_some(), "free again once the first is answered");
    }
}
