//! Browser sessions: the cookie's token (only its hash is stored), the CSRF token derived from it,
//! and when a session ends.

use std::time::Duration;

use sha2::{Digest, Sha256};

use crate::store::tables::session::LiveSession;
use crate::tokens::random_secret;

/// The cookie's name.
pub const COOKIE: &str = "smsdesk_session";
/// What every session token starts with, so one found in a log or a file is recognisable.
pub const TOKEN_PREFIX: &str = "sds_";
/// How often a session's last use is written down: often enough for the idle lifetime, rarely
/// enough that reading does not turn into writing.
pub const SEEN_EVERY_MS: i64 = 60_000;

/// How long a session lasts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Lifetimes {
    /// Unused this long, it ends.
    pub idle: Duration,
    /// It ends this long after sign-in, used or not.
    pub absolute: Duration,
}

impl Default for Lifetimes {
    fn default() -> Self {
        Lifetimes {
            idle: Duration::from_secs(2 * 3600),
            absolute: Duration::from_secs(12 * 3600),
        }
    }
}

impl Lifetimes {
    /// Whether `s` is still valid at `now_ms`.
    pub fn valid(&self, s: &LiveSession, now_ms: i64) -> bool {
        now_ms < s.expires_at_ms && now_ms - s.last_seen_ms < self.idle.as_millis() as i64
    }

    /// When a session begun at `now_ms` ends at the latest.
    pub fn expires_at(&self, now_ms: i64) -> i64 {
        now_ms + self.absolute.as_millis() as i64
    }
}

/// A fresh session token.
pub fn new_token() -> String {
    random_secret(TOKEN_PREFIX)
}

/// The stored form of a token.
pub fn token_hash(token: &str) -> String {
    hex::encode(Sha256::digest(token.as_bytes()))
}

/// The CSRF token of a session: derived from its cookie, so it is never stored, and a page of
/// another site (which cannot read our answers) cannot know it.
pub fn csrf_token(token: &str) -> String {
    let mut h = Sha256::new();
    h.update(b"smsdesk csrf\0");
    h.update(token.as_bytes());
    hex::encode(h.finalize())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::access::Role;

    fn live(last_seen_ms: i64, expires_at_ms: i64) -> LiveSession {
        LiveSession {
            id: 1,
            account_id: 1,
            name: "m".into(),
            role: Role::Operator,
            last_seen_ms,
            expires_at_ms,
        }
    }

    #[test]
    fn a_session_ends_when_idle_too_long_or_at_its_absolute_end() {
        let l = Lifetimes {
            idle: Duration::from_secs(60),
            absolute: Duration::from_secs(3600),
        };
        let start = 1_000_000;
        let s = live(start, l.expires_at(start));
        assert!(l.valid(&s, start + 59_000));
        assert!(!l.valid(&s, start + 60_000), "idle for the idle lifetime ends it");
        let busy = live(start + 3_599_000, l.expires_at(start));
        assert!(
            !l.valid(&busy, start + 3_600_000),
            "use does not extend the absolute end"
        );
    }

    #[test]
    fn tokens_are_random_and_their_csrf_token_is_not_the_token() {
        let (a, b) = (new_token(), new_token());
        assert!(a.starts_with(TOKEN_PREFIX) && a != b);
        assert_ne!(csrf_token(&a), csrf_token(&b));
        assert!(!csrf_token(&a).contains(&a[TOKEN_PREFIX.len()..]));
        assert_ne!(token_hash(&a), csrf_token(&a));
    }
}
