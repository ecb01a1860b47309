//! Alerts, as the Alerts screen and the API show them: what fires now and what fired before,
//! each rule's threshold, the channels; acknowledging an alert; a test alert per channel.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

pub use super::mail::ChannelMissing;
use super::words::{Lang, Office};
use super::{hook_names, mail, test, AlertChannel, AlertRule, AlertView, Alerting, NoticeView};
use crate::access::{Access, Caller};
use crate::config::{AlertSettings, SettingValue};
use crate::intake::FieldError;
use crate::said::FieldCode;
use crate::service::{Service, ServiceError};
use crate::store::tables::alert;

/// How many alerts the screen lists.
const LISTED: u32 = 200;

/// What the Alerts screen shows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AlertsOverview {
    /// `alerts.enabled`.
    pub enabled: bool,
    /// Open alerts first, then the latest closed ones (at most 200), each with its notices.
    pub alerts: Vec<AlertView>,
    /// The latest tests and daily summaries, newest first.
    pub other_notices: Vec<NoticeView>,
    /// Each rule and the setting that sets its threshold.
    pub rules: Vec<RuleThreshold>,
    pub email: ChannelState,
    pub webhook: ChannelState,
}

/// A rule and its threshold.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RuleThreshold {
    pub rule: AlertRule,
    /// The setting (`alerts.link_down_minutes`), when the rule has one.
    pub setting: Option<String>,
    /// Its value now.
    pub value: Option<String>,
}

/// Whether a channel is set up, and to whom it goes (or why it cannot).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ChannelState {
    pub ready: bool,
    /// What it lacks, when it is not ready.
    pub missing: Option<ChannelMissing>,
    /// The addresses or API keys it goes to, or what is missing.
    pub detail: String,
    /// Its quiet hours ("22:00-07:00"), empty for none.
    pub quiet_hours: String,
}

/// Why an alert is acknowledged.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
pub struct AcknowledgeAlert {
    pub note: String,
}

/// Which channel to test.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
pub struct TestAlert {
    pub channel: AlertChannel,
}

/// What became of a test alert.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
pub struct TestAlertResult {
    pub sent: bool,
    /// To whom it went, or why it did not.
    pub detail: String,
}

/// The setting behind each rule's threshold.
fn threshold(rule: AlertRule) -> Option<&'static str> {
    Some(match rule {
        AlertRule::LinkDown | AlertRule::AllLinksDown => "link_down_minutes",
        AlertRule::QueueStuck => "queue_stuck_minutes",
        AlertRule::FailureRate => "failure_rate_percent",
        AlertRule::ReceiptsSilent => "receipts_silent_minutes",
        AlertRule::OpenExceptions => "open_exceptions_over",
        AlertRule::DiskLow => "disk_free_mib",
        AlertRule::BackupLate => "backup_max_age_hours",
        AlertRule::WebhookFailing => "webhook_failing_minutes",
        AlertRule::OptOutSpike => "opt_out_spike",
        AlertRule::OtpUnknown | AlertRule::OtpHeld | AlertRule::WriterFailing => return None,
    })
}

fn value_of(s: &AlertSettings, key: &str) -> Option<String> {
    Some(match key {
        "link_down_minutes" => s.link_down_minutes.to_toml(),
        "queue_stuck_minutes" => s.queue_stuck_minutes.to_toml(),
        "failure_rate_percent" => s.failure_rate_percent.to_toml(),
        "receipts_silent_minutes" => s.receipts_silent_minutes.to_toml(),
        "open_exceptions_over" => s.open_exceptions_over.to_toml(),
        "disk_free_mib" => s.disk_free_mib.to_toml(),
        "backup_max_age_hours" => s.backup_max_age_hours.to_toml(),
        "webhook_failing_minutes" => s.webhook_failing_minutes.to_toml(),
        "opt_out_spike" => s.opt_out_spike.to_toml(),
        _ => return None,
    })
}

/// The host of the address people open smsdesk at, when `alerts.screen_url` does not say it: the
/// listening address, or this machine's name when it listens on every address (0.0.0.0 is no
/// address to open).
fn screen_host(bind: std::net::IpAddr) -> String {
    let name = || {
        std::fs::read_to_string("/proc/sys/kernel/hostname")
            .ok()
            .map(|n| n.trim().to_owned())
            .filter(|n| !n.is_empty())
    };
    match bind {
        b if b.is_unspecified() => name().unwrap_or_else(|| "127.0.0.1".into()),
        std::net::IpAddr::V6(v6) => format!("[{v6}]"),
        b => b.to_string(),
    }
}

fn quiet(q: crate::config::QuietHours) -> String {
    q.to_toml().trim_matches('"').to_owned()
}

impl Service {
    /// What the watcher reads of the settings now: `[alerts]`, `[smtp]` (with its stored
    /// password), the office's language, time zone and address.
    pub fn alerting(&self) -> Alerting {
        let config = self.running_config();
        let link = match config.alerts.screen_url.trim() {
            "" if config.http.port == 0 => None,
            "" => Some(format!("http://{}:{}", screen_host(config.http.bind), config.http.port)),
            url => Some(url.to_owned()),
        };
        Alerting {
            alerts: config.alerts.clone(),
            smtp: config.smtp.clone(),
            office: Office {
                lang: Lang::of(config.alerts.language, self.region().as_deref()),
                tz: jiff::tz::TimeZone::system(),
                link,
            },
            webhook_timeout: std::time::Duration::from_secs(u64::from(config.webhooks.timeout_seconds.0)),
        }
    }

    /// The Alerts screen.
    pub async fn alerts_overview(&self) -> Result<AlertsOverview, ServiceError> {
        let a = self.alerting();
        let (alerts, other_notices, hooks) = self
            .store()
            .reader()
            .read(|c| {
                Ok::<_, crate::store::StoreError>((
                    alert::list(c, LISTED)?,
                    alert::other_notices(c, 20)?,
                    hook_names(c)?,
                ))
            })
            .await?;
        let rules = AlertRule::ALL
            .iter()
            .map(|&rule| RuleThreshold {
                rule,
                setting: threshold(rule).map(|k| format!("alerts.{k}")),
                value: threshold(rule).and_then(|k| value_of(&a.alerts, k)),
            })
            .collect();
        let email_missing = mail::missing(&a.smtp, &a.alerts.email_to);
        Ok(AlertsOverview {
            enabled: a.alerts.enabled,
            alerts,
            other_notices,
            rules,
            email: ChannelState {
                ready: email_missing.is_none(),
                missing: email_missing,
                detail: match email_missing {
                    Some(why) => why.words().to_owned(),
                    None => a.alerts.email_to.0.join(", "),
                },
                quiet_hours: quiet(a.alerts.email_quiet_hours),
            },
            webhook: ChannelState {
                ready: !hooks.is_empty(),
                missing: hooks.is_empty().then_some(ChannelMissing::AlertsKey),
                detail: if hooks.is_empty() {
                    ChannelMissing::AlertsKey.words().into()
                } else {
                    hooks.join(", ")
                },
                quiet_hours: quiet(a.alerts.webhook_quiet_hours),
            },
        })
    }

    /// `caller` acknowledges alert `id`: its reminders stop (its "resolved" notice does not).
    pub async fn acknowledge_alert(&self, caller: &Caller, id: i64, req: AcknowledgeAlert) -> Result<(), ServiceError> {
        if !caller.may(Access::Resolve) {
            return Err(ServiceError::Forbidden(
                "acknowledging an alert is an operator's".into(),
            ));
        }
        let note = req.note.trim().to_owned();
        if note.is_empty() {
            return Err(ServiceError::Resolve(crate::decisions::ResolveError::NoteRequired));
        }
        if note.chars().count() > 1_000 || note.chars().any(|c| c.is_control() && !matches!(c, '\n' | '\t')) {
            return Err(ServiceError::Invalid(vec![FieldError::new(
                "note",
                FieldCode::Invalid,
                "say in plain text, in at most 1,000 characters, what is being done about it",
            )]));
        }
        let actor = caller.actor();
        let done = self
            .store()
            .writer()
            .write(move |tx| alert::acknowledge(tx, id, &actor, &note))
            .await?;
        match done {
            Ok(()) => Ok(()),
            Err(alert::AckRefused::Unknown) => Err(ServiceError::NotFound(format!("no alert {id}"))),
            Err(alert::AckRefused::Already) => {
                Err(ServiceError::NotNow(format!("alert {id} was acknowledged already")))
            }
            Err(alert::AckRefused::Resolved) => Err(ServiceError::NotNow(format!(
                "alert {id} has ended: there is nothing left to acknowledge"
            ))),
        }
    }

    /// Sends a test alert on a channel now (an admin's).
    pub async fn test_alert(&self, caller: &Caller, req: TestAlert) -> Result<TestAlertResult, ServiceError> {
        if !caller.is_admin() {
            return Err(ServiceError::Forbidden("sending a test alert is an admin's".into()));
        }
        let sent = test(self, req.channel).await?;
        Ok(TestAlertResult {
            sent: sent.is_ok(),
            detail: sent.unwrap_or_else(|e| e),
        })
    }
}
