//! Slowing down password guessing, counted before any password is checked: a sign-in first
//! reserves a try for its account from its address, and only a reserved try reaches the password
//! hash. A burst of tries sent at once therefore gets no more checks than tries one after the
//! other would: the sixth of a hundred concurrent wrong passwords is refused before it is hashed.
//!
//! Two counts, each growing the wait twice as long at each failure (up to a ceiling), never a
//! lockout:
//! - per account *and* address: after [`FREE_FAILURES`] failures, the next try from that address
//!   waits 1 s, then 2 s, 4 s … up to [`MAX_WAIT_MS`]. A stranger's failures slow the stranger,
//!   not the account's owner at another address, nor the other accounts at that address (behind
//!   a proxy every person may share one).
//! - per account, from every address: each address adds at most its first [`FREE_FAILURES`], so
//!   only guessing spread over several addresses makes everyone wait, after
//!   [`ACCOUNT_FREE_FAILURES`] failures, and at most [`ACCOUNT_MAX_WAIT_MS`] a try.
//!
//! Kept in memory: a restart forgets, and costs an attacker the restart's wait.

use std::collections::HashMap;
use std::sync::Mutex;

/// Failures from one address for one account before waiting starts.
pub const FREE_FAILURES: u32 = 5;
/// Failures for one account (every address's first ones) before every try for it waits.
pub const ACCOUNT_FREE_FAILURES: u32 = 20;
/// The first wait, doubled at each further failure.
pub const FIRST_WAIT_MS: i64 = 1_000;
/// The longest wait of one address for one account.
pub const MAX_WAIT_MS: i64 = 15 * 60_000;
/// The longest wait of an account for everyone: short, since its owner waits too.
pub const ACCOUNT_MAX_WAIT_MS: i64 = 60_000;
/// A count without a failure for this long is forgotten.
const FORGET_AFTER_MS: i64 = MAX_WAIT_MS;
/// How many counts are remembered; beyond it, those that make nobody wait are forgotten first.
const REMEMBERED: usize = 10_000;

#[derive(Debug, Clone, Copy)]
struct Failures {
    /// Failures, and tries reserved whose password is being checked.
    count: u32,
    last_ms: i64,
}

/// How one count turns into waits.
#[derive(Debug, Clone, Copy)]
struct Rule {
    free: u32,
    max_wait_ms: i64,
}

const PAIR: Rule = Rule {
    free: FREE_FAILURES,
    max_wait_ms: MAX_WAIT_MS,
};
const ACCOUNT: Rule = Rule {
    free: ACCOUNT_FREE_FAILURES,
    max_wait_ms: ACCOUNT_MAX_WAIT_MS,
};

impl Failures {
    /// How long (ms) a try at `now_ms` must still wait.
    fn wait_ms(&self, rule: Rule, now_ms: i64) -> i64 {
        if self.count < rule.free {
            return 0;
        }
        let doublings = (self.count - rule.free).min(20);
        let next = self.last_ms + (FIRST_WAIT_MS << doublings).min(rule.max_wait_ms);
        (next - now_ms).max(0)
    }
}

/// A try reserved by [`Throttle::reserve`]: counted as a failure until it is settled with
/// [`Throttle::succeeded`] or [`Throttle::release`] (a try whose password was never checked).
#[derive(Debug)]
#[must_use = "a reserved try is settled: failed, succeeded or released"]
pub struct Reservation {
    account: String,
    pair: String,
    /// Whether this try counts for the account as a whole (its address's first few do).
    for_account: bool,
}

/// Failed sign-ins by account name (lowercased), and by account name and address.
#[derive(Debug, Default)]
pub struct Throttle {
    failures: Mutex<HashMap<String, Failures>>,
}

impl Throttle {
    fn keys(name: &str, address: &str) -> (String, String) {
        let name = name.trim().to_lowercase();
        (format!("account:{name}"), format!("pair:{address}\0{name}"))
    }

    fn rule(key: &str) -> Rule {
        if key.starts_with("account:") {
            ACCOUNT
        } else {
            PAIR
        }
    }

    /// Reserves a try as `name` from `address` at `now_ms`, counted as a failure at once, or says
    /// how long (ms) it must wait first. Atomic: concurrent tries each see the ones before.
    pub fn reserve(&self, name: &str, address: &str, now_ms: i64) -> Result<Reservation, i64> {
        let (account, pair) = Self::keys(name, address);
        let mut failures = self.failures.lock().unwrap_or_else(|p| p.into_inner());
        let wait = [(&account, ACCOUNT), (&pair, PAIR)]
            .iter()
            .filter_map(|(k, rule)| failures.get(*k).map(|f| f.wait_ms(*rule, now_ms)))
            .max()
            .unwrap_or(0);
        if wait > 0 {
            return Err(wait);
        }
        make_room(&mut failures, now_ms);
        let count = |failures: &mut HashMap<String, Failures>, key: &str| {
            let f = failures.entry(key.to_owned()).or_insert(Failures {
                count: 0,
                last_ms: now_ms,
            });
            f.count += 1;
            f.last_ms = now_ms;
            f.count
        };
        let for_account = count(&mut failures, &pair) <= FREE_FAILURES;
        if for_account {
            count(&mut failures, &account);
        }
        Ok(Reservation {
            account,
            pair,
            for_account,
        })
    }

    /// The reserved try failed at `now_ms`: its count stays, and the wait runs from now.
    pub fn failed(&self, r: Reservation, now_ms: i64) {
        let mut failures = self.failures.lock().unwrap_or_else(|p| p.into_inner());
        let keys = [Some(&r.pair), r.for_account.then_some(&r.account)];
        for key in keys.into_iter().flatten() {
            if let Some(f) = failures.get_mut(key) {
                f.last_ms = f.last_ms.max(now_ms);
            }
        }
    }

    /// The reserved try succeeded: its account's counts are cleared, from this address and from
    /// all (a stranger's failures from elsewhere stay theirs).
    pub fn succeeded(&self, r: Reservation) {
        let mut failures = self.failures.lock().unwrap_or_else(|p| p.into_inner());
        failures.remove(&r.pair);
        failures.remove(&r.account);
    }

    /// The reserved try was not made (no password was checked): it no longer counts.
    pub fn release(&self, r: Reservation) {
        let mut failures = self.failures.lock().unwrap_or_else(|p| p.into_inner());
        let keys = [Some(&r.pair), r.for_account.then_some(&r.account)];
        for key in keys.into_iter().flatten() {
            if let Some(f) = failures.get_mut(key) {
                f.count = f.count.saturating_sub(1);
                if f.count == 0 {
                    failures.remove(key);
                }
            }
        }
    }

    /// How many accounts and (account, address) pairs are counted now.
    pub fn remembered(&self) -> usize {
        self.failures.lock().unwrap_or_else(|p| p.into_inner()).len()
    }
}

/// Keeps the table under [`REMEMBERED`]: forgets counts quiet for long, then those that make
/// nobody wait, then the oldest. Names that do not exist are counted like those that do (the
/// answer must not tell them apart), so the table cannot grow with them.
fn make_room(failures: &mut HashMap<String, Failures>, now_ms: i64) {
    if failures.len() < REMEMBERED {
        return;
    }
    failures.retain(|_, f| now_ms - f.last_ms < FORGET_AFTER_MS);
    if failures.len() >= REMEMBERED {
        failures.retain(|k, f| f.count >= Throttle::rule(k).free);
    }
    if failures.len() >= REMEMBERED {
        let mut ages: Vec<i64> = failures.values().map(|f| f.last_ms).collect();
        ages.sort_unstable();
        let cutoff = ages[ages.len() / 2];
        failures.retain(|_, f| f.last_ms > cutoff);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fail(t: &Throttle, name: &str, address: &str, now: i64) {
        let r = t.reserve(name, address, now).expect("the try is free");
        t.failed(r, now);
    }

    #[test]
    fn a_few_failures_are_free_then_each_wait_doubles_up_to_the_ceiling() {
        let t = Throttle::default();
        for i in 0..FREE_FAILURES {
            fail(&t, "marie", "10.0.0.9", i as i64);
        }
        let at = FREE_FAILURES as i64 - 1;
        assert_eq!(t.reserve("marie", "10.0.0.9", at).unwrap_err(), FIRST_WAIT_MS);
        fail(&t, "MARIE", "10.0.0.9", at + FIRST_WAIT_MS);
        assert_eq!(
            t.reserve("marie", "10.0.0.9", at + FIRST_WAIT_MS).unwrap_err(),
            2 * FIRST_WAIT_MS,
            "names compare without case, and the wait doubles"
        );
        let mut now = at + FIRST_WAIT_MS;
        for _ in 0..30 {
            now += MAX_WAIT_MS;
            fail(&t, "marie", "10.0.0.9", now);
        }
        assert_eq!(t.reserve("marie", "10.0.0.9", now).unwrap_err(), MAX_WAIT_MS);
    }

    #[test]
    fn concurrent_tries_are_counted_before_any_password_is_checked() {
        let t = Throttle::default();
        let reserved: Vec<_> = (0..100)
            .filter_map(|_| t.reserve("marie", "10.0.0.9", 0).ok())
            .collect();
        assert_eq!(
            reserved.len(),
            FREE_FAILURES as usize,
            "a burst gets no more tries than tries made one after the other"
        );
        for r in reserved {
            t.release(r);
        }
        assert!(
            t.reserve("marie", "10.0.0.9", 0).is_ok(),
            "released tries no longer count"
        );
    }

    #[test]
    fn a_strangers_failures_slow_the_stranger_not_the_owner_elsewhere_nor_other_accounts() {
        let t = Throttle::default();
        let mut now = 1_796_171_513_408;
        for _ in 0..200 {
            if let Ok(r) = t.reserve("marie", "10.0.0.66", now) {
                t.failed(r, now);
            }
            now += 30_000;
        }
        assert!(t.reserve("marie", "10.0.0.66", now).is_err(), "the stranger waits");
        let owner = t.reserve("marie", "10.0.0.7", now);
        assert!(owner.is_ok(), "the owner at another address does not wait");
        t.succeeded(owner.unwrap());
        assert!(
            t.reserve("paul", "10.0.0.66", now).is_ok(),
            "another account at the stranger's address does not wait"
        );
    }

    #[test]
    fn guessing_spread_over_addresses_slows_the_account_with_a_short_ceiling() {
        let t = Throttle::default();
        let addresses = (ACCOUNT_FREE_FAILURES / FREE_FAILURES) as usize;
        for a in 0..addresses {
            for _ in 0..FREE_FAILURES {
                fail(&t, "marie", &format!("10.0.1.{a}"), 0);
            }
        }
        let wait = t.reserve("marie", "10.0.0.7", 0).unwrap_err();
        assert!(wait > 0 && wait <= ACCOUNT_MAX_WAIT_MS, "{wait}");
        let r = t.reserve("marie", "10.0.0.7", wait).expect("after the wait, a try");
        t.succeeded(r);
        assert!(
            t.reserve("marie", "10.0.0.8", wait).is_ok(),
            "success clears the account's count"
        );
        fail(&t, "marie", "10.0.1.0", wait);
        assert_eq!(
            t.reserve("marie", "10.0.1.0", wait).unwrap_err(),
            2 * FIRST_WAIT_MS,
            "but not a stranger's own count, whose wait goes on growing"
        );
    }

    #[test]
    fn the_table_stays_bounded_and_keeps_the_counts_that_make_someone_wait() {
        let t = Throttle::default();
        for _ in 0..FREE_FAILURES {
            fail(&t, "marie", "10.0.0.66", 0);
        }
        for i in 0..(2 * REMEMBERED) {
            fail(&t, &format!("nobody{i}"), "10.0.0.1", 1);
        }
        assert!(t.remembered() <= REMEMBERED + 2, "{}", t.remembered());
        assert!(
            t.reserve("marie", "10.0.0.66", 2).is_err(),
            "names that do not exist cannot flush a count that makes someone wait"
        );
    }
}
