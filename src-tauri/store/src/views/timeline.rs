//! A message's story in time order: its creation, each submit try and the SMSC's answer, each
//! receipt, each exception opened or closed, and each audited action on it, in one line of plain
//! English each, with the id of the row it comes from.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::evidence::{AttemptView, ReceiptView};
use super::exceptions::ExceptionSummary;
use super::record::MessageRecord;
use smsdesk_core::audit::{AuditAction, RecordedAction};
use smsdesk_core::domain::{AttemptOutcome, DeliveryState, ReceiptKind};

/// What a timeline entry is about; `ref_id` is the id of a row of the table it names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, TS, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum TimelineKind {
    /// The message was handed to us (`message`).
    Created,
    /// A submit try was recorded, before its PDU went out (`attempt`).
    Attempt,
    /// The SMSC answered a try, or the answer never came (`attempt`).
    AttemptResult,
    /// A report arrived (`receipt`).
    Receipt,
    /// An exception was opened (`exception`).
    ExceptionOpened,
    /// An exception was resolved or dismissed (`exception`).
    ExceptionClosed,
    /// An audited action, by an operator or by the system (`audit`).
    Audit,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub struct TimelineEntry {
    #[ts(type = "number")]
    pub at_ms: i64,
    pub kind: TimelineKind,
    pub summary: String,
    #[ts(type = "number")]
    pub ref_id: i64,
    /// For a message sent in parts: the part (from 1) a try or a receipt is about, so that each
    /// part's story can be read on its own; `None` for what concerns the whole message.
    pub part: Option<u32>,
}

/// An audited action on a message or one of its exceptions, as its timeline shows it: the action
/// is a code (`message.retry`, `exception.resolve`...) the screens word in the operator's language.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub struct AuditLine {
    #[ts(type = "number")]
    pub id: i64,
    #[ts(type = "number")]
    pub at_ms: i64,
    /// An operator's name, or "system".
    pub actor: String,
    /// An `AuditAction`, or a word a newer version wrote, as written.
    pub action: RecordedAction,
    pub subject_type: Option<String>,
    #[ts(type = "number | null")]
    pub subject_id: Option<i64>,
    pub note: Option<String>,
    /// What the engine recorded with it, as facts the screens word (a number, a status, how a
    /// number came on the opt-out list); null when it recorded none.
    #[ts(type = "unknown")]
    pub details: Option<serde_json::Value>,
}

fn state_words(s: DeliveryState) -> String {
    match s {
        DeliveryState::Delivered => "reported delivered".to_owned(),
        other => format!("reported {}", other.as_str()),
    }
}

fn attempt_label(a: &AttemptView, parts: u32) -> String {
    if parts > 1 {
        format!("try {} (part {} of {parts})", a.attempt_no, a.segment_no)
    } else {
        format!("try {}", a.attempt_no)
    }
}

fn capitalised(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_uppercase().chain(c).collect())
        .unwrap_or_default()
}

fn status_words(a: &AttemptView) -> String {
    match (&a.command_status_name, &a.command_status_meaning, &a.command_status_hex) {
        (Some(name), Some(meaning), Some(hex)) => format!("{name} ({hex}): {meaning}"),
        _ => a.error.clone().unwrap_or_default(),
    }
}

fn attempt_entries(a: &AttemptView, parts: u32, out: &mut Vec<TimelineEntry>) {
    let label = attempt_label(a, parts);
    let session = match (&a.session_id, a.sequence_number) {
        (Some(s), Some(n)) => format!(" on session {s}, sequence {n}"),
        (Some(s), None) => format!(" on session {s}"),
        _ => String::new(),
    };
    let part = (parts > 1).then_some(a.segment_no);
    out.push(TimelineEntry {
        at_ms: a.created_at_ms,
        kind: TimelineKind::Attempt,
        summary: match &a.routing {
            Some(why) => format!("Submit {label} recorded on {} ({why}){session}.", a.connection),
            None => format!("Submit {label} recorded on {}{session}.", a.connection),
        },
        ref_id: a.id,
        part,
    });
    let summary = match a.outcome {
        AttemptOutcome::Pending => return,
        AttemptOutcome::Accepted => format!(
            "The SMSC accepted {label} with provider id {:?} (acceptance, not delivery).",
            a.provider_message_id.as_deref().unwrap_or_default()
        ),
        AttemptOutcome::Temporary => format!("The SMSC refused {label}, temporarily: {}.", status_words(a)),
        AttemptOutcome::Throttled => format!("The SMSC throttled {label}: {}.", status_words(a)),
        AttemptOutcome::Permanent => format!("The SMSC refused {label} for good: {}.", status_words(a)),
        AttemptOutcome::Timeout | AttemptOutcome::LinkLost => format!(
            "No answer to {label}: {}; whether it went out is unknown.",
            a.error.as_deref().unwrap_or("the answer never came")
        ),
        AttemptOutcome::NotSent => format!(
            "{} never went out: {}; not counted as a try.",
            capitalised(&label),
            a.error.as_deref().unwrap_or("it was not written")
        ),
    };
    out.push(TimelineEntry {
        at_ms: a.responded_at_ms.or(a.sent_at_ms).unwrap_or(a.created_at_ms),
        kind: TimelineKind::AttemptResult,
        summary,
        ref_id: a.id,
        part,
    });
}

fn receipt_summary(r: &ReceiptView, parts: u32) -> String {
    let what = match r.kind {
        ReceiptKind::Receipt => "Receipt",
        ReceiptKind::Intermediate => "Intermediate report",
        ReceiptKind::Acknowledgement => "Acknowledgement",
        ReceiptKind::Mo => "Incoming message",
        ReceiptKind::Unparseable => "Unreadable report",
    };
    let says = match (r.reported_state, &r.fields.stat_raw) {
        (Some(s), Some(raw)) => format!(" {raw} ({})", state_words(s)),
        (Some(s), None) => format!(" ({})", state_words(s)),
        (None, Some(raw)) if r.fields.status_unreadable => format!(" with a status nobody can read ({raw:?})"),
        _ => String::new(),
    };
    let about = match r.message_parts.as_slice() {
        _ if parts <= 1 => String::new(),
        [one] => format!(" for part {one} of {parts}"),
        list if list.len() as u32 == parts || list.is_empty() => " for every part".to_owned(),
        list => format!(
            " for parts {} of {parts}",
            list.iter().map(u32::to_string).collect::<Vec<_>>().join(", ")
        ),
    };
    let err = r
        .fields
        .err
        .as_deref()
        .map(|e| format!(", err {e}"))
        .unwrap_or_default();
    let via = match (&r.session_id, r.arrival_no) {
        (Some(s), Some(n)) => format!(
            " via {} on {}, session {s}, report #{n}",
            r.source.as_str(),
            r.connection
        ),
        _ => format!(" via {} on {}", r.source.as_str(), r.connection),
    };
    let effect = if r.is_repeat {
        "; a repeat of an event already recorded, it changed nothing".to_owned()
    } else if r.processed_at_ms.is_none() {
        "; not applied yet".to_owned()
    } else if r.correlated_by.as_deref() == Some("operator") {
        "; attached to this message by an operator".to_owned()
    } else {
        String::new()
    };
    let flags = if r.flags.is_empty() {
        String::new()
    } else {
        format!(
            " [{}]",
            r.flags.iter().map(|f| f.as_str()).collect::<Vec<_>>().join(", ")
        )
    };
    format!("{what}{about}{says}{err}{via}{effect}{flags}.")
}

fn audit_summary(a: &AuditLine) -> String {
    let subject = match (a.subject_type.as_deref(), a.subject_id) {
        (Some("exception"), Some(id)) => format!("exception #{id}"),
        (Some("message"), Some(_)) => "the message".to_owned(),
        (Some(t), Some(id)) => format!("{t} #{id}"),
        _ => String::new(),
    };
    let did = match a.action.known() {
        Some(AuditAction::MessageRetry) => "put the message back in the queue".to_owned(),
        Some(AuditAction::MessageRetryConfirmed) => {
            "sent the message again, accepting the risk of a duplicate".to_owned()
        }
        Some(AuditAction::MessageRetryOverride) => {
            "sent the message again past its kind's limits (an admin's override)".to_owned()
        }
        Some(AuditAction::MessageRetryPermanentConfirmed) => {
            "sent the message again although its last try was refused for good".to_owned()
        }
        Some(AuditAction::MessageCancel) => "cancelled the message".to_owned(),
        Some(AuditAction::MessageMarkFailed) => "marked the message failed".to_owned(),
        Some(AuditAction::MessageAcceptedByEvidence) => {
            "attached a receipt showing the SMSC had the message: its outcome is no longer unknown".to_owned()
        }
        Some(AuditAction::MessageHoldOptedOut) => "held the message: its number opted out".to_owned(),
        Some(AuditAction::ExceptionResolve) => format!("resolved {subject}"),
        Some(AuditAction::ExceptionClosed) => format!("closed {subject} on new evidence"),
        // The rest are worded by their code: the screens put them in the reader's language.
        _ => format!("{} {subject}", a.action).trim_end().to_owned(),
    };
    match a.note.as_deref().filter(|n| !n.is_empty()) {
        Some(note) => format!("{} {did}: \"{note}\".", a.actor),
        None => format!("{} {did}.", a.actor),
    }
}

/// The entry of the message's arrival.
fn created(message: &MessageRecord, route: Option<&str>) -> TimelineEntry {
    let segments = if message.segments == 1 {
        "1 part".to_owned()
    } else {
        format!("{} parts", message.segments)
    };
    TimelineEntry {
        at_ms: message.created_at_ms,
        kind: TimelineKind::Created,
        summary: format!(
            "Message for {} received via {} ({}, {segments}, {}){}.",
            message.destination,
            message.channel.as_str(),
            message.kind.as_str(),
            message.encoding,
            match route {
                Some(r) => format!("; route {r:?}, queued for {}", message.connection),
                None => String::new(),
            }
        ),
        ref_id: message.id,
        part: None,
    }
}

/// An exception's entries: when it opened, and when and how it closed if it did.
fn exception_entries(e: &ExceptionSummary, out: &mut Vec<TimelineEntry>) {
    out.push(TimelineEntry {
        at_ms: e.created_at_ms,
        kind: TimelineKind::ExceptionOpened,
        summary: format!(
            "Exception #{} opened ({}): {}",
            e.id,
            e.kind.as_str().replace('_', " "),
            e.summary
        ),
        ref_id: e.id,
        part: None,
    });
    if let Some(at) = e.resolved_at_ms {
        let by = e.resolved_by.as_deref().unwrap_or("someone");
        let what = e.resolution.as_deref().unwrap_or(e.status.as_str());
        let note = e
            .resolution_note
            .as_deref()
            .map(|n| format!(": \"{n}\""))
            .unwrap_or_default();
        out.push(TimelineEntry {
            at_ms: at,
            kind: TimelineKind::ExceptionClosed,
            summary: format!("Exception #{} {} by {by} ({what}){note}.", e.id, e.status.as_str()),
            ref_id: e.id,
            part: None,
        });
    }
}

/// Everything merged in time order; at the same millisecond, in the order things happen (created,
/// try, answer, receipt, exception, audit), then by row id.
pub(crate) fn build(
    message: &MessageRecord,
    route: Option<&str>,
    attempts: &[AttemptView],
    receipts: &[ReceiptView],
    exceptions: &[ExceptionSummary],
    audit: &[AuditLine],
) -> Vec<TimelineEntry> {
    let mut out = Vec::with_capacity(2 + attempts.len() * 2 + receipts.len() + exceptions.len() * 2 + audit.len());
    out.push(created(message, route));
    for a in attempts {
        attempt_entries(a, message.segments, &mut out);
    }
    for r in receipts {
        out.push(TimelineEntry {
            at_ms: r.received_at_ms,
            kind: TimelineKind::Receipt,
            summary: receipt_summary(r, message.segments),
            ref_id: r.id,
            part: match r.message_parts.as_slice() {
                [one] if message.segments > 1 => Some(*one),
                _ => None,
            },
        });
    }
    for e in exceptions {
        exception_entries(e, &mut out);
    }
    for a in audit {
        out.push(TimelineEntry {
            at_ms: a.at_ms,
            kind: TimelineKind::Audit,
            summary: audit_summary(a),
            ref_id: a.id,
            part: None,
        });
    }
    out.sort_by_key(|e| (e.at_ms, e.kind, e.ref_id));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(action: RecordedAction, subject: (&str, i64), note: Option<&str>) -> AuditLine {
        AuditLine {
            id: 1,
            at_ms: 0,
            actor: "ann".into(),
            action,
            subject_type: Some(subject.0.into()),
            subject_id: Some(subject.1),
            note: note.map(str::to_owned),
            details: None,
        }
    }

    #[test]
    fn an_audited_action_reads_as_words_and_one_this_version_does_not_know_as_its_word() {
        let cancel = line(
            AuditAction::MessageCancel.into(),
            ("message", 7),
            Some("customer called"),
        );
        assert_eq!(
            audit_summary(&cancel),
            "ann cancelled the message: \"customer called\"."
        );
        let resolve = line(AuditAction::ExceptionResolve.into(), ("exception", 3), None);
        assert_eq!(audit_summary(&resolve), "ann resolved exception #3.");
        let newer = line("message.teleport".into(), ("message", 7), None);
        assert_eq!(
            audit_summary(&newer),
            "ann message.teleport the message.",
            "a word a newer version wrote is shown as written"
        );
    }
}
