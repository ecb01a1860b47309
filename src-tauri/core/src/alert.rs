//! Alerts: the rules that watch an office nobody watches, and their history as the Alerts screen
//! and the API show it.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::domain::{TextForm, UnknownVariant};

text_enum! {
    /// What an alert is about. Its text is what the database stores.
    AlertRule, "alert rule" {
        /// A connection has not been bound for `alerts.link_down_minutes`.
        LinkDown = "link_down",
        /// No connection has been bound for `alerts.link_down_minutes`: nothing goes out.
        AllLinksDown = "all_links_down",
        /// The oldest message due to be sent has waited more than `alerts.queue_stuck_minutes`.
        QueueStuck = "queue_stuck",
        /// Too many of the last submits were refused or left without an answer.
        FailureRate = "failure_rate",
        /// No receipt for `alerts.receipts_silent_minutes` while submits asked for one.
        ReceiptsSilent = "receipts_silent",
        /// A one-time code was written to the SMSC and its answer never came.
        OtpUnknown = "otp_unknown",
        /// One-time codes are held because codes to a country surged (SMS pumping?): each waits
        /// for a person to release or cancel it.
        OtpHeld = "otp_held",
        /// More open exceptions than `alerts.open_exceptions_over`.
        OpenExceptions = "open_exceptions",
        /// Free space on the database's disk under `alerts.disk_free_mib`.
        DiskLow = "disk_low",
        /// The database writer fails or does not answer: nothing new can be stored.
        WriterFailing = "writer_failing",
        /// The last daily backup failed, or is older than `alerts.backup_max_age_hours`.
        BackupLate = "backup_late",
        /// An API key's webhook has been failing for `alerts.webhook_failing_minutes`.
        WebhookFailing = "webhook_failing",
        /// More numbers opted out by reply in the last hour than `alerts.opt_out_spike`.
        OptOutSpike = "opt_out_spike",
    }
}

impl AlertRule {
    /// Rules that concern one-time codes: told even in a channel's quiet hours.
    pub fn urgent(self) -> bool {
        matches!(self, AlertRule::OtpUnknown | AlertRule::OtpHeld)
    }
}

text_enum! {
    /// A channel alerts go out on (the desktop window hears of them on the event stream).
    AlertChannel, "alert channel" {
        Email = "email",
        Webhook = "webhook",
    }
}

text_enum! {
    /// What a notice told.
    NoticeKind, "notice kind" {
        /// The alert started.
        Fired = "fired",
        /// A reminder: it still holds.
        Repeated = "repeated",
        /// It ended.
        Resolved = "resolved",
        /// A test a person asked for.
        Test = "test",
        /// The daily summary.
        Summary = "summary",
    }
}

text_enum! {
    /// What became of a notice.
    NoticeOutcome, "notice outcome" {
        /// Handed over: the SMTP server took it, or the webhook answered 2xx.
        Sent = "sent",
        /// Not handed over; tried again at the next look (a few minutes later).
        Failed = "failed",
        /// Held back by the channel's quiet hours; sent when they end if the alert still holds.
        Quiet = "quiet",
    }
}

/// One alert, as the Alerts screen shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AlertView {
    #[ts(type = "number")]
    pub id: i64,
    pub rule: AlertRule,
    /// What it is about within its rule: the connection, the API key's name; "" for the office.
    pub subject: String,
    /// The figures that made it fire, as last seen (rule-specific names).
    #[ts(type = "Record<string, unknown>")]
    #[schema(value_type = Object)]
    pub facts: serde_json::Value,
    #[ts(type = "number")]
    pub fired_at_ms: i64,
    /// When the office was last reminded.
    #[ts(type = "number | null")]
    pub repeated_at_ms: Option<i64>,
    #[ts(type = "number | null")]
    pub resolved_at_ms: Option<i64>,
    #[ts(type = "number | null")]
    pub acknowledged_at_ms: Option<i64>,
    pub acknowledged_by: Option<String>,
    pub acknowledgement_note: Option<String>,
    /// Every notice sent (or held back, or failed) for it, oldest first.
    pub notices: Vec<NoticeView>,
}

/// One notice of an alert on one channel.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct NoticeView {
    #[ts(type = "number")]
    pub at_ms: i64,
    pub kind: NoticeKind,
    pub channel: AlertChannel,
    pub outcome: NoticeOutcome,
    /// To whom (addresses, the API key's name), or why it failed.
    pub detail: Option<String>,
}
