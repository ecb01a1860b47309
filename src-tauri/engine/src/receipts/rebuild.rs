//! Recomputes projections from the logs: for each message, fold what entered its projection (in
//! the order it was applied), with every event's facts re-derived from the stored receipts, and
//! compare with (or replace) the stored projection.

use rusqlite::{params, Connection};

use super::ingest::event_facts;
use super::policy::ReceiptPolicy;
use super::project;
use super::rules::{fold, Input};
use crate::domain::{DeliveryState, ExceptionKind};
use crate::store::Text;
use crate::store::{Store, StoreError, WriteTx};

/// What one rebuild pass found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RebuildReport {
    pub messages: usize,
    /// Messages whose stored projection differed from the recomputed one.
    pub differing: Vec<i64>,
}

/// The message ids that have a projection, in order, after `after` (a cursor), at most `limit`.
pub fn messages_after(conn: &Connection, after: i64, limit: u32) -> Result<Vec<i64>, StoreError> {
    Ok(conn
        .prepare_cached("SELECT message_id FROM projection WHERE message_id > ?1 ORDER BY message_id LIMIT ?2")?
        .query_map(params![after, limit], |r| r.get(0))?
        .collect::<Result<_, _>>()?)
}

pub fn count(conn: &Connection) -> Result<usize, StoreError> {
    Ok(conn.query_row("SELECT count(*) FROM projection", [], |r| r.get::<_, i64>(0))? as usize)
}

/// The inputs of a message's projection, rebuilt from the logs.
pub fn inputs(conn: &Connection, message_id: i64, policy: &ReceiptPolicy) -> Result<Vec<Input>, StoreError> {
    type Row = (String, Option<i64>, Option<i64>, Option<ExceptionKind>, Option<String>);
    let rows: Vec<Row> = conn
        .prepare_cached(
            "SELECT i.kind, i.logical_event_id, i.exception_id, e.kind, e.resolution
             FROM projection_input i LEFT JOIN exception e ON e.id = i.exception_id
             WHERE i.message_id = ?1 ORDER BY i.seq",
        )?
        .query_map([message_id], |r| {
            Ok((
                r.get(0)?,
                r.get(1)?,
                r.get(2)?,
                r.get::<_, Option<Text<_>>>(3)?.map(|t| t.0),
                r.get(4)?,
            ))
        })?
        .collect::<Result<_, _>>()?;
    let mut out = Vec::with_capacity(rows.len());
    for (kind, event, exception, ex_kind, resolution) in rows {
        match (kind.as_str(), event, exception) {
            ("event", Some(e), _) => {
                if let Some(f) = event_facts(conn, e, message_id, policy)? {
                    out.push(Input::Event(f));
                }
            }
            ("deadline", _, Some(x)) => out.push(Input::Deadline { exception: x }),
            ("decision", _, Some(x)) => {
                let state = resolution
                    .as_deref()
                    .and_then(|r| r.strip_prefix("state:"))
                    .and_then(|s| s.parse::<DeliveryState>().ok());
                let kind = ex_kind.ok_or_else(|| StoreError::Corrupt(format!("decision on missing exception {x}")))?;
                out.push(Input::Decision {
                    exception: x,
                    kind,
                    state,
                });
            }
            _ => {
                return Err(StoreError::Corrupt(format!(
                    "projection input of message {message_id} is malformed"
                )))
            }
        }
    }
    Ok(out)
}

/// Rebuilds the projections of `messages`; with `write`, stores the recomputed ones that differ.
pub fn rebuild_batch(
    tx: &mut WriteTx<'_>,
    messages: &[i64],
    policy: &ReceiptPolicy,
    write: bool,
) -> Result<Vec<i64>, StoreError> {
    let settings = policy.rules();
    let mut differing = Vec::new();
    for &m in messages {
        let recomputed = fold(&inputs(tx.conn(), m, policy)?, settings);
        let row = project::stored(tx.conn(), m)?;
        let stored = row.as_ref().map(|r| r.fold.clone()).unwrap_or_default();
        if recomputed != stored {
            differing.push(m);
            if write {
                project::save(tx, m, row.as_ref(), &recomputed)?;
            }
        }
    }
    Ok(differing)
}

/// Rebuilds, from their evidence, the projections that newer rules compute otherwise (the work
/// list a migration left in `rebuild_wanted`), a batch per transaction; returns how many changed.
pub fn wanted(tx: &mut WriteTx<'_>, policy: &ReceiptPolicy, limit: u32) -> Result<(usize, usize), StoreError> {
    let batch: Vec<i64> = tx
        .conn()
        .prepare_cached("SELECT message_id FROM rebuild_wanted ORDER BY message_id LIMIT ?1")?
        .query_map([limit], |r| r.get(0))?
        .collect::<Result<_, _>>()?;
    let changed = rebuild_batch(tx, &batch, policy, true)?.len();
    for m in &batch {
        tx.conn()
            .prepare_cached("DELETE FROM rebuild_wanted WHERE message_id = ?1")?
            .execute([m])?;
    }
    Ok((batch.len(), changed))
}

/// Rebuilds every projection, `batch` messages per transaction, reporting progress as
/// (done, total). With `write` false it only compares.
pub fn run(
    store: &Store,
    policy: &ReceiptPolicy,
    write: bool,
    mut progress: impl FnMut(usize, usize),
) -> Result<RebuildReport, StoreError> {
    const BATCH: u32 = 2_000;
    let total = store.reader().read_blocking(count)?;
    let mut report = RebuildReport::default();
    let mut after = 0;
    loop {
        let batch = store.reader().read_blocking(|c| messages_after(c, after, BATCH))?;
        let Some(&last) = batch.last() else { break };
        let (p, n) = (policy.clone(), batch.len());
        let differing = store
            .writer()
            .write_blocking(move |tx| rebuild_batch(tx, &batch, &p, write))?;
        report.differing.extend(differing);
        report.messages += n;
        after = last;
        progress(report.messages, total);
    }
    Ok(report)
}
