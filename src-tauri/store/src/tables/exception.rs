//! The `exception` table and its evidence links (`exception_evidence`): what needs a person, opened
//! by the system, closed by the system on new evidence or by an operator's decision.

use smsdesk_core::audit::AuditAction;
use smsdesk_core::domain::{EvidenceRole, ExceptionKind, ExceptionStatus};
use smsdesk_core::receipts::mismatch;
use smsdesk_core::said::{self, Summary, SummaryCode};

use crate::db::{Dialect, Row};
use crate::tables::NewAudit;
use crate::writer::{Entity, WriteTx};
use crate::Reads;
use crate::{StoreError, Text};

pub struct NewException {
    pub kind: ExceptionKind,
    pub message_id: Option<i64>,
    pub logical_event_id: Option<i64>,
    pub summary: Summary,
}

/// Opens an exception and returns its id. The summary's English sentence goes to `summary`; its
/// code and parameters, which the screens word in the operator's language, to `details_json`.
pub fn open(tx: &mut WriteTx<'_>, e: &NewException) -> Result<i64, StoreError> {
    let now = tx.now_ms();
    let details = serde_json::json!({
        "summary_code": e.summary.code.as_str(),
        "summary_params": e.summary.params,
    })
    .to_string();
    let id: i64 = tx.db().one(
        "INSERT INTO exception (kind, status, message_id, logical_event_id, summary, details_json, created_at)
         VALUES (?1, 'open', ?2, ?3, ?4, ?5, ?6) RETURNING id",
        &[
            &Text(e.kind),
            &e.message_id,
            &e.logical_event_id,
            &e.summary.english,
            &details,
            &now,
        ],
    )?;
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
    summary: Summary,
) -> Result<i64, StoreError> {
    let open_one = match message_id {
        Some(m) => open_for_message(&*tx, m, kind)?,
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
    link_receipt(tx, ex, receipt_id, EvidenceRole::Receipt)?;
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
    let english = format!(
        "A receipt for this message{said} a status nobody can read: it is kept as evidence and changed nothing."
    );
    let params = match stat_raw {
        Some(w) => said::params([("stat", w.to_owned())]),
        None => said::Params::new(),
    };
    open_for_receipt(
        tx,
        ExceptionKind::StatusUnreadable,
        Some(message_id),
        logical_event_id,
        receipt_id,
        Summary::new(SummaryCode::StatusUnreadable, params, english),
    )
}

/// The open exception of a kind on a message, if any.
pub fn open_for_message(conn: &impl Reads, message_id: i64, kind: ExceptionKind) -> Result<Option<i64>, StoreError> {
    conn.db().query_opt(
        "SELECT id FROM exception WHERE message_id = ?1 AND kind = ?2 AND status = 'open'",
        &[&message_id, &Text(kind)],
        |r| r.get(0),
    )
}

/// The open exception about a logical event, if any.
pub fn open_for_event(conn: &impl Reads, logical_event_id: i64) -> Result<Option<i64>, StoreError> {
    conn.db().query_opt(
        "SELECT id FROM exception WHERE logical_event_id = ?1 AND status = 'open'",
        &[&logical_event_id],
        |r| r.get(0),
    )
}

pub fn link_receipt(tx: &WriteTx<'_>, exception: i64, receipt: i64, role: EvidenceRole) -> Result<(), StoreError> {
    tx.db().execute(
        "INSERT INTO exception_evidence (exception_id, receipt_id, role) VALUES (?1, ?2, ?3)",
        &[&exception, &receipt, &Text(role)],
    )?;
    Ok(())
}

pub fn link_attempt(tx: &WriteTx<'_>, exception: i64, attempt: i64, role: EvidenceRole) -> Result<(), StoreError> {
    tx.db().execute(
        "INSERT INTO exception_evidence (exception_id, attempt_id, role) VALUES (?1, ?2, ?3)",
        &[&exception, &attempt, &Text(role)],
    )?;
    Ok(())
}

/// Links the first receipt that carried a logical event.
pub fn link_event_receipts(tx: &WriteTx<'_>, exception: i64, event: i64, role: EvidenceRole) -> Result<(), StoreError> {
    tx.db().execute(
        "INSERT INTO exception_evidence (exception_id, receipt_id, role)
         SELECT ?1, first_receipt_id, ?3 FROM logical_event WHERE id = ?2",
        &[&exception, &event, &Text(role)],
    )?;
    Ok(())
}

/// Closes an open exception as resolved, by `actor` with `note`, at the batch's time.
pub fn close(tx: &mut WriteTx<'_>, id: i64, resolution: &str, note: &str, actor: &str) -> Result<(), StoreError> {
    let now = tx.now_ms();
    tx.db().execute(
        "UPDATE exception SET status = 'resolved', resolution = ?2, resolution_note = ?3, resolved_by = ?4,
             resolved_at = ?5 WHERE id = ?1 AND status = 'open'",
        &[&id, &resolution, &note, &actor, &now],
    )?;
    tx.changed(Entity::Exception, id);
    Ok(())
}

/// Closes an exception the system itself settled on new evidence, with an audit entry.
pub fn close_automatically(tx: &mut WriteTx<'_>, id: i64, resolution: &str, note: &str) -> Result<(), StoreError> {
    close(tx, id, resolution, note, "system")?;
    tx.audit().append(&NewAudit {
        actor: "system".into(),
        action: AuditAction::ExceptionClosed,
        subject_type: Some("exception".into()),
        subject_id: Some(id),
        // The resolution code says what settled it; the sentence stays on the exception row.
        note: None,
        details_json: Some(serde_json::json!({ "resolution": resolution }).to_string()),
    })?;
    Ok(())
}

/// An exception as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
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
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Evidence {
    pub role: EvidenceRole,
    pub receipt_id: Option<i64>,
    pub attempt_id: Option<i64>,
}

const COLUMNS: &str = "id, kind, status, message_id, logical_event_id, summary, created_at, resolution,
     resolution_note, resolved_by, resolved_at";

fn row(r: &Row<'_, '_>) -> Result<ExceptionRow, StoreError> {
    Ok(ExceptionRow {
        id: r.get(0)?,
        kind: r.get::<Text<_>>(1)?.0,
        status: r.get::<Text<_>>(2)?.0,
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

/// An exception and its evidence, if it exists.
pub fn get(conn: &impl Reads, id: i64) -> Result<Option<(ExceptionRow, Vec<Evidence>)>, StoreError> {
    let db = conn.db();
    let Some(e) = db.query_opt(&format!("SELECT {COLUMNS} FROM exception WHERE id = ?1"), &[&id], row)? else {
        return Ok(None);
    };
    // In the order linked. The table has no id: SQLite's rowid is that order; PostgreSQL has no
    // rowid, and its row position (ctid) is the order of insertion for rows never updated or
    // deleted, which evidence links are not.
    let sql = match db.dialect() {
        Dialect::Sqlite => {
            "SELECT role, receipt_id, attempt_id FROM exception_evidence WHERE exception_id = ?1 ORDER BY rowid"
        }
        Dialect::Postgres => {
            "SELECT role, receipt_id, attempt_id FROM exception_evidence WHERE exception_id = ?1 ORDER BY ctid"
        }
    };
    let evidence = db.query(sql, &[&id], |r| {
        Ok(Evidence {
            role: r.get::<Text<_>>(0)?.0,
            receipt_id: r.get(1)?,
            attempt_id: r.get(2)?,
        })
    })?;
    Ok(Some((e, evidence)))
}

/// Closes exception `id` with an operator's decision, at the batch's time.
pub fn settle(
    tx: &mut WriteTx<'_>,
    id: i64,
    status: ExceptionStatus,
    resolution: &str,
    note: &str,
    actor: &str,
) -> Result<(), StoreError> {
    let now = tx.now_ms();
    tx.db().execute(
        "UPDATE exception SET status = ?2, resolution = ?3, resolution_note = ?4, resolved_by = ?5, resolved_at = ?6
         WHERE id = ?1",
        &[&id, &Text(status), &resolution, &note, &actor, &now],
    )?;
    tx.changed(Entity::Exception, id);
    Ok(())
}

/// What the first receipt of a logical event says, for checking it against a message.
pub fn receipt_facts(conn: &impl Reads, event: i64) -> Result<mismatch::ReceiptFacts, StoreError> {
    conn.db().query_row(
        "SELECT r.connection, r.source_addr, r.raw_text, r.done_ts, r.redaction IS NOT NULL, r.handset_fit,
                r.echo_fit
         FROM logical_event e JOIN receipt r ON r.id = e.first_receipt_id WHERE e.id = ?1",
        &[&event],
        read_receipt_facts,
    )
}

/// A receipt's facts from `connection, source_addr, raw_text, done_ts, redacted, handset_fit,
/// echo_fit`.
pub(crate) fn read_receipt_facts(r: &Row<'_, '_>) -> Result<mismatch::ReceiptFacts, StoreError> {
    Ok(mismatch::ReceiptFacts {
        connection: r.get(0)?,
        handset: r.get(1)?,
        text: r
            .get::<Option<String>>(2)?
            .and_then(|t| mismatch::receipt_text_field(&t)),
        done_ts: r.get(3)?,
        redacted: r.get(4)?,
        handset_fit: r.get(5)?,
        echo_fit: r.get(6)?,
    })
}

/// How many exceptions of `kind` are in `status`.
pub fn count_by(conn: &impl Reads, status: ExceptionStatus, kind: ExceptionKind) -> Result<i64, StoreError> {
    conn.db().one(
        "SELECT count(*) FROM exception WHERE status = ?1 AND kind = ?2",
        &[&Text(status), &Text(kind)],
    )
}
