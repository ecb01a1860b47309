//! Read-side summaries: counters for tests and the dashboard, and what one message's report says
//! (acceptance, the network's reported state, and any operator decision, kept apart).

use std::collections::BTreeMap;

use rusqlite::{params, Connection, OptionalExtension};
use serde::Serialize;

use crate::domain::{DeliveryState, ExceptionKind, QueueStatus};
use crate::store::StoreError;
use crate::store::Text;

/// Counts that must not move when a repeat arrives.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Counters {
    pub receipts: i64,
    pub logical_events: i64,
    pub repeats: i64,
    /// Logical events applied to a projection.
    pub applied: i64,
    pub inbound: i64,
    pub open_exceptions: BTreeMap<ExceptionKind, i64>,
    pub states: BTreeMap<DeliveryState, i64>,
}

pub fn counters(conn: &Connection) -> Result<Counters, StoreError> {
    let one = |sql: &str| conn.query_row(sql, [], |r| r.get::<_, i64>(0));
    let mut c = Counters {
        receipts: one("SELECT count(*) FROM receipt")?,
        logical_events: one("SELECT count(*) FROM logical_event")?,
        repeats: one("SELECT count(*) FROM receipt_outcome WHERE is_repeat = 1")?,
        applied: one("SELECT count(*) FROM projection_input WHERE kind = 'event'")?,
        inbound: one("SELECT count(*) FROM inbound_message")?,
        ..Counters::default()
    };
    let mut s = conn.prepare("SELECT kind, count(*) FROM exception WHERE status = 'open' GROUP BY kind")?;
    for row in s.query_map([], |r| Ok((r.get::<_, Text<ExceptionKind>>(0)?.0, r.get::<_, i64>(1)?)))? {
        let (k, n) = row?;
        c.open_exceptions.insert(k, n);
    }
    let mut s = conn.prepare("SELECT state, count(*) FROM projection GROUP BY state")?;
    for row in s.query_map([], |r| Ok((r.get::<_, Text<DeliveryState>>(0)?.0, r.get::<_, i64>(1)?)))? {
        let (k, n) = row?;
        c.states.insert(k, n);
    }
    Ok(c)
}

/// What smsdesk can say about one message, each kind of knowledge apart.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MessageReport {
    pub message_id: i64,
    /// Our queue: did the SMSC accept the submit? (Acceptance is not delivery.)
    pub acceptance: QueueStatus,
    /// What the network reported, by the rules.
    pub reported_state: DeliveryState,
    pub rule: String,
    /// Set when an operator decided the state, with the exception they resolved.
    pub operator_decision: Option<i64>,
    pub flags: Vec<&'static str>,
}

pub fn message_report(conn: &Connection, message_id: i64) -> Result<Option<MessageReport>, StoreError> {
    Ok(conn
        .prepare_cached(
            "SELECT q.status, coalesce(p.state, 'pending'), coalesce(p.rule, 'no_report'), p.fold_json,
                 coalesce(p.flag_late, 0), coalesce(p.flag_conflict, 0), coalesce(p.flag_no_receipt, 0),
                 coalesce(p.flag_mismatch, 0), coalesce(p.flag_id_disagree, 0)
             FROM queue q LEFT JOIN projection p ON p.message_id = q.message_id WHERE q.message_id = ?1",
        )?
        .query_row(params![message_id], |r| {
            let fold: Option<String> = r.get(3)?;
            let decided = fold
                .and_then(|f| serde_json::from_str::<super::rules::Projection>(&f).ok())
                .and_then(|p| p.decided_by);
            let names = ["late", "conflict", "no_receipt", "mismatch", "id_disagree"];
            let mut flags = Vec::new();
            for (i, name) in names.iter().enumerate() {
                if r.get::<_, bool>(4 + i)? {
                    flags.push(*name);
                }
            }
            Ok(MessageReport {
                message_id,
                acceptance: r.get::<_, Text<_>>(0)?.0,
                reported_state: r.get::<_, Text<_>>(1)?.0,
                rule: r.get(2)?,
                operator_decision: decided,
                flags,
            })
        })
        .optional()?)
}
