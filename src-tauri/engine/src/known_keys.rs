//! The API keys requests presented, as last read. Every request presents its key, and reading it
//! from the database each time was a sixth of what serving a request cost. What was read is kept
//! only while the keys have not changed since ([`crate::store::KeysVersion`]): after a key is
//! revoked, or given other scopes or limits, the next request reads it afresh. Only keys that
//! exist are kept (by their stored form, never as presented), and at most [`MOST`] of them.

use std::collections::HashMap;
use std::sync::Mutex;

use crate::apikeys::Caller;

/// Most keys kept at once; past it, all are let go and read again as they are presented.
pub const MOST: usize = 1_024;

/// What was read of the keys presented, while the keys were at one version.
#[derive(Debug, Default)]
pub struct KnownKeys {
    kept: Mutex<Kept>,
}

#[derive(Debug, Default)]
struct Kept {
    version: u64,
    callers: HashMap<String, Caller>,
}

impl Kept {
    /// Lets go of what was read at an older version than `version`.
    fn at(&mut self, version: u64) -> &mut HashMap<String, Caller> {
        if self.version != version {
            self.callers.clear();
            self.version = version;
        }
        &mut self.callers
    }
}

impl KnownKeys {
    fn kept(&self) -> std::sync::MutexGuard<'_, Kept> {
        self.kept.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The caller the key stored as `hash` stands for, when it was read while the keys were at
    /// `version` (their version now).
    pub fn get(&self, version: u64, hash: &str) -> Option<Caller> {
        self.kept().at(version).get(hash).cloned()
    }

    /// Keeps `caller`, read for the key stored as `hash` after the keys were seen at `read_at`,
    /// unless they have changed since (`now` is their version after the read): what was read
    /// then may be what the change replaced.
    pub fn keep(&self, read_at: u64, now: u64, hash: String, caller: Caller) {
        if read_at != now {
            return;
        }
        let mut kept = self.kept();
        let callers = kept.at(now);
        if callers.len() >= MOST {
            callers.clear();
        }
        callers.insert(hash, caller);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::access::Scope;

    fn caller(id: i64) -> Caller {
        Caller::key(id, "crm", &[Scope::Send])
    }

    #[test]
    fn a_key_read_is_given_back_while_the_keys_have_not_changed() {
        let known = KnownKeys::default();
        assert_eq!(known.get(3, "h"), None);
        known.keep(3, 3, "h".into(), caller(1));
        assert_eq!(known.get(3, "h"), Some(caller(1)));
        assert_eq!(known.get(3, "other"), None);
    }

    #[test]
    fn once_the_keys_change_nothing_read_before_is_given_back() {
        let known = KnownKeys::default();
        known.keep(3, 3, "h".into(), caller(1));
        assert_eq!(known.get(4, "h"), None);
        // Nor when the version is seen to move back (a store opened again).
        known.keep(4, 4, "h".into(), caller(1));
        assert_eq!(known.get(3, "h"), None);
    }

    #[test]
    fn a_read_that_a_change_overtook_is_not_kept() {
        let known = KnownKeys::default();
        // Read while the keys were at 3; a revocation moved them to 4 before the read came back.
        known.keep(3, 4, "h".into(), caller(1));
        assert_eq!(known.get(4, "h"), None);
        assert_eq!(known.get(3, "h"), None);
    }

    #[test]
    fn past_the_most_kept_everything_is_let_go_and_the_newest_kept() {
        let known = KnownKeys::default();
        for i in 0..MOST as i64 {
            known.keep(1, 1, format!("h{i}"), caller(i));
        }
        assert_eq!(known.get(1, "h0"), Some(caller(0)));
        known.keep(1, 1, "newest".into(), caller(-1));
        assert_eq!(known.get(1, "h0"), None);
        assert_eq!(known.get(1, "newest"), Some(caller(-1)));
    }
}
