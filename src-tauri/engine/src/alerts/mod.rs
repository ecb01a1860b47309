//! Alerts for the office nobody watches (docs/admin/alerts.md).
//!
//! Every `alerts.check_seconds` the watcher reads the facts ([`facts`]), asks the rules which hold
//! ([`rules`]), opens and closes alerts to match ([`lifecycle::plan`]), and tells each channel
//! what it has not been told yet ([`lifecycle::tell`]): e-mail ([`mail`]) and the webhooks of the
//! API keys with the scope `alerts` ([`hook`]); the desktop window hears of every change on the
//! event stream. Once a day it e-mails the summary of the day before ([`summary`]). The facts
//! are read on a read connection; the writer only records what changed.

pub mod facts;
mod hook;
pub mod lifecycle;
pub mod mail;
pub mod metrics;
pub mod overview;
pub mod rules;
mod summary;
pub mod words;

use std::time::Duration;

use serde_json::Value;

pub use smsdesk_core::alert::{AlertChannel, AlertRule, AlertView, NoticeKind, NoticeOutcome, NoticeView};

use crate::config::{AlertSettings, SmtpSettings};
use crate::service::Service;
use crate::store::tables::alert::{self, AlertRow, NewNotice};
use crate::store::StoreError;
use lifecycle::Tell;
use words::{AlertText, Office};

const DAY_MS: i64 = 86_400_000;

/// What the watcher reads of the settings at each look.
#[derive(Debug, Clone)]
pub struct Alerting {
    pub alerts: AlertSettings,
    pub smtp: SmtpSettings,
    pub office: Office,
    /// How long a webhook POST may take.
    pub webhook_timeout: Duration,
}

impl Default for Alerting {
    /// The default settings, in English, in UTC, without a link: what a test or a benchmark
    /// starts from.
    fn default() -> Alerting {
        Alerting {
            alerts: AlertSettings::default(),
            smtp: SmtpSettings::default(),
            office: Office {
                lang: words::Lang::En,
                tz: jiff::tz::TimeZone::UTC,
                link: None,
            },
            webhook_timeout: Duration::from_secs(5),
        }
    }
}

impl Alerting {
    /// Whether `channel` is in its quiet hours at `now_ms`.
    fn quiet(&self, channel: AlertChannel, now_ms: i64) -> bool {
        let hours = match channel {
            AlertChannel::Email => self.alerts.email_quiet_hours,
            AlertChannel::Webhook => self.alerts.webhook_quiet_hours,
        };
        let Ok(t) = jiff::Timestamp::from_millisecond(now_ms) else {
            return false;
        };
        let local = t.to_zoned(self.office.tz.clone());
        hours.holds(local.hour() as u16 * 60 + local.minute() as u16)
    }
}

/// The count kept for `key` in a list of (value, count) the store reads grouped; 0 where none is.
pub(crate) fn count_of(list: &[(String, i64)], key: &str) -> i64 {
    list.iter().find(|(v, _)| v == key).map_or(0, |(_, n)| *n)
}

/// The names of the API keys whose webhook takes alerts.
pub fn hook_names(conn: &impl crate::store::Reads) -> Result<Vec<String>, StoreError> {
    Ok(hook::hooks(conn)?.into_iter().map(|h| h.key_name).collect())
}

/// Looks at the rules every `alerts.check_seconds`, for as long as the engine runs.
pub async fn keep_watching(service: Service) {
    let started = service.store().clock().now_ms();
    let mut memory = facts::Memory::default();
    loop {
        let a = service.alerting();
        let looked = if a.alerts.enabled {
            look(&service, &a, &mut memory, started).await
        } else {
            close_all(&service).await
        };
        if let Err(e) = looked {
            tracing::error!(error = %e, "looking at the alert rules failed");
        }
        tokio::time::sleep(Duration::from_secs(u64::from(a.alerts.check_seconds.0))).await;
    }
}

/// With the rules off (`alerts.enabled = false`), nothing holds: what was open is closed (and no
/// channel is told).
async fn close_all(service: &Service) -> Result<(), StoreError> {
    let store = service.store().clone();
    let rows = store.reader().read(|c| alert::recent(c, i64::MAX)).await?;
    let open: Vec<i64> = rows
        .iter()
        .filter(|r| r.resolved_at_ms.is_none())
        .map(|r| r.id)
        .collect();
    if open.is_empty() {
        return Ok(());
    }
    store
        .writer()
        .write(move |tx| open.iter().try_for_each(|id| alert::resolve(tx, *id)))
        .await
}

/// One look: the facts, the alerts opened and closed to match, the notices owed, the summary.
pub async fn look(
    service: &Service,
    a: &Alerting,
    memory: &mut facts::Memory,
    started_ms: i64,
) -> Result<(), StoreError> {
    let store = service.store().clone();
    let now = store.clock().now_ms();
    let facts = facts::gather(service, memory, &a.alerts, now, started_ms).await?;
    let holding = rules::holding(&facts, &a.alerts);
    let rows = store.reader().read(move |c| alert::recent(c, now - DAY_MS)).await?;
    let open: Vec<(i64, AlertRule, String)> = rows
        .iter()
        .filter(|r| r.resolved_at_ms.is_none())
        .map(|r| (r.id, r.rule, r.subject.clone()))
        .collect();
    let plan = lifecycle::plan(&open, holding);
    let with_since = |h: &rules::Holding| {
        let mut f = h.facts.clone();
        if let (Value::Object(m), Some(s)) = (&mut f, h.since_ms) {
            m.insert("since_ms".into(), s.into());
        }
        f.to_string()
    };
    let fire: Vec<(AlertRule, String, String)> = plan
        .fire
        .iter()
        .map(|h| (h.rule, h.subject.clone(), with_since(h)))
        .collect();
    let seen: Vec<(i64, String)> = plan
        .still
        .iter()
        .map(|(id, h)| (*id, with_since(h)))
        .filter(|(id, f)| rows.iter().any(|r| r.id == *id && r.facts != *f))
        .collect();
    let resolve = plan.resolve;
    if !fire.is_empty() || !seen.is_empty() || !resolve.is_empty() {
        store
            .writer()
            .write(move |tx| {
                for (rule, subject, f) in &fire {
                    alert::fire(tx, *rule, subject, f)?;
                    tracing::warn!(rule = %rule, subject = %subject, "alert fired");
                }
                for (id, f) in &seen {
                    alert::see(tx, *id, f)?;
                }
                for id in &resolve {
                    alert::resolve(tx, *id)?;
                    tracing::info!(alert = id, "alert resolved");
                }
                Ok::<_, StoreError>(())
            })
            .await?;
    }
    tell_channels(service, a, now).await?;
    summary::maybe_send(service, a, now).await
}

/// Tells each channel that is set up what it is owed of every alert open or closed lately.
async fn tell_channels(service: &Service, a: &Alerting, now: i64) -> Result<(), StoreError> {
    let store = service.store().clone();
    let rows = store.reader().read(move |c| alert::recent(c, now - DAY_MS)).await?;
    if rows.is_empty() {
        return Ok(());
    }
    let hooks = store.reader().read(hook::hooks).await?;
    let repeat_ms = i64::from(a.alerts.repeat_minutes.0) * 60_000;
    for channel in AlertChannel::ALL.iter().copied() {
        let ready = match channel {
            AlertChannel::Email => mail::ready(&a.smtp, &a.alerts.email_to),
            AlertChannel::Webhook => !hooks.is_empty() && service.sealer().is_some(),
        };
        if !ready {
            continue;
        }
        let quiet = a.quiet(channel, now);
        for row in &rows {
            let id = row.id;
            let told = store.reader().read(move |c| alert::history(c, id, channel)).await?;
            let (kind, outcome, detail) = match lifecycle::tell(row, &told, now, repeat_ms, quiet) {
                Tell::Nothing => continue,
                Tell::HoldBack(kind) => (kind, NoticeOutcome::Quiet, None),
                Tell::Send(kind) => {
                    // Counted among those sent: a retry keeps the delivery id of the try it repeats.
                    let n = told
                        .iter()
                        .filter(|t| t.kind == kind && t.outcome == NoticeOutcome::Sent)
                        .count();
                    match send(service, a, channel, row, kind, n, &hooks, now).await {
                        Ok(to) => (kind, NoticeOutcome::Sent, Some(to)),
                        Err(e) => {
                            tracing::error!(alert = id, channel = %channel, error = %e, "an alert could not be sent");
                            (kind, NoticeOutcome::Failed, Some(e))
                        }
                    }
                }
            };
            let notice = NewNotice {
                alert_id: Some(id),
                kind,
                channel,
                outcome,
                detail,
                day: None,
            };
            store
                .writer()
                .write(move |tx| {
                    alert::notice(tx, &notice)?;
                    if notice.kind == NoticeKind::Repeated && notice.outcome == NoticeOutcome::Sent {
                        alert::repeated(tx, id)?;
                    }
                    Ok::<_, StoreError>(())
                })
                .await?;
        }
    }
    Ok(())
}

/// Sends one alert's notice on `channel`; to whom, or why not. `n`: notices of that kind told
/// before on it (keeps the webhook's delivery id the same on a retry).
#[allow(clippy::too_many_arguments)]
async fn send(
    service: &Service,
    a: &Alerting,
    channel: AlertChannel,
    row: &AlertRow,
    kind: NoticeKind,
    n: usize,
    hooks: &[hook::AlertHook],
    now: i64,
) -> Result<String, String> {
    let facts: Value = serde_json::from_str(&row.facts).unwrap_or_default();
    let since_ms = facts.get("since_ms").and_then(Value::as_i64);
    let text = words::alert(
        &AlertText {
            kind,
            rule: row.rule,
            subject: &row.subject,
            facts: &facts,
            fired_at_ms: row.fired_at_ms,
            since_ms,
            now_ms: now,
        },
        &a.office,
    );
    match channel {
        AlertChannel::Email => mail::send(&a.smtp, &a.alerts.email_to, &text).await,
        AlertChannel::Webhook => {
            let sealer = service.sealer().ok_or("no seal to open the webhooks' secrets")?;
            let payload = hook::AlertPayload {
                kind: "alert",
                event: kind.as_str(),
                alert_id: Some(row.id),
                rule: Some(row.rule.as_str()),
                subject: Some(&row.subject),
                facts: Some(&facts),
                fired_at: Some(crate::clock::format_rfc3339(row.fired_at_ms)),
                title: &text.subject,
                text: &text.body,
            };
            let delivery = format!("alert-{}-{}-{}", row.id, kind.as_str(), n + 1);
            hook::post_all(hooks, sealer, &delivery, &payload, now, a.webhook_timeout).await
        }
    }
}

/// Sends a test alert on `channel` now and records it; to whom, or why not.
pub async fn test(service: &Service, channel: AlertChannel) -> Result<Result<String, String>, StoreError> {
    let a = service.alerting();
    let store = service.store().clone();
    let now = store.clock().now_ms();
    let text = words::test(&a.office, now);
    let sent = match channel {
        AlertChannel::Email => mail::send(&a.smtp, &a.alerts.email_to, &text).await,
        AlertChannel::Webhook => {
            let hooks = store.reader().read(hook::hooks).await?;
            match (service.sealer(), hooks.is_empty()) {
                (_, true) => Err(mail::ChannelMissing::AlertsKey.words().into()),
                (None, _) => Err("no seal to open the webhooks' secrets".into()),
                (Some(sealer), false) => {
                    let delivery = format!("alert-test-{now}");
                    let payload = hook::AlertPayload::test(&text);
                    hook::post_all(&hooks, sealer, &delivery, &payload, now, a.webhook_timeout).await
                }
            }
        }
    };
    let notice = NewNotice {
        alert_id: None,
        kind: NoticeKind::Test,
        channel,
        outcome: if sent.is_ok() {
            NoticeOutcome::Sent
        } else {
            NoticeOutcome::Failed
        },
        detail: Some(match &sent {
            Ok(to) => to.clone(),
            Err(e) => e.clone(),
        }),
        day: None,
    };
    store.writer().write(move |tx| alert::notice(tx, &notice)).await?;
    Ok(sent)
}

#[cfg(test)]
mod tests;
