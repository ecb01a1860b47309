//! Invariants of the stored data as queries that must answer nothing: for tests, and for whoever
//! checks a database by hand. They run on both stores and print the same lines for the same data.

use crate::reports::Shown;
use crate::{Reads, StoreError};

/// The messages whose queue row does not name their last accepted submit (the accepted attempt
/// with the highest id) and its time as the attempts themselves say: what must stay empty.
pub fn accepted_submits_disagreeing(conn: &impl Reads) -> Result<Vec<i64>, StoreError> {
    conn.db().query(
        "SELECT q.message_id FROM queue q
         LEFT JOIN attempt a
             ON a.id = (SELECT max(id) FROM attempt WHERE message_id = q.message_id AND outcome = 'accepted')
         WHERE q.accepted_attempt_id IS DISTINCT FROM a.id
            OR q.accepted_at IS DISTINCT FROM coalesce(a.responded_at, a.sent_at, a.created_at)
         ORDER BY q.message_id",
        &[],
        |r| r.get(0),
    )
}

/// The running totals as stored: one line per non-zero row of `activity_count`, `activity_latency`,
/// `activity_outcome`, of `view_count` for queue statuses, projections, messages and the clock's
/// steps back, and of the delivery report's `report_hour`.
pub fn totals_stored(conn: &impl Reads) -> Result<Vec<String>, StoreError> {
    let db = conn.db();
    let mut out = Vec::new();
    for q in [
        "SELECT 'count', grain, bucket, metric, n FROM activity_count WHERE n <> 0 ORDER BY 2, 3, 4",
        "SELECT 'latency', grain, bucket, latency_ms, n FROM activity_latency WHERE n <> 0 ORDER BY 2, 3, 4",
        "SELECT 'outcome', 0, day, outcome, n FROM activity_outcome WHERE n <> 0 ORDER BY 3, 4",
        "SELECT 'state', 0, 0, value, n FROM view_count WHERE scope = 'projection' AND n <> 0 ORDER BY 4",
        "SELECT 'queue', 0, 0, value, n FROM view_count WHERE scope = 'queue' AND n <> 0 ORDER BY 4",
        "SELECT 'view', 0, 0, scope || '/' || value, n FROM view_count
         WHERE (scope = 'message' OR scope = 'clock') AND n <> 0 ORDER BY 4",
    ] {
        out.extend(db.query(q, &[], |r| {
            Ok(format!(
                "{} {} {} {} {}",
                r.get::<String>(0)?,
                r.get::<i64>(1)?,
                r.get::<i64>(2)?,
                r.get::<Shown>(3)?.0,
                r.get::<i64>(4)?
            ))
        })?);
    }
    out.extend(crate::reports::stored(conn)?);
    Ok(out)
}

/// The running totals recomputed from the rows they count (by [`crate::totals::refill`]), in a
/// savepoint that is undone: what is stored is left as it was. Equal to [`totals_stored`] when the
/// totals kept are right. On PostgreSQL it must run in a transaction (a write, or
/// [`crate::db::Db::transaction`]): a savepoint there does not begin one, as SQLite's does.
pub fn totals_recomputed(conn: &impl Reads) -> Result<Vec<String>, StoreError> {
    let db = conn.db();
    db.execute_batch("SAVEPOINT recompute")?;
    let out = crate::totals::refill(conn)
        .and_then(|()| crate::reports::refill(conn))
        .and_then(|()| totals_stored(conn));
    db.execute_batch("ROLLBACK TO recompute; RELEASE recompute")?;
    out
}

#[cfg(test)]
#[path = "checks_tests.rs"]
mod tests;
