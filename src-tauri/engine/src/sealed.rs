//! Secrets the database must keep but must not show: sealed (ChaCha20-Poly1305) with the data
//! directory's key, `secret.key`, the one that also seals the SMPP password where no OS keyring
//! answers. A copy of the database alone (a backup, a file sent along with a bug report) then
//! holds no usable secret.
//!
//! The key lives in the data directory, readable by its owner only, rather than in the OS keyring:
//! the database's sealed values must open wherever the data directory is used, and `smsdesk serve`
//! often runs where no keyring answers (a server, a session over ssh). Back up `secret.key` with
//! the database: without it, sealed values cannot be read (webhooks then fail and say so).
//!
//! A sealed value is text, `sealed:v1:` then the hexadecimal of a random nonce and the sealed
//! bytes, so it fits the TEXT columns that held the clear value before.

use std::path::Path;

use chacha20poly1305::aead::{Aead, KeyInit};
use chacha20poly1305::{ChaCha20Poly1305, Key, Nonce};

use crate::settings::secret::{data_key, SecretError};

/// What every sealed value starts with.
pub const PREFIX: &str = "sealed:v1:";
const NONCE_LEN: usize = 12;

/// Why a sealed value could not be opened.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SealError {
    #[error("the value is not sealed")]
    NotSealed,
    #[error("the sealed value is damaged or was sealed with another key (secret.key in the data directory)")]
    Unreadable,
}

/// Seals and opens values with one data directory's key.
#[derive(Clone)]
pub struct Sealer {
    key: Key,
}

impl std::fmt::Debug for Sealer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Sealer(…)")
    }
}

impl Sealer {
    /// The sealer of the data directory `dir`, its key made on first use.
    pub fn for_data_dir(dir: &Path) -> Result<Sealer, SecretError> {
        let key = data_key(dir)?;
        Ok(Sealer {
            key: *Key::from_slice(&key),
        })
    }

    /// A sealer whose key is random and held only in this process's memory: what it seals can be
    /// opened by nothing once the process ends.
    pub fn in_memory() -> Sealer {
        let mut key = [0u8; 32];
        getrandom::fill(&mut key).expect("the system's random source works");
        Sealer {
            key: *Key::from_slice(&key),
        }
    }

    /// `plain`, sealed under a fresh random nonce.
    pub fn seal(&self, plain: &str) -> String {
        let mut nonce = [0u8; NONCE_LEN];
        getrandom::fill(&mut nonce).expect("the system's random source works");
        let body = ChaCha20Poly1305::new(&self.key)
            .encrypt(Nonce::from_slice(&nonce), plain.as_bytes())
            .expect("sealing a short text cannot fail");
        let mut bytes = nonce.to_vec();
        bytes.extend_from_slice(&body);
        format!("{PREFIX}{}", hex::encode(bytes))
    }

    /// The text `sealed` was made from.
    pub fn open(&self, sealed: &str) -> Result<String, SealError> {
        let hex_text = sealed.strip_prefix(PREFIX).ok_or(SealError::NotSealed)?;
        let bytes = hex::decode(hex_text).map_err(|_| SealError::Unreadable)?;
        if bytes.len() <= NONCE_LEN {
            return Err(SealError::Unreadable);
        }
        let (nonce, body) = bytes.split_at(NONCE_LEN);
        let plain = ChaCha20Poly1305::new(&self.key)
            .decrypt(Nonce::from_slice(nonce), body)
            .map_err(|_| SealError::Unreadable)?;
        String::from_utf8(plain).map_err(|_| SealError::Unreadable)
    }
}

/// Whether `text` is a sealed value (rather than a secret stored in clear by an earlier version).
pub fn is_sealed(text: &str) -> bool {
    text.starts_with(PREFIX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sealed_value_opens_with_its_directorys_key_only_and_shows_nothing_of_itself() {
        let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let sealer = Sealer::for_data_dir(a.path()).unwrap();
        let sealed = sealer.seal("whsec_abcdef");
        assert!(is_sealed(&sealed) && !sealed.contains("abcdef"), "{sealed}");
        assert_ne!(sealed, sealer.seal("whsec_abcdef"), "every seal has its own nonce");
        assert_eq!(sealer.open(&sealed).unwrap(), "whsec_abcdef");
        assert_eq!(
            Sealer::for_data_dir(a.path()).unwrap().open(&sealed).unwrap(),
            "whsec_abcdef",
            "the next start reads it with the same key file"
        );
        let other = Sealer::for_data_dir(b.path()).unwrap();
        assert_eq!(other.open(&sealed), Err(SealError::Unreadable));
        assert_eq!(sealer.open("whsec_abcdef"), Err(SealError::NotSealed));
        assert_eq!(sealer.open("sealed:v1:zz"), Err(SealError::Unreadable));
        assert!(!format!("{sealer:?}").contains(|c: char| c.is_ascii_digit()));
    }
}
