//! Running totals the writer keeps for the dashboard: receipts received and receipt latency by
//! minute, hour and day (`activity_count`, `activity_latency`), messages by outcome and by day of
//! creation (`activity_outcome`), and projections by state (`view_count`).
//!
//! Receipt ingestion changes these on every receipt. Schema version 5 kept them with triggers,
//! three to eight upserts per receipt; now each write that changes a total records what it adds
//! here ([`WriteTx::count`](super::WriteTx::count)), and the writer adds the sums of the whole
//! transaction just before it commits: a few upserts per transaction instead of per receipt. The
//! totals stay exact and in step: they are written in the same transaction as the rows they
//! count, and what a rolled-back savepoint recorded is dropped with it.
//!
//! What each total means, and the SQL that recomputes it from the evidence, are in
//! `migrations/0005_activity.sql`; the triggers that remain there (submits, messages, queue
//! statuses) still keep their parts.

use std::collections::BTreeMap;

use rusqlite::{params, Connection};

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
    pub(crate) fn flush(&mut self, conn: &Connection) -> rusqlite::Result<()> {
        let mut counts: BTreeMap<(i64, i64), i64> = BTreeMap::new();
        let mut latencies: BTreeMap<(i64, i64, i64), i64> = BTreeMap::new();
        let mut outcomes: BTreeMap<(i64, &'static str), i64> = BTreeMap::new();
        let mut states: BTreeMap<&'static str, i64> = BTreeMap::new();
        for d in self.deltas.drain(..) {
            match d {
                Delta::Receipt { at } => {
                    for g in GRAINS {
                        *counts.entry((g, at - at % g)).or_default() += 1;
                    }
                }
                Delta::Latency { at, ms } => {
                    let latency_ms = latency_bin(ms);
                    for g in GRAINS {
                        *latencies.entry((g, at - at % g, latency_ms)).or_default() += 1;
                    }
                }
                Delta::Outcome { created_at, outcome, n } => {
                    *outcomes.entry((created_at - created_at % DAY_MS, outcome)).or_default() += n;
                }
                Delta::ProjectionState { state, n } => *states.entry(state).or_default() += n,
            }
        }
        if !counts.is_empty() {
            let mut s = conn.prepare_cached(
                "INSERT INTO activity_count (grain, bucket, metric, n) VALUES (?1, ?2, 'receipt', ?3)
                 ON CONFLICT (grain, bucket, metric) DO UPDATE SET n = n + excluded.n",
            )?;
            for ((grain, bucket), n) in counts {
                s.execute(params![grain, bucket, n])?;
            }
        }
        if !latencies.is_empty() {
            let mut s = conn.prepare_cached(
                "INSERT INTO activity_latency (grain, bucket, latency_ms, n) VALUES (?1, ?2, ?3, ?4)
                 ON CONFLICT (grain, bucket, latency_ms) DO UPDATE SET n = n + excluded.n",
            )?;
            for ((grain, bucket, latency), n) in latencies {
                s.execute(params![grain, bucket, latency, n])?;
            }
        }
        let outcomes: Vec<_> = outcomes.into_iter().filter(|(_, n)| *n != 0).collect();
        if !outcomes.is_empty() {
            let mut s = conn.prepare_cached(
                "INSERT INTO activity_outcome (day, outcome, n) VALUES (?1, ?2, ?3)
                 ON CONFLICT (day, outcome) DO UPDATE SET n = n + excluded.n",
            )?;
            for ((day, outcome), n) in outcomes {
                s.execute(params![day, outcome, n])?;
            }
        }
        let states: Vec<_> = states.into_iter().filter(|(_, n)| *n != 0).collect();
        if !states.is_empty() {
            let mut s = conn.prepare_cached(
                "INSERT INTO view_count (scope, value, n) VALUES ('projection', ?1, ?2)
                 ON CONFLICT (scope, value) DO UPDATE SET n = n + excluded.n",
            )?;
            for (state, n) in states {
                s.execute(params![state, n])?;
            }
        }
        Ok(())
    }
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
/// and for projections by state a count of them). For fixtures written with plain SQL, and to
/// check the totals kept; the engine keeps them as it writes.
///
/// One difference with the totals kept as rows are written: a first final that an operator's
/// decision later replaced was counted in the latency totals when it arrived, and is not here.
pub fn refill(c: &Connection) -> rusqlite::Result<()> {
    c.execute_batch(&format!(
        "DELETE FROM activity_count; DELETE FROM activity_latency; DELETE FROM activity_outcome;
         DELETE FROM view_count WHERE scope = 'projection';
         INSERT INTO view_count (scope, value, n) SELECT 'projection', state, count(*) FROM projection GROUP BY state;
         {FILL}"
    ))
}

/// The totals of every row, as the current schema defines them (version 5's statements, with a
/// try never written left out and a long message whose parts all have their finals counted as a
/// first final, as version 9 does).
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
             max(rc.received_at - coalesce(a.responded_at, a.sent_at, a.created_at), 0) AS ms
      FROM projection p
      JOIN logical_event e ON e.id = json_extract(p.supporting_json, '$[0]')
      JOIN receipt rc ON rc.id = e.first_receipt_id
      JOIN (SELECT message_id, max(id) AS id FROM attempt WHERE outcome = 'accepted' GROUP BY message_id) last
        ON last.message_id = p.message_id
      JOIN attempt a ON a.id = last.id
      WHERE p.rule = 'first_final' OR p.rule = 'parts_final') l
GROUP BY 1, 2, 3;

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
      FROM message m LEFT JOIN queue q ON q.message_id = m.id LEFT JOIN projection p ON p.message_id = m.id)
WHERE outcome <> 'pending'
GROUP BY 1, 2;
";
