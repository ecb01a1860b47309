//! The delivery report's aggregates (migration 26): where each message stands in the report
//! (`report_entry`) and their sums by hour and by every dimension (`report_hour`).
//!
//! Every write of this crate that may move a message in the report notes the message
//! ([`WriteTx::report_changed`]); [`flush`], run by the writer just before it commits (with the
//! running totals), takes what those messages counted out of `report_hour`, computes their
//! entries again by [`ENTRY`] and adds them back. Whatever wrote the change, one rule computes the
//! entry, in the same transaction, so the report is exact whenever a transaction is. A message
//! written by intake gets its entry at once ([`entered`]). [`refill`] computes both tables from the
//! messages alone (for a check, or after a repair).

use std::collections::BTreeSet;

use crate::db::{Db, Dialect, FromValue, Value};
use smsdesk_core::domain::IntakeChannel;
use smsdesk_core::message::NewMessage;

use crate::totals::HOUR_MS;
use crate::{Reads, StoreError, Text, WriteTx};

/// The dimensions a report groups by: the columns of `report_entry` and `report_hour` besides the
/// hour, the counts and the latencies, in the order of `report_hour`'s key.
pub const DIMENSIONS: [&str; 8] = [
    "kind",
    "connection",
    "route",
    "country",
    "sender",
    "outcome",
    "command_status",
    "error_code",
];

/// A message's outcome in the report: exactly one of these.
pub const OUTCOMES: [&str; 7] = [
    "delivered",
    "failed",
    "expired",
    "cancelled",
    "no_receipt",
    "unknown",
    "pending",
];

/// The upper bounds (ms) of the receipt-latency buckets `l0` to `l14`; `l15` holds the rest.
pub const LATENCY_BOUNDS: [i64; 15] = [
    1_000, 2_000, 5_000, 10_000, 20_000, 30_000, 60_000, 120_000, 300_000, 600_000, 1_800_000, 3_600_000, 7_200_000,
    21_600_000, 86_400_000,
];

/// What the last bucket stands for when a percentile falls in it: more than a day, read as a week.
pub const LATENCY_BEYOND: i64 = 604_800_000;

/// A message's entry, computed from its rows: `{ids}` is replaced by the ids to compute (a
/// subquery), so the same rule serves the writer and the refill.
///
/// - connection: the one of its last accepted submit, else of its last try that was written,
///   else none ('').
/// - country: as intake read it with the number, else read here (messages from before).
/// - sender: `key:<id>` for an API key, `csv` for a CSV import, `cli` for the command line,
///   `person:<login>` for the compose form.
/// - outcome: a final (or an operator's decision) by its state: delivered, expired, or failed for
///   every other final; else the queue's end: failed (refused), expired (validity over before it
///   was sent), cancelled; `unknown` while an answer was lost; `no_receipt` once the deadline for
///   a receipt passed; `pending` for everything else.
/// - command_status: the SMPP status of its last answered submit (0 when accepted), -1 for none.
/// - error_code: the `err` of the receipt its final rests on, '' for none.
/// - latency_ms: from the answer to its last accepted submit to the arrival of the receipt its
///   first final rests on (as the dashboard's latency counts it).
/// - cost: its parts times the price per part (`message_price`, priced at intake) of its
///   connection, else of the one it was queued for; 0 when neither has a price for its number, and
///   for a message refused, cancelled or expired before any SMSC took it.
const ENTRY: &str = "
SELECT m.id,
       m.created_at - m.created_at % 3600000,
       m.kind,
       coalesce(acc.connection,
                (SELECT a.connection FROM attempt a WHERE a.id =
                     (SELECT max(l.id) FROM attempt l WHERE l.message_id = m.id AND l.outcome <> 'not_sent')),
                ''),
       coalesce(q.route, ''),
       coalesce(m.country, {country_of_destination}''),
       CASE WHEN m.api_key_id IS NOT NULL THEN 'key:' || m.api_key_id
            WHEN m.channel = 'csv' THEN 'csv'
            WHEN m.channel = 'cli' THEN 'cli'
            ELSE 'person:' || coalesce(m.submitted_by, '') END,
       CASE WHEN p.rule IN ('first_final', 'parts_final', 'operator_decision') THEN
                CASE p.state WHEN 'delivered' THEN 'delivered' WHEN 'expired' THEN 'expired' ELSE 'failed' END
            WHEN q.status = 'failed' THEN 'failed'
            WHEN q.status = 'expired' THEN 'expired'
            WHEN q.status = 'cancelled' THEN 'cancelled'
            WHEN q.status = 'outcome_unknown' THEN 'unknown'
            WHEN p.flag_no_receipt = 1 THEN 'no_receipt'
            ELSE 'pending' END,
       coalesce((SELECT a.command_status FROM attempt a WHERE a.id =
                     (SELECT max(l.id) FROM attempt l WHERE l.message_id = m.id AND l.command_status IS NOT NULL)),
                -1),
       coalesce(fe.err, ''),
       m.segments,
       rc.received_at - q.accepted_at,
       CASE WHEN q.accepted_attempt_id IS NULL AND q.status IN ('failed', 'cancelled', 'expired') THEN 0
            ELSE m.segments * coalesce(
                (SELECT mp.price FROM message_price mp WHERE mp.message_id = m.id AND mp.connection =
                     coalesce(acc.connection,
                              (SELECT a.connection FROM attempt a WHERE a.id =
                                   (SELECT max(l.id) FROM attempt l
                                    WHERE l.message_id = m.id AND l.outcome <> 'not_sent')))),
                (SELECT mp.price FROM message_price mp WHERE mp.message_id = m.id AND mp.connection = m.connection),
                0) END
FROM message m
LEFT JOIN queue q ON q.message_id = m.id
LEFT JOIN attempt acc ON acc.id = q.accepted_attempt_id
LEFT JOIN projection p ON p.message_id = m.id
-- The event a first final (of every part) rests on, and its first receipt.
LEFT JOIN logical_event fe
    ON p.rule IN ('first_final', 'parts_final') AND fe.id = {first_supporting}
LEFT JOIN receipt rc ON rc.id = fe.first_receipt_id
WHERE m.id IN ({ids})";

const ENTRY_COLUMNS: &str = "message_id, hour, kind, connection, route, country, sender, outcome, \
                             command_status, error_code, parts, latency_ms, cost";

/// The latency bucket columns, `l0, l1, …, l15`.
fn latency_columns() -> String {
    (0..=LATENCY_BOUNDS.len())
        .map(|i| format!("l{i}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// `sign * count(*)`, `sign * sum(parts)`, `sign * sum(cost)` and, per latency bucket, `sign *` how many entries fall
/// in it: the sums one group of entries adds to `report_hour`.
fn sums(sign: i64) -> String {
    let mut out = vec![
        format!("{sign} * count(*)"),
        format!("{sign} * sum(parts)"),
        format!("{sign} * sum(cost)"),
    ];
    let mut low = None;
    for (i, high) in LATENCY_BOUNDS.iter().enumerate() {
        let above = low.map(|l| format!(" AND latency_ms > {l}")).unwrap_or_default();
        out.push(format!(
            "{sign} * count(CASE WHEN latency_ms <= {high}{above} THEN 1 END) AS l{i}"
        ));
        low = Some(*high);
    }
    let last = LATENCY_BOUNDS[LATENCY_BOUNDS.len() - 1];
    out.push(format!(
        "{sign} * count(CASE WHEN latency_ms > {last} THEN 1 END) AS l{}",
        LATENCY_BOUNDS.len()
    ));
    out.join(", ")
}

/// Adds `sign` times the entries `{where}` selects to `report_hour`.
fn add(sign: i64, filter: &str) -> String {
    let dims = DIMENSIONS.join(", ");
    let latencies = latency_columns();
    let updates: Vec<String> = ["messages".to_owned(), "parts".to_owned(), "cost".to_owned()]
        .into_iter()
        .chain((0..=LATENCY_BOUNDS.len()).map(|i| format!("l{i}")))
        .map(|c| format!("{c} = report_hour.{c} + excluded.{c}"))
        .collect();
    format!(
        "INSERT INTO report_hour (hour, {dims}, messages, parts, cost, {latencies})
         SELECT hour, {dims}, {sums} FROM report_entry {filter} GROUP BY hour, {dims}
         ON CONFLICT (hour, {dims}) DO UPDATE SET {updates}",
        sums = sums(sign),
        updates = updates.join(", ")
    )
}

/// Who handed a message in, as the report names them (the rule [`ENTRY`] applies to stored rows):
/// `key:<id>` for an API key, `csv`, `cli`, or `person:<login>`.
pub fn sender_of(m: &NewMessage) -> String {
    match (m.api_key_id, m.channel) {
        (Some(key), _) => format!("key:{key}"),
        (None, IntakeChannel::Csv) => "csv".to_owned(),
        (None, IntakeChannel::Cli) => "cli".to_owned(),
        (None, _) => format!("person:{}", m.submitted_by.as_deref().unwrap_or("")),
    }
}

/// Writes the entry of a message just written by intake, queued, with its country read
/// (`country`, "" for none), and adds it to the sums: what [`ENTRY`] computes for such a message,
/// without the writer reading its rows again.
pub(crate) fn entered(
    tx: &mut WriteTx<'_>,
    id: i64,
    m: &NewMessage,
    country: &str,
    now: i64,
) -> Result<(), StoreError> {
    let sender = sender_of(m);
    let hour = now - now.rem_euclid(HOUR_MS);
    let route = m.route.as_deref().unwrap_or("");
    // Not tried yet: priced on the connection it is queued for.
    let price = m.prices.iter().find(|(c, _)| *c == m.connection).map_or(0, |(_, p)| *p);
    let cost = i64::from(m.segments) * price;
    let c = tx.db();
    let kind = Text(m.kind);
    c.execute(
        &format!(
            "INSERT INTO report_entry ({ENTRY_COLUMNS})
             VALUES (?1, ?2, ?3, '', ?4, ?5, ?6, 'pending', -1, '', ?7, NULL, ?8)"
        ),
        &[&id, &hour, &kind, &route, &country, &sender, &m.segments, &cost],
    )?;
    c.execute(
        "INSERT INTO report_hour (hour, kind, connection, route, country, sender, outcome, command_status,
                                  error_code, messages, parts, cost)
         VALUES (?1, ?2, '', ?3, ?4, ?5, 'pending', -1, '', 1, ?6, ?7)
         ON CONFLICT (hour, kind, connection, route, country, sender, outcome, command_status, error_code)
         DO UPDATE SET messages = report_hour.messages + 1, parts = report_hour.parts + excluded.parts,
                       cost = report_hour.cost + excluded.cost",
        &[&hour, &kind, &route, &country, &sender, &m.segments, &cost],
    )?;
    Ok(())
}

/// Brings the entries and sums of the messages changed in this transaction (`changed`, noted by
/// the writes, and any noted in `report_dirty`) up to date, and forgets which they were. Cheap
/// when nothing changed (one lookup).
pub fn flush(c: Db<'_>, changed: &mut Vec<i64>) -> Result<(), StoreError> {
    let noted: bool = c.one("SELECT EXISTS (SELECT 1 FROM report_dirty)", &[])?;
    if changed.is_empty() && !noted {
        return Ok(());
    }
    let (ids, which) = match c.dialect() {
        Dialect::Sqlite => {
            changed.sort_unstable();
            changed.dedup();
            let ids = serde_json::to_string(&changed).expect("ids serialise");
            (
                ids,
                "SELECT value FROM json_each(?1) UNION SELECT message_id FROM report_dirty",
            )
        }
        Dialect::Postgres => {
            // The ids noted as an array literal, unnested: a few rows the planner reads by key.
            // (A set it cannot estimate, such as a JSON array's elements with `report_dirty`,
            // made it scan every table whole at each commit.)
            if noted {
                changed.extend(c.query("SELECT message_id FROM report_dirty", &[], |r| r.get::<i64>(0))?);
            }
            changed.sort_unstable();
            changed.dedup();
            let list: Vec<String> = changed.iter().map(i64::to_string).collect();
            (
                format!("{{{}}}", list.join(",")),
                "SELECT unnest(CAST(CAST(?1 AS TEXT) AS BIGINT[]))",
            )
        }
    };
    let filter = format!("WHERE message_id IN ({which})");
    c.execute(&add(-1, &filter), &[&ids])?;
    c.execute(&format!("DELETE FROM report_entry {filter}"), &[&ids])?;
    c.execute(
        &format!(
            "INSERT INTO report_entry ({ENTRY_COLUMNS}) {}",
            entry(c.dialect(), which)
        ),
        &[&ids],
    )?;
    c.execute(&add(1, &filter), &[&ids])?;
    if noted {
        c.execute("DELETE FROM report_dirty", &[])?;
    }
    changed.clear();
    Ok(())
}

/// [`ENTRY`] in `dialect`, for the messages `ids` selects. PostgreSQL has no `smsdesk_country`:
/// its messages all carry the country intake read (it began after the column did), and a copy
/// from SQLite fills it in. The first supporting event is read from the JSON array each way.
fn entry(dialect: Dialect, ids: &str) -> String {
    let (country, first) = match dialect {
        Dialect::Sqlite => (
            "smsdesk_country(m.destination), ",
            "json_extract(p.supporting_json, '$[0]')",
        ),
        Dialect::Postgres => ("", "CAST(CAST(p.supporting_json AS JSON) ->> 0 AS BIGINT)"),
    };
    ENTRY
        .replace("{ids}", ids)
        .replace("{country_of_destination}", country)
        .replace("{first_supporting}", first)
}

/// Computes the entries and their sums again from the messages alone, replacing what was kept.
/// Works on any connection to the database (on SQLite it registers the SQL function it needs;
/// PostgreSQL has none: there [`entry`] reads the country intake stored, `coalesce(m.country, '')`).
pub fn refill(conn: &impl Reads) -> Result<(), StoreError> {
    let db = conn.db();
    if let Db::Sqlite(c) = db {
        crate::country::register(c)?;
    }
    db.execute_batch(&format!(
        "DELETE FROM report_dirty; DELETE FROM report_entry; DELETE FROM report_hour;
         INSERT INTO report_entry ({ENTRY_COLUMNS}) {};
         {};",
        entry(db.dialect(), "SELECT id FROM message"),
        add(1, "WHERE true")
    ))
}

/// A column of any kind, printed as the store's [`Value`] prints (`Int(3)`, `Text("x")`, `Null`):
/// the same text from both stores for the same data.
pub(crate) struct Shown(pub String);

impl FromValue for Shown {
    fn from_value(v: Value<'_>) -> Result<Shown, String> {
        Ok(Shown(format!("{v:?}")))
    }
}

/// `report_hour` as stored, one line per row that counts something, in key order (for checks).
pub fn stored(conn: &impl Reads) -> Result<Vec<String>, StoreError> {
    let dims = DIMENSIONS.join(", ");
    let width = 1 + DIMENSIONS.len() + 3 + LATENCY_BOUNDS.len() + 1;
    conn.db().query(
        &format!(
            "SELECT hour, {dims}, messages, parts, cost, {} FROM report_hour
             WHERE messages <> 0 OR parts <> 0 OR cost <> 0 ORDER BY hour, {dims}",
            latency_columns()
        ),
        &[],
        |r| {
            let values: Vec<String> = (0..width)
                .map(|i| r.get::<Shown>(i).map(|v| v.0))
                .collect::<Result<_, _>>()?;
            Ok(format!("report {}", values.join(" ")))
        },
    )
}

/// Compares the sums kept with a recount from the messages and, with `repair`, puts the recount
/// in their place. Returns how many rows of `report_hour` differ (kept but not recounted, or
/// the other way round).
pub fn check(tx: &mut WriteTx<'_>, repair: bool) -> Result<usize, StoreError> {
    let c = tx.db();
    let kept: BTreeSet<String> = stored(&c)?.into_iter().collect();
    c.execute_batch("SAVEPOINT report_recount")?;
    let recounted = refill(&c).and_then(|()| stored(&c));
    // A failed recount aborts PostgreSQL's transaction: rolling back to the savepoint resumes it.
    let end = if repair && recounted.is_ok() {
        "RELEASE report_recount"
    } else {
        "ROLLBACK TO report_recount; RELEASE report_recount"
    };
    c.execute_batch(end)?;
    let recounted: BTreeSet<String> = recounted?.into_iter().collect();
    Ok(kept.symmetric_difference(&recounted).count())
}
