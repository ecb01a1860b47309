//! What an alert, a test and the daily summary say, in the office's language (en, fr, ru): what
//! happened, since when, what it affects, what to do, and a link to the screen.

mod en;
mod fr;
mod ru;

use jiff::tz::TimeZone;
use serde_json::Value;

use crate::alerts::{AlertRule, NoticeKind};
use crate::config::AlertLanguage;
use crate::store::alert_facts::DayFigures;

/// The words of one language. Texts hold `{name}` places, filled from an alert's facts.
pub(super) struct Lexicon {
    /// A rule's title, what happened, what it affects, what to do.
    rule: fn(AlertRule) -> [&'static str; 4],
    fired: &'static str,
    repeated: &'static str,
    resolved: &'static str,
    /// The label of when the alert was noticed.
    noticed: &'static str,
    /// Between a label and its value (French puts a space before the colon).
    colon: &'static str,
    ended: &'static str,
    affects: &'static str,
    todo: &'static str,
    open: &'static str,
    none: &'static str,
    never: &'static str,
    hours: &'static str,
    minutes: &'static str,
    test_subject: &'static str,
    test_body: &'static str,
    summary_subject: &'static str,
    summary_lines: [&'static str; 4],
    summary_failures: &'static str,
    summary_status: &'static str,
    summary_alerts: &'static str,
}

/// A language alerts are written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lang {
    En,
    Fr,
    Ru,
}

impl Lang {
    pub const ALL: [Lang; 3] = [Lang::En, Lang::Fr, Lang::Ru];

    /// The language of `setting`; "auto" reads the office's country (`intake.default_region`).
    pub fn of(setting: AlertLanguage, region: Option<&str>) -> Lang {
        match setting {
            AlertLanguage::En => Lang::En,
            AlertLanguage::Fr => Lang::Fr,
            AlertLanguage::Ru => Lang::Ru,
            AlertLanguage::Auto => match region.map(str::to_ascii_uppercase).as_deref() {
                Some("FR" | "BE" | "CH" | "LU" | "MC" | "CA") => Lang::Fr,
                Some("RU" | "BY" | "KZ" | "KG") => Lang::Ru,
                _ => Lang::En,
            },
        }
    }

    fn words(self) -> &'static Lexicon {
        match self {
            Lang::En => &en::EN,
            Lang::Fr => &fr::FR,
            Lang::Ru => &ru::RU,
        }
    }
}

/// Where and how the office reads: its language, its time zone, and the address of its screens.
#[derive(Debug, Clone)]
pub struct Office {
    pub lang: Lang,
    pub tz: TimeZone,
    /// The address people open smsdesk at (none: no link).
    pub link: Option<String>,
}

impl Office {
    /// `ms` as the office's local date and time ("2026-12-06 21:15").
    pub fn time(&self, ms: i64) -> String {
        jiff::Timestamp::from_millisecond(ms)
            .map(|t| t.to_zoned(self.tz.clone()).strftime("%Y-%m-%d %H:%M").to_string())
            .unwrap_or_default()
    }

    fn screen(&self, fragment: &str) -> Option<String> {
        self.link
            .as_ref()
            .map(|l| format!("{}/#/{fragment}", l.trim_end_matches('/')))
    }
}

/// An e-mail's subject and body (plain text).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rendered {
    pub subject: String,
    pub body: String,
}

/// One alert's notice.
#[derive(Debug, Clone)]
pub struct AlertText<'a> {
    pub kind: NoticeKind,
    pub rule: AlertRule,
    pub subject: &'a str,
    pub facts: &'a Value,
    pub fired_at_ms: i64,
    pub since_ms: Option<i64>,
    pub now_ms: i64,
}

/// Fills the `{name}` places of `text` from `values`.
fn fill(text: &str, values: &[(&str, String)]) -> String {
    let mut out = text.to_owned();
    for (k, v) in values {
        out = out.replace(&format!("{{{k}}}"), v);
    }
    out
}

/// A fact as words: numbers as they are, lists joined, null as "none".
fn word(v: &Value, w: &Lexicon) -> String {
    match v {
        Value::Null => w.none.to_owned(),
        Value::String(s) => s.clone(),
        Value::Array(a) => a.iter().map(|x| word(x, w)).collect::<Vec<_>>().join(", "),
        other => other.to_string(),
    }
}

fn duration(ms: i64, w: &Lexicon) -> String {
    let minutes = (ms / 60_000).max(1);
    match (minutes / 60, minutes % 60) {
        (0, m) => format!("{m} {}", w.minutes),
        (h, 0) => format!("{h} {}", w.hours),
        (h, m) => format!("{h} {} {m} {}", w.hours, w.minutes),
    }
}

/// What `a` says in `office`'s language.
pub fn alert(a: &AlertText<'_>, office: &Office) -> Rendered {
    let w = office.lang.words();
    let [title, what, affects, todo] = (w.rule)(a.rule);
    let mut values: Vec<(&str, String)> = vec![
        ("subject", a.subject.to_owned()),
        ("since", office.time(a.since_ms.unwrap_or(a.fired_at_ms))),
    ];
    if let Value::Object(map) = a.facts {
        for (k, v) in map {
            let text = match (k.as_str(), v) {
                ("last_backup_ms", Value::Number(n)) => office.time(n.as_i64().unwrap_or_default()),
                ("last_backup_ms", _) => w.never.to_owned(),
                _ => word(v, w),
            };
            let key: &str = if k == "last_backup_ms" { "last_backup" } else { k };
            values.push((key, text));
        }
    }
    let title = fill(title, &values);
    let prefix = match a.kind {
        NoticeKind::Repeated => w.repeated,
        NoticeKind::Resolved => w.resolved,
        _ => w.fired,
    };
    let c = w.colon;
    let mut body = format!(
        "{title}\n\n{}\n{}{c}{}\n",
        fill(what, &values),
        w.noticed,
        office.time(a.fired_at_ms)
    );
    if a.kind == NoticeKind::Resolved {
        let ended = fill(
            w.ended,
            &[
                ("at", office.time(a.now_ms)),
                ("duration", duration(a.now_ms - a.fired_at_ms, w)),
            ],
        );
        body.push_str(&format!("\n{ended}\n"));
    } else {
        let (affects, todo) = (fill(affects, &values), fill(todo, &values));
        body.push_str(&format!("\n{}{c}{affects}\n{}{c}{todo}\n", w.affects, w.todo));
    }
    if let Some(link) = office.screen("alerts") {
        body.push_str(&format!("\n{}{c}{link}\n", w.open));
    }
    Rendered {
        subject: format!("[smsdesk] {prefix}{c}{title}"),
        body,
    }
}

/// A test alert.
pub fn test(office: &Office, now_ms: i64) -> Rendered {
    let w = office.lang.words();
    let mut body = format!("{}\n", fill(w.test_body, &[("at", office.time(now_ms))]));
    if let Some(link) = office.screen("alerts") {
        body.push_str(&format!("\n{}{}{link}\n", w.open, w.colon));
    }
    Rendered {
        subject: format!("[smsdesk] {}", w.test_subject),
        body,
    }
}

/// The daily summary of `day` (the office's local date).
pub fn summary(office: &Office, day: &str, f: &DayFigures, alerts: &[(AlertRule, String)]) -> Rendered {
    let w = office.lang.words();
    let of = super::count_of;
    let total: i64 = f.by_kind.iter().map(|(_, n)| n).sum();
    let delivered = of(&f.by_outcome, "delivered");
    let values: Vec<(&str, String)> = vec![
        ("total", total.to_string()),
        ("otp", of(&f.by_kind, "otp").to_string()),
        ("transactional", of(&f.by_kind, "transactional").to_string()),
        ("bulk", of(&f.by_kind, "bulk").to_string()),
        ("delivered", delivered.to_string()),
        (
            "delivered_percent",
            (if total > 0 { delivered * 100 / total } else { 0 }).to_string(),
        ),
        ("failed", of(&f.by_outcome, "failed").to_string()),
        ("expired", of(&f.by_outcome, "expired").to_string()),
        ("cancelled", of(&f.by_outcome, "cancelled").to_string()),
        ("pending", of(&f.by_outcome, "pending").to_string()),
        ("no_receipt", of(&f.by_outcome, "no_receipt").to_string()),
        ("unknown", of(&f.by_outcome, "unknown").to_string()),
        ("opened", f.exceptions_opened.to_string()),
        ("closed", f.exceptions_closed.to_string()),
        ("opt_outs", f.opt_outs.to_string()),
    ];
    let mut body = String::new();
    for line in w.summary_lines {
        body.push_str(&fill(line, &values));
        body.push('\n');
    }
    body.push_str(&format!("\n{}{}\n", w.summary_failures, w.colon.trim_end()));
    if f.failure_reasons.is_empty() {
        body.push_str(&format!("- {}\n", w.none));
    }
    for (status, code, n) in &f.failure_reasons {
        let code = if code.is_empty() {
            "—".to_owned()
        } else {
            code.clone()
        };
        let values = [
            ("status", format!("0x{status:08X}")),
            ("code", code),
            ("n", n.to_string()),
        ];
        body.push_str(&format!("- {}\n", fill(w.summary_status, &values)));
    }
    body.push_str(&format!("\n{}{}\n", w.summary_alerts, w.colon.trim_end()));
    if alerts.is_empty() {
        body.push_str(&format!("- {}\n", w.none));
    }
    for (rule, subject) in alerts {
        body.push_str(&format!(
            "- {}\n",
            fill((w.rule)(*rule)[0], &[("subject", subject.clone())])
        ));
    }
    if let Some(link) = office.screen("reports") {
        body.push_str(&format!("\n{}{}{link}\n", w.open, w.colon));
    }
    Rendered {
        subject: format!("[smsdesk] {}", fill(w.summary_subject, &[("day", day.to_owned())])),
        body,
    }
}

#[cfg(test)]
mod tests;
