//! An alert's life, as pure functions: which alerts open and close at a look at the rules, and
//! what each channel is to be told of each alert now (fired once, reminded at most every
//! `repeat_minutes` until acknowledged, resolved when it ends; held back in quiet hours and told
//! when they end; a failed notice tried again a few minutes later).

use crate::alerts::rules::Holding;
use crate::alerts::{AlertRule, NoticeKind, NoticeOutcome};
use crate::store::tables::alert::{AlertRow, PastNotice};

/// How long a notice that failed waits before it is tried again.
pub const RETRY_AFTER_MS: i64 = 5 * 60_000;

/// What a look at the rules changes.
#[derive(Debug, Default)]
pub struct Plan {
    /// Rules that hold with no open alert: to open.
    pub fire: Vec<Holding>,
    /// Open alerts whose rule still holds, with what it holds with now.
    pub still: Vec<(i64, Holding)>,
    /// Open alerts whose rule no longer holds: to close.
    pub resolve: Vec<i64>,
}

/// Matches what holds now against the open alerts (`open`: id, rule, subject).
pub fn plan(open: &[(i64, AlertRule, String)], holding: Vec<Holding>) -> Plan {
    let mut p = Plan::default();
    for h in holding {
        match open.iter().find(|(_, r, s)| *r == h.rule && *s == h.subject) {
            Some((id, _, _)) => p.still.push((*id, h)),
            None => p.fire.push(h),
        }
    }
    p.resolve = open
        .iter()
        .filter(|(id, _, _)| !p.still.iter().any(|(s, _)| s == id))
        .map(|(id, _, _)| *id)
        .collect();
    p
}

/// What one channel is to be told of one alert.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tell {
    Nothing,
    /// Send it now.
    Send(NoticeKind),
    /// Record it as held back by the quiet hours (once).
    HoldBack(NoticeKind),
}

/// What `channel` is to be told of `alert` at `now_ms`, from what it was told (`told`, oldest
/// first), with reminders every `repeat_ms` and `quiet` true in the channel's quiet hours.
pub fn tell(alert: &AlertRow, told: &[PastNotice], now_ms: i64, repeat_ms: i64, quiet: bool) -> Tell {
    let sent = |k: NoticeKind| told.iter().any(|n| n.kind == k && n.outcome == NoticeOutcome::Sent);
    let want = if alert.resolved_at_ms.is_some() {
        // Nothing was told of it on this channel: nothing to take back.
        if !sent(NoticeKind::Fired) || sent(NoticeKind::Resolved) {
            return Tell::Nothing;
        }
        NoticeKind::Resolved
    } else if !sent(NoticeKind::Fired) {
        NoticeKind::Fired
    } else if alert.acknowledged {
        return Tell::Nothing;
    } else {
        let last_told = told
            .iter()
            .filter(|n| n.outcome == NoticeOutcome::Sent)
            .map(|n| n.at_ms)
            .max()
            .unwrap_or(alert.fired_at_ms);
        if now_ms - last_told < repeat_ms {
            return Tell::Nothing;
        }
        NoticeKind::Repeated
    };
    if let Some(last) = told.last() {
        if last.outcome == NoticeOutcome::Failed && last.kind == want && now_ms - last.at_ms < RETRY_AFTER_MS {
            return Tell::Nothing;
        }
    }
    if quiet && !alert.rule.urgent() {
        let held = told
            .last()
            .is_some_and(|l| l.outcome == NoticeOutcome::Quiet && l.kind == want);
        return if held { Tell::Nothing } else { Tell::HoldBack(want) };
    }
    Tell::Send(want)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const T0: i64 = 1_780_000_000_000;
    const MIN: i64 = 60_000;
    const HOUR: i64 = 60 * MIN;

    fn alert(rule: AlertRule) -> AlertRow {
        AlertRow {
            id: 1,
            rule,
            subject: String::new(),
            fired_at_ms: T0,
            resolved_at_ms: None,
            acknowledged: false,
            facts: "{}".into(),
        }
    }

    fn n(kind: NoticeKind, outcome: NoticeOutcome, at_ms: i64) -> PastNotice {
        PastNotice { kind, outcome, at_ms }
    }

    use NoticeKind::*;
    use NoticeOutcome::*;

    #[test]
    fn an_alert_fires_once_repeats_after_its_interval_and_resolves_once() {
        let mut a = alert(AlertRule::LinkDown);
        assert_eq!(tell(&a, &[], T0, HOUR, false), Tell::Send(Fired));
        let told = vec![n(Fired, Sent, T0)];
        assert_eq!(tell(&a, &told, T0 + 59 * MIN, HOUR, false), Tell::Nothing);
        assert_eq!(tell(&a, &told, T0 + HOUR, HOUR, false), Tell::Send(Repeated));
        let told = vec![n(Fired, Sent, T0), n(Repeated, Sent, T0 + HOUR)];
        assert_eq!(tell(&a, &told, T0 + HOUR + 30 * MIN, HOUR, false), Tell::Nothing);
        a.resolved_at_ms = Some(T0 + 2 * HOUR);
        assert_eq!(tell(&a, &told, T0 + 2 * HOUR, HOUR, false), Tell::Send(Resolved));
        let mut done = told.clone();
        done.push(n(Resolved, Sent, T0 + 2 * HOUR));
        assert_eq!(tell(&a, &done, T0 + 3 * HOUR, HOUR, false), Tell::Nothing);
    }

    #[test]
    fn acknowledging_stops_the_reminders_but_not_the_resolved_notice() {
        let mut a = alert(AlertRule::QueueStuck);
        a.acknowledged = true;
        let told = vec![n(Fired, Sent, T0)];
        assert_eq!(tell(&a, &told, T0 + 5 * HOUR, HOUR, false), Tell::Nothing);
        a.resolved_at_ms = Some(T0 + 5 * HOUR);
        assert_eq!(tell(&a, &told, T0 + 5 * HOUR, HOUR, false), Tell::Send(Resolved));
    }

    #[test]
    fn quiet_hours_hold_a_notice_back_once_and_it_goes_when_they_end_but_not_for_an_otp() {
        let a = alert(AlertRule::LinkDown);
        assert_eq!(tell(&a, &[], T0, HOUR, true), Tell::HoldBack(Fired));
        let told = vec![n(Fired, Quiet, T0)];
        assert_eq!(tell(&a, &told, T0 + MIN, HOUR, true), Tell::Nothing, "recorded once");
        assert_eq!(tell(&a, &told, T0 + 2 * HOUR, HOUR, false), Tell::Send(Fired));
        let otp = alert(AlertRule::OtpUnknown);
        assert_eq!(tell(&otp, &[], T0, HOUR, true), Tell::Send(Fired));
    }

    #[test]
    fn an_alert_that_ended_before_anything_was_told_tells_nothing() {
        let mut a = alert(AlertRule::LinkDown);
        a.resolved_at_ms = Some(T0 + MIN);
        assert_eq!(tell(&a, &[n(Fired, Quiet, T0)], T0 + HOUR, HOUR, false), Tell::Nothing);
        assert_eq!(tell(&a, &[n(Fired, Failed, T0)], T0 + HOUR, HOUR, false), Tell::Nothing);
    }

    #[test]
    fn a_failed_notice_is_tried_again_after_a_few_minutes() {
        let a = alert(AlertRule::DiskLow);
        let told = vec![n(Fired, Failed, T0)];
        assert_eq!(tell(&a, &told, T0 + RETRY_AFTER_MS - 1, HOUR, false), Tell::Nothing);
        assert_eq!(tell(&a, &told, T0 + RETRY_AFTER_MS, HOUR, false), Tell::Send(Fired));
    }

    #[test]
    fn the_plan_opens_what_newly_holds_keeps_what_still_does_and_closes_the_rest() {
        let h = |rule, subject: &str| Holding {
            rule,
            subject: subject.into(),
            since_ms: None,
            facts: json!({}),
        };
        let open = vec![
            (1, AlertRule::LinkDown, "a".to_owned()),
            (2, AlertRule::LinkDown, "b".to_owned()),
        ];
        let p = plan(&open, vec![h(AlertRule::LinkDown, "b"), h(AlertRule::QueueStuck, "")]);
        assert_eq!(p.fire.len(), 1);
        assert_eq!(p.fire[0].rule, AlertRule::QueueStuck);
        assert_eq!(p.still.iter().map(|(id, _)| *id).collect::<Vec<_>>(), [2]);
        assert_eq!(p.resolve, [1]);
    }
}
