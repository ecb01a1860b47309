//! What a person may want to compare when a receipt matched no message while a try's outcome is
//! unknown on the same connection: the receipt may be that try's (the SMSC accepted it, and its
//! answer was lost). Nothing is attached by itself; each candidate comes with every fact that
//! agrees or differs, and attaching stays a person's decision, with a note.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::evidence::{self, AttemptView, ReceiptView};
use super::messages::{self, MessageSummary};
use super::ViewError;
use crate::db::Db;
use smsdesk_core::receipts::mismatch::receipt_text_field;
use smsdesk_core::receipts::mismatch::{self, naive_to_utc_ms, Fact, Verdict};

/// A try whose outcome is unknown beside a receipt that matched no message, on one connection.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub struct Candidate {
    pub receipt: ReceiptView,
    pub attempt: AttemptView,
    /// The try's message.
    pub message: Option<MessageSummary>,
    /// The receipt's open exception (where it can be attached), if it has one yet.
    #[ts(type = "number | null")]
    pub receipt_exception_id: Option<i64>,
    /// Each fact both sides have, and whether it agrees.
    pub facts: Vec<CandidateFact>,
}

/// A fact a receipt and a try can be compared on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum CandidateField {
    /// The receipt's submit date against the time the try was written (the date is to the minute,
    /// in the connection's zone: it agrees within two minutes).
    SubmitTime,
    /// The receipt's text echo against the start of the message's text.
    Text,
    /// The handset the receipt names against the message's destination.
    Destination,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub struct CandidateFact {
    pub field: CandidateField,
    /// As the receipt gives it.
    pub receipt: String,
    /// As the try or its message gives it (a time in RFC 3339, UTC).
    pub attempt: String,
    pub agrees: bool,
}

/// How far apart a receipt's submit date (to the minute) and a write time may be and still agree.
const SUBMIT_SLACK_MS: i64 = 2 * 60_000;
/// Candidates shown at most, newest first.
const MAX: usize = 20;

/// The tries whose outcome is unknown on a receipt's connection, written before it arrived, whose
/// message is still held: candidates for a receipt that matched no message.
pub(crate) fn for_receipt(c: Db<'_>, receipt_id: i64, timezone_minutes: i32) -> Result<Vec<Candidate>, ViewError> {
    let Some(receipt) = evidence::receipt(c, receipt_id)? else {
        return Ok(Vec::new());
    };
    let attempts: Vec<i64> = c.query(
        "SELECT a.id FROM queue q JOIN attempt a ON a.message_id = q.message_id
             WHERE q.status = 'outcome_unknown' AND a.connection = ?1 AND a.created_at <= ?2
               AND (a.outcome = 'timeout' OR a.outcome = 'link_lost') AND a.provider_id_norm IS NULL
             ORDER BY a.id DESC LIMIT ?3",
        &[&receipt.connection, &receipt.received_at_ms, &(MAX as i64)],
        |r| r.get(0),
    )?;
    pair_each(c, attempts.into_iter().map(|a| (receipt_id, a)), timezone_minutes)
}

/// The receipts that matched no message on a try's connection, received after it was written and
/// still unsettled: candidates for a try whose outcome is unknown.
pub(crate) fn for_attempt(c: Db<'_>, attempt_id: i64, timezone_minutes: i32) -> Result<Vec<Candidate>, ViewError> {
    let Some(attempt) = evidence::attempt(c, attempt_id)? else {
        return Ok(Vec::new());
    };
    let receipts: Vec<i64> = c.query(
        "SELECT e.first_receipt_id FROM logical_event e JOIN receipt r ON r.id = e.first_receipt_id
             WHERE e.connection = ?1 AND e.correlation IN ('pending', 'none') AND r.received_at >= ?2
               AND (EXISTS (SELECT 1 FROM uncorrelated_wait w WHERE w.logical_event_id = e.id)
                    OR EXISTS (SELECT 1 FROM exception x WHERE x.logical_event_id = e.id AND x.status = 'open'))
             ORDER BY e.id DESC LIMIT ?3",
        &[&attempt.connection, &attempt.created_at_ms, &(MAX as i64)],
        |r| r.get(0),
    )?;
    pair_each(c, receipts.into_iter().map(|r| (r, attempt_id)), timezone_minutes)
}

fn pair_each(
    c: Db<'_>,
    pairs: impl Iterator<Item = (i64, i64)>,
    timezone_minutes: i32,
) -> Result<Vec<Candidate>, ViewError> {
    let mut out = Vec::new();
    for (r, a) in pairs {
        let (Some(receipt), Some(attempt)) = (evidence::receipt(c, r)?, evidence::attempt(c, a)?) else {
            continue;
        };
        let message = messages::summary(c, attempt.message_id)?;
        let facts = compare(c, &receipt, &attempt, timezone_minutes)?;
        let receipt_exception_id = c.query_opt(
            "SELECT id FROM exception WHERE logical_event_id = ?1 AND status = 'open'",
            &[&receipt.logical_event_id],
            |r| r.get(0),
        )?;
        out.push(Candidate {
            receipt,
            attempt,
            message,
            receipt_exception_id,
            facts,
        });
    }
    Ok(out)
}

/// Every fact a receipt and a try (with its message) both carry.
fn compare(
    c: Db<'_>,
    r: &ReceiptView,
    a: &AttemptView,
    timezone_minutes: i32,
) -> Result<Vec<CandidateFact>, ViewError> {
    let mut facts = Vec::new();
    let written = a.sent_at_ms.unwrap_or(a.created_at_ms);
    if let Some(submitted) = r
        .fields
        .submit_ts
        .as_deref()
        .and_then(|t| naive_to_utc_ms(t, timezone_minutes))
    {
        facts.push(CandidateFact {
            field: CandidateField::SubmitTime,
            receipt: r.fields.submit_ts.clone().unwrap_or_default(),
            attempt: smsdesk_core::time::format_rfc3339(written),
            // The date is to the minute: the write falls in that minute, give or take the slack.
            agrees: written >= submitted - SUBMIT_SLACK_MS && written < submitted + 60_000 + SUBMIT_SLACK_MS,
        });
    }
    let Some(m) = crate::tables::message::message_facts(&c, a.message_id)? else {
        return Ok(facts);
    };
    let receipt_facts = mismatch::ReceiptFacts {
        connection: r.connection.clone(),
        handset: r.source_addr.clone(),
        text: r.raw_text.as_deref().and_then(receipt_text_field),
        done_ts: None,
        ..Default::default()
    };
    // The facts the receipt says, as the mismatch check compares them (a text that cannot be
    // compared is no misfit there, nor here).
    let compared = mismatch::compare(&receipt_facts, &m, timezone_minutes);
    for (fact, field) in [
        (Fact::Text, CandidateField::Text),
        (Fact::Destination, CandidateField::Destination),
    ] {
        let Some(f) = compared.iter().find(|f| f.fact == fact) else {
            continue;
        };
        let Some(receipt) = f.receipt.clone() else {
            continue;
        };
        facts.push(CandidateFact {
            field,
            receipt,
            attempt: f.message.clone(),
            agrees: f.verdict != Verdict::Differs,
        });
    }
    Ok(facts)
}
