use serde_json::json;

use super::*;

const NOW: i64 = 1_780_000_000_000;

fn office(lang: Lang) -> Office {
    Office {
        lang,
        tz: TimeZone::UTC,
        link: Some("https://sms.example.org/".into()),
    }
}

/// Every fact any rule names, so that every place of every text is filled.
fn facts() -> Value {
    json!({
        "waiting": 12, "error": null, "connections": ["main", "backup"], "oldest_minutes": 14,
        "percent": 35, "submits": 40, "refused": 10, "unanswered": 4, "window_minutes": 15,
        "silent_minutes": 31, "codes": 2, "open": 51, "over": 50, "free_mib": 120, "under_mib": 500,
        "last_backup_ms": NOW - 30 * 3_600_000, "max_age_hours": 26, "numbers": 25,
    })
}

fn every_text(lang: Lang) -> Vec<Rendered> {
    let facts = facts();
    let mut out = Vec::new();
    for rule in AlertRule::ALL {
        for kind in [NoticeKind::Fired, NoticeKind::Repeated, NoticeKind::Resolved] {
            out.push(alert(
                &AlertText {
                    kind,
                    rule: *rule,
                    subject: "main",
                    facts: &facts,
                    fired_at_ms: NOW - 3_600_000,
                    since_ms: Some(NOW - 3_700_000),
                    now_ms: NOW,
                },
                &office(lang),
            ));
        }
    }
    out.push(test(&office(lang), NOW));
    let figures = DayFigures {
        by_kind: vec![("otp".into(), 10), ("bulk".into(), 90)],
        by_outcome: vec![("delivered".into(), 95), ("failed".into(), 5)],
        failure_reasons: vec![(0x0B, "001".into(), 5)],
        exceptions_opened: 2,
        exceptions_closed: 1,
        opt_outs: 3,
    };
    out.push(summary(
        &office(lang),
        "2026-12-05",
        &figures,
        &[(AlertRule::LinkDown, "main".into())],
    ));
    out
}

#[test]
fn every_place_of_every_text_is_filled_in_every_language() {
    for lang in Lang::ALL {
        for r in every_text(lang) {
            for text in [&r.subject, &r.body] {
                assert!(
                    !text.contains('{') && !text.contains('}'),
                    "{lang:?}: a place left unfilled: {text}"
                );
            }
        }
    }
}

/// Words any English sentence of these texts holds, and no French or Russian one does.
const ENGLISH: &[&str] = &[
    "the",
    "is",
    "are",
    "of",
    "and",
    "was",
    "has",
    "not",
    "to",
    "since",
    "what",
    "check",
    "open",
    "waiting",
    "it",
    "its",
    "no",
    "or",
    "for",
    "by",
    "in",
    "at",
    "alert",
    "summary",
    "delivered",
    "failed",
];

#[test]
fn no_english_sentence_is_left_in_the_french_and_russian_texts() {
    for lang in [Lang::Fr, Lang::Ru] {
        for (r, en) in every_text(lang).iter().zip(every_text(Lang::En)) {
            for text in [&r.subject, &r.body] {
                let words: Vec<String> = text
                    .split(|c: char| !c.is_alphanumeric())
                    .map(str::to_lowercase)
                    .collect();
                let english: Vec<&&str> = ENGLISH.iter().filter(|e| words.iter().any(|w| w == **e)).collect();
                assert!(english.is_empty(), "{lang:?}: English words {english:?} in: {text}");
            }
            for line in r.body.lines().filter(|l| l.len() > 12 && !l.contains("https://")) {
                assert!(!en.body.contains(line), "{lang:?}: a line left as in English: {line}");
            }
        }
    }
}

#[test]
fn an_alert_says_what_since_when_what_it_affects_what_to_do_and_links_to_the_screen() {
    let facts = json!({ "error": "connection refused", "waiting": 7 });
    let r = alert(
        &AlertText {
            kind: NoticeKind::Fired,
            rule: AlertRule::LinkDown,
            subject: "main",
            facts: &facts,
            fired_at_ms: NOW,
            since_ms: Some(NOW - 300_000),
            now_ms: NOW,
        },
        &office(Lang::En),
    );
    assert_eq!(r.subject, "[smsdesk] ALERT: Connection main is down");
    assert!(
        r.body.contains("has not been bound since 2026-05-28 20:21"),
        "{}",
        r.body
    );
    assert!(r.body.contains("Its last error: connection refused."), "{}", r.body);
    assert!(
        r.body.contains("What it affects: 7 messages are waiting in the queue"),
        "{}",
        r.body
    );
    assert!(r.body.contains("Noticed at: 2026-05-28 20:26"), "{}", r.body);
    assert!(r.body.contains("What to do: Check the provider's status"), "{}", r.body);
    assert!(r.body.contains("Open: https://sms.example.org/#/alerts"), "{}", r.body);
    let resolved = alert(
        &AlertText {
            kind: NoticeKind::Resolved,
            now_ms: NOW + 95 * 60_000,
            rule: AlertRule::LinkDown,
            subject: "main",
            facts: &facts,
            fired_at_ms: NOW,
            since_ms: None,
        },
        &office(Lang::Fr),
    );
    assert_eq!(resolved.subject, "[smsdesk] Résolu : La connexion main est coupée");
    assert!(resolved.body.contains("au bout de 1 h 35 min"), "{}", resolved.body);
}

#[test]
fn the_language_follows_the_setting_or_the_office_country() {
    assert_eq!(Lang::of(AlertLanguage::Auto, Some("FR")), Lang::Fr);
    assert_eq!(Lang::of(AlertLanguage::Auto, Some("ru")), Lang::Ru);
    assert_eq!(Lang::of(AlertLanguage::Auto, Some("GB")), Lang::En);
    assert_eq!(Lang::of(AlertLanguage::Auto, None), Lang::En);
    assert_eq!(Lang::of(AlertLanguage::Ru, Some("FR")), Lang::Ru);
}

#[test]
fn the_summary_counts_the_day_and_names_its_failures_and_alerts() {
    let figures = DayFigures {
        by_kind: vec![("otp".into(), 10), ("transactional".into(), 30), ("bulk".into(), 60)],
        by_outcome: vec![("delivered".into(), 90), ("failed".into(), 6), ("pending".into(), 4)],
        failure_reasons: vec![(0x0B, String::new(), 4), (0, "001".into(), 2)],
        exceptions_opened: 3,
        exceptions_closed: 2,
        opt_outs: 1,
    };
    let r = summary(
        &office(Lang::En),
        "2026-12-05",
        &figures,
        &[(AlertRule::QueueStuck, String::new())],
    );
    assert_eq!(r.subject, "[smsdesk] Summary of 2026-12-05");
    assert!(r
        .body
        .contains("Messages handed in: 100 (one-time codes 10, transactional 30, bulk 60)."));
    assert!(r.body.contains("Delivered: 90 (90 %). Failed: 6."));
    assert!(r.body.contains("Still waiting for a final receipt: 4."));
    assert!(r.body.contains("- SMPP status 0x0000000B, error code —: 4"));
    assert!(r.body.contains("- Messages are waiting too long"));
    assert!(r.body.contains("Open: https://sms.example.org/#/reports"));
}
