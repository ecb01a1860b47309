//! What the pace of sending is measured from: the messages the dispatcher will still send (those
//! due now apart from those scheduled for later), and the submits the SMSC accepted in this minute
//! and the one before. The totals come from running totals (`view_count`, `activity_count` at the
//! minute grain); the messages not due yet are counted in the claim index (`queue_claim`, which
//! holds the queued messages alone), its entries read without the table's rows.

use super::{snapshot, ViewError};
use crate::db::Dialect;
use crate::totals::MINUTE_MS;
use crate::Reads;

/// The counts behind the pace figure, at one moment.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PaceCounts {
    /// Messages due now (queued with their next attempt at or before now: their turn has come)
    /// or being sent. Held messages are not among them: nothing sends those until a person
    /// decides.
    pub due: i64,
    /// Queued messages whose next attempt is later: scheduled for later, or waiting for a retry.
    pub scheduled: i64,
    /// When the first of those is due.
    pub next_scheduled_at_ms: Option<i64>,
    /// Submits accepted in the UTC minute before the current one.
    pub accepted_previous_minute: i64,
    /// Submits accepted so far in the current UTC minute.
    pub accepted_this_minute: i64,
}

/// The counts at `now_ms`, from one snapshot.
pub fn pace_counts(c: &impl Reads, now_ms: i64) -> Result<PaceCounts, ViewError> {
    let minute = now_ms - now_ms.rem_euclid(MINUTE_MS);
    // SQLite is told to count in the claim index; PostgreSQL has no INDEXED BY and picks it itself.
    let later = match c.db().dialect() {
        Dialect::Sqlite => {
            "SELECT count(*), min(next_attempt_at) FROM queue INDEXED BY queue_claim
                 WHERE status = 'queued' AND next_attempt_at > ?1"
        }
        Dialect::Postgres => {
            "SELECT count(*), min(next_attempt_at) FROM queue WHERE status = 'queued' AND next_attempt_at > ?1"
        }
    };
    snapshot(c.db(), |db| {
        let waiting: i64 = db.one(
            "SELECT coalesce(sum(n), 0) FROM view_count WHERE scope = 'queue' AND value IN ('queued', 'sending')",
            &[],
        )?;
        let (scheduled, next_scheduled_at_ms): (i64, Option<i64>) =
            db.query_row(later, &[&now_ms], |r| Ok((r.get(0)?, r.get(1)?)))?;
        let accepted = |bucket: i64| -> Result<i64, ViewError> {
            Ok(db.one(
                "SELECT coalesce(max(n), 0) FROM activity_count WHERE grain = ?1 AND bucket = ?2 AND metric = 'accepted'",
                &[&MINUTE_MS, &bucket],
            )?)
        };
        Ok(PaceCounts {
            due: (waiting - scheduled).max(0),
            scheduled,
            next_scheduled_at_ms,
            accepted_previous_minute: accepted(minute - MINUTE_MS)?,
            accepted_this_minute: accepted(minute)?,
        })
    })
}
