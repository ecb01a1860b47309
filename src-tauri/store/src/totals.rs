//! Running totals the writer keeps for the dashboard: receipts received, submits answered and
//! receipt latency by minute, hour and day (`activity_count`, `activity_latency`), messages created
//! by minute, hour and day (`activity_count`, metric 'created'), messages by outcome and by day of
//! creation (`activity_outcome`), and messages in all, queue rows by status, projections by state
//! and the steps back of the clock (`view_count`).
//!
//! Receipt ingestion changes these on every receipt, intake on every message, sending on every
//! try and status change. Schema version 5 kept them with triggers, three to eight upserts per
//! receipt, three per message, two statements per status change and three upserts per answered
//! try; now each write that changes a total records what it adds here
//! ([`WriteTx::count`](super::WriteTx::count)), and the writer adds the sums of the whole
//! transaction just before it commits: a few upserts per transaction instead of per row. The
//! totals stay exact and in step: they are written in the same transaction as the rows they count,
//! and what a rolled-back savepoint recorded is dropped with it.
//!
//! What each total means, and the SQL that recomputes it from the evidence, are in
//! `migrations/0005_activity.sql` (and `0012_created_totals.sql` for the messages created, [`refill`]
//! for all of them). The triggers that remain (rows deleted; a queue row's move to or from not
//! sent, which reads the message's projection) still keep their parts.

use std::collections::BTreeMap;

use crate::db::{Db, Dialect, Param, Value};
use crate::{Reads, StoreError};
use smsdesk_core::domain::{AttemptOutcome, QueueStatus};

pub const MINUTE_MS: i64 = 60_000;
pub const HOUR_MS: i64 = 3_600_000;
pub const DAY_MS: i64 = 86_400_000;

/// The bucket widths of `activity_count` and `activity_latency`, in ms: a minute, an hour, a day
/// (the rows of `activity_grain`, and the widths the charts read).
const GRAINS: [i64; 3] = [MINUTE_MS, HOUR_MS, DAY_MS];

/// One change to a running total.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Delta {
    /// A report received at `at` (ms) that is not an incoming message.
    Receipt { at: i64 },
    /// A message's first final receipt, received at `at`, `ms` after its accepted submit.
    Latency { at: i64, ms: i64 },
    /// `n` more (or fewer) messages created at `created_at` stand at `outcome`.
    Outcome {
        created_at: i64,
        outcome: &'static str,
        n: i64,
    },
    /// `n` more (or fewer) projections stand at `state`.
    ProjectionState { state: &'static str, n: i64 },
    /// Message `id` was written, created at `created_at`.
    Created { id: i64, created_at: i64 },
    /// `n` more (or fewer) queue rows stand at `status`.
    Queue { status: QueueStatus, n: i64 },
    /// `n` more (or fewer) tries, written at `created_at`, ended with `outcome`.
    Tried {
        created_at: i64,
        outcome: AttemptOutcome,
        n: i64,
    },
}

/// The `activity_count` metric a try's outcome counts under: none while it is unanswered or when
/// it was never written (migration 5's rule).
fn answered(outcome: AttemptOutcome) -> Option<&'static str> {
    match outcome {
        AttemptOutcome::Pending | AttemptOutcome::NotSent => None,
        AttemptOutcome::Accepted => Some("accepted"),
        AttemptOutcome::Temporary | AttemptOutcome::Throttled | AttemptOutcome::Permanent => Some("refused"),
        AttemptOutcome::Timeout | AttemptOutcome::LinkLost => Some("unknown"),
    }
}

/// The changes recorded since the transaction began.
#[derive(Debug, Default)]
pub(crate) struct Totals {
    deltas: Vec<Delta>,
}

impl Totals {
    pub(crate) fn push(&mut self, d: Delta) {
        self.deltas.push(d);
    }

    pub(crate) fn len(&self) -> usize {
        self.deltas.len()
    }

    /// Drops what was recorded after `mark` (a rolled-back savepoint's part).
    pub(crate) fn truncate(&mut self, mark: usize) {
        self.deltas.truncate(mark);
    }

    pub(crate) fn clear(&mut self) {
        self.deltas.clear();
    }

    /// Adds the recorded changes to the tables, summed: one upsert per bucket touched. Run in the
    /// transaction that recorded them, just before it commits.
    pub(crate) fn flush(&mut self, conn: Db<'_>) -> Result<(), StoreError> {
        let mut sums = Sums::default();
        let mut created = Vec::new();
        for d in self.deltas.drain(..) {
            sums.add(d);
            if let Delta::Created { id, created_at } = d {
                created.push((id, created_at));
            }
        }
        let backwards = steps_back(conn, created)?;
        if backwards > 0 {
            *sums.views.entry(("clock", "backwards")).or_default() += backwards;
        }
        sums.write(conn)
    }
}

/// A transaction's changes, summed by the row of the table they go to.
#[derive(Default)]
struct Sums {
    /// `activity_count`: (grain, bucket, metric).
    counts: BTreeMap<(i64, i64, &'static str), i64>,
    /// `activity_latency`: (grain, bucket, latency).
    latencies: BTreeMap<(i64, i64, i64), i64>,
    /// `activity_outcome`: (day, outcome).
    outcomes: BTreeMap<(i64, &'static str), i64>,
    /// `view_count`: (scope, value).
    views: BTreeMap<(&'static str, &'static str), i64>,
}

impl Sums {
    fn add(&mut self, d: Delta) {
        match d {
            Delta::Receipt { at } => {
                for g in GRAINS {
                    *self.counts.entry((g, at - at % g, "receipt")).or_default() += 1;
                }
            }
            Delta::Latency { at, ms } => {
                let latency_ms = latency_bin(ms);
                for g in GRAINS {
                    *self.latencies.entry((g, at - at % g, latency_ms)).or_default() += 1;
                }
            }
            Delta::Outcome { created_at, outcome, n } => {
                *self
                    .outcomes
                    .entry((created_at - created_at % DAY_MS, outcome))
                    .or_default() += n;
            }
            Delta::ProjectionState { state, n } => *self.views.entry(("projection", state)).or_default() += n,
            Delta::Created { created_at, .. } => {
                for g in GRAINS {
                    *self
                        .counts
                        .entry((g, created_at - created_at % g, "created"))
                        .or_default() += 1;
                }
                *self
                    .outcomes
                    .entry((created_at - created_at % DAY_MS, "created"))
                    .or_default() += 1;
                *self.views.entry(("message", "all")).or_default() += 1;
            }
            Delta::Queue { status, n } => *self.views.entry(("queue", status.as_str())).or_default() += n,
            Delta::Tried { created_at, outcome, n } => {
                if let Some(metric) = answered(outcome) {
                    for g in GRAINS {
                        *self.counts.entry((g, created_at - created_at % g, metric)).or_default() += n;
                    }
                }
            }
        }
    }

    fn write(self, conn: Db<'_>) -> Result<(), StoreError> {
        upsert(
            conn,
            "INSERT INTO activity_count (grain, bucket, metric, n) VALUES (?1, ?2, ?3, ?4)
             ON CONFLICT (grain, bucket, metric) DO UPDATE SET n = activity_count.n + excluded.n",
            self.counts
                .into_iter()
                .map(|((g, b, m), n)| (vec![Value::Int(g), Value::Int(b), Value::Text(m), Value::Int(n)], n)),
        )?;
        upsert(
            conn,
            "INSERT INTO activity_latency (grain, bucket, latency_ms, n) VALUES (?1, ?2, ?3, ?4)
             ON CONFLICT (grain, bucket, latency_ms) DO UPDATE SET n = activity_latency.n + excluded.n",
            self.latencies
                .into_iter()
                .map(|((g, b, l), n)| (vec![Value::Int(g), Value::Int(b), Value::Int(l), Value::Int(n)], n)),
        )?;
        upsert(
            conn,
            "INSERT INTO activity_outcome (day, outcome, n) VALUES (?1, ?2, ?3)
             ON CONFLICT (day, outcome) DO UPDATE SET n = activity_outcome.n + excluded.n",
            self.outcomes
                .into_iter()
                .map(|((d, o), n)| (vec![Value::Int(d), Value::Text(o), Value::Int(n)], n)),
        )?;
        upsert(
            conn,
            "INSERT INTO view_count (scope, value, n) VALUES (?1, ?2, ?3)
             ON CONFLICT (scope, value) DO UPDATE SET n = view_count.n + excluded.n",
            self.views
                .into_iter()
                .map(|((s, v), n)| (vec![Value::Text(s), Value::Text(v), Value::Int(n)], n)),
        )
    }
}

/// Runs `sql` once for each row whose addition is not zero.
fn upsert<'v>(conn: Db<'_>, sql: &str, rows: impl Iterator<Item = (Vec<Value<'v>>, i64)>) -> Result<(), StoreError> {
    for (values, _) in rows.filter(|(_, n)| *n != 0) {
        let params: Vec<&dyn Param> = values.iter().map(|v| v as &dyn Param).collect();
        conn.execute(sql, &params)?;
    }
    Ok(())
}

/// How many of the messages a transaction wrote (ids and creation times) were created before a
/// message written ahead of them (the clock was set back): the count that tells the message list
/// whether creation times still follow ids (`view_count` 'clock'/'backwards', migration 3). One
/// index probe per transaction: the latest creation time among the messages written before it,
/// found from the top of `message_created`, past this transaction's own rows only.
fn steps_back(conn: Db<'_>, mut created: Vec<(i64, i64)>) -> Result<i64, StoreError> {
    created.sort_unstable();
    let Some(&(first, _)) = created.first() else {
        return Ok(0);
    };
    // SQLite's statement names the index the probe starts from; PostgreSQL has no such clause
    // and plans it from its statistics.
    let sql = match conn.dialect() {
        Dialect::Sqlite => {
            "SELECT created_at FROM message INDEXED BY message_created WHERE id < ?1
             ORDER BY created_at DESC LIMIT 1"
        }
        Dialect::Postgres => "SELECT created_at FROM message WHERE id < ?1 ORDER BY created_at DESC LIMIT 1",
    };
    let mut latest: Option<i64> = conn.query_opt(sql, &[&first], |r| r.get(0))?;
    let mut backwards = 0;
    for (_, at) in created {
        if latest.is_some_and(|l| at < l) {
            backwards += 1;
        }
        latest = Some(latest.map_or(at, |l| l.max(at)));
    }
    Ok(backwards)
}

/// A latency as the totals keep it: two significant digits, rounded down (the rule the SQL of
/// schema version 5 applies to the rows it fills).
pub fn latency_bin(ms: i64) -> i64 {
    let ms = ms.max(0);
    let mut step = 1;
    while ms >= step * 100 && step < 100_000_000 {
        step *= 10;
    }
    ms - ms % step
}

/// Recomputes every running total from the rows it counts, in place of what is stored ([`FILL`],
/// and in `view_count` the counts of queue rows by status, of projections by state, of messages and
/// of the clock's steps back). For fixtures written with plain SQL, and to check the totals kept; the engine keeps them
/// as it writes.
///
/// One difference with the totals kept as rows are written: a first final that an operator's
/// decision later replaced was counted in the latency totals when it arrived, and is not here.
pub fn refill(conn: &impl Reads) -> Result<(), StoreError> {
    let db = conn.db();
    // The first event a projection rests on, from its JSON array of ids, each store its own way.
    let first_supporting = match db.dialect() {
        Dialect::Sqlite => "json_extract(p.supporting_json, '$[0]')",
        Dialect::Postgres => "CAST(CAST(p.supporting_json AS JSON) ->> 0 AS BIGINT)",
    };
    db.execute_batch(&format!(
        "DELETE FROM activity_count; DELETE FROM activity_latency; DELETE FROM activity_outcome;
         DELETE FROM view_count WHERE scope IN ('queue', 'projection', 'message', 'clock');
         INSERT INTO view_count (scope, value, n) SELECT 'queue', status, count(*) FROM queue GROUP BY status;
         INSERT INTO view_count (scope, value, n) SELECT 'projection', state, count(*) FROM projection GROUP BY state;
         INSERT INTO view_count (scope, value, n) SELECT 'message', 'all', count(*) FROM message;
         {BACKWARDS}
         {}",
        FILL.replace("{first_supporting}", first_supporting)
    ))
}

/// How many messages were created before a message written ahead of them (migration 3's
/// statement).
const BACKWARDS: &str = "
INSERT INTO view_count (scope, value, n)
SELECT 'clock', 'backwards', count(*) FROM (
    SELECT created_at,
           max(created_at) OVER (ORDER BY id ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS before
    FROM message
) AS w WHERE created_at < before;
";

/// The totals of every row, as the current schema defines them (version 5's statements, with a
/// try never written left out and a long message whose parts all have their finals counted as a
/// first final, as version 9 does, and version 12's messages created by minute, hour and day).
/// `{first_supporting}` is the first id of a projection's `supporting_json`, as [`refill`]'s
/// store reads it. The same text otherwise runs on both stores (`CASE` for SQLite's scalar
/// `max(a, b)`, and every subquery named, as PostgreSQL requires).
const FILL: &str = "
INSERT INTO activity_count (grain, bucket, metric, n)
SELECT g.grain, a.created_at - a.created_at % g.grain,
       CASE WHEN a.outcome = 'accepted' THEN 'accepted'
            WHEN (a.outcome = 'temporary' OR a.outcome = 'throttled' OR a.outcome = 'permanent') THEN 'refused'
            ELSE 'unknown' END AS metric,
       count(*)
FROM attempt a, activity_grain g
WHERE a.outcome <> 'pending' AND a.outcome <> 'not_sent'
GROUP BY 1, 2, 3;

INSERT INTO activity_count (grain, bucket, metric, n)
SELECT g.grain, r.received_at - r.received_at % g.grain, 'receipt', count(*)
FROM receipt r, activity_grain g
WHERE r.kind <> 'mo'
GROUP BY 1, 2;

INSERT INTO activity_latency (grain, bucket, latency_ms, n)
SELECT g.grain, l.at - l.at % g.grain,
       CASE WHEN l.ms < 100 THEN l.ms
            WHEN l.ms < 1000 THEN l.ms - l.ms % 10
            WHEN l.ms < 10000 THEN l.ms - l.ms % 100
            WHEN l.ms < 100000 THEN l.ms - l.ms % 1000
            WHEN l.ms < 1000000 THEN l.ms - l.ms % 10000
            WHEN l.ms < 10000000 THEN l.ms - l.ms % 100000
            WHEN l.ms < 100000000 THEN l.ms - l.ms % 1000000
            WHEN l.ms < 1000000000 THEN l.ms - l.ms % 10000000
            ELSE l.ms - l.ms % 100000000 END AS latency,
       count(*)
FROM activity_grain g,
     (SELECT rc.received_at AS at,
             CASE WHEN rc.received_at - coalesce(a.responded_at, a.sent_at, a.created_at) > 0
                  THEN rc.received_at - coalesce(a.responded_at, a.sent_at, a.created_at) ELSE 0 END AS ms
      FROM projection p
      JOIN logical_event e ON e.id = {first_supporting}
      JOIN receipt rc ON rc.id = e.first_receipt_id
      JOIN (SELECT message_id, max(id) AS id FROM attempt WHERE outcome = 'accepted' GROUP BY message_id) last
        ON last.message_id = p.message_id
      JOIN attempt a ON a.id = last.id
      WHERE p.rule = 'first_final' OR p.rule = 'parts_final') l
GROUP BY 1, 2, 3;

INSERT INTO activity_count (grain, bucket, metric, n)
SELECT 60000, created_at - created_at % 60000, 'created', count(*) FROM message GROUP BY 2;
INSERT INTO activity_count (grain, bucket, metric, n)
SELECT 3600000, bucket - bucket % 3600000, 'created', sum(n) FROM activity_count
WHERE grain = 60000 AND metric = 'created' GROUP BY 2;
INSERT INTO activity_count (grain, bucket, metric, n)
SELECT 86400000, bucket - bucket % 86400000, 'created', sum(n) FROM activity_count
WHERE grain = 3600000 AND metric = 'created' GROUP BY 2;

INSERT INTO activity_outcome (day, outcome, n)
SELECT created_at - created_at % 86400000, 'created', count(*) FROM message GROUP BY 1;

INSERT INTO activity_outcome (day, outcome, n)
SELECT day, outcome, count(*)
FROM (SELECT m.created_at - m.created_at % 86400000 AS day,
             CASE WHEN p.rule = 'operator_decision' THEN 'decided'
                  WHEN p.rule = 'first_final' OR p.rule = 'parts_final' THEN
                      CASE p.state WHEN 'delivered' THEN 'delivered' WHEN 'expired' THEN 'expired' ELSE 'failed' END
                  WHEN (q.status = 'failed' OR q.status = 'cancelled' OR q.status = 'expired') THEN 'not_sent'
                  WHEN p.flag_no_receipt = 1 THEN 'no_receipt'
                  ELSE 'pending' END AS outcome
      FROM message m LEFT JOIN queue q ON q.message_id = m.id LEFT JOIN projection p ON p.message_id = m.id) AS o
WHERE outcome <> 'pending'
GROUP BY 1, 2;
";
