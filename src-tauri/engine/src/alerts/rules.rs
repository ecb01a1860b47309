//! The alert rules, as pure functions of what was seen ([`Facts`]) and the thresholds in force:
//! which rules hold now, for which subject, with the figures that make them hold.

use serde_json::json;

use crate::alerts::AlertRule;
use crate::config::AlertSettings;

const MINUTE_MS: i64 = 60_000;
/// A queue whose submits were answered this recently is moving, however long its oldest message
/// waited (a long campaign going out at the account's rate is not stuck).
pub const MOVING_WINDOW_MS: i64 = 2 * MINUTE_MS;
/// At least this many submits in the window before the failure rate is judged.
pub const FAILURE_RATE_MIN_SUBMITS: i64 = 20;

/// One connection as the rules see it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinkFact {
    pub connection: String,
    /// Since when it is not bound; None while it is (or while it is disabled on purpose).
    pub unbound_since_ms: Option<i64>,
    /// The last error it reported, in words.
    pub error: Option<String>,
}

/// An API key whose webhook keeps failing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WebhookFact {
    pub key_name: String,
    pub since_ms: i64,
    pub waiting: i64,
    pub last_error: Option<String>,
}

/// Everything the rules look at, read at one time.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Facts {
    pub now_ms: i64,
    /// The connections the settings enable.
    pub links: Vec<LinkFact>,
    /// Since when the oldest message due to be sent is due.
    pub oldest_due_ms: Option<i64>,
    /// Messages due to be sent now.
    pub due_waiting: i64,
    /// Submits of the failure window, by answer.
    pub submits: smsdesk_store::alert_facts::SubmitCounts,
    /// Submits answered in the last [`MOVING_WINDOW_MS`]: the queue is moving.
    pub recent_answers: i64,
    /// The newest receipt's time.
    pub last_receipt_ms: Option<i64>,
    /// When the first submit after it that asked for a receipt was accepted.
    pub receipt_asked_since_ms: Option<i64>,
    pub otp_unknown: i64,
    /// One-time codes held for an unusual surge (open `unusual_volume` exceptions).
    pub otp_held: i64,
    pub open_exceptions: i64,
    /// Free bytes on the database's disk, where it can be measured.
    pub disk_free_bytes: Option<u64>,
    /// The store's reserve (`store.reserve_mib`): below it new messages are refused, so the disk
    /// is low there whatever `alerts.disk_free_mib` says.
    pub disk_reserve_bytes: u64,
    /// Why the writer fails, when it does.
    pub writer_error: Option<String>,
    /// Whether daily backups are on, when the last one was taken, and why the last try failed.
    pub backups_automatic: bool,
    pub last_backup_ms: Option<i64>,
    pub backup_error: Option<String>,
    /// When smsdesk started (a backup is not late before a day of running).
    pub started_ms: i64,
    pub webhooks: Vec<WebhookFact>,
    pub opt_outs_last_hour: i64,
}

/// A rule that holds now, for one subject.
#[derive(Debug, Clone, PartialEq)]
pub struct Holding {
    pub rule: AlertRule,
    /// "" for the office; a connection or an API key's name.
    pub subject: String,
    /// Since when, where the facts tell.
    pub since_ms: Option<i64>,
    /// The figures, named for the messages' words.
    pub facts: serde_json::Value,
}

impl Holding {
    fn new(rule: AlertRule, subject: impl Into<String>, since_ms: Option<i64>, facts: serde_json::Value) -> Holding {
        Holding {
            rule,
            subject: subject.into(),
            since_ms,
            facts,
        }
    }
}

/// Every rule that holds for `f` under `s`, in the order of [`AlertRule::ALL`].
pub fn holding(f: &Facts, s: &AlertSettings) -> Vec<Holding> {
    let mut out = Vec::new();
    links(f, s, &mut out);
    queue_and_submits(f, s, &mut out);
    if f.otp_unknown > 0 {
        out.push(Holding::new(
            AlertRule::OtpUnknown,
            "",
            None,
            json!({ "codes": f.otp_unknown }),
        ));
    }
    if f.otp_held > 0 {
        out.push(Holding::new(
            AlertRule::OtpHeld,
            "",
            None,
            json!({ "codes": f.otp_held }),
        ));
    }
    if f.open_exceptions > i64::from(s.open_exceptions_over) {
        out.push(Holding::new(
            AlertRule::OpenExceptions,
            "",
            None,
            json!({ "open": f.open_exceptions, "over": s.open_exceptions_over }),
        ));
    }
    storage(f, s, &mut out);
    for w in &f.webhooks {
        if f.now_ms - w.since_ms >= minutes(s.webhook_failing_minutes.0) {
            out.push(Holding::new(
                AlertRule::WebhookFailing,
                w.key_name.clone(),
                Some(w.since_ms),
                json!({ "waiting": w.waiting, "error": w.last_error }),
            ));
        }
    }
    if f.opt_outs_last_hour > i64::from(s.opt_out_spike.0) {
        out.push(Holding::new(
            AlertRule::OptOutSpike,
            "",
            None,
            json!({ "numbers": f.opt_outs_last_hour, "over": s.opt_out_spike.0 }),
        ));
    }
    out.sort_by_key(|h| h.rule);
    out
}

fn minutes(n: u32) -> i64 {
    i64::from(n) * MINUTE_MS
}

/// Link down, per connection past its threshold; all links down instead when none is bound.
fn links(f: &Facts, s: &AlertSettings, out: &mut Vec<Holding>) {
    let limit = minutes(s.link_down_minutes.0);
    let down: Vec<&LinkFact> = f
        .links
        .iter()
        .filter(|l| l.unbound_since_ms.is_some_and(|t| f.now_ms - t >= limit))
        .collect();
    if down.is_empty() {
        return;
    }
    if down.len() == f.links.len() {
        let since = down.iter().filter_map(|l| l.unbound_since_ms).max();
        out.push(Holding::new(
            AlertRule::AllLinksDown,
            "",
            since,
            json!({
                "connections": down.iter().map(|l| l.connection.clone()).collect::<Vec<_>>(),
                "error": down.iter().find_map(|l| l.error.clone()),
                "waiting": f.due_waiting,
            }),
        ));
        return;
    }
    for l in down {
        out.push(Holding::new(
            AlertRule::LinkDown,
            l.connection.clone(),
            l.unbound_since_ms,
            json!({ "error": l.error, "waiting": f.due_waiting }),
        ));
    }
}

/// The queue stuck, the failure rate, receipts silent.
fn queue_and_submits(f: &Facts, s: &AlertSettings, out: &mut Vec<Holding>) {
    let waited_too_long = f
        .oldest_due_ms
        .filter(|t| f.now_ms - t >= minutes(s.queue_stuck_minutes.0));
    if let Some(due) = waited_too_long.filter(|_| f.recent_answers == 0) {
        out.push(Holding::new(
            AlertRule::QueueStuck,
            "",
            Some(due),
            json!({ "waiting": f.due_waiting, "oldest_minutes": (f.now_ms - due) / MINUTE_MS }),
        ));
    }
    let total = f.submits.total();
    let failed = f.submits.refused + f.submits.unknown;
    if total >= FAILURE_RATE_MIN_SUBMITS && failed * 100 > total * i64::from(s.failure_rate_percent.0) {
        out.push(Holding::new(
            AlertRule::FailureRate,
            "",
            None,
            json!({
                "submits": total,
                "refused": f.submits.refused,
                "unanswered": f.submits.unknown,
                "percent": failed * 100 / total,
                "window_minutes": s.failure_window_minutes.0,
            }),
        ));
    }
    if let Some(asked) = f
        .receipt_asked_since_ms
        .filter(|t| f.now_ms - t >= minutes(s.receipts_silent_minutes.0))
    {
        out.push(Holding::new(
            AlertRule::ReceiptsSilent,
            "",
            Some(asked),
            json!({
                "last_receipt_ms": f.last_receipt_ms,
                "silent_minutes": (f.now_ms - f.last_receipt_ms.unwrap_or(asked).max(asked)) / MINUTE_MS,
            }),
        ));
    }
}

/// The disk, the writer, the backups.
fn storage(f: &Facts, s: &AlertSettings, out: &mut Vec<Holding>) {
    let under = (u64::from(s.disk_free_mib) << 20).max(f.disk_reserve_bytes);
    if let Some(free) = f.disk_free_bytes.filter(|b| *b < under) {
        out.push(Holding::new(
            AlertRule::DiskLow,
            "",
            None,
            json!({ "free_mib": free >> 20, "under_mib": under >> 20 }),
        ));
    }
    if let Some(e) = &f.writer_error {
        out.push(Holding::new(AlertRule::WriterFailing, "", None, json!({ "error": e })));
    }
    if !f.backups_automatic {
        return;
    }
    let max_age = i64::from(s.backup_max_age_hours.0) * 60 * MINUTE_MS;
    let old = match f.last_backup_ms {
        Some(t) => f.now_ms - t >= max_age,
        // None yet: late once smsdesk ran that long without taking one.
        None => f.now_ms - f.started_ms >= max_age,
    };
    if old || f.backup_error.is_some() {
        out.push(Holding::new(
            AlertRule::BackupLate,
            "",
            f.last_backup_ms,
            json!({
                "last_backup_ms": f.last_backup_ms,
                "error": f.backup_error,
                "max_age_hours": s.backup_max_age_hours.0,
            }),
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use smsdesk_store::alert_facts::SubmitCounts;

    const NOW: i64 = 1_780_000_000_000;

    fn link(name: &str, down_minutes: Option<i64>) -> LinkFact {
        LinkFact {
            connection: name.into(),
            unbound_since_ms: down_minutes.map(|m| NOW - m * MINUTE_MS),
            error: down_minutes.map(|_| "connection refused".into()),
        }
    }

    fn quiet() -> Facts {
        Facts {
            now_ms: NOW,
            started_ms: NOW - 3_600_000,
            links: vec![link("a", None)],
            ..Facts::default()
        }
    }

    fn rules(f: &Facts) -> Vec<(AlertRule, String)> {
        holding(f, &AlertSettings::default())
            .into_iter()
            .map(|h| (h.rule, h.subject))
            .collect()
    }

    #[test]
    fn nothing_holds_in_a_quiet_office() {
        assert!(rules(&quiet()).is_empty());
    }

    #[test]
    fn a_link_is_down_once_past_its_minutes_and_all_down_is_one_alert_not_one_per_link() {
        let mut f = quiet();
        f.links = vec![link("a", Some(4)), link("b", None)];
        assert!(rules(&f).is_empty(), "4 minutes is under the 5 of the default");
        f.links = vec![link("a", Some(5)), link("b", None)];
        assert_eq!(rules(&f), [(AlertRule::LinkDown, "a".to_owned())]);
        f.links = vec![link("a", Some(9)), link("b", Some(6))];
        assert_eq!(rules(&f), [(AlertRule::AllLinksDown, String::new())]);
    }

    #[test]
    fn the_queue_is_stuck_when_its_oldest_due_message_waits_past_the_threshold_and_nothing_goes() {
        let mut f = quiet();
        f.oldest_due_ms = Some(NOW - 9 * MINUTE_MS);
        assert!(rules(&f).is_empty());
        f.oldest_due_ms = Some(NOW - 10 * MINUTE_MS);
        assert_eq!(rules(&f), [(AlertRule::QueueStuck, String::new())]);
        f.recent_answers = 12;
        assert!(rules(&f).is_empty(), "a campaign going out at its pace is not stuck");
    }

    #[test]
    fn the_failure_rate_needs_twenty_submits_and_more_than_its_share() {
        let mut f = quiet();
        f.submits = SubmitCounts {
            accepted: 0,
            refused: 19,
            unknown: 0,
        };
        assert!(rules(&f).is_empty(), "19 submits are too few to judge");
        f.submits = SubmitCounts {
            accepted: 80,
            refused: 15,
            unknown: 5,
        };
        assert!(rules(&f).is_empty(), "20 % is not over 20 %");
        f.submits.unknown = 6;
        assert_eq!(rules(&f), [(AlertRule::FailureRate, String::new())]);
    }

    #[test]
    fn receipts_are_silent_only_after_a_submit_that_asked_for_one_waited_the_whole_time() {
        let mut f = quiet();
        f.last_receipt_ms = Some(NOW - 120 * MINUTE_MS);
        assert!(rules(&f).is_empty(), "no submit asked since: a quiet office");
        f.receipt_asked_since_ms = Some(NOW - 29 * MINUTE_MS);
        assert!(rules(&f).is_empty());
        f.receipt_asked_since_ms = Some(NOW - 30 * MINUTE_MS);
        assert_eq!(rules(&f), [(AlertRule::ReceiptsSilent, String::new())]);
    }

    #[test]
    fn a_backup_is_late_past_its_hours_or_when_it_failed_and_never_when_daily_backups_are_off() {
        let mut f = quiet();
        f.backups_automatic = true;
        f.last_backup_ms = Some(NOW - 25 * 3_600_000);
        assert!(rules(&f).is_empty());
        f.last_backup_ms = Some(NOW - 26 * 3_600_000);
        assert_eq!(rules(&f), [(AlertRule::BackupLate, String::new())]);
        f.last_backup_ms = Some(NOW - 3_600_000);
        f.backup_error = Some("disk full".into());
        assert_eq!(rules(&f), [(AlertRule::BackupLate, String::new())]);
        f.last_backup_ms = None;
        f.backup_error = None;
        assert!(rules(&f).is_empty(), "started an hour ago: not late yet");
        f.started_ms = NOW - 27 * 3_600_000;
        assert_eq!(rules(&f), [(AlertRule::BackupLate, String::new())]);
        f.backups_automatic = false;
        assert!(rules(&f).is_empty());
    }

    #[test]
    fn the_disk_is_low_below_the_stores_reserve_even_under_a_smaller_alert_threshold() {
        let settings = AlertSettings {
            disk_free_mib: 10,
            ..AlertSettings::default()
        };
        let mut f = quiet();
        f.disk_reserve_bytes = 64 << 20;
        f.disk_free_bytes = Some(50 << 20);
        let held = holding(&f, &settings);
        assert_eq!(held.len(), 1, "{held:?}");
        assert_eq!(held[0].rule, AlertRule::DiskLow);
        assert_eq!(held[0].facts["under_mib"], 64, "the reserve is the limit said");
        f.disk_free_bytes = Some(64 << 20);
        assert!(holding(&f, &settings).is_empty(), "at the reserve is not under it");
    }

    #[test]
    fn the_other_rules_hold_past_their_thresholds_each_for_its_subject() {
        let mut f = quiet();
        f.otp_unknown = 1;
        f.otp_held = 3;
        f.open_exceptions = 51;
        f.disk_free_bytes = Some(499 << 20);
        f.writer_error = Some("disk I/O error".into());
        f.opt_outs_last_hour = 21;
        f.webhooks = vec![
            WebhookFact {
                key_name: "crm".into(),
                since_ms: NOW - 30 * MINUTE_MS,
                waiting: 4,
                last_error: Some("HTTP 500".into()),
            },
            WebhookFact {
                key_name: "site".into(),
                since_ms: NOW - 29 * MINUTE_MS,
                waiting: 1,
                last_error: None,
            },
        ];
        assert_eq!(
            rules(&f),
            [
                (AlertRule::OtpUnknown, String::new()),
                (AlertRule::OtpHeld, String::new()),
                (AlertRule::OpenExceptions, String::new()),
                (AlertRule::DiskLow, String::new()),
                (AlertRule::WriterFailing, String::new()),
                (AlertRule::WebhookFailing, "crm".to_owned()),
                (AlertRule::OptOutSpike, String::new()),
            ]
        );
        f.open_exceptions = 50;
        f.disk_free_bytes = Some(500 << 20);
        f.opt_outs_last_hour = 20;
        f.otp_held = 0;
        assert_eq!(rules(&f).len(), 3, "at the threshold is not over it");
    }
}
