//! The `alert` and `alert_notice` tables: each stretch of time a rule held, and what each channel
//! was told of it. Firing, resolving and acknowledging are audited in the same transaction.

use rusqlite::{params, OptionalExtension};
use smsdesk_core::alert::{AlertChannel, AlertRule, AlertView, NoticeKind, NoticeOutcome, NoticeView};
use smsdesk_core::audit::AuditAction;

use crate::tables::NewAudit;
use crate::writer::{Entity, WriteTx};
use crate::Reads;
use crate::{StoreError, Text};

/// An alert open, or closed lately, as the rules' lifecycle needs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AlertRow {
    pub id: i64,
    pub rule: AlertRule,
    pub subject: String,
    pub fired_at_ms: i64,
    pub resolved_at_ms: Option<i64>,
    pub acknowledged: bool,
    /// The figures last seen (JSON).
    pub facts: String,
}

/// One notice of an alert on one channel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PastNotice {
    pub kind: NoticeKind,
    pub outcome: NoticeOutcome,
    pub at_ms: i64,
}

/// A notice to record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewNotice {
    pub alert_id: Option<i64>,
    pub kind: NoticeKind,
    pub channel: AlertChannel,
    pub outcome: NoticeOutcome,
    pub detail: Option<String>,
    /// The local day a summary covers.
    pub day: Option<String>,
}

/// Every open alert, and those closed since `closed_since_ms`, oldest first.
pub fn recent(conn: &impl Reads, closed_since_ms: i64) -> Result<Vec<AlertRow>, StoreError> {
    Ok(conn
        .connection()
        .prepare_cached(
            "SELECT id, rule, subject, fired_at, resolved_at, acknowledged_at IS NOT NULL, facts FROM alert
             WHERE resolved_at IS NULL
             UNION ALL
             SELECT id, rule, subject, fired_at, resolved_at, acknowledged_at IS NOT NULL, facts FROM alert
             WHERE resolved_at >= ?1
             ORDER BY id",
        )?
        .query_map([closed_since_ms], |r| {
            Ok(AlertRow {
                id: r.get(0)?,
                rule: r.get::<_, Text<_>>(1)?.0,
                subject: r.get(2)?,
                fired_at_ms: r.get(3)?,
                resolved_at_ms: r.get(4)?,
                acknowledged: r.get(5)?,
                facts: r.get(6)?,
            })
        })?
        .collect::<Result<_, _>>()?)
}

/// The notices of alert `id` on `channel`, oldest first.
pub fn history(conn: &impl Reads, id: i64, channel: AlertChannel) -> Result<Vec<PastNotice>, StoreError> {
    Ok(conn
        .connection()
        .prepare_cached("SELECT kind, outcome, at FROM alert_notice WHERE alert_id = ?1 AND channel = ?2 ORDER BY id")?
        .query_map(params![id, Text(channel)], |r| {
            Ok(PastNotice {
                kind: r.get::<_, Text<_>>(0)?.0,
                outcome: r.get::<_, Text<_>>(1)?.0,
                at_ms: r.get(2)?,
            })
        })?
        .collect::<Result<_, _>>()?)
}

/// The last try of the summary of `day`: what became of it, and when.
pub fn summary_tried(conn: &impl Reads, day: &str) -> Result<Option<(NoticeOutcome, i64)>, StoreError> {
    Ok(conn
        .connection()
        .prepare_cached(
            "SELECT outcome, at FROM alert_notice WHERE kind = 'summary' AND day = ?1
             ORDER BY outcome = 'sent' DESC, id DESC LIMIT 1",
        )?
        .query_row([day], |r| Ok((r.get::<_, Text<_>>(0)?.0, r.get(1)?)))
        .optional()?)
}

/// Opens an alert of `rule` on `subject` with `facts` (JSON), audited as the system's. Returns
/// its id; an alert already open for them is kept (its id returned).
pub fn fire(tx: &mut WriteTx<'_>, rule: AlertRule, subject: &str, facts: &str) -> Result<i64, StoreError> {
    let open: Option<i64> = tx
        .conn()
        .prepare_cached("SELECT id FROM alert WHERE rule = ?1 AND subject = ?2 AND resolved_at IS NULL")?
        .query_row(params![Text(rule), subject], |r| r.get(0))
        .optional()?;
    if let Some(id) = open {
        return Ok(id);
    }
    let now = tx.now_ms();
    tx.conn()
        .prepare_cached("INSERT INTO alert (rule, subject, fired_at, facts) VALUES (?1, ?2, ?3, ?4)")?
        .execute(params![Text(rule), subject, now, facts])?;
    let id = tx.conn().last_insert_rowid();
    audit(tx, AuditAction::AlertFired, "system", id, None, rule, subject)?;
    tx.changed(Entity::Alert, id);
    Ok(id)
}

/// Keeps the figures last seen of open alert `id`.
pub fn see(tx: &mut WriteTx<'_>, id: i64, facts: &str) -> Result<(), StoreError> {
    tx.conn()
        .prepare_cached("UPDATE alert SET facts = ?2 WHERE id = ?1 AND resolved_at IS NULL AND facts <> ?2")?
        .execute(params![id, facts])?;
    Ok(())
}

/// Notes that the office was reminded of alert `id` now.
pub fn repeated(tx: &mut WriteTx<'_>, id: i64) -> Result<(), StoreError> {
    let now = tx.now_ms();
    tx.conn()
        .prepare_cached("UPDATE alert SET repeated_at = ?2 WHERE id = ?1")?
        .execute(params![id, now])?;
    tx.changed(Entity::Alert, id);
    Ok(())
}

/// Closes alert `id`: its rule no longer holds. Audited as the system's.
pub fn resolve(tx: &mut WriteTx<'_>, id: i64) -> Result<(), StoreError> {
    let now = tx.now_ms();
    let row: Option<(Text<AlertRule>, String)> = tx
        .conn()
        .prepare_cached(
            "UPDATE alert SET resolved_at = ?2 WHERE id = ?1 AND resolved_at IS NULL RETURNING rule, subject",
        )?
        .query_row(params![id, now], |r| Ok((r.get(0)?, r.get(1)?)))
        .optional()?;
    if let Some((rule, subject)) = row {
        audit(tx, AuditAction::AlertResolved, "system", id, None, rule.0, &subject)?;
        tx.changed(Entity::Alert, id);
    }
    Ok(())
}

/// Why an acknowledgement was not recorded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AckRefused {
    /// No alert has this id.
    Unknown,
    /// It was acknowledged already (by whom is on the alert).
    Already,
    /// It has ended.
    Resolved,
}

/// `actor` acknowledges alert `id` with `note`: its reminders stop (its "resolved" notice does
/// not). Audited.
pub fn acknowledge(
    tx: &mut WriteTx<'_>,
    id: i64,
    actor: &str,
    note: &str,
) -> Result<Result<(), AckRefused>, StoreError> {
    let row: Option<(Text<AlertRule>, String, bool, bool)> = tx
        .conn()
        .prepare_cached(
            "SELECT rule, subject, acknowledged_at IS NOT NULL, resolved_at IS NOT NULL FROM alert WHERE id = ?1",
        )?
        .query_row([id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
        .optional()?;
    let Some((rule, subject, acknowledged, resolved)) = row else {
        return Ok(Err(AckRefused::Unknown));
    };
    if acknowledged {
        return Ok(Err(AckRefused::Already));
    }
    if resolved {
        return Ok(Err(AckRefused::Resolved));
    }
    let now = tx.now_ms();
    tx.conn()
        .prepare_cached(
            "UPDATE alert SET acknowledged_at = ?2, acknowledged_by = ?3, acknowledgement_note = ?4 WHERE id = ?1",
        )?
        .execute(params![id, now, actor, note])?;
    audit(
        tx,
        AuditAction::AlertAcknowledge,
        actor,
        id,
        Some(note),
        rule.0,
        &subject,
    )?;
    tx.changed(Entity::Alert, id);
    Ok(Ok(()))
}

fn audit(
    tx: &mut WriteTx<'_>,
    action: AuditAction,
    actor: &str,
    id: i64,
    note: Option<&str>,
    rule: AlertRule,
    subject: &str,
) -> Result<i64, StoreError> {
    tx.audit().append(&NewAudit {
        subject_type: Some("alert".into()),
        subject_id: Some(id),
        note: note.map(str::to_owned),
        details_json: Some(serde_json::json!({ "rule": rule.as_str(), "subject": subject }).to_string()),
        ..NewAudit::new(actor, action)
    })
}

/// Records a notice.
pub fn notice(tx: &mut WriteTx<'_>, n: &NewNotice) -> Result<(), StoreError> {
    let now = tx.now_ms();
    tx.conn()
        .prepare_cached(
            "INSERT INTO alert_notice (alert_id, kind, channel, at, outcome, detail, day)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        )?
        .execute(params![
            n.alert_id,
            Text(n.kind),
            Text(n.channel),
            now,
            Text(n.outcome),
            n.detail,
            n.day
        ])?;
    if let Some(id) = n.alert_id {
        tx.changed(Entity::Alert, id);
    }
    Ok(())
}

/// Alerts, open ones first then the newest, at most `limit`, each with its notices.
pub fn list(conn: &impl Reads, limit: u32) -> Result<Vec<AlertView>, StoreError> {
    let c = conn.connection();
    let mut alerts: Vec<AlertView> = c
        .prepare_cached(
            "SELECT id, rule, subject, facts, fired_at, repeated_at, resolved_at, acknowledged_at, acknowledged_by,
                    acknowledgement_note
             FROM alert ORDER BY resolved_at IS NULL DESC, id DESC LIMIT ?1",
        )?
        .query_map([limit], |r| {
            Ok(AlertView {
                id: r.get(0)?,
                rule: r.get::<_, Text<_>>(1)?.0,
                subject: r.get(2)?,
                facts: serde_json::from_str(&r.get::<_, String>(3)?).unwrap_or_default(),
                fired_at_ms: r.get(4)?,
                repeated_at_ms: r.get(5)?,
                resolved_at_ms: r.get(6)?,
                acknowledged_at_ms: r.get(7)?,
                acknowledged_by: r.get(8)?,
                acknowledgement_note: r.get(9)?,
                notices: Vec::new(),
            })
        })?
        .collect::<Result<_, _>>()?;
    let mut notices = c.prepare_cached(
        "SELECT at, kind, channel, outcome, detail FROM alert_notice WHERE alert_id = ?1 ORDER BY id",
    )?;
    for a in &mut alerts {
        a.notices = notices.query_map([a.id], notice_of)?.collect::<Result<_, _>>()?;
    }
    Ok(alerts)
}

/// A notice from a row of `at, kind, channel, outcome, detail`.
fn notice_of(r: &rusqlite::Row<'_>) -> rusqlite::Result<NoticeView> {
    Ok(NoticeView {
        at_ms: r.get(0)?,
        kind: r.get::<_, Text<_>>(1)?.0,
        channel: r.get::<_, Text<_>>(2)?.0,
        outcome: r.get::<_, Text<_>>(3)?.0,
        detail: r.get(4)?,
    })
}

/// The notices not tied to an alert (tests and summaries), newest first, at most `limit`.
pub fn other_notices(conn: &impl Reads, limit: u32) -> Result<Vec<NoticeView>, StoreError> {
    Ok(conn
        .connection()
        .prepare_cached(
            "SELECT at, kind, channel, outcome, detail FROM alert_notice WHERE alert_id IS NULL ORDER BY id DESC
             LIMIT ?1",
        )?
        .query_map([limit], notice_of)?
        .collect::<Result<_, _>>()?)
}

/// The alerts fired in [from, to): for the daily summary (rule, subject).
pub fn fired_between(conn: &impl Reads, from_ms: i64, to_ms: i64) -> Result<Vec<(AlertRule, String)>, StoreError> {
    Ok(conn
        .connection()
        .prepare_cached("SELECT rule, subject FROM alert WHERE fired_at >= ?1 AND fired_at < ?2 ORDER BY id")?
        .query_map([from_ms, to_ms], |r| Ok((r.get::<_, Text<AlertRule>>(0)?.0, r.get(1)?)))?
        .collect::<Result<_, _>>()?)
}
