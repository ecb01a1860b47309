//! Retention: what is older than its `[retention]` period is redacted, in bounded batches (each one
//! short write transaction, so sending goes on between them).

use std::time::{Duration, Instant};

use smsdesk_core::domain::MessageKind;

use super::{Redacted, RedactionRule};
use crate::db::Dialect;
use crate::tables::redact::{self, DONE};
use crate::writer::WriteTx;
use crate::StoreError;

/// The cut-offs of one run: content created (or received) before each is due. None: kept.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Due {
    /// Per kind: message texts created before it.
    pub text_before: Vec<(MessageKind, i64)>,
    /// Message destinations (and the receipts nobody could tie to a message) before it.
    pub number_before: Option<i64>,
    /// Replies from handsets received before it.
    pub replies_before: Option<i64>,
    /// Audit lines written before it (their note and details).
    pub audit_before: Option<i64>,
}

/// The tombstones of one run, one per rule, each naming what its rule removed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tombstones {
    pub text: i64,
    pub number: i64,
    pub replies: i64,
    pub audit: i64,
}

impl Tombstones {
    /// Starts the four tombstones of a run by `actor`.
    pub fn begin(tx: &mut WriteTx<'_>, actor: &str) -> Result<Tombstones, StoreError> {
        Ok(Tombstones {
            text: super::begin(tx, RedactionRule::TextDays, actor)?,
            number: super::begin(tx, RedactionRule::DestinationDays, actor)?,
            replies: super::begin(tx, RedactionRule::RepliesDays, actor)?,
            audit: super::begin(tx, RedactionRule::AuditDays, actor)?,
        })
    }
}

/// How far a run has looked, between its batches.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Cursor {
    /// The receipts up to this id were looked at for those no message holds.
    pub receipts_after: i64,
    /// Whether the last batch found nothing more to do.
    pub finished: bool,
}

/// How long one batch works at most before it ends (a message started is finished): the writer's
/// longest hold by retention stays near it, whatever the search index makes a redaction cost.
const BUDGET: Duration = Duration::from_millis(20);

/// How many receipts one batch looks at, at most, for those no message holds: a batch stays short
/// however many receipts are correlated (and so skipped).
const RECEIPTS_LOOKED_AT: i64 = 4_096;

/// Redacts up to `limit` rows of what is due under tombstone `t`, oldest first: texts, then
/// numbers, then replies, then audit lines; `cursor` carries where the run is from one batch to
/// the next, and says when nothing more is due. Only messages done with are touched: one still
/// waiting or sending keeps its text and number.
pub fn batch(
    tx: &mut WriteTx<'_>,
    due: &Due,
    t: &Tombstones,
    limit: u32,
    cursor: &mut Cursor,
) -> Result<Redacted, StoreError> {
    let started = Instant::now();
    let mut done = Redacted::default();
    let mut more = false;
    let mut left = u64::from(limit);
    for &(kind, before) in &due.text_before {
        for id in due_messages(tx, "text_redaction", Some(kind), before, left)? {
            // Out of time: the rest waits for the next batch (the writer serves others between).
            if started.elapsed() >= BUDGET {
                more = true;
                break;
            }
            done.receipts += redact::message_receipts(tx, id, t.text, false)?;
            done.texts += u64::from(redact::message_text(tx, id, t.text)?);
        }
        left = u64::from(limit).saturating_sub(done.total());
    }
    if let (Some(before), true) = (due.number_before, left > 0 && !more) {
        for id in due_messages(tx, "number_redaction", None, before, left)? {
            if started.elapsed() >= BUDGET {
                more = true;
                break;
            }
            done.receipts += redact::message_receipts(tx, id, t.number, true)?;
            done.numbers += u64::from(redact::message_number(tx, id, t.number)?);
        }
        left = u64::from(limit).saturating_sub(done.total());
        if left > 0 {
            let n = redact::idempotency_before(tx, before, left, t.number)?;
            done.numbers += n;
            more |= n == left;
        }
        left = u64::from(limit).saturating_sub(done.total());
        if left > 0 {
            let last: i64 = tx.db().one("SELECT coalesce(max(id), 0) FROM receipt", &[])?;
            if cursor.receipts_after < last {
                let (ids, upto) = uncorrelated_receipts(tx, before, cursor.receipts_after, left)?;
                for id in ids {
                    done.receipts += u64::from(redact::receipt(tx, id, t.number)?);
                }
                cursor.receipts_after = upto;
                more |= upto < last;
            }
        }
    }
    if !more {
        replies_and_audit(tx, due, t, u64::from(limit), &mut done)?;
    }
    cursor.finished = !more && done.total() == 0;
    Ok(done)
}

/// The replies, then the audit lines, due (what is left of a batch's `limit` after its messages).
fn replies_and_audit(
    tx: &mut WriteTx<'_>,
    due: &Due,
    t: &Tombstones,
    limit: u64,
    done: &mut Redacted,
) -> Result<(), StoreError> {
    let mut left = limit.saturating_sub(done.total());
    if let (Some(before), true) = (due.replies_before, left > 0) {
        let ids: Vec<i64> = tx.db().query(REPLIES_DUE, &[&before, &(left as i64)], |r| r.get(0))?;
        for id in ids {
            done.replies += redact::reply(tx, id, t.replies)?;
        }
        left = limit.saturating_sub(done.total());
        if left > 0 {
            // Parts of a reply never completed (the rest never came).
            let parts: Vec<i64> = tx.db().query(PARTS_DUE, &[&before, &(left as i64)], |r| r.get(0))?;
            for id in parts {
                done.replies += redact::inbound(tx, id, t.replies)?;
            }
        }
    }
    left = limit.saturating_sub(done.total());
    if let (Some(before), true) = (due.audit_before, left > 0) {
        done.audit += tx.db().execute(
            &format!("UPDATE audit SET note = NULL, details_json = NULL, redaction = ?3 WHERE id IN ({AUDIT_DUE})"),
            &[&before, &(left as i64), &t.audit],
        )? as u64;
    }
    Ok(())
}

/// The replies not redacted received before `?1`, oldest first, at most `?2`.
const REPLIES_DUE: &str =
    "SELECT id FROM inbox_message WHERE redaction IS NULL AND received_at < ?1 ORDER BY received_at LIMIT ?2";
/// The PDUs from handsets not redacted received before `?1` (parts of a reply never completed
/// among them), oldest first, at most `?2`.
const PARTS_DUE: &str =
    "SELECT id FROM inbound_message WHERE redaction IS NULL AND received_at < ?1 ORDER BY received_at LIMIT ?2";
/// The audit lines with a note or details written before `?1`, oldest first, at most `?2`.
const AUDIT_DUE: &str = "SELECT id FROM audit WHERE redaction IS NULL AND at < ?1
     AND (note IS NOT NULL OR details_json IS NOT NULL) ORDER BY at LIMIT ?2";

/// The messages done with created before `?1` whose `column` is not redacted (of `kind` when
/// given), oldest first, at most `?2`. The kind is written into the statement (one of three
/// words), and the messages read first (CROSS JOIN), so the plan reads the oldest of
/// `message_text_kept` (kind, created_at) or `message_number_kept` (created_at) in order: never
/// every message done with, sorted. PostgreSQL takes no ON after CROSS JOIN (nor needs the hint).
fn messages_due(column: &str, kind: Option<MessageKind>, dialect: Dialect) -> String {
    let of_kind = kind
        .map(|k| format!("AND m.kind = '{}'", k.as_str()))
        .unwrap_or_default();
    let join = match dialect {
        Dialect::Sqlite => "CROSS JOIN",
        Dialect::Postgres => "JOIN",
    };
    format!(
        "SELECT m.id FROM message m {join} queue q ON q.message_id = m.id
         WHERE m.{column} IS NULL AND m.created_at < ?1 {of_kind} AND q.status IN {DONE}
         ORDER BY m.created_at LIMIT ?2"
    )
}

/// Every query a batch finds what is due with (their plans are tested: each must read an index
/// range, never every row).
#[cfg(test)]
pub(super) fn due_queries() -> Vec<String> {
    let mut all: Vec<String> = MessageKind::ALL
        .iter()
        .map(|&k| messages_due("text_redaction", Some(k), Dialect::Sqlite))
        .collect();
    all.push(messages_due("number_redaction", None, Dialect::Sqlite));
    all.extend([REPLIES_DUE, PARTS_DUE, AUDIT_DUE, redact::IDEMPOTENCY_DUE].map(str::to_owned));
    all
}

/// Messages created before `before` whose `column` is not redacted yet and that are done with,
/// oldest first (at most `limit`).
fn due_messages(
    tx: &WriteTx<'_>,
    column: &str,
    kind: Option<MessageKind>,
    before: i64,
    limit: u64,
) -> Result<Vec<i64>, StoreError> {
    if limit == 0 {
        return Ok(Vec::new());
    }
    let sql = messages_due(column, kind, tx.db().dialect());
    tx.db().query(&sql, &[&before, &(limit as i64)], |r| r.get(0))
}

/// Receipts after id `after` (looking at [`RECEIPTS_LOOKED_AT`] at most), received before
/// `before`, not redacted, that no message holds (uncorrelated, unreadable) and that are not
/// replies (those follow `replies_days`); at most `limit`. Returns them and the id looked up to.
fn uncorrelated_receipts(tx: &WriteTx<'_>, before: i64, after: i64, limit: u64) -> Result<(Vec<i64>, i64), StoreError> {
    let ids: Vec<i64> = tx.db().query(
        "SELECT r.id FROM receipt r
         WHERE r.id > ?3 AND r.id <= ?3 + ?4 AND r.redaction IS NULL AND r.received_at < ?1 AND r.kind <> 'mo'
           AND NOT EXISTS (SELECT 1 FROM receipt_outcome ro JOIN logical_event le ON le.id = ro.logical_event_id
                           WHERE ro.receipt_id = r.id AND le.message_id IS NOT NULL)
         ORDER BY r.id LIMIT ?2",
        &[&before, &(limit as i64), &after, &RECEIPTS_LOOKED_AT],
        |r| r.get(0),
    )?;
    let upto = if ids.len() as u64 == limit {
        *ids.last().expect("limit > 0")
    } else {
        after + RECEIPTS_LOOKED_AT
    };
    Ok((ids, upto))
}
