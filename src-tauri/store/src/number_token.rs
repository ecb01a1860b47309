//! A number's keyed hash: what a redacted row keeps of the number, so that a number someone types
//! can still be looked up (`destination IN (?1, number_token(?1))`) while the hash cannot be read
//! back into the number without the key.
//!
//! `h:` then the first 16 bytes of HMAC-SHA-256(key, number) in hexadecimal. The key is derived
//! by the engine from the data directory's `secret.key` and handed to the store when it opens
//! ([`crate::Store::set_number_key`]); it is never written to the database, so a copy of the
//! database alone cannot be searched for numbers. Each connection has the SQL function
//! `number_token(x)`: NULL until the key is set (nothing can have been hashed then either).

use std::sync::{Arc, OnceLock};

use hmac::{Hmac, Mac};
use rusqlite::functions::FunctionFlags;
use rusqlite::Connection;
use sha2::Sha256;

use crate::StoreError;

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

/// Gives `conn` the SQL function `number_token(x)` under the key in `cell`.
pub(crate) fn register(conn: &Connection, cell: &KeyCell) -> Result<(), StoreError> {
    let cell = cell.clone();
    conn.create_scalar_function(
        "number_token",
        1,
        FunctionFlags::SQLITE_UTF8 | FunctionFlags::SQLITE_DETERMINISTIC | FunctionFlags::SQLITE_INNOCUOUS,
        move |ctx| {
            let value: Option<String> = ctx.get(0)?;
            Ok(match (value, cell.get()) {
                (Some(v), Some(key)) => Some(key.token(&v)),
                _ => None,
            })
        },
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_is_stable_keyed_and_does_not_show_the_number() {
        let a = NumberKey::new([7; 32]);
        let b = NumberKey::new([8; 32]);
        let t = a.token("+33612345600");
        assert_eq!(t, a.token("+33612345600"));
        assert_ne!(t, b.token("+33612345600"), "another key, another hash");
        assert_ne!(t, a.token("+33612345601"));
        assert!(is_token(&t) && !t.contains("612345600"));
        assert_eq!(a.token(&t), t, "hashing a hash keeps it");
    }

    #[test]
    fn the_sql_function_answers_null_until_the_key_is_set() {
        let conn = Connection::open_in_memory().unwrap();
        let cell = KeyCell::default();
        register(&conn, &cell).unwrap();
        let read = || -> Option<String> {
            conn.query_row("SELECT number_token('+33612345600')", [], |r| r.get(0))
                .unwrap()
        };
        assert_eq!(read(), None);
        cell.set(NumberKey::new([7; 32])).unwrap();
        assert_eq!(read(), Some(NumberKey::new([7; 32]).token("+33612345600")));
    }
}
