//! The durable queue's transitions, as writer operations: claim under a lease (priorities,
//! per-ordering-key FIFO, scheduled sends), expire what outlived its validity, record what a
//! submit came to, and recover after a crash without ever submitting anything twice.

use rusqlite::{params, OptionalExtension};

use super::retry::{self, Decision, Failed, GiveUp, RetryPolicy};
use crate::domain::{AttemptOutcome, ExceptionKind, MessageKind, QueueStatus};
use crate::messages;
use crate::receipts::exceptions::{self, NewException};
use crate::receipts::policy::ReceiptPolicy;
use crate::smpp::status::{self, ErrorClass};
use crate::store::tables::NewAudit;
use crate::store::{Entity, StoreError, WriteTx};

/// A message claimed for sending.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Claimed {
    pub message_id: i64,
    pub destination: String,
    pub body: String,
    pub kind: MessageKind,
    pub registered_delivery: u8,
    pub valid_until: Option<i64>,
    pub created_at: i64,
    /// Attempts made before this one.
    pub attempts: u32,
}

/// Marks queued messages whose validity ended as expired. (Claims skip them anyway, so this only
/// makes their status say so; the dispatcher runs it every few seconds.) Returns how many.
pub fn expire(tx: &mut WriteTx<'_>, now: i64) -> Result<usize, StoreError> {
    let ids: Vec<i64> = tx
        .conn()
        .prepare_cached(
            "SELECT q.message_id FROM queue q JOIN message m ON m.id = q.message_id
             WHERE q.status = 'queued' AND m.valid_until IS NOT NULL AND m.valid_until <= ?1",
        )?
        .query_map([now], |r| r.get(0))?
        .collect::<Result<_, _>>()?;
    for &id in &ids {
        set_status(
            tx,
            id,
            QueueStatus::Expired,
            Some("its validity ended before it could be sent"),
            None,
        )?;
    }
    Ok(ids.len())
}

/// Claims up to `limit` messages that are due, under a lease held by `owner` until
/// `now + lease_ms`: OTPs first, then transactional, then bulk; within a priority, the earliest
/// due; and never a message whose ordering key has an earlier message still queued, sending, or
/// waiting for a decision, so messages about one order never overtake each other (also across
/// retries).
pub fn claim(
    tx: &mut WriteTx<'_>,
    owner: &str,
    now: i64,
    lease_ms: i64,
    limit: u32,
) -> Result<Vec<Claimed>, StoreError> {
    let claimed: Vec<Claimed> = tx
        .conn()
        .prepare_cached(
            "SELECT m.id, m.destination, m.body, m.kind, m.registered_delivery, m.valid_until, m.created_at, q.attempts
             FROM queue q JOIN message m ON m.id = q.message_id
             WHERE q.status = 'queued' AND q.next_attempt_at <= ?1
               AND (m.valid_until IS NULL OR m.valid_until > ?1)
               AND (m.ordering_key IS NULL OR NOT EXISTS (
                   SELECT 1 FROM message e JOIN queue eq ON eq.message_id = e.id
                   WHERE e.ordering_key = m.ordering_key AND e.id < m.id
                     AND eq.status IN ('queued', 'sending', 'outcome_unknown')))
             ORDER BY q.priority, q.next_attempt_at, q.message_id
             LIMIT ?2",
        )?
        .query_map(params![now, limit], |r| {
            Ok(Claimed {
                message_id: r.get(0)?,
                destination: r.get(1)?,
                body: r.get(2)?,
                kind: r.get(3)?,
                registered_delivery: r.get(4)?,
                valid_until: r.get(5)?,
                created_at: r.get(6)?,
                attempts: r.get(7)?,
            })
        })?
        .collect::<Result<_, _>>()?;
    for c in &claimed {
        tx.conn()
            .prepare_cached(
                "UPDATE queue SET status = 'sending', lease_owner = ?2, lease_until = ?3, updated_at = ?4
                 WHERE message_id = ?1",
            )?
            .execute(params![c.message_id, owner, now + lease_ms, tx.now_ms()])?;
        tx.changed(Entity::Queue, c.message_id);
    }
    Ok(claimed)
}

fn set_status(
    tx: &mut WriteTx<'_>,
    message_id: i64,
    status: QueueStatus,
    error: Option<&str>,
    next_attempt_at: Option<i64>,
) -> Result<(), StoreError> {
    tx.conn()
        .prepare_cached(
            "UPDATE queue SET status = ?2, last_error = coalesce(?3, last_error),
                 next_attempt_at = coalesce(?4, next_attempt_at), lease_owner = NULL, lease_until = NULL,
                 updated_at = ?5
             WHERE message_id = ?1",
        )?
        .execute(params![message_id, status, error, next_attempt_at, tx.now_ms()])?;
    tx.changed(Entity::Queue, message_id);
    Ok(())
}

fn finish_attempt(
    tx: &mut WriteTx<'_>,
    attempt_id: i64,
    outcome: AttemptOutcome,
    command_status: Option<u32>,
    error: Option<&str>,
) -> Result<(), StoreError> {
    tx.conn()
        .prepare_cached(
            "UPDATE attempt SET outcome = ?2, command_status = ?3, error = ?4, responded_at = ?5 WHERE id = ?1",
        )?
        .execute(params![attempt_id, outcome, command_status, error, tx.now_ms()])?;
    tx.conn()
        .prepare_cached("UPDATE queue SET attempts = attempts + 1 WHERE message_id = ?1")?
        .execute([attempt_id_message(tx, attempt_id)?])?;
    tx.changed(Entity::Attempt, attempt_id);
    Ok(())
}

fn attempt_id_message(tx: &WriteTx<'_>, attempt_id: i64) -> Result<i64, StoreError> {
    Ok(tx
        .conn()
        .prepare_cached("SELECT message_id FROM attempt WHERE id = ?1")?
        .query_row([attempt_id], |r| r.get(0))?)
}

/// What a submit came to, as the dispatcher saw it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SubmitResult {
    /// The SMSC answered with this command_status (0 = accepted, with the provider's id).
    Answered {
        command_status: u32,
        message_id: Option<String>,
        sequence_number: u32,
    },
    /// Nothing was written (the link closed first).
    NotSent,
    /// Written, but no answer came in time.
    Timeout,
    /// Written, then the link was lost before the answer.
    LinkLost,
    /// A part of a long message failed after earlier parts were accepted.
    Partial { failure: Box<SubmitResult>, why: String },
}

/// How a connection treats a failed submit of one message kind.
#[derive(Debug, Clone, Copy)]
pub struct SendPolicy<'a> {
    pub retry: &'a RetryPolicy,
    pub classes: &'a status::ClassOverrides,
    /// Resend after an unknown outcome instead of holding the message for a person.
    pub resend_unknown: bool,
}

/// What the queue did with the message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Next {
    Accepted,
    RetryAt {
        at: i64,
        slow_down: bool,
    },
    Failed(GiveUp),
    /// The outcome is unknown: an exception waits for a person (never resent blindly).
    OutcomeUnknown {
        exception_id: i64,
    },
}

/// Records the result of one submit and moves the message on: accepted; queued again for a retry
/// (backoff with jitter from `random`); failed with the status's name and meaning; or, when the
/// outcome is unknown, held with an exception for the operator.
#[allow(clippy::too_many_arguments)]
pub fn record(
    tx: &mut WriteTx<'_>,
    claimed: &Claimed,
    attempt_id: i64,
    result: &SubmitResult,
    now: i64,
    receipts: &ReceiptPolicy,
    policy: SendPolicy<'_>,
    random: impl FnOnce() -> f64,
) -> Result<Next, StoreError> {
    let m = claimed.message_id;
    let (class, status_code, error) = match result {
        SubmitResult::Answered {
            command_status: 0,
            message_id,
            sequence_number,
        } => {
            let provider_id = message_id.clone().unwrap_or_default();
            messages::record_accepted(tx, attempt_id, *sequence_number, &provider_id, receipts)?;
            return Ok(Next::Accepted);
        }
        SubmitResult::Answered { command_status, .. } => {
            let info = status::describe(*command_status);
            (
                status::classify(*command_status, policy.classes),
                Some(*command_status),
                format!("{} (0x{:08X}): {}", info.name, command_status, info.meaning),
            )
        }
        SubmitResult::NotSent => (
            ErrorClass::Temporary,
            None,
            "not sent: the link closed before the write".to_owned(),
        ),
        SubmitResult::Partial { failure, why } => {
            let (outcome, status) = match failure.as_ref() {
                SubmitResult::Answered { command_status, .. } => match status::describe(*command_status).class {
                    ErrorClass::Permanent => (AttemptOutcome::Permanent, Some(*command_status)),
                    ErrorClass::Throttled => (AttemptOutcome::Throttled, Some(*command_status)),
                    _ => (AttemptOutcome::Temporary, Some(*command_status)),
                },
                SubmitResult::Timeout => (AttemptOutcome::Timeout, None),
                _ => (AttemptOutcome::LinkLost, None),
            };
            finish_attempt(tx, attempt_id, outcome, status, Some(why))?;
            let exception_id = unknown_outcome(tx, m, Some(attempt_id), why)?;
            return Ok(Next::OutcomeUnknown { exception_id });
        }
        SubmitResult::Timeout | SubmitResult::LinkLost => {
            let (outcome, why) = if *result == SubmitResult::Timeout {
                (AttemptOutcome::Timeout, "no answer within the response timeout")
            } else {
                (
                    AttemptOutcome::LinkLost,
                    "the link was lost after the submit was written",
                )
            };
            if !policy.resend_unknown {
                finish_attempt(tx, attempt_id, outcome, None, Some(why))?;
                let exception_id = unknown_outcome(tx, m, Some(attempt_id), why)?;
                return Ok(Next::OutcomeUnknown { exception_id });
            }
            // The connection's policy for this kind accepts a possible duplicate: retry it.
            finish_attempt(tx, attempt_id, outcome, None, Some(why))?;
            let failed = Failed {
                class: ErrorClass::Temporary,
                attempts: claimed.attempts + 1,
                created_at: claimed.created_at,
                valid_until: claimed.valid_until,
                now,
            };
            return settle(
                tx,
                m,
                retry::decide(policy.retry, &failed, random),
                &format!("{why}; resent by policy"),
            );
        }
    };
    let outcome = match class {
        ErrorClass::Throttled => AttemptOutcome::Throttled,
        ErrorClass::Permanent => AttemptOutcome::Permanent,
        _ => AttemptOutcome::Temporary,
    };
    finish_attempt(tx, attempt_id, outcome, status_code, Some(&error))?;
    let failed = Failed {
        class,
        attempts: claimed.attempts + 1,
        created_at: claimed.created_at,
        valid_until: claimed.valid_until,
        now,
    };
    settle(tx, m, retry::decide(policy.retry, &failed, random), &error)
}

/// Queues the message again for a retry, or gives it up with the reason.
fn settle(tx: &mut WriteTx<'_>, m: i64, decision: Decision, error: &str) -> Result<Next, StoreError> {
    match decision {
        Decision::Retry { at, slow_down } => {
            set_status(tx, m, QueueStatus::Queued, Some(error), Some(at))?;
            Ok(Next::RetryAt { at, slow_down })
        }
        Decision::GiveUp { reason } => {
            let (status, why) = match reason {
                GiveUp::ValidityEnded => (
                    QueueStatus::Expired,
                    format!("{error}; its validity ends before a retry"),
                ),
                GiveUp::Permanent => (QueueStatus::Failed, error.to_owned()),
                GiveUp::AttemptsExhausted => (QueueStatus::Failed, format!("{error}; no attempts left")),
                GiveUp::TooOld => (QueueStatus::Failed, format!("{error}; too old to retry")),
            };
            set_status(tx, m, status, Some(&why), None)?;
            Ok(Next::Failed(reason))
        }
    }
}

/// Holds a message whose outcome is unknown (with no attempt to blame, e.g. a long message whose
/// next part could not be sent) for an operator's decision.
pub fn hold(tx: &mut WriteTx<'_>, message_id: i64, why: &str) -> Result<i64, StoreError> {
    unknown_outcome(tx, message_id, None, why)
}

fn unknown_outcome(
    tx: &mut WriteTx<'_>,
    message_id: i64,
    attempt_id: Option<i64>,
    why: &str,
) -> Result<i64, StoreError> {
    set_status(tx, message_id, QueueStatus::OutcomeUnknown, Some(why), None)?;
    let summary =
        format!("A submit was written but {why}: it may or may not have been accepted. Resend, or mark failed.");
    let ex = match exceptions::open_for_message(tx.conn(), message_id, ExceptionKind::OutcomeUnknown)? {
        Some(ex) => ex,
        None => exceptions::open(
            tx,
            &NewException {
                kind: ExceptionKind::OutcomeUnknown,
                message_id: Some(message_id),
                logical_event_id: None,
                summary,
            },
        )?,
    };
    if let Some(attempt) = attempt_id {
        exceptions::link_attempt(tx.conn(), ex, attempt, "unanswered")?;
    }
    Ok(ex)
}

/// After a crash: every message left "sending" belonged to the dead process. One whose attempt row
/// was committed may have gone out, so it becomes an outcome-unknown exception; one without never
/// reached the wire and returns to the queue. Nothing is submitted again by itself.
pub fn recover(tx: &mut WriteTx<'_>) -> Result<(usize, usize), StoreError> {
    let sending: Vec<(i64, Option<i64>)> = tx
        .conn()
        .prepare_cached(
            "SELECT q.message_id,
                    (SELECT max(a.id) FROM attempt a WHERE a.message_id = q.message_id AND a.outcome = 'pending')
             FROM queue q WHERE q.status = 'sending'",
        )?
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<Result<_, _>>()?;
    let (mut requeued, mut unknown) = (0, 0);
    for (message_id, pending) in sending {
        match pending {
            Some(attempt) => {
                let why = "smsdesk stopped before the answer was recorded";
                finish_attempt(tx, attempt, AttemptOutcome::Timeout, None, Some(why))?;
                unknown_outcome(tx, message_id, Some(attempt), why)?;
                unknown += 1;
            }
            None => {
                set_status(tx, message_id, QueueStatus::Queued, None, None)?;
                requeued += 1;
            }
        }
    }
    if requeued + unknown > 0 {
        tx.audit().append(&NewAudit {
            actor: "system".into(),
            action: "queue.recovered".into(),
            note: Some(format!(
                "{requeued} message(s) back in the queue, {unknown} with an unknown outcome"
            )),
            ..NewAudit::default()
        })?;
    }
    Ok((requeued, unknown))
}

/// The message's current queue status.
pub fn status(tx: &WriteTx<'_>, message_id: i64) -> Result<Option<QueueStatus>, StoreError> {
    Ok(tx
        .conn()
        .prepare_cached("SELECT status FROM queue WHERE message_id = ?1")?
        .query_row([message_id], |r| r.get(0))
        .optional()?)
}

/// Why an operator's action on a message was refused.
#[derive(Debug, thiserror::Error)]
pub enum ActionError {
    #[error("message {0} does not exist")]
    NotFound(i64),
    #[error("a message that is {0} cannot be {1}")]
    NotAllowed(QueueStatus, &'static str),
    #[error("the last try of this message was {0}: sending it again may deliver it twice; confirm to go on")]
    ConfirmationRequired(QueueStatus),
    #[error("its validity has ended; it is never sent late")]
    ValidityEnded,
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl From<rusqlite::Error> for ActionError {
    fn from(e: rusqlite::Error) -> Self {
        ActionError::Store(e.into())
    }
}

fn audit(tx: &mut WriteTx<'_>, actor: &str, action: &str, message_id: i64, note: &str) -> Result<(), StoreError> {
    tx.audit().append(&NewAudit {
        actor: actor.into(),
        action: action.into(),
        subject_type: Some("message".into()),
        subject_id: Some(message_id),
        note: (!note.trim().is_empty()).then(|| note.trim().to_owned()),
        details_json: None,
    })?;
    Ok(())
}

/// Puts a message back in the queue to be sent now, with a fresh set of tries. Sending again a
/// message whose last try was accepted, or whose outcome is unknown, may deliver it twice, so that
/// takes `confirm_duplicate_risk`. An open outcome-unknown exception is closed as "resend".
pub fn retry(
    tx: &mut WriteTx<'_>,
    message_id: i64,
    confirm_duplicate_risk: bool,
    actor: &str,
    note: &str,
) -> Result<(), ActionError> {
    let current = status(tx, message_id)?.ok_or(ActionError::NotFound(message_id))?;
    match current {
        QueueStatus::Queued | QueueStatus::Sending => return Err(ActionError::NotAllowed(current, "retried")),
        QueueStatus::Accepted | QueueStatus::OutcomeUnknown if !confirm_duplicate_risk => {
            return Err(ActionError::ConfirmationRequired(current));
        }
        _ => {}
    }
    let valid_until: Option<i64> = tx
        .conn()
        .prepare_cached("SELECT valid_until FROM message WHERE id = ?1")?
        .query_row([message_id], |r| r.get(0))?;
    let now = tx.now_ms();
    if valid_until.is_some_and(|v| v <= now) {
        return Err(ActionError::ValidityEnded);
    }
    tx.conn()
        .prepare_cached(
            "UPDATE queue SET status = 'queued', attempts = 0, next_attempt_at = ?2, lease_owner = NULL,
                 lease_until = NULL, updated_at = ?2 WHERE message_id = ?1",
        )?
        .execute(params![message_id, now])?;
    tx.changed(Entity::Queue, message_id);
    if let Some(ex) = exceptions::open_for_message(tx.conn(), message_id, ExceptionKind::OutcomeUnknown)? {
        close_exception(tx, ex, "resend", actor, note)?;
    }
    audit(
        tx,
        actor,
        if confirm_duplicate_risk {
            "message.retry_confirmed"
        } else {
            "message.retry"
        },
        message_id,
        note,
    )?;
    Ok(())
}

/// Cancels a message that has not been sent: it leaves the queue for good.
pub fn cancel(tx: &mut WriteTx<'_>, message_id: i64, actor: &str, note: &str) -> Result<(), ActionError> {
    let current = status(tx, message_id)?.ok_or(ActionError::NotFound(message_id))?;
    if current != QueueStatus::Queued {
        return Err(ActionError::NotAllowed(current, "cancelled"));
    }
    set_status(
        tx,
        message_id,
        QueueStatus::Cancelled,
        Some("cancelled by an operator"),
        None,
    )?;
    audit(tx, actor, "message.cancel", message_id, note)?;
    Ok(())
}

/// Settles a message whose outcome is unknown as failed (the operator decided not to resend).
pub fn mark_failed(tx: &mut WriteTx<'_>, message_id: i64, actor: &str, note: &str) -> Result<(), ActionError> {
    let current = status(tx, message_id)?.ok_or(ActionError::NotFound(message_id))?;
    if current != QueueStatus::OutcomeUnknown {
        return Err(ActionError::NotAllowed(current, "marked failed"));
    }
    set_status(
        tx,
        message_id,
        QueueStatus::Failed,
        Some("marked failed by an operator (outcome unknown)"),
        None,
    )?;
    if let Some(ex) = exceptions::open_for_message(tx.conn(), message_id, ExceptionKind::OutcomeUnknown)? {
        close_exception(tx, ex, "mark_failed", actor, note)?;
    }
    audit(tx, actor, "message.mark_failed", message_id, note)?;
    Ok(())
}

fn close_exception(tx: &mut WriteTx<'_>, id: i64, resolution: &str, actor: &str, note: &str) -> Result<(), StoreError> {
    let note = if note.trim().is_empty() {
        format!("{resolution} by {actor}")
    } else {
        note.trim().to_owned()
    };
    tx.conn()
        .prepare_cached(
            "UPDATE exception SET status = 'resolved', resolution = ?2, resolution_note = ?3, resolved_by = ?4,
                 resolved_at = ?5 WHERE id = ?1 AND status = 'open'",
        )?
        .execute(params![id, resolution, note, actor, tx.now_ms()])?;
    tx.changed(Entity::Exception, id);
    Ok(())
}
