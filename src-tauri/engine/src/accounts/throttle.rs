//! Slowing down password guessing: after a few failed sign-ins for one account, or from one
//! address, each further try must wait, twice as long each time (up to a ceiling). Kept in memory:
//! a restart forgets, and costs an attacker the restart's wait.

use std::collections::HashMap;
use std::sync::Mutex;

/// Failures allowed before waiting starts.
pub const FREE_FAILURES: u32 = 5;
/// The first wait, doubled at each further failure.
pub const FIRST_WAIT_MS: i64 = 1_000;
/// The longest wait.
pub const MAX_WAIT_MS: i64 = 15 * 60_000;
/// How many accounts and addresses are remembered; the oldest are forgotten beyond it.
const REMEMBERED: usize = 10_000;

#[derive(Debug, Clone, Copy)]
struct Failures {
    count: u32,
    last_ms: i64,
}

impl Failures {
    /// When the next try may be made.
    fn next_try_ms(&self) -> i64 {
        if self.count < FREE_FAILURES {
            return i64::MIN;
        }
        let doublings = (self.count - FREE_FAILURES).min(20);
        self.last_ms + (FIRST_WAIT_MS << doublings).min(MAX_WAIT_MS)
    }
}

/// Failed sign-ins by account name (lowercased) and by address.
#[derive(Debug, Default)]
pub struct Throttle {
    failures: Mutex<HashMap<String, Failures>>,
}

impl Throttle {
    fn keys(name: &str, address: &str) -> [String; 2] {
        [
            format!("name:{}", name.trim().to_lowercase()),
            format!("addr:{address}"),
        ]
    }

    /// How long (ms) a sign-in as `name` from `address` must still wait at `now_ms`; 0 when it
    /// may be tried now.
    pub fn wait_ms(&self, name: &str, address: &str, now_ms: i64) -> i64 {
        let failures = self.failures.lock().expect("throttle lock");
        Self::keys(name, address)
            .iter()
            .filter_map(|k| failures.get(k))
            // `next_try_ms` is i64::MIN while tries are still free: subtracting must not overflow.
            .map(|f| f.next_try_ms().saturating_sub(now_ms))
            .max()
            .unwrap_or(0)
            .max(0)
    }

    /// Counts a failed sign-in.
    pub fn failed(&self, name: &str, address: &str, now_ms: i64) {
        let mut failures = self.failures.lock().expect("throttle lock");
        if failures.len() >= REMEMBERED {
            let cutoff = now_ms - MAX_WAIT_MS;
            failures.retain(|_, f| f.last_ms > cutoff);
            if failures.len() >= REMEMBERED {
                failures.clear();
            }
        }
        for k in Self::keys(name, address) {
            let f = failures.entry(k).or_insert(Failures {
                count: 0,
                last_ms: now_ms,
            });
            f.count += 1;
            f.last_ms = now_ms;
        }
    }

    /// A successful sign-in clears its account's count (not its address's: one right password
    /// does not excuse many wrong ones for other names).
    pub fn succeeded(&self, name: &str) {
        let [by_name, _] = Self::keys(name, "");
        self.failures.lock().expect("throttle lock").remove(&by_name);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_few_failures_are_free_then_each_wait_doubles_up_to_the_ceiling() {
        let t = Throttle::default();
        for i in 0..FREE_FAILURES {
            assert_eq!(t.wait_ms("marie", "10.0.0.9", i as i64), 0, "try {i} is free");
            t.failed("marie", "10.0.0.9", i as i64);
        }
        let at = FREE_FAILURES as i64 - 1;
        assert_eq!(t.wait_ms("marie", "10.0.0.9", at), FIRST_WAIT_MS);
        t.failed("marie", "10.0.0.9", at + 1_000);
        assert_eq!(
            t.wait_ms("MARIE", "10.0.0.1", at + 1_000),
            2 * FIRST_WAIT_MS,
            "names compare without case"
        );
        for _ in 0..30 {
            t.failed("marie", "10.0.0.9", at + 1_000);
        }
        assert_eq!(t.wait_ms("marie", "10.0.0.9", at + 1_000), MAX_WAIT_MS);
    }

    #[test]
    fn free_failures_leave_no_wait_at_a_real_clock_time() {
        let t = Throttle::default();
        let now = 1_796_171_513_408;
        t.failed("marie", "127.0.0.1", now);
        assert_eq!(
            t.wait_ms("marie", "127.0.0.1", now + 1_000),
            0,
            "one wrong password must not lock the account or the address"
        );
    }

    #[test]
    fn an_address_guessing_many_names_is_slowed_too_and_success_clears_only_the_account() {
        let t = Throttle::default();
        for i in 0..=FREE_FAILURES {
            t.failed(&format!("user{i}"), "10.0.0.66", 0);
        }
        assert!(t.wait_ms("someone-else", "10.0.0.66", 0) > 0, "the address waits");
        assert_eq!(t.wait_ms("someone-else", "10.0.0.7", 0), 0, "another address does not");
        for _ in 0..=FREE_FAILURES {
            t.failed("marie", "10.0.0.7", 0);
        }
        t.succeeded("marie");
        assert_eq!(t.wait_ms("marie", "10.0.0.8", 0), 0);
        assert!(t.wait_ms("marie", "10.0.0.7", 0) > 0);
    }
}
