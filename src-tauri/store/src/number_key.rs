//! The key numbers are hashed with, and the hash itself ([`crate::number_token`] says where it is
//! made, on each store): below the connections, which carry the key.

use std::sync::{Arc, OnceLock};

use hmac::{Hmac, Mac};
use sha2::Sha256;

/// What every hashed number starts with.
pub const PREFIX: &str = "h:";

/// The key numbers are hashed with.
#[derive(Clone)]
pub struct NumberKey([u8; 32]);

impl std::fmt::Debug for NumberKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("NumberKey(…)")
    }
}

impl NumberKey {
    pub fn new(bytes: [u8; 32]) -> NumberKey {
        NumberKey(bytes)
    }

    /// The hash `number` is kept as once redacted. A value already hashed stays as it is.
    pub fn token(&self, number: &str) -> String {
        if is_token(number) {
            return number.to_owned();
        }
        let mut mac = Hmac::<Sha256>::new_from_slice(&self.0).expect("HMAC takes a key of any length");
        mac.update(number.as_bytes());
        let digest = mac.finalize().into_bytes();
        format!("{PREFIX}{}", hex::encode(&digest[..16]))
    }
}

/// Whether `value` is a hashed number rather than a number.
pub fn is_token(value: &str) -> bool {
    value.len() == PREFIX.len() + 32 && value.starts_with(PREFIX)
}

/// The store's key, set once the engine has read it; shared by every connection's function.
pub(crate) type KeyCell = Arc<OnceLock<NumberKey>>;
