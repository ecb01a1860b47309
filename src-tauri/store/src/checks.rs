//! Invariants of the stored data as queries that must answer nothing: for tests, and for whoever
//! checks a database by hand.

use rusqlite::Connection;

/// The messages whose queue row does not name their last accepted submit (the accepted attempt
/// with the highest id) and its time as the attempts themselves say: what must stay empty.
pub fn accepted_submits_disagreeing(conn: &Connection) -> rusqlite::Result<Vec<i64>> {
    conn.prepare(
        "SELECT q.message_id FROM queue q
         LEFT JOIN attempt a
             ON a.id = (SELECT max(id) FROM attempt WHERE message_id = q.message_id AND outcome = 'accepted')
         WHERE q.accepted_attempt_id IS NOT a.id
            OR q.accepted_at IS NOT coalesce(a.responded_at, a.sent_at, a.created_at)
         ORDER BY q.message_id",
    )?
    .query_map([], |r| r.get(0))?
    .collect()
}

/// The running totals as stored: one line per non-zero row of `activity_count`, `activity_latency`,
/// `activity_outcome`, of `view_count` for queue statuses, projections, messages and the clock's
/// steps back, and of the delivery report's `report_hour`.
pub fn totals_stored(c: &Connection) -> rusqlite::Result<Vec<String>> {
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
        let mut s = c.prepare(q)?;
        let rows = s.query_map([], |r| {
            Ok(format!(
                "{} {} {} {:?} {}",
                r.get::<_, String>(0)?,
                r.get::<_, i64>(1)?,
                r.get::<_, i64>(2)?,
                r.get::<_, rusqlite::types::Value>(3)?,
                r.get::<_, i64>(4)?
            ))
        })?;
        for row in rows {
            out.push(row?);
        }
    }
    out.extend(crate::reports::stored(c)?);
    Ok(out)
}

/// The running totals recomputed from the rows they count (by [`crate::totals::refill`]), in a
/// savepoint that is undone: what is stored is left as it was. Equal to [`totals_stored`] when the
/// totals kept are right.
pub fn totals_recomputed(c: &Connection) -> rusqlite::Result<Vec<String>> {
    c.execute_batch("SAVEPOINT recompute")?;
    let out = crate::totals::refill(c)
        .and_then(|()| crate::reports::refill(c))
        .and_then(|()| totals_stored(c));
    c.execute_batch("ROLLBACK TO recompute; RELEASE recompute")?;
    out
}
