//! What happens after a submit failed: retry when (exponential backoff with full jitter, capped),
//! or give up and say why. Pure: time and randomness come in as arguments.
//!
//! - Permanent errors fail at once; unlisted ones are retried only a few times.
//! - A message is never sent after its valid-until (an OTP past its 5 minutes is worthless), nor
//!   after its kind's maximum age, nor more often than its kind's maximum number of attempts
//!   (OTPs: two).
//! - Throttling is retried like a temporary error, and tells the session to slow down.

use serde::Serialize;

use crate::command_status::ErrorClass;
use crate::domain::MessageKind;

/// The retry limits of one message kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct RetryPolicy {
    /// The first retry waits up to this long.
    pub base_ms: u64,
    /// No wait is longer than this.
    pub cap_ms: u64,
    /// Attempts in all, the first one included.
    pub max_attempts: u32,
    /// Attempts in all when the error is not in the status table.
    pub unlisted_max_attempts: u32,
    /// No attempt starts later than this after the message was created.
    pub max_age_ms: u64,
}

impl RetryPolicy {
    /// The documented defaults.
    pub const fn default_for(kind: MessageKind) -> RetryPolicy {
        match kind {
            MessageKind::Otp => RetryPolicy {
                base_ms: 2_000,
                cap_ms: 30_000,
                max_attempts: 2,
                unlisted_max_attempts: 2,
                max_age_ms: 5 * 60_000,
            },
            MessageKind::Transactional => RetryPolicy {
                base_ms: 5_000,
                cap_ms: 15 * 60_000,
                max_attempts: 8,
                unlisted_max_attempts: 3,
                max_age_ms: 24 * 3_600_000,
            },
            MessageKind::Bulk => RetryPolicy {
                base_ms: 30_000,
                cap_ms: 60 * 60_000,
                max_attempts: 5,
                unlisted_max_attempts: 2,
                max_age_ms: 48 * 3_600_000,
            },
        }
    }
}

/// Why a message is given up.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum GiveUp {
    /// The error says resending cannot help.
    Permanent,
    /// It had all the attempts its kind allows.
    AttemptsExhausted,
    /// The next attempt would start after its kind's maximum age.
    TooOld,
    /// The next attempt would start after the message's valid-until.
    ValidityEnded,
}

/// What to do after a failed attempt.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(tag = "decision", rename_all = "snake_case")]
pub enum Decision {
    Retry {
        /// When the next attempt may start (ms since epoch).
        at: i64,
        /// The SMSC asked us to slow down.
        slow_down: bool,
    },
    GiveUp {
        reason: GiveUp,
    },
}

/// The facts the decision rests on.
#[derive(Debug, Clone, Copy)]
pub struct Failed {
    pub class: ErrorClass,
    /// Attempts made so far, the failed one included.
    pub attempts: u32,
    pub created_at: i64,
    pub valid_until: Option<i64>,
    pub now: i64,
}

/// Decides after a failed attempt. `random` gives a number in [0, 1) for the jitter.
pub fn decide(policy: &RetryPolicy, f: &Failed, random: impl FnOnce() -> f64) -> Decision {
    let give_up = |reason| Decision::GiveUp { reason };
    let limit = match f.class {
        ErrorClass::Permanent => return give_up(GiveUp::Permanent),
        ErrorClass::Unlisted => policy.unlisted_max_attempts.min(policy.max_attempts),
        ErrorClass::Ok | ErrorClass::Temporary | ErrorClass::Throttled => policy.max_attempts,
    };
    if f.attempts >= limit {
        return give_up(GiveUp::AttemptsExhausted);
    }
    // Full jitter: anywhere between now and the capped exponential bound.
    let exp = policy
        .base_ms
        .saturating_mul(1u64 << (f.attempts.saturating_sub(1)).min(32));
    let bound = exp.min(policy.cap_ms);
    let wait = (random().clamp(0.0, 1.0) * bound as f64) as i64;
    let at = f.now.saturating_add(wait);
    if f.valid_until.is_some_and(|v| at >= v) {
        return give_up(GiveUp::ValidityEnded);
    }
    if at > f.created_at.saturating_add(policy.max_age_ms as i64) {
        return give_up(GiveUp::TooOld);
    }
    Decision::Retry {
        at,
        slow_down: f.class == ErrorClass::Throttled,
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    const T0: i64 = 1_800_000_000_000;

    fn failed(class: ErrorClass, attempts: u32) -> Failed {
        Failed {
            class,
            attempts,
            created_at: T0,
            valid_until: None,
            now: T0,
        }
    }

    #[test]
    fn permanent_errors_fail_at_once() {
        let p = RetryPolicy::default_for(MessageKind::Transactional);
        let d = decide(&p, &failed(ErrorClass::Permanent, 1), || 0.5);
        assert_eq!(
            d,
            Decision::GiveUp {
                reason: GiveUp::Permanent
            }
        );
    }

    #[test]
    fn an_otp_is_tried_at_most_twice_and_never_after_it_expires() {
        let p = RetryPolicy::default_for(MessageKind::Otp);
        assert!(matches!(
            decide(&p, &failed(ErrorClass::Temporary, 1), || 0.5),
            Decision::Retry { .. }
        ));
        assert_eq!(
            decide(&p, &failed(ErrorClass::Temporary, 2), || 0.5),
            Decision::GiveUp {
                reason: GiveUp::AttemptsExhausted
            }
        );
        let nearly_expired = Failed {
            valid_until: Some(T0 + 100),
            ..failed(ErrorClass::Temporary, 1)
        };
        assert_eq!(
            decide(&p, &nearly_expired, || 0.9),
            Decision::GiveUp {
                reason: GiveUp::ValidityEnded
            }
        );
    }

    #[test]
    fn throttling_retries_and_asks_to_slow_down() {
        let p = RetryPolicy::default_for(MessageKind::Bulk);
        assert_eq!(
            decide(&p, &failed(ErrorClass::Throttled, 1), || 0.5),
            Decision::Retry {
                at: T0 + 15_000,
                slow_down: true
            }
        );
    }

    #[test]
    fn unlisted_errors_get_a_low_cap() {
        let p = RetryPolicy::default_for(MessageKind::Transactional);
        assert!(matches!(
            decide(&p, &failed(ErrorClass::Unlisted, 2), || 0.5),
            Decision::Retry { .. }
        ));
        assert_eq!(
            decide(&p, &failed(ErrorClass::Unlisted, 3), || 0.5),
            Decision::GiveUp {
                reason: GiveUp::AttemptsExhausted
            }
        );
    }

    #[test]
    fn the_bound_doubles_per_attempt_up_to_the_cap() {
        let p = RetryPolicy {
            base_ms: 1_000,
            cap_ms: 10_000,
            max_attempts: 100,
            unlisted_max_attempts: 1,
            max_age_ms: u64::MAX / 4,
        };
        let upper = |attempts| match decide(&p, &failed(ErrorClass::Temporary, attempts), || 0.999_999) {
            Decision::Retry { at, .. } => at - T0,
            other => panic!("{other:?}"),
        };
        assert_eq!(
            [upper(1), upper(2), upper(3), upper(4), upper(5), upper(50)],
            [999, 1_999, 3_999, 7_999, 9_999, 9_999]
        );
    }

    #[test]
    fn a_message_past_its_kinds_maximum_age_is_given_up() {
        let p = RetryPolicy::default_for(MessageKind::Transactional);
        let old = Failed {
            now: T0 + p.max_age_ms as i64,
            ..failed(ErrorClass::Temporary, 1)
        };
        assert_eq!(decide(&p, &old, || 0.5), Decision::GiveUp { reason: GiveUp::TooOld });
    }

    proptest! {
        #[test]
        fn a_retry_is_never_scheduled_past_validity_age_or_cap(
            kind in prop::sample::select(MessageKind::ALL.to_vec()),
            class in prop::sample::select(vec![ErrorClass::Temporary, ErrorClass::Throttled, ErrorClass::Unlisted, ErrorClass::Permanent]),
            attempts in 1u32..20,
            elapsed in 0i64..(50 * 3_600_000),
            validity in prop::option::of(0i64..(10 * 60_000)),
            r in 0.0f64..1.0,
        ) {
            let p = RetryPolicy::default_for(kind);
            let f = Failed { class, attempts, created_at: T0, valid_until: validity.map(|v| T0 + v), now: T0 + elapsed };
            match decide(&p, &f, || r) {
                Decision::Retry { at, .. } => {
                    prop_assert!(class != ErrorClass::Permanent, "a permanent error is never retried");
                    prop_assert!(attempts < p.max_attempts, "never more attempts than the kind allows");
                    prop_assert!(at >= f.now && at - f.now <= p.cap_ms as i64, "the wait stays within the cap");
                    prop_assert!(f.valid_until.is_none_or(|v| at < v), "never sent after valid-until");
                    prop_assert!(at <= T0 + p.max_age_ms as i64, "never sent after the kind's maximum age");
                }
                Decision::GiveUp { .. } => {}
            }
        }
    }
}
