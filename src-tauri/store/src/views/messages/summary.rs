//! One message as the list shows it ([`MessageSummary`]): its columns, and how a row is read.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::db::{Db, Row};
use crate::views::{enum_at, ViewError};
use crate::StoreError;
use smsdesk_core::domain::{DeliveryState, Flag, IntakeChannel, MessageKind, QueueStatus};
use smsdesk_core::reasons::QueueReason;
use smsdesk_core::receipts::rules::Rule;

/// One message as listed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub struct MessageSummary {
    #[ts(type = "number")]
    pub id: i64,
    #[ts(type = "number")]
    pub created_at_ms: i64,
    pub channel: IntakeChannel,
    /// E.164, as normalised by intake.
    pub destination: String,
    /// The first 80 characters of the text.
    pub preview: String,
    /// The text's length in characters (more than 80 when the preview is cut).
    pub body_chars: u32,
    pub kind: MessageKind,
    /// Urgency within its kind, 0 (first) to 9.
    pub priority: u8,
    pub segments: u32,
    pub encoding: String,
    /// Our queue: where the message stands on our side. `accepted` means the SMSC took the submit,
    /// which is not delivery.
    pub status: QueueStatus,
    /// What the network reported, as the rules computed it ("pending" until a receipt is applied),
    /// or what an operator decided (`rule` = "operator_decision").
    pub state: DeliveryState,
    /// Why the state is what it is: no_report, intermediate, first_final or operator_decision.
    pub rule: Rule,
    /// Of: late, conflict, no_receipt, mismatch, id_disagree (the projection's flags), repeat (a
    /// receipt for it came more than once) and outcome_unknown (the queue could not tell whether a
    /// submit went out).
    pub flags: Vec<Flag>,
    /// Every try the message had, over every round of sending (an operator's retries included),
    /// numbered as the timeline numbers them; for a long message, the most any one part had. A
    /// try that never went out (the link closed first) is not counted.
    pub attempts: u32,
    pub client_ref: Option<String>,
    #[ts(type = "number | null")]
    pub api_key_id: Option<i64>,
    pub connection: String,
    /// Not sent before this time, when it was scheduled.
    #[ts(type = "number | null")]
    pub scheduled_at_ms: Option<i64>,
    /// Why our queue holds it where it is (its last problem: refused, timed out, opted out...), as
    /// a code the screens word; null when nothing went wrong, or for a problem recorded before
    /// reasons were (its detail's `queue.last_error` has the engine's sentence).
    pub reason: Option<QueueReason>,
}

/// The columns of a [`MessageSummary`], over `m` (message), `q` (queue) and `p` (projection, may
/// be missing).
pub(crate) const SUMMARY_COLUMNS: &str = "m.id, m.created_at, m.channel, m.destination, substr(m.body, 1, 80),
     length(m.body), m.kind, q.priority % 10, m.segments, m.encoding, q.status, coalesce(p.state, 'pending'),
     coalesce(p.rule, 'no_report'), coalesce(p.flag_late, 0), coalesce(p.flag_conflict, 0),
     coalesce(p.flag_no_receipt, 0), coalesce(p.flag_mismatch, 0), coalesce(p.flag_id_disagree, 0),
     EXISTS (SELECT 1 FROM logical_event e JOIN receipt_outcome o ON o.logical_event_id = e.id
             WHERE e.message_id = m.id AND o.is_repeat = 1),
     (SELECT count(DISTINCT a.attempt_no) FROM attempt a WHERE a.message_id = m.id AND a.outcome <> 'not_sent'),
     m.client_ref, m.api_key_id, m.connection, m.scheduled_at, q.reason";

/// A row of [`SUMMARY_COLUMNS`], read.
pub(crate) fn summary_row(r: &Row<'_, '_>) -> Result<MessageSummary, StoreError> {
    let status: QueueStatus = enum_at(r, 10)?;
    let columns = [
        Flag::Late,
        Flag::Conflict,
        Flag::NoReceipt,
        Flag::Mismatch,
        Flag::IdDisagree,
        Flag::Repeat,
    ];
    let mut flags = Vec::new();
    for (i, flag) in columns.into_iter().enumerate() {
        if r.get::<bool>(13 + i)? {
            flags.push(flag);
        }
    }
    if status == QueueStatus::OutcomeUnknown {
        flags.push(Flag::OutcomeUnknown);
    }
    Ok(MessageSummary {
        id: r.get(0)?,
        created_at_ms: r.get(1)?,
        channel: enum_at(r, 2)?,
        destination: r.get(3)?,
        preview: r.get(4)?,
        body_chars: r.get(5)?,
        kind: enum_at(r, 6)?,
        priority: r.get(7)?,
        segments: r.get(8)?,
        encoding: r.get(9)?,
        status,
        state: enum_at(r, 11)?,
        rule: enum_at(r, 12)?,
        flags,
        attempts: r.get(19)?,
        client_ref: r.get(20)?,
        api_key_id: r.get(21)?,
        connection: r.get(22)?,
        scheduled_at_ms: r.get(23)?,
        reason: QueueReason::from_json(r.get::<Option<String>>(24)?.as_deref()),
    })
}

/// One message as listed, by id.
pub(crate) fn summary(c: Db<'_>, id: i64) -> Result<Option<MessageSummary>, ViewError> {
    Ok(c.query_opt(
        &format!(
            "SELECT {SUMMARY_COLUMNS} FROM message m JOIN queue q ON q.message_id = m.id
             LEFT JOIN projection p ON p.message_id = m.id WHERE m.id = ?1"
        ),
        &[&id],
        summary_row,
    )?)
}
