//! The `alert` and `alert_notice` tables: each stretch of time a rule held, and what each channel
//! was told of it. Firing, resolving and acknowledging are audited in the same transaction.

use smsdesk_core::alert::{AlertChannel, AlertRule, AlertView, NoticeKind, NoticeOutcome, NoticeView};
use smsdesk_core::audit::AuditAction;

use crate::db::Row;
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
    conn.db().query(
        "SELECT id, rule, subject, fired_at, resolved_at, acknowledged_at IS NOT NULL, facts FROM alert
         WHERE resolved_at IS NULL
         UNION ALL
         SELECT id, rule, subject, fired_at, resolved_at, acknowledged_at IS NOT NULL, facts FROM alert
         WHERE resolved_at >= ?1
         ORDER BY id",
        &[&closed_since_ms],
        |r| {
            Ok(AlertRow {
                id: r.get(0)?,
                rule: r.get::<Text<_>>(1)?.0,
                subject: r.get(2)?,
                fired_at_ms: r.get(3)?,
                resolved_at_ms: r.get(4)?,
                acknowledged: r.get(5)?,
                facts: r.get(6)?,
            })
        },
    )
}

/// The notices of alert `id` on `channel`, oldest first.
pub fn history(conn: &impl Reads, id: i64, channel: AlertChannel) -> Result<Vec<PastNotice>, StoreError> {
    conn.db().query(
        "SELECT kind, outcome, at FROM alert_notice WHERE alert_id = ?1 AND channel = ?2 ORDER BY id",
        &[&id, &Text(channel)],
        |r| {
            Ok(PastNotice {
                kind: r.get::<Text<_>>(0)?.0,
                outcome: r.get::<Text<_>>(1)?.0,
                at_ms: r.get(2)?,
            })
        },
    )
}

/// The last try of the summary of `day`: what became of it, and when.
pub fn summary_tried(conn: &impl Reads, day: &str) -> Result<Option<(NoticeOutcome, i64)>, StoreError> {
    conn.db().query_opt(
        "SELECT outcome, at FROM alert_notice WHERE kind = 'summary' AND day = ?1
         ORDER BY outcome = 'sent' DESC, id DESC LIMIT 1",
        &[&day],
        |r| Ok((r.get::<Text<_>>(0)?.0, r.get(1)?)),
    )
}

/// Opens an alert of `rule` on `subject` with `facts` (JSON), audited as the system's. Returns
/// its id; an alert already open for them is kept (its id returned).
pub fn fire(tx: &mut WriteTx<'_>, rule: AlertRule, subject: &str, facts: &str) -> Result<i64, StoreError> {
    let open: Option<i64> = tx.db().query_opt(
        "SELECT id FROM alert WHERE rule = ?1 AND subject = ?2 AND resolved_at IS NULL",
        &[&Text(rule), &subject],
        |r| r.get(0),
    )?;
    if let Some(id) = open {
        return Ok(id);
    }
    let now = tx.now_ms();
    let id: i64 = tx.db().one(
        "INSERT INTO alert (rule, subject, fired_at, facts) VALUES (?1, ?2, ?3, ?4) RETURNING id",
        &[&Text(rule), &subject, &now, &facts],
    )?;
    audit(tx, AuditAction::AlertFired, "system", id, None, rule, subject)?;
    tx.changed(Entity::Alert, id);
    Ok(id)
}

/// Keeps the figures last seen of open alert `id`.
pub fn see(tx: &mut WriteTx<'_>, id: i64, facts: &str) -> Result<(), StoreError> {
    tx.db().execute(
        "UPDATE alert SET facts = ?2 WHERE id = ?1 AND resolved_at IS NULL AND facts <> ?2",
        &[&id, &facts],
    )?;
    Ok(())
}

/// Notes that the office was reminded of alert `id` now.
pub fn repeated(tx: &mut WriteTx<'_>, id: i64) -> Result<(), StoreError> {
    let now = tx.now_ms();
    tx.db()
        .execute("UPDATE alert SET repeated_at = ?2 WHERE id = ?1", &[&id, &now])?;
    tx.changed(Entity::Alert, id);
    Ok(())
}

/// Closes alert `id`: its rule no longer holds. Audited as the system's.
pub fn resolve(tx: &mut WriteTx<'_>, id: i64) -> Result<(), StoreError> {
    let now = tx.now_ms();
    let row: Option<(Text<AlertRule>, String)> = tx.db().query_opt(
        "UPDATE alert SET resolved_at = ?2 WHERE id = ?1 AND resolved_at IS NULL RETURNING rule, subject",
        &[&id, &now],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )?;
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
    let row: Option<(Text<AlertRule>, String, bool, bool)> = tx.db().query_opt(
        "SELECT rule, subject, acknowledged_at IS NOT NULL, resolved_at IS NOT NULL FROM alert WHERE id = ?1",
        &[&id],
        |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
    )?;
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
    tx.db().execute(
        "UPDATE alert SET acknowledged_at = ?2, acknowledged_by = ?3, acknowledgement_note = ?4 WHERE id = ?1",
        &[&id, &now, &actor, &note],
    )?;
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
    tx.db().execute(
        "INSERT INTO alert_notice (alert_id, kind, channel, at, outcome, detail, day)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        &[
            &n.alert_id,
            &Text(n.kind),
            &Text(n.channel),
            &now,
            &Text(n.outcome),
            &n.detail,
            &n.day,
        ],
    )?;
    if let Some(id) = n.alert_id {
        tx.changed(Entity::Alert, id);
    }
    Ok(())
}

/// Alerts, open ones first then the newest, at most `limit`, each with its notices.
pub fn list(conn: &impl Reads, limit: u32) -> Result<Vec<AlertView>, StoreError> {
    let db = conn.db();
    let mut alerts: Vec<AlertView> = db.query(
        "SELECT id, rule, subject, facts, fired_at, repeated_at, resolved_at, acknowledged_at, acknowledged_by,
                acknowledgement_note
         FROM alert ORDER BY resolved_at IS NULL DESC, id DESC LIMIT ?1",
        &[&limit],
        |r| {
            Ok(AlertView {
                id: r.get(0)?,
                rule: r.get::<Text<_>>(1)?.0,
                subject: r.get(2)?,
                facts: serde_json::from_str(&r.get::<String>(3)?).unwrap_or_default(),
                fired_at_ms: r.get(4)?,
                repeated_at_ms: r.get(5)?,
                resolved_at_ms: r.get(6)?,
                acknowledged_at_ms: r.get(7)?,
                acknowledged_by: r.get(8)?,
                acknowledgement_note: r.get(9)?,
                notices: Vec::new(),
            })
        },
    )?;
    for a in &mut alerts {
        a.notices = db.query(
            "SELECT at, kind, channel, outcome, detail FROM alert_notice WHERE alert_id = ?1 ORDER BY id",
            &[&a.id],
            notice_of,
        )?;
    }
    Ok(alerts)
}

/// A notice from a row of `at, kind, channel, outcome, detail`.
fn notice_of(r: &Row<'_, '_>) -> Result<NoticeView, StoreError> {
    Ok(NoticeView {
        at_ms: r.get(0)?,
        kind: r.get::<Text<_>>(1)?.0,
        channel: r.get::<Text<_>>(2)?.0,
        outcome: r.get::<Text<_>>(3)?.0,
        detail: r.get(4)?,
    })
}

/// The notices not tied to an alert (tests and summaries), newest first, at most `limit`.
pub fn other_notices(conn: &impl Reads, limit: u32) -> Result<Vec<NoticeView>, StoreError> {
    conn.db().query(
        "SELECT at, kind, channel, outcome, detail FROM alert_notice WHERE alert_id IS NULL ORDER BY id DESC
         LIMIT ?1",
        &[&limit],
        notice_of,
    )
}

/// The alerts fired in [from, to): for the daily summary (rule, subject).
pub fn fired_between(conn: &impl Reads, from_ms: i64, to_ms: i64) -> Result<Vec<(AlertRule, String)>, StoreError> {
    conn.db().query(
        "SELECT rule, subject FROM alert WHERE fired_at >= ?1 AND fired_at < ?2 ORDER BY id",
        &[&from_ms, &to_ms],
        |r| Ok((r.get::<Text<AlertRule>>(0)?.0, r.get(1)?)),
    )
}
