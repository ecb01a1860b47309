//! One message in full: the message as handed to us, its place in our queue (with the SMSC's
//! acceptance), the state the rules computed (with what the network reported and any operator
//! decision kept apart), every attempt, every receipt correlated to it, its exceptions, and a
//! timeline of all of it. Index lookups only: a handful of queries on the message's own rows.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::evidence::{self, AttemptView, ReceiptView};
use super::exceptions::{self, ExceptionSummary};
use super::messages::{self, MessageSummary};
use super::record::{self, MessageRecord};
use super::timeline::{self, AuditLine, TimelineEntry};
use super::{enum_at, enum_opt, snapshot, ViewError};
use crate::db::{Db, Row};
use crate::{Reads, StoreError};
use smsdesk_core::domain::{AttemptOutcome, DeliveryState, ExceptionKind, QueueStatus};
use smsdesk_core::reasons::{QueueReason, RetryAdvice};
use smsdesk_core::receipts::rules::{Projection, Rule};

/// Our side: the message's place in the local queue, and whether the SMSC accepted a submit.
/// Acceptance is not delivery.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub struct QueueView {
    pub status: QueueStatus,
    /// Finished submit tries counted by the queue (an operator's retry starts it again from 0).
    pub attempts: u32,
    /// When the dispatcher may try it next (for a queued message).
    #[ts(type = "number")]
    pub next_attempt_at_ms: i64,
    pub last_error: Option<String>,
    /// The queue's ordering value: kind first (otp, transactional, bulk), then priority.
    #[ts(type = "number")]
    pub queue_priority: i64,
    pub lease_owner: Option<String>,
    #[ts(type = "number | null")]
    pub lease_until_ms: Option<i64>,
    #[ts(type = "number")]
    pub updated_at_ms: i64,
    /// When the SMSC last answered a submit of it with success (submit_sm_resp).
    #[ts(type = "number | null")]
    pub accepted_at_ms: Option<i64>,
    /// The provider ids its accepted submits were given, exactly as returned, in order.
    pub provider_message_ids: Vec<String>,
    /// The route that took it (`[[routes]]`, or "default"); null for a message queued before
    /// routes, which goes out on its `connection` only.
    pub route: Option<String>,
    /// The connection it stays on, should a try there have had an unknown outcome or some of its
    /// parts been accepted there; null while it may fail over.
    pub pinned: Option<String>,
    /// Why the queue row is where it is (its last problem), as a code the screens word; null when
    /// nothing went wrong. `last_error` keeps the engine's own sentence for logs and exports.
    pub reason: Option<QueueReason>,
}

/// The projection's flags.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub struct StateFlags {
    /// An intermediate report came after a final one (kept, changed nothing).
    pub late: bool,
    /// Incompatible final reports: a person has to decide.
    pub conflict: bool,
    /// No final report by the deadline.
    pub no_receipt: bool,
    /// A report's destination or text differ from the message's (never used to match, only shown).
    pub mismatch: bool,
    /// A report's text id and its TLV id name different messages.
    pub id_disagree: bool,
}

/// The computed state, with where it comes from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub struct StateView {
    /// The state shown: what the rules computed from the network's reports, or what an operator
    /// decided when `rule` is "operator_decision". "delivered" means the network *reported*
    /// delivery, not that anyone read it.
    pub state: DeliveryState,
    /// no_report, intermediate, first_final, operator_decision, parts_pending or parts_final.
    pub rule: Rule,
    /// The rule in plain words.
    pub rule_explained: String,
    /// What the network's own reports support by the rules (the first final, or the most advanced
    /// intermediate), whatever an operator decided; `None` while nothing was reported.
    pub reported_state: Option<DeliveryState>,
    /// The exception whose resolution decided `state`, when an operator did.
    #[ts(type = "number | null")]
    pub decided_by_exception_id: Option<i64>,
    /// The logical events, and the receipts that carried them, supporting the state.
    #[ts(type = "Array<number>")]
    pub supporting_event_ids: Vec<i64>,
    #[ts(type = "Array<number>")]
    pub supporting_receipt_ids: Vec<i64>,
    /// Final reports that contradict the state, kept for a person to look at.
    #[ts(type = "Array<number>")]
    pub conflicting_event_ids: Vec<i64>,
    #[ts(type = "Array<number>")]
    pub conflicting_receipt_ids: Vec<i64>,
    pub flags: StateFlags,
    /// The rules version that computed it (`None` while nothing was applied).
    pub rules_version: Option<u32>,
    #[ts(type = "number | null")]
    pub updated_at_ms: Option<i64>,
    /// For a message sent in parts, where each part stands (part 1 first); empty otherwise, or
    /// while no report came.
    pub parts: Vec<PartStateView>,
}

/// Where one part of a long message stands, by the same rules as a whole message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub struct PartStateView {
    /// From 1.
    pub part: u32,
    pub state: DeliveryState,
    /// no_report, intermediate or first_final.
    pub rule: Rule,
    #[ts(type = "Array<number>")]
    pub supporting_receipt_ids: Vec<i64>,
    #[ts(type = "Array<number>")]
    pub conflicting_receipt_ids: Vec<i64>,
    /// Incompatible finals reported for this very part.
    pub conflict: bool,
    /// An intermediate report came after its final.
    pub late: bool,
}

/// An operator's decision that set the state.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub struct OperatorDecision {
    #[ts(type = "number")]
    pub exception_id: i64,
    pub exception_kind: ExceptionKind,
    /// The state chosen (`None` for a decision that chose none, such as a dismissal).
    pub state: Option<DeliveryState>,
    pub resolution: Option<String>,
    pub note: Option<String>,
    pub decided_by: Option<String>,
    #[ts(type = "number | null")]
    pub decided_at_ms: Option<i64>,
}

/// Everything about one message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub struct MessageDetail {
    /// The message as the list shows it (status, state, rule, flags in one row).
    pub summary: MessageSummary,
    pub message: MessageRecord,
    /// Acceptance: our queue and the SMSC's answers. Not delivery.
    pub queue: QueueView,
    /// The state: what the network reported (by the rules), or an operator's decision.
    pub state: StateView,
    /// Set when an operator decided the state.
    pub operator_decision: Option<OperatorDecision>,
    /// Every submit try, in the order made.
    pub attempts: Vec<AttemptView>,
    /// Every receipt correlated to the message, in receive order, repeats included.
    pub receipts: Vec<ReceiptView>,
    /// Its exceptions, oldest first.
    pub exceptions: Vec<ExceptionSummary>,
    /// Status notifications owed to the API key's webhook, with every try.
    pub webhooks: Vec<smsdesk_core::webhook::DeliveryView>,
    pub timeline: Vec<TimelineEntry>,
    /// The audited actions on it and on its exceptions, oldest first (the timeline's audit
    /// entries name them by id).
    pub audit: Vec<AuditLine>,
    /// What a retry by this caller would meet now, computed by the rules the retry itself applies.
    pub retry: RetryAdvice,
    /// The text as handed in, when smart encoding replaced typographic characters in it (the
    /// message's `body` is the text as sent); None otherwise, and once the text is redacted.
    pub text_as_given: Option<String>,
    /// The characters smart encoding replaced, once each ("’«»"); empty when none.
    pub replaced_characters: String,
    /// Its estimated cost (parts times its connection's price), in millionths of the office's
    /// currency; None when no price covered it.
    #[ts(type = "number | null")]
    pub cost_micros: Option<i64>,
    /// The currency of `cost_micros` (the office's, `guardrails.currency`), with a cost.
    pub currency: Option<String>,
}

/// The text as handed in (when smart encoding replaced characters in `body`, the text as sent), the
/// characters replaced, and the message's cost (when a price covered it).
fn as_given_and_cost(c: Db<'_>, id: i64, body: &str) -> Result<(Option<String>, String, Option<i64>), ViewError> {
    use smsdesk_core::sms::smart;
    let replaced = crate::tables::guardrail::smart_replaced(&c, id)?
        .map(|r| smart::from_stored(&r))
        .unwrap_or_default();
    let as_given = smart::restore(body, &replaced).filter(|_| !replaced.is_empty());
    let priced = !crate::tables::guardrail::prices_of(&c, id)?.is_empty();
    let cost = match priced {
        true => c.query_opt("SELECT cost FROM report_entry WHERE message_id = ?1", &[&id], |r| {
            r.get(0)
        })?,
        false => None,
    };
    Ok((as_given, smart::characters(&replaced), cost))
}

/// The stored projection columns a detail needs.
#[derive(Debug)]
struct StoredState {
    state: DeliveryState,
    rule: Rule,
    fold_json: String,
    rules_version: u32,
    updated_at: i64,
    flags: StateFlags,
}

const COLUMNS: &str = "m.id, m.created_at, m.channel, m.idempotency_scope, m.idempotency_key, m.request_hash,
     m.client_ref, m.source_raw, m.source_addr, m.source_ton, m.source_npi, m.destination_raw, m.destination,
     m.dest_ton, m.dest_npi, m.body, m.encoding, m.segments, m.kind, q.priority % 10, m.ordering_key, m.valid_until,
     m.scheduled_at, m.registered_delivery, m.connection, m.api_key_id, k.name,
     q.status, q.attempts, q.next_attempt_at, q.last_error, q.priority, q.lease_owner, q.lease_until, q.updated_at,
     p.state, p.rule, p.fold_json, p.rules_version, p.updated_at, p.flag_late, p.flag_conflict, p.flag_no_receipt,
     p.flag_mismatch, p.flag_id_disagree, m.submitted_by, q.route, q.pinned, q.reason,
     tr.id, tr.at, tr.rule, tr.actor, nr.id, nr.at, nr.rule, nr.actor";

fn read_row(r: &Row<'_, '_>) -> Result<(MessageRecord, QueueView, Option<StoredState>), StoreError> {
    let message = record::read(r)?;
    let queue = QueueView {
        status: enum_at(r, 27)?,
        attempts: r.get(28)?,
        next_attempt_at_ms: r.get(29)?,
        last_error: r.get(30)?,
        queue_priority: r.get(31)?,
        lease_owner: r.get(32)?,
        lease_until_ms: r.get(33)?,
        updated_at_ms: r.get(34)?,
        accepted_at_ms: None,
        provider_message_ids: Vec::new(),
        route: r.get(46)?,
        pinned: r.get(47)?,
        reason: QueueReason::from_json(r.get::<Option<String>>(48)?.as_deref()),
    };
    let stored = match enum_opt::<DeliveryState>(r, 35)? {
        Some(state) => Some(StoredState {
            state,
            rule: enum_at(r, 36)?,
            fold_json: r.get(37)?,
            rules_version: r.get(38)?,
            updated_at: r.get(39)?,
            flags: StateFlags {
                late: r.get(40)?,
                conflict: r.get(41)?,
                no_receipt: r.get(42)?,
                mismatch: r.get(43)?,
                id_disagree: r.get(44)?,
            },
        }),
        None => None,
    };
    Ok((message, queue, stored))
}

/// The message as handed in, its queue row and its stored state, by id.
fn stored(c: Db<'_>, id: i64) -> Result<Option<(MessageRecord, QueueView, Option<StoredState>)>, StoreError> {
    c.query_opt(
        &format!(
            "SELECT {COLUMNS} FROM message m JOIN queue q ON q.message_id = m.id
             LEFT JOIN projection p ON p.message_id = m.id LEFT JOIN api_key k ON k.id = m.api_key_id
             LEFT JOIN redaction tr ON tr.id = m.text_redaction LEFT JOIN redaction nr ON nr.id = m.number_redaction
             WHERE m.id = ?1"
        ),
        &[&id],
        read_row,
    )
}

/// The receipts that carried any of `events`.
fn receipts_carrying(receipts: &[ReceiptView], events: &[i64]) -> Vec<i64> {
    receipts
        .iter()
        .filter(|r| r.logical_event_id.is_some_and(|e| events.contains(&e)))
        .map(|r| r.id)
        .collect()
}

fn state_view(stored: Option<StoredState>, message_id: i64, receipts: &[ReceiptView]) -> Result<StateView, ViewError> {
    let Some(s) = stored else {
        return Ok(StateView {
            state: DeliveryState::Pending,
            rule: Rule::NoReport,
            rule_explained: Rule::NoReport.explain().to_owned(),
            reported_state: None,
            decided_by_exception_id: None,
            supporting_event_ids: Vec::new(),
            supporting_receipt_ids: Vec::new(),
            conflicting_event_ids: Vec::new(),
            conflicting_receipt_ids: Vec::new(),
            flags: StateFlags::default(),
            rules_version: None,
            updated_at_ms: None,
            parts: Vec::new(),
        });
    };
    let fold: Projection =
        serde_json::from_str(&s.fold_json).map_err(|e| StoreError::Corrupt(format!("projection {message_id}: {e}")))?;
    // Under a decision the stored state is the operator's; the network's is what its earliest
    // supporting report says.
    let reported_state = if s.rule == Rule::OperatorDecision {
        fold.supporting.first().and_then(|event| {
            receipts
                .iter()
                .find(|r| r.logical_event_id == Some(*event))
                .and_then(|r| r.reported_state)
        })
    } else if s.rule == Rule::NoReport {
        None
    } else {
        Some(s.state)
    };
    let parts = fold
        .parts
        .iter()
        .enumerate()
        .map(|(i, p)| PartStateView {
            part: i as u32 + 1,
            state: p.state,
            rule: p.rule,
            supporting_receipt_ids: receipts_carrying(receipts, &p.supporting),
            conflicting_receipt_ids: receipts_carrying(receipts, &p.conflicting),
            conflict: p.conflict,
            late: p.late,
        })
        .collect();
    Ok(StateView {
        parts,
        state: s.state,
        rule_explained: s.rule.explain().to_owned(),
        rule: s.rule,
        reported_state,
        decided_by_exception_id: fold.decided_by,
        supporting_receipt_ids: receipts_carrying(receipts, &fold.supporting),
        conflicting_receipt_ids: receipts_carrying(receipts, &fold.conflicting),
        supporting_event_ids: fold.supporting,
        conflicting_event_ids: fold.conflicting,
        flags: s.flags,
        rules_version: Some(s.rules_version),
        updated_at_ms: Some(s.updated_at),
    })
}

fn audit_facts(c: Db<'_>, message_id: i64, exceptions: &[ExceptionSummary]) -> Result<Vec<AuditLine>, ViewError> {
    let mut out = Vec::new();
    let subjects = std::iter::once(("message", message_id)).chain(exceptions.iter().map(|e| ("exception", e.id)));
    for (kind, id) in subjects {
        let rows = c.query(
            "SELECT id, at, actor, action, subject_type, subject_id, note, details_json FROM audit
             WHERE subject_type = ?1 AND subject_id = ?2 ORDER BY id",
            &[&kind, &id],
            |r| {
                Ok(AuditLine {
                    id: r.get(0)?,
                    at_ms: r.get(1)?,
                    actor: r.get(2)?,
                    action: r.get::<String>(3)?.into(),
                    subject_type: r.get(4)?,
                    subject_id: r.get(5)?,
                    note: r.get(6)?,
                    details: r
                        .get::<Option<String>>(7)?
                        .and_then(|d| serde_json::from_str(&smsdesk_core::redact::redact_urls_in(&d)).ok()),
                })
            },
        )?;
        out.extend(rows);
    }
    out.sort_by_key(|a| a.id);
    Ok(out)
}

/// Everything about one message, or `None` when there is no such message.
pub fn message_detail(c: &impl Reads, id: i64) -> Result<Option<MessageDetail>, ViewError> {
    snapshot(c.db(), |c| {
        let Some((message, mut queue, stored)) = stored(c, id)? else {
            return Ok(None);
        };
        let summary =
            messages::summary(c, id)?.ok_or_else(|| StoreError::Corrupt(format!("message {id} has no queue row")))?;
        let attempts = evidence::attempts_of(c, id)?;
        let receipts = evidence::receipts_of(c, id)?;
        let exceptions = exceptions::exceptions_of(c, id)?;
        let audit = audit_facts(c, id, &exceptions)?;

        for a in attempts.iter().filter(|a| a.outcome == AttemptOutcome::Accepted) {
            queue.accepted_at_ms = a.responded_at_ms.or(queue.accepted_at_ms);
            if let Some(p) = &a.provider_message_id {
                queue.provider_message_ids.push(p.clone());
            }
        }
        let state = state_view(stored, id, &receipts)?;
        let operator_decision = state.decided_by_exception_id.and_then(|x| {
            exceptions.iter().find(|e| e.id == x).map(|e| OperatorDecision {
                exception_id: e.id,
                exception_kind: e.kind,
                state: e
                    .resolution
                    .as_deref()
                    .and_then(|r| r.strip_prefix("state:"))
                    .and_then(|s| s.parse().ok()),
                resolution: e.resolution.clone(),
                note: e.resolution_note.clone(),
                decided_by: e.resolved_by.clone(),
                decided_at_ms: e.resolved_at_ms,
            })
        });
        let timeline = timeline::build(
            &message,
            queue.route.as_deref(),
            &attempts,
            &receipts,
            &exceptions,
            &audit,
        );
        let webhooks = crate::tables::webhook::deliveries_for_message(&c, id)?;
        let (text_as_given, replaced_characters, cost_micros) = as_given_and_cost(c, id, &message.body)?;
        Ok(Some(MessageDetail {
            summary,
            message,
            queue,
            state,
            operator_decision,
            attempts,
            receipts,
            exceptions,
            webhooks,
            timeline,
            audit,
            // The caller's, which the engine knows: it fills this in.
            retry: RetryAdvice::default(),
            text_as_given,
            replaced_characters,
            cost_micros,
            // The office's, which the engine knows: it fills this in.
            currency: None,
        }))
    })
}

#[cfg(test)]
#[path = "detail_tests.rs"]
mod tests;
