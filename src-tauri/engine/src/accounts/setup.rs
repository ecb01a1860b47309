//! The one-time setup link: on a data directory without accounts, `smsdesk serve` prints a link
//! that lets the first admin be created from a browser. Its token is valid 30 minutes and once;
//! only its hash is kept, in memory.

use std::sync::Mutex;

use crate::tokens::{hash, random_secret, same_secret};

/// How long a setup link is valid.
pub const VALID_MS: i64 = 30 * 60_000;
/// What every setup token starts with.
pub const TOKEN_PREFIX: &str = "setup_";

#[derive(Debug, Default)]
pub struct SetupLink {
    open: Mutex<Option<(String, i64)>>,
}

impl SetupLink {
    /// A new token, replacing any earlier one, valid until `now_ms` + 30 minutes.
    pub fn issue(&self, now_ms: i64) -> String {
        let token = random_secret(TOKEN_PREFIX);
        *self.open.lock().expect("setup lock") = Some((hash(&token), now_ms + VALID_MS));
        token
    }

    /// Uses up the token if it is the one issued and still valid, and says until when it was;
    /// a wrong token leaves a valid one in place.
    pub fn redeem(&self, token: &str, now_ms: i64) -> Option<i64> {
        let mut open = self.open.lock().expect("setup lock");
        let until = open
            .as_ref()
            .filter(|(h, until)| now_ms < *until && same_secret(h, &hash(token)))
            .map(|(_, until)| *until);
        if until.is_some() {
            *open = None;
        }
        until
    }

    /// Puts a redeemed token back (the account it was for could not be created).
    pub fn restore(&self, token: &str, until_ms: i64) {
        *self.open.lock().expect("setup lock") = Some((hash(token), until_ms));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_setup_token_works_once_and_only_within_its_time() {
        let link = SetupLink::default();
        assert_eq!(link.redeem("setup_anything", 0), None, "nothing was issued");
        let t = link.issue(0);
        assert_eq!(link.redeem("setup_wrong", 1), None);
        assert_eq!(link.redeem(&t, 1), Some(VALID_MS), "a wrong try does not use it up");
        assert_eq!(link.redeem(&t, 2), None, "single use");
        let late = link.issue(0);
        assert_eq!(link.redeem(&late, VALID_MS), None, "expired after 30 minutes");
        let first = link.issue(0);
        let second = link.issue(0);
        assert!(
            link.redeem(&first, 1).is_none() && link.redeem(&second, 1).is_some(),
            "a new link replaces the old"
        );
    }
}
