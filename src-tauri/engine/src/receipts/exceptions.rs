//! The exception queue: what needs a person, with its evidence, and the operator's resolution.
//! Resolving never changes evidence: it records a decision (audited) that the projection folds in.

use rusqlite::{params, Connection, OptionalExtension};
use serde::Serialize;

use super::mismatch::{self, Mismatch};
use super::policy::ReceiptPolicy;
use super::project;
use super::rules::Input;
use crate::domain::{DeliveryState, ExceptionKind, ExceptionStatus};
use crate::store::tables::NewAudit;
use crate::store::Text;
use crate::store::{Entity, StoreError, WriteTx};

pub struct NewException {
    pub kind: ExceptionKind,
    pub message_id: Option<i64>,
    pub logical_event_id: Option<i64>,
    pub summary: String,
}

/// Opens an exception and returns its id.
pub fn open(tx: &mut WriteTx<'_>, e: &NewException) -> Result<i64, StoreError> {
    let now = tx.now_ms();
    tx.conn()
        .prepare_cached(
            "INSERT INTO exception (kind, status, message_id, logical_event_id, summary, created_at)
             VALUES (?1, 'open', ?2, ?3, ?4, ?5)",
        )?
        .execute(params![Text(e.kind), e.message_id, e.logical_event_id, e.summary, now])?;
    let id = tx.conn().last_insert_rowid();
    tx.changed(Entity::Exception, id);
    Ok(id)
}

/// Opens an exception about a receipt (its logical event), linking the receipt; about a message,
/// the message's open exception of that kind takes the receipt instead when there is one.
pub fn open_for_receipt(
    tx: &mut WriteTx<'_>,
    kind: ExceptionKind,
    message_id: Option<i64>,
    logical_event_id: i64,
    receipt_id: i64,
    summary: String,
) -> Result<i64, StoreError> {
    let open_one = match message_id {
        Some(m) => open_for_message(tx.conn(), m, kind)?,
        None => None,
    };
    let ex = match open_one {
        Some(ex) => ex,
        None => open(
            tx,
            &NewException {
                kind,
                message_id,
                logical_event_id: Some(logical_event_id),
                summary,
            },
        )?,
    };
    link_receipt(tx.conn(), ex, receipt_id, "receipt")?;
    Ok(ex)
}

/// Opens (or adds the receipt to) the exception of a receipt for `message_id` whose status word
/// (`stat_raw`, as received) nobody can read: it is kept as evidence and applies nothing.
pub fn open_status_unreadable(
    tx: &mut WriteTx<'_>,
    message_id: i64,
    logical_event_id: i64,
    receipt_id: i64,
    stat_raw: Option<&str>,
) -> Result<i64, StoreError> {
    let said = stat_raw.map(|w| format!(" says {w:?},")).unwrap_or_default();
    open_for_receipt(
        tx,
        ExceptionKind::StatusUnreadable,
        Some(message_id),
        logical_event_id,
        receipt_id,
        format!(
            "A receipt for this message{said} a status nobody can read: it is kept as evidence and changed nothing."
        ),
    )
}

/// The open exception of a kind on a message, if any.
pub fn open_for_message(conn: &Connection, message_id: i64, kind: ExceptionKind) -> Result<Option<i64>, StoreError> {
    Ok(conn
        .prepare_cached("SELECT id FROM exception WHERE message_id = ?1 AND kind = ?2 AND status = 'open'")?
        .query_row(params![message_id, Text(kind)], |r| r.get(0))
        .optional()?)
}

/// The open exception about a logical event, if any.
pub fn open_for_event(conn: &Connection, logical_event_id: i64) -> Result<Option<i64>, StoreError> {
    Ok(conn
        .prepare_cached("SELECT id FROM exception WHERE logical_event_id = ?1 AND status = 'open'")?
        .query_row([logical_event_id], |r| r.get(0))
        .optional()?)
}

pub fn link_receipt(conn: &Connection, exception: i64, receipt: i64, role: &str) -> Result<(), StoreError> {
    conn.prepare_cached("INSERT INTO exception_evidence (exception_id, receipt_id, role) VALUES (?1, ?2, ?3)")?
        .execute(params![exception, receipt, role])?;
    Ok(())
}

pub fn link_attempt(conn: &Connection, exception: i64, attempt: i64, role: &str) -> Result<(), StoreError> {
    conn.prepare_cached("INSERT INTO exception_evidence (exception_id, attempt_id, role) VALUES (?1, ?2, ?3)")?
        .execute(params![exception, attempt, role])?;
    Ok(())
}

/// Links the first receipt that carried a logical event.
pub fn link_event_receipts(conn: &Connection, exception: i64, event: i64, role: &str) -> Result<(), StoreError> {
    conn.prepare_cached(
        "INSERT INTO exception_evidence (exception_id, receipt_id, role)
         SELECT ?1, first_receipt_id, ?3 FROM logical_event WHERE id = ?2",
    )?
    .execute(params![exception, event, role])?;
    Ok(())
}

/// Closes an exception the system itself settled on new evidence, with an audit entry.
pub fn close_automatically(tx: &mut WriteTx<'_>, id: i64, resolution: &str, note: &str) -> Result<(), StoreError> {
    let now = tx.now_ms();
    tx.conn()
        .prepare_cached(
            "UPDATE exception SET status = 'resolved', resolution = ?2, resolution_note = ?3,
                 resolved_by = 'system', resolved_at = ?4
             WHERE id = ?1 AND status = 'open'",
        )?
        .execute(params![id, resolution, note, now])?;
    tx.changed(Entity::Exception, id);
    tx.audit().append(&NewAudit {
        actor: "system".into(),
        action: "exception.closed".into(),
        subject_type: Some("exception".into()),
        subject_id: Some(id),
        note: Some(note.into()),
        details_json: Some(serde_json::json!({ "resolution": resolution }).to_string()),
    })?;
    Ok(())
}

/// An exception as listed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ExceptionRow {
    pub id: i64,
    pub kind: ExceptionKind,
    pub status: ExceptionStatus,
    pub message_id: Option<i64>,
    pub logical_event_id: Option<i64>,
    pub summary: String,
    pub created_at: i64,
    pub resolution: Option<String>,
    pub resolution_note: Option<String>,
    pub resolved_by: Option<String>,
    pub resolved_at: Option<i64>,
}

/// One piece of evidence behind an exception.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Evidence {
    pub role: String,
    pub receipt_id: Option<i64>,
    pub attempt_id: Option<i64>,
}

#[derive(Debug, Clone, Default)]
pub struct Filter {
    pub status: Option<ExceptionStatus>,
    pub kind: Option<ExceptionKind>,
    /// Only exceptions with an id below this (the cursor of the previous page).
    pub before_id: Option<i64>,
    pub limit: u32,
}

const COLUMNS: &str = "id, kind, status, message_id, logical_event_id, summary, created_at, resolution,
     resolution_note, resolved_by, resolved_at";

fn row(r: &rusqlite::Row<'_>) -> rusqlite::Result<ExceptionRow> {
    Ok(ExceptionRow {
        id: r.get(0)?,
        kind: r.get::<_, Text<_>>(1)?.0,
        status: r.get::<_, Text<_>>(2)?.0,
        message_id: r.get(3)?,
        logical_event_id: r.get(4)?,
        summary: r.get(5)?,
        created_at: r.get(6)?,
        resolution: r.get(7)?,
        resolution_note: r.get(8)?,
        resolved_by: r.get(9)?,
        resolved_at: r.get(10)?,
    })
}

/// Newest first.
pub fn list(conn: &Connection, f: &Filter) -> Result<Vec<ExceptionRow>, StoreError> {
    let sql = format!(
        "SELECT {COLUMNS} FROM exception
         WHERE (?1 IS NULL OR status = ?1) AND (?2 IS NULL OR kind = ?2) AND (?3 IS NULL OR id < ?3)
         ORDER BY id DESC LIMIT ?4"
    );
    let limit = if f.limit == 0 { 100 } else { f.limit };
    let rows = conn
        .prepare_cached(&sql)?
        .query_map(params![f.status.map(Text), f.kind.map(Text), f.before_id, limit], row)?
        .collect::<Result<Vec<_>, _>>()?;
    Ok(rows)
}

pub fn get(conn: &Connection, id: i64) -> Result<Option<(ExceptionRow, Vec<Evidence>)>, StoreError> {
    let Some(e) = conn
        .prepare_cached(&format!("SELECT {COLUMNS} FROM exception WHERE id = ?1"))?
        .query_row([id], row)
        .optional()?
    else {
        return Ok(None);
    };
    let evidence = conn
        .prepare_cached(
            "SELECT role, receipt_id, attempt_id FROM exception_evidence WHERE exception_id = ?1 ORDER BY rowid",
        )?
        .query_map([id], |r| {
            Ok(Evidence {
                role: r.get(0)?,
                receipt_id: r.get(1)?,
                attempt_id: r.get(2)?,
            })
        })?
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Some((e, evidence)))
}

/// What an operator decides.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    /// Set the message's state (conflicts, no receipt by deadline, a status nobody could read).
    ChooseState(DeliveryState),
    /// Attach an uncorrelated or ambiguous receipt to a named message. `mismatches_seen` must be
    /// true when the receipt's facts do not fit the message (see [`preview_attach`]).
    Attach { message_id: i64, mismatches_seen: bool },
    /// Close it without changing any state.
    Dismiss,
    /// Outcome unknown or partly sent: send again what was not accepted. Choosing it accepts the
    /// risk an unknown outcome carries; when evidence says the network had the message (an
    /// accepted try or a receipt), `confirm_duplicate` must say so too.
    Resend { confirm_duplicate: bool },
    /// Outcome unknown or partly sent: settle the message as failed.
    MarkFailed,
}

#[derive(Debug, Clone)]
pub struct Resolution {
    pub exception_id: i64,
    pub action: Action,
    pub note: String,
    /// Who decided (the operator's name).
    pub actor: String,
}

#[derive(Debug, thiserror::Error)]
pub enum ResolveError {
    #[error("a note is required to resolve an exception")]
    NoteRequired,
    #[error("exception {0} does not exist")]
    NotFound(i64),
    #[error("exception {id} is already {status}")]
    NotOpen { id: i64, status: ExceptionStatus },
    #[error("a {kind} exception cannot be resolved by {action}")]
    NotAllowed { kind: ExceptionKind, action: &'static str },
    #[error("message {0} does not exist")]
    MessageNotFound(i64),
    #[error("the receipt does not fit message {message_id} ({}); confirm after reviewing", fields(.mismatches))]
    MismatchesNotSeen { message_id: i64, mismatches: Vec<Mismatch> },
    #[error(transparent)]
    Queue(#[from] crate::dispatch::queue::ActionError),
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl From<rusqlite::Error> for ResolveError {
    fn from(e: rusqlite::Error) -> Self {
        ResolveError::Store(e.into())
    }
}

fn fields(m: &[Mismatch]) -> String {
    m.iter().map(|m| m.field).collect::<Vec<_>>().join(", ")
}

impl Action {
    fn name(&self) -> &'static str {
        match self {
            Action::ChooseState(_) => "choosing a state",
            Action::Attach { .. } => "attaching it to a message",
            Action::Dismiss => "dismissing it",
            Action::Resend { .. } => "resending the message",
            Action::MarkFailed => "marking the message failed",
        }
    }
}

/// Every fact of the exception's receipt that does not fit `message_id`, for the operator to see
/// before attaching.
pub fn preview_attach(
    conn: &Connection,
    exception_id: i64,
    message_id: i64,
    timezone_minutes: i32,
) -> Result<Vec<Mismatch>, ResolveError> {
    let (e, _) = get(conn, exception_id)?.ok_or(ResolveError::NotFound(exception_id))?;
    let event = e.logical_event_id.ok_or(ResolveError::NotAllowed {
        kind: e.kind,
        action: "attaching it to a message",
    })?;
    let receipt = receipt_facts(conn, event)?;
    let message = message_facts(conn, message_id)?.ok_or(ResolveError::MessageNotFound(message_id))?;
    Ok(mismatch::check(&receipt, &message, timezone_minutes))
}

pub(crate) fn receipt_facts(conn: &Connection, event: i64) -> Result<mismatch::ReceiptFacts, StoreError> {
    Ok(conn
        .prepare_cached(
            "SELECT r.connection, r.source_addr, r.raw_text, r.done_ts FROM logical_event e
             JOIN receipt r ON r.id = e.first_receipt_id WHERE e.id = ?1",
        )?
        .query_row([event], |r| {
            Ok(mismatch::ReceiptFacts {
                connection: r.get(0)?,
                handset: r.get(1)?,
                text: r.get::<_, Option<String>>(2)?.and_then(|t| receipt_text_field(&t)),
                done_ts: r.get(3)?,
            })
        })?)
}

/// The `text:` field of an Appendix B receipt text, if it has one.
pub(crate) fn receipt_text_field(raw: &str) -> Option<String> {
    let lower = raw.to_ascii_lowercase();
    let at = lower.find("text:")?;
    Some(raw[at + 5..].trim_end_matches('\0').to_owned())
}

pub(crate) fn message_facts(conn: &Connection, message_id: i64) -> Result<Option<mismatch::MessageFacts>, StoreError> {
    Ok(conn
        .prepare_cached("SELECT connection, destination, body, created_at, segments FROM message WHERE id = ?1")?
        .query_row([message_id], |r| {
            Ok(mismatch::MessageFacts {
                connection: r.get(0)?,
                destination: r.get(1)?,
                body: r.get(2)?,
                created_at: r.get(3)?,
                segments: r.get(4)?,
            })
        })
        .optional()?)
}

/// Records an operator's decision: the exception is closed with the note, the decision is audited,
/// and the message's projection folds it in. Nothing is written when the decision is refused.
pub fn resolve(tx: &mut WriteTx<'_>, r: &Resolution, policy: &ReceiptPolicy) -> Result<(), ResolveError> {
    let settings = policy.rules();
    if r.note.trim().is_empty() {
        return Err(ResolveError::NoteRequired);
    }
    let (e, _) = get(tx.conn(), r.exception_id)?.ok_or(ResolveError::NotFound(r.exception_id))?;
    if e.status != ExceptionStatus::Open {
        return Err(ResolveError::NotOpen {
            id: e.id,
            status: e.status,
        });
    }
    let not_allowed = || ResolveError::NotAllowed {
        kind: e.kind,
        action: r.action.name(),
    };
    let (status, resolution) = match (&r.action, e.kind) {
        (
            Action::ChooseState(s),
            ExceptionKind::ConflictingFinal | ExceptionKind::NoReceipt | ExceptionKind::StatusUnreadable,
        ) => {
            let message = e.message_id.ok_or_else(not_allowed)?;
            let input = Input::Decision {
                exception: e.id,
                kind: e.kind,
                state: Some(*s),
            };
            project::apply(tx, message, &input, settings)?;
            (ExceptionStatus::Resolved, format!("state:{s}"))
        }
        (
            Action::Attach {
                message_id,
                mismatches_seen,
            },
            ExceptionKind::Uncorrelated | ExceptionKind::Ambiguous,
        ) => {
            let event = e.logical_event_id.ok_or_else(not_allowed)?;
            let mismatches = preview_attach(tx.conn(), e.id, *message_id, policy.timezone_minutes)?;
            if !mismatches.is_empty() && !mismatches_seen {
                return Err(ResolveError::MismatchesNotSeen {
                    message_id: *message_id,
                    mismatches,
                });
            }
            super::correlate::match_and_apply(tx, event, *message_id, "operator", policy)?;
            // A receipt for a message whose try went unanswered settles the unknown.
            crate::dispatch::queue::accepted_by_evidence(tx, *message_id, event, &r.actor, policy)?;
            (ExceptionStatus::Resolved, format!("attached:{message_id}"))
        }
        (Action::Resend { .. } | Action::MarkFailed, ExceptionKind::OutcomeUnknown | ExceptionKind::PartlySent) => {
            // The queue settles the message and closes this exception with the note, audited.
            let message = e.message_id.ok_or_else(not_allowed)?;
            match r.action {
                Action::Resend { confirm_duplicate } => {
                    use crate::dispatch::queue::{self, DuplicateRisk};
                    let risk = queue::duplicate_risk(tx, message)?;
                    let confirmed = confirm_duplicate || matches!(risk, None | Some(DuplicateRisk::OutcomeUnknown));
                    queue::retry(tx, message, confirmed, &r.actor, &r.note)?
                }
                _ => crate::dispatch::queue::mark_failed(tx, message, &r.actor, &r.note)?,
            }
            return Ok(());
        }
        // A message held for a decision needs one about the message itself.
        (Action::Dismiss, ExceptionKind::OutcomeUnknown | ExceptionKind::PartlySent) => return Err(not_allowed()),
        (Action::Dismiss, kind) => {
            if let (Some(message), ExceptionKind::ConflictingFinal | ExceptionKind::NoReceipt) = (e.message_id, kind) {
                let input = Input::Decision {
                    exception: e.id,
                    kind,
                    state: None,
                };
                project::apply(tx, message, &input, settings)?;
            }
            (ExceptionStatus::Dismissed, "dismissed".to_owned())
        }
        _ => return Err(not_allowed()),
    };
    let now = tx.now_ms();
    tx.conn()
        .prepare_cached(
            "UPDATE exception SET status = ?2, resolution = ?3, resolution_note = ?4, resolved_by = ?5, resolved_at = ?6
             WHERE id = ?1",
        )?
        .execute(params![e.id, Text(status), resolution, r.note.trim(), r.actor, now])?;
    tx.changed(Entity::Exception, e.id);
    tx.audit().append(&NewAudit {
        actor: r.actor.clone(),
        action: "exception.resolve".into(),
        subject_type: Some("exception".into()),
        subject_id: Some(e.id),
        note: Some(r.note.trim().into()),
        details_json: Some(
            serde_json::json!({ "kind": e.kind, "status": status, "resolution": resolution, "message_id": e.message_id })
                .to_string(),
        ),
    })?;
    Ok(())
}
