//! Bearer secrets (API keys, session and setup tokens, the operator token, callback secrets):
//! made from the operating system's randomness, stored only as a hash, compared in constant time.

use sha2::{Digest, Sha256};

/// A fresh random secret: `prefix` + 64 hex digits.
pub fn random_secret(prefix: &str) -> String {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).expect("the operating system gives random bytes");
    format!("{prefix}{}", hex::encode(bytes))
}

/// The stored form of a key.
pub fn hash(key: &str) -> String {
    hex::encode(Sha256::digest(key.as_bytes()))
}

/// Compares two secrets without leaking, through timing, how much of them matched.
pub fn same_secret(a: &str, b: &str) -> bool {
    let (a, b) = (Sha256::digest(a.as_bytes()), Sha256::digest(b.as_bytes()));
    a.iter().zip(b.iter()).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_compare_equal_only_when_equal() {
        assert!(same_secret("abc", "abc"));
        assert!(!same_secret("abc", "abd"));
        assert!(!same_secret("abc", "abcd"));
    }

    #[test]
    fn a_fresh_secret_is_its_prefix_and_64_hex_digits_and_never_the_same_twice() {
        let (a, b) = (random_secret("sdk_"), random_secret("sdk_"));
        assert!(a.starts_with("sdk_") && a.len() == 4 + 64, "{a}");
        assert!(a[4..].bytes().all(|c| c.is_ascii_hexdigit()), "{a}");
        assert_ne!(a, b, "two secrets made one after the other differ");
        assert_eq!(hash(&a), hash(&a), "a secret's stored form is stable");
        assert_ne!(hash(&a), a, "the stored form is not the secret");
    }
}
