//! What the pace of sending is measured from: the messages the dispatcher will still send, and the
//! submits the SMSC accepted in this minute and the one before. Both come from running totals
//! (`view_count`, `activity_count` at the minute grain), so reading them costs a few index probes
//! whatever the size of the queue.

use rusqlite::{params, Connection};

use super::{snapshot, ViewError};
use crate::totals::MINUTE_MS;

/// The counts behind the pace figure, at one moment.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PaceCounts {
    /// Messages queued (waiting for their turn, their scheduled time or a retry) or being sent.
    /// Held messages are not among them: nothing sends those until a person decides.
    pub waiting: i64,
    /// Submits accepted in the UTC minute before the current one.
    pub accepted_previous_minute: i64,
    /// Submits accepted so far in the current UTC minute.
    pub accepted_this_minute: i64,
}

/// The counts at `now_ms`, from one snapshot.
pub fn pace_counts(c: &Connection, now_ms: i64) -> Result<PaceCounts, ViewError> {
    let minute = now_ms - now_ms.rem_euclid(MINUTE_MS);
    snapshot(c, |c| {
        let waiting: i64 = c
            .prepare_cached(
                "SELECT coalesce(sum(n), 0) FROM view_count WHERE scope = 'queue' AND value IN ('queued', 'sending')",
            )?
            .query_row([], |r| r.get(0))?;
        let accepted = |bucket: i64| -> Result<i64, ViewError> {
            Ok(c.prepare_cached(
                "SELECT coalesce(max(n), 0) FROM activity_count WHERE grain = ?1 AND bucket = ?2 AND metric = 'accepted'",
            )?
            .query_row(params![MINUTE_MS, bucket], |r| r.get(0))?)
        };
        Ok(PaceCounts {
            waiting,
            accepted_previous_minute: accepted(minute - MINUTE_MS)?,
            accepted_this_minute: accepted(minute)?,
        })
    })
}
