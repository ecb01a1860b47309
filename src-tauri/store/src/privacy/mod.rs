//! Personal content that does not outstay its purpose: redaction (keep the facts, replace the
//! number and the text by a tombstone), retention by age, erasure and access by number.
//!
//! What is personal: a message's destination and text, its receipts' addresses, raw bytes and echo
//! of the text, a reply's number and text (and the raw PDUs that carried it), an opt-out's number,
//! and whatever an audit line says of a number. What is kept: every id, time, status, part count,
//! encoding, connection, decision and computed state, so the timeline, the audit and a rebuild
//! stay true. See `migrations/0027_redaction.sql` for the shape of a redacted row.

pub mod access;
pub mod erasure;
mod redact;
pub mod retention;
pub mod token;

use rusqlite::params;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::writer::WriteTx;
use crate::StoreError;

/// The rule that removed content, as the tombstone names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum RedactionRule {
    /// `[retention] text_days` (per kind).
    TextDays,
    /// `[retention] destination_days`.
    DestinationDays,
    /// `[retention] replies_days`.
    RepliesDays,
    /// `[retention] audit_days`.
    AuditDays,
    /// A person erased a number.
    Erasure,
    /// A receipt echoed a one-time code's text (removed as it was tied to the code).
    CodeEcho,
}

impl RedactionRule {
    pub fn as_str(self) -> &'static str {
        match self {
            RedactionRule::TextDays => "text_days",
            RedactionRule::DestinationDays => "destination_days",
            RedactionRule::RepliesDays => "replies_days",
            RedactionRule::AuditDays => "audit_days",
            RedactionRule::Erasure => "erasure",
            RedactionRule::CodeEcho => "code_echo",
        }
    }
}

/// What a run redacted, by what it held. Never a number or a text.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
pub struct Redacted {
    /// Message texts replaced.
    pub texts: u64,
    /// Destinations replaced by their hash: messages', and those in the answers kept for their
    /// idempotency keys.
    pub numbers: u64,
    /// Receipts whose raw bytes, addresses and echo of the text were removed.
    pub receipts: u64,
    /// Replies (and the PDUs that carried them) whose number and text were removed.
    pub replies: u64,
    /// Opt-out entries kept as their number's hash only.
    pub opt_outs: u64,
    /// Audit lines whose note and details were removed or cleared of the number.
    pub audit: u64,
    /// Messages still waiting that were cancelled because their number was erased.
    pub cancelled: u64,
}

impl Redacted {
    pub fn total(&self) -> u64 {
        self.texts + self.numbers + self.receipts + self.replies + self.opt_outs + self.audit + self.cancelled
    }

    pub fn add(&mut self, o: &Redacted) {
        self.texts += o.texts;
        self.numbers += o.numbers;
        self.receipts += o.receipts;
        self.replies += o.replies;
        self.opt_outs += o.opt_outs;
        self.audit += o.audit;
        self.cancelled += o.cancelled;
    }
}

/// Starts a tombstone: every row a run redacts points at it. Refused when numbers cannot be hashed.
pub fn begin(tx: &mut WriteTx<'_>, rule: RedactionRule, actor: &str) -> Result<i64, StoreError> {
    key_is_set(tx)?;
    let now = tx.now_ms();
    tx.conn()
        .prepare_cached("INSERT INTO redaction (at, rule, actor) VALUES (?1, ?2, ?3)")?
        .execute(params![now, rule.as_str(), actor])?;
    Ok(tx.conn().last_insert_rowid())
}

/// Writes what the run of tombstone `id` redacted, in all.
pub fn finish(tx: &mut WriteTx<'_>, id: i64, done: &Redacted) -> Result<(), StoreError> {
    let json = serde_json::to_string(done).expect("counts serialise");
    tx.conn()
        .prepare_cached("UPDATE redaction SET summary_json = ?2 WHERE id = ?1")?
        .execute(params![id, json])?;
    Ok(())
}

/// One tombstone, as the timeline shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
pub struct Tombstone {
    pub id: i64,
    /// When the content was removed (ms since the epoch).
    pub at: i64,
    pub rule: RedactionRule,
    /// Who removed it: `retention`, or the person who erased the number.
    pub actor: String,
    /// What the run removed in all, once it ended.
    pub summary: Option<Redacted>,
}

/// The most recent tombstones, newest first.
pub fn recent(conn: &impl crate::Reads, limit: u32) -> Result<Vec<Tombstone>, StoreError> {
    let conn = conn.connection();
    let mut stmt = conn.prepare_cached(
        "SELECT id, at, rule, actor, summary_json FROM redaction WHERE rule <> 'code_echo' ORDER BY id DESC LIMIT ?1",
    )?;
    let rows = stmt.query_map([limit], |r| {
        Ok((
            r.get::<_, i64>(0)?,
            r.get(1)?,
            r.get::<_, String>(2)?,
            r.get(3)?,
            r.get::<_, Option<String>>(4)?,
        ))
    })?;
    let mut out = Vec::new();
    for row in rows {
        let (id, at, rule, actor, summary) = row?;
        out.push(Tombstone {
            id,
            at,
            rule: serde_json::from_value(serde_json::Value::String(rule))
                .map_err(|e| StoreError::Corrupt(format!("redaction {id}: {e}")))?,
            actor,
            summary: summary.and_then(|s| serde_json::from_str(&s).ok()),
        });
    }
    Ok(out)
}

/// When the last retention run started (ms since the epoch), if one did.
pub fn last_run_at(conn: &rusqlite::Connection) -> Result<Option<i64>, StoreError> {
    Ok(conn.query_row(
        "SELECT max(at) FROM redaction WHERE rule NOT IN ('erasure', 'code_echo')",
        [],
        |r| r.get(0),
    )?)
}

/// Removes the content of the receipts of logical event `event` (only `receipt` when given) as
/// they are tied to their message, when that message's content is not to be kept: a one-time
/// code sealed at intake (the receipt's echo would keep the code), or a message whose text or
/// number was redacted already (a late receipt). In the transaction that ties them, so none of
/// it reaches a file.
pub fn redact_on_arrival(tx: &mut WriteTx<'_>, event: i64, receipt: Option<i64>) -> Result<(), StoreError> {
    let due: Vec<(i64, i64)> = tx
        .conn()
        .prepare_cached(
            "SELECT ro.receipt_id, coalesce(m.text_redaction, m.number_redaction,
                        (SELECT min(id) FROM redaction WHERE rule = 'code_echo'))
             FROM logical_event le JOIN message m ON m.id = le.message_id
             JOIN receipt_outcome ro ON ro.logical_event_id = le.id
             WHERE le.id = ?1 AND (?2 IS NULL OR ro.receipt_id = ?2)
               AND (m.sealed IS NOT NULL OR m.text_redaction IS NOT NULL OR m.number_redaction IS NOT NULL)",
        )?
        .query_map(params![event, receipt], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<Result<_, _>>()?;
    for (id, t) in due {
        redact::receipt(tx, id, t)?;
    }
    Ok(())
}

fn key_is_set(tx: &WriteTx<'_>) -> Result<(), StoreError> {
    let set: Option<String> = tx.conn().query_row("SELECT number_token('+0')", [], |r| r.get(0))?;
    match set {
        Some(_) => Ok(()),
        None => Err(StoreError::NumberKey(
            "the key is not set (the engine sets it from secret.key when it opens the store)".into(),
        )),
    }
}

#[cfg(test)]
mod tests;
