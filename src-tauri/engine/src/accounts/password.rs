//! Passwords: what one must look like, and how it is kept (argon2id, salted, in PHC form).

use std::sync::LazyLock;

use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use argon2::Argon2;

/// The shortest password accepted: long enough that guessing it online, slowed down as sign-in
/// is, takes longer than anyone will try.
pub const MIN_CHARS: usize = 10;
/// The longest: hashing is costly, and nobody types more.
pub const MAX_CHARS: usize = 200;

/// Why a password is refused, for people.
pub fn problem(password: &str, name: &str) -> Option<String> {
    let n = password.chars().count();
    if n < MIN_CHARS {
        return Some(format!("a password needs at least {MIN_CHARS} characters"));
    }
    if n > MAX_CHARS {
        return Some(format!("a password has at most {MAX_CHARS} characters"));
    }
    if password.trim().to_lowercase() == name.trim().to_lowercase() {
        return Some("a password must not be the account's name".into());
    }
    None
}

/// The stored form of `password`: argon2id with a fresh random salt.
pub fn hash(password: &str) -> String {
    let mut salt = [0u8; 16];
    getrandom::fill(&mut salt).expect("the operating system gives random bytes");
    let salt = SaltString::encode_b64(&salt).expect("16 bytes make a valid salt");
    Argon2::default()
        .hash_password(password.as_bytes(), &salt)
        .expect("argon2 hashes any password within the length limit")
        .to_string()
}

/// Whether `password` is the one `stored` was made from. A malformed stored hash matches nothing.
pub fn verify(password: &str, stored: &str) -> bool {
    PasswordHash::new(stored)
        .map(|h| Argon2::default().verify_password(password.as_bytes(), &h).is_ok())
        .unwrap_or(false)
}

/// A hash no password is checked against in earnest: signing in as an unknown name costs as much
/// as with a known one, so timing does not tell which names exist.
pub fn verify_nothing(password: &str) {
    static DUMMY: LazyLock<String> = LazyLock::new(|| hash("no account has this password"));
    let _ = verify(password, &DUMMY);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hash_verifies_its_password_only_and_never_holds_it() {
        let h = hash("correct horse battery");
        assert!(h.starts_with("$argon2id$"), "{h}");
        assert!(!h.contains("correct horse"));
        assert!(verify("correct horse battery", &h));
        assert!(!verify("correct horse batterY", &h));
        assert_ne!(hash("correct horse battery"), h, "each hash has its own salt");
        assert!(!verify("anything", "not a hash"));
    }

    #[test]
    fn short_long_and_name_like_passwords_are_refused() {
        assert!(problem("short", "marie").is_some());
        assert!(problem(&"x".repeat(MAX_CHARS + 1), "marie").is_some());
        assert!(problem("Marie.Dupont", "marie.dupont").is_some());
        assert_eq!(problem("a long enough one", "marie"), None);
    }
}
