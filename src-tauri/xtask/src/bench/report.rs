//! The figures of every run made into one table (median, min and max over the runs; each figure
//! beside its baseline measured in the same run, and their ratio), printed, written between the
//! markers at the head of docs/benchmarks.md.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::context::Context;
use super::outputs::VIEWS_WANTED;

/// What one figure's number means, for formatting.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    PerSec,
    Ms,
    Us,
    Count,
    Bytes,
    Mib,
}

/// A baseline: its figure's key, and what the table calls it.
pub type Baseline = (&'static str, &'static str);

/// A row of the table: a figure, and the baseline it is divided by.
pub struct Row {
    pub key: &'static str,
    pub label: &'static str,
    pub unit: Unit,
    pub baseline: Option<Baseline>,
}

const fn row(key: &'static str, label: &'static str, unit: Unit, baseline: Option<Baseline>) -> Row {
    Row {
        key,
        label,
        unit,
        baseline,
    }
}

const RAW_SMPP: Option<Baseline> = Some(("smpp_raw.per_s", "bare SMPP client"));
const RAW_500: Option<Baseline> = Some(("sqlite.batch500.per_s", "SQLite, 500 a transaction"));
const RAW_16: Option<Baseline> = Some(("sqlite.batch16.per_s", "SQLite, 16 a transaction"));
const KANNEL: Option<Baseline> = Some(("kannel.per_s", "Kannel, one per request"));
const SQLITE_NODE: Option<Baseline> = Some(("nodes.sqlite.per_s", "one node on SQLite"));
const PG_NODE: Option<Baseline> = Some(("nodes.pg1.per_s", "one node on PostgreSQL"));
const SQLITE_CPU: Option<Baseline> = Some(("nodes.sqlite.cpu_us_per_msg", "one node on SQLite"));
const PG_CPU: Option<Baseline> = Some(("nodes.pg1.cpu_us_per_msg", "one node on PostgreSQL"));
const KANNEL_INTAKE: Option<Baseline> = Some(("kannel_intake.requests_per_s", "Kannel, intake alone"));

/// The table's rows, in order, each figure's key as the benchmarks print it. The views rows come
/// from what the views benchmark printed (see `outputs::views`).
pub const ROWS: &[Row] = &[
    row(
        "parse.smpp_per_s",
        "Receipt parse, SMPP (reports/s, one core)",
        Unit::PerSec,
        None,
    ),
    row(
        "parse.http_per_s",
        "Receipt parse, HTTP callbacks (reports/s)",
        Unit::PerSec,
        None,
    ),
    row("ingest.per_s", "Ingest receipts (receipts/s)", Unit::PerSec, RAW_500),
    row(
        "ingest.writer_us",
        "Ingest: writer thread CPU per receipt",
        Unit::Us,
        None,
    ),
    row(
        "ingest.private_peak_mib",
        "Ingest: peak private memory",
        Unit::Mib,
        None,
    ),
    row(
        "dispatch.batch.per_s",
        "End to end, batch API (messages/s)",
        Unit::PerSec,
        RAW_SMPP,
    ),
    row(
        "dispatch.batch.intake_per_s",
        "End to end, batch API: intake alone (messages/s)",
        Unit::PerSec,
        RAW_500,
    ),
    row(
        "dispatch.batch.syscw_per_msg",
        "End to end, batch API: write() calls per message",
        Unit::Count,
        None,
    ),
    row(
        "dispatch.batch.wchar_per_msg",
        "End to end, batch API: bytes passed to write() per message",
        Unit::Bytes,
        None,
    ),
    row(
        "dispatch.batch.write_bytes_per_msg",
        "End to end, batch API: bytes to storage per message",
        Unit::Bytes,
        None,
    ),
    row(
        "dispatch.batch.cpu_us_per_msg",
        "End to end, batch API: smsdesk CPU per message",
        Unit::Us,
        None,
    ),
    row(
        "nodes.sqlite.per_s",
        "End to end, one node on SQLite (messages/s)",
        Unit::PerSec,
        RAW_SMPP,
    ),
    row(
        "nodes.pg1.per_s",
        "End to end, one node on PostgreSQL (messages/s)",
        Unit::PerSec,
        SQLITE_NODE,
    ),
    row(
        "nodes.pg2.per_s",
        "End to end, two nodes on PostgreSQL (messages/s)",
        Unit::PerSec,
        PG_NODE,
    ),
    row(
        "nodes.sqlite.cpu_us_per_msg",
        "One node on SQLite: CPU per message",
        Unit::Us,
        None,
    ),
    row(
        "nodes.pg1.cpu_us_per_msg",
        "One node on PostgreSQL: CPU per message, with the server's",
        Unit::Us,
        SQLITE_CPU,
    ),
    row(
        "nodes.pg2.cpu_us_per_msg",
        "Two nodes on PostgreSQL: CPU per message, with the server's",
        Unit::Us,
        PG_CPU,
    ),
    row(
        "smpp_in.per_s",
        "End to end, in over smsdesk's SMPP server (messages/s)",
        Unit::PerSec,
        RAW_SMPP,
    ),
    row(
        "smpp_in.cpu_us_per_msg",
        "End to end, in over SMPP: smsdesk CPU per message",
        Unit::Us,
        None,
    ),
    row(
        "dispatch.single.per_s",
        "End to end, one per request (messages/s)",
        Unit::PerSec,
        RAW_SMPP,
    ),
    row(
        "dispatch.single.intake_per_s",
        "End to end, one per request: intake alone (messages/s)",
        Unit::PerSec,
        RAW_16,
    ),
    row(
        "dispatch.single.syscw_per_msg",
        "End to end, one per request: write() calls per message",
        Unit::Count,
        None,
    ),
    row(
        "dispatch.single.wchar_per_msg",
        "End to end, one per request: bytes passed to write() per message",
        Unit::Bytes,
        None,
    ),
    row(
        "dispatch.single.write_bytes_per_msg",
        "End to end, one per request: bytes to storage per message",
        Unit::Bytes,
        None,
    ),
    row(
        "dispatch.single.cpu_us_per_msg",
        "End to end, one per request: smsdesk CPU per message",
        Unit::Us,
        None,
    ),
    row(
        "dispatch.single.p50_ms",
        "End to end, one per request: latency p50 while sending",
        Unit::Ms,
        None,
    ),
    row(
        "dispatch.single.p99_ms",
        "End to end, one per request: latency p99 while sending",
        Unit::Ms,
        None,
    ),
    row(
        "dispatch.single.max_ms",
        "End to end, one per request: latency max while sending",
        Unit::Ms,
        None,
    ),
    row(
        "dispatch.single.per_s",
        "End to end, one per request, against Kannel (messages/s)",
        Unit::PerSec,
        KANNEL,
    ),
    row(
        "dispatch.batch.per_s",
        "End to end, batch API, against Kannel one per request (messages/s)",
        Unit::PerSec,
        KANNEL,
    ),
    row(
        "intake.requests_per_s",
        "HTTP intake alone, one per request (requests/s)",
        Unit::PerSec,
        RAW_16,
    ),
    row(
        "intake.requests_per_s",
        "HTTP intake alone, against Kannel's (requests/s)",
        Unit::PerSec,
        KANNEL_INTAKE,
    ),
    row("intake.p50_ms", "HTTP intake alone: latency p50", Unit::Ms, None),
    row("intake.p99_ms", "HTTP intake alone: latency p99", Unit::Ms, None),
    row("intake.max_ms", "HTTP intake alone: latency max", Unit::Ms, None),
    row(
        "intake.no_key.requests_per_s",
        "HTTP intake alone, no Idempotency-Key (requests/s)",
        Unit::PerSec,
        RAW_16,
    ),
    row(
        "intake.no_key.p50_ms",
        "HTTP intake alone, no Idempotency-Key: latency p50",
        Unit::Ms,
        None,
    ),
    row(
        "intake.no_key.p99_ms",
        "HTTP intake alone, no Idempotency-Key: latency p99",
        Unit::Ms,
        None,
    ),
    row(
        "intake.no_key.max_ms",
        "HTTP intake alone, no Idempotency-Key: latency max",
        Unit::Ms,
        None,
    ),
    row(
        "intake.syscw_per_msg",
        "HTTP intake alone: write() calls per message",
        Unit::Count,
        None,
    ),
    row(
        "intake.cpu_us_per_msg",
        "HTTP intake alone: smsdesk CPU per message",
        Unit::Us,
        None,
    ),
    row(
        "smpp_raw.per_s",
        "Baseline: bare rusmpp client, same messages and SMSC (messages/s)",
        Unit::PerSec,
        None,
    ),
    row(
        "kannel.per_s",
        "Baseline: Kannel, end to end, one per request, receipts to a dlr-url (messages/s)",
        Unit::PerSec,
        None,
    ),
    row(
        "kannel.p50_ms",
        "Baseline: Kannel, latency p50 while sending",
        Unit::Ms,
        None,
    ),
    row(
        "kannel.p99_ms",
        "Baseline: Kannel, latency p99 while sending",
        Unit::Ms,
        None,
    ),
    row(
        "kannel.max_ms",
        "Baseline: Kannel, latency max while sending",
        Unit::Ms,
        None,
    ),
    row(
        "kannel.cpu_us_per_msg",
        "Baseline: Kannel, CPU per message (bearerbox and smsbox)",
        Unit::Us,
        None,
    ),
    row(
        "kannel_intake.requests_per_s",
        "Baseline: Kannel, HTTP intake alone (requests/s)",
        Unit::PerSec,
        None,
    ),
    row(
        "kannel_intake.p50_ms",
        "Baseline: Kannel, intake alone: latency p50",
        Unit::Ms,
        None,
    ),
    row(
        "kannel_intake.p99_ms",
        "Baseline: Kannel, intake alone: latency p99",
        Unit::Ms,
        None,
    ),
    row(
        "kannel_intake.max_ms",
        "Baseline: Kannel, intake alone: latency max",
        Unit::Ms,
        None,
    ),
    row(
        "sqlite.batch500.per_s",
        "Baseline: raw SQLite inserts, 500 per transaction (rows/s)",
        Unit::PerSec,
        None,
    ),
    row(
        "sqlite.batch16.per_s",
        "Baseline: raw SQLite inserts, 16 per transaction (rows/s)",
        Unit::PerSec,
        None,
    ),
    row(
        "start.first_health_ms",
        "Start: first start on a copy of the database",
        Unit::Ms,
        None,
    ),
    row(
        "start.health_ms",
        "Start: process start to the first 200 of /api/v1/health",
        Unit::Ms,
        None,
    ),
    row(
        "start.rss_anon_mib",
        "Start: private memory (RssAnon) when idle",
        Unit::Mib,
        None,
    ),
    row(
        "start.rss_mib",
        "Start: resident memory (VmRSS) when idle",
        Unit::Mib,
        None,
    ),
    row("start.stop_ms", "Stop: SIGTERM to exit", Unit::Ms, None),
    row(
        "start.wal_left_bytes",
        "Stop: -wal file left after SIGTERM (0: none)",
        Unit::Bytes,
        None,
    ),
];

/// Every figure of every run: `values[key][run]` (None where that run did not give it).
#[derive(Debug, Default)]
pub struct Samples {
    pub runs: usize,
    pub values: BTreeMap<String, Vec<Option<f64>>>,
    /// (run from 1, benchmark, what went wrong)
    pub failures: Vec<(usize, String, String)>,
}

impl Samples {
    pub fn new(runs: usize) -> Samples {
        Samples {
            runs,
            ..Samples::default()
        }
    }

    pub fn add(&mut self, run: usize, key: &str, value: f64) {
        let runs = self.runs;
        let v = self.values.entry(key.to_owned()).or_insert_with(|| vec![None; runs]);
        v[run] = Some(value);
    }

    fn of(&self, key: &str) -> Vec<f64> {
        self.values
            .get(key)
            .map_or_else(Vec::new, |v| v.iter().flatten().copied().collect())
    }

    /// figure / baseline, run by run, where both were measured.
    fn ratios(&self, key: &str, baseline: &str) -> Vec<f64> {
        let (Some(a), Some(b)) = (self.values.get(key), self.values.get(baseline)) else {
            return Vec::new();
        };
        a.iter()
            .zip(b)
            .filter_map(|(a, b)| Some(a.as_ref()? / b.as_ref()?))
            .collect()
    }
}

/// Median, min and max.
fn spread(mut v: Vec<f64>) -> Option<(f64, f64, f64)> {
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    let n = v.len();
    let median = if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    };
    Some((median, v[0], v[n - 1]))
}

/// 1234567.8 → "1,234,568".
fn thousands(v: f64) -> String {
    let digits = format!("{:.0}", v.abs());
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    if v < 0.0 {
        out.insert(0, '-');
    }
    out
}

pub fn format(v: f64, unit: Unit) -> String {
    match unit {
        Unit::PerSec => thousands(v),
        Unit::Ms if v >= 100.0 => format!("{} ms", thousands(v)),
        Unit::Ms => format!("{v:.2} ms"),
        Unit::Us => format!("{v:.1} µs"),
        Unit::Count => format!("{v:.2}"),
        Unit::Bytes => thousands(v),
        Unit::Mib => format!("{v:.1} MiB"),
    }
}

/// The rows the views benchmark gave, and one "missing" row for each wanted kind it gave none of.
fn views_rows(s: &Samples) -> Vec<(String, Option<String>, Unit)> {
    let mut rows: Vec<(String, Option<String>, Unit)> = s
        .values
        .keys()
        .filter_map(|k| {
            let label = k.strip_prefix("views.")?;
            let (label, what) = label
                .strip_suffix(".median_ms")
                .map(|l| (l, "median"))
                .or_else(|| label.strip_suffix(".p99_ms").map(|l| (l, "p99")))?;
            Some((format!("Reads: {label} ({what})"), Some(k.clone()), Unit::Ms))
        })
        .collect();
    for wanted in VIEWS_WANTED {
        if !rows.iter().any(|(label, ..)| label.to_lowercase().contains(wanted)) {
            rows.push((
                format!("Reads: {wanted} (not printed by the views benchmark)"),
                None,
                Unit::Ms,
            ));
        }
    }
    rows
}

/// One line of the table.
fn table_line(s: &Samples, label: &str, key: Option<&str>, unit: Unit, baseline: Option<Baseline>) -> String {
    let Some((median, min, max)) = key.and_then(|k| spread(s.of(k))) else {
        return format!("| {label} | missing | | | | |\n");
    };
    let (base, ratio) = match (key, baseline) {
        (Some(k), Some((b, name))) => {
            let base = spread(s.of(b)).map_or("missing".into(), |(m, ..)| format!("{} ({name})", format(m, unit)));
            let ratio =
                spread(s.ratios(k, b)).map_or("missing".into(), |(m, lo, hi)| format!("{m:.3} ({lo:.3}–{hi:.3})"));
            (base, ratio)
        }
        _ => (String::new(), String::new()),
    };
    format!(
        "| {label} | {} | {} | {} | {base} | {ratio} |\n",
        format(median, unit),
        format(min, unit),
        format(max, unit)
    )
}

/// The table, with what it is about above it: the rows of the figures `shown` accepts.
pub fn table(s: &Samples, ctx: &Context, sizes: &str, shown: impl Fn(&str) -> bool) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "Commit `{}`, {} UTC, {}; load average {} at the start, {} at the end. \
         {} run(s) of each benchmark: median, min and max over the runs; a ratio is the figure divided by \
         its baseline of the same run (median, min–max). Sizes: {sizes}.\n",
        ctx.commit,
        ctx.date,
        ctx.machine(),
        ctx.load_start,
        ctx.load_end,
        s.runs
    );
    out.push_str("| figure | median | min | max | baseline (median) | ratio to baseline |\n");
    out.push_str("|---|---|---|---|---|---|\n");
    let views_at = ROWS
        .iter()
        .position(|r| r.key.starts_with("start."))
        .unwrap_or(ROWS.len());
    for (i, r) in ROWS.iter().enumerate() {
        if i == views_at && shown("views.") {
            for (label, key, unit) in views_rows(s) {
                out.push_str(&table_line(s, &label, key.as_deref(), unit, None));
            }
        }
        if shown(r.key) {
            out.push_str(&table_line(s, r.label, Some(r.key), r.unit, r.baseline));
        }
    }
    for (run, bench, why) in &s.failures {
        let _ = writeln!(out, "\nRun {run}, {bench}: FAILED: {why}");
    }
    out
}

pub const BEGIN: &str =
    "<!-- bench:begin: written by `cargo xtask bench`; edits between these markers are replaced -->";
pub const END: &str = "<!-- bench:end -->";

/// The document with `block` between its markers; without markers, the block goes before its
/// first second-level heading (after the title and its paragraph).
pub fn with_head_block(doc: &str, block: &str) -> String {
    let framed = format!("{BEGIN}\n{block}{END}\n");
    if let (Some(start), Some(end)) = (doc.find("<!-- bench:begin"), doc.find(END)) {
        if start < end {
            let after = &doc[end + END.len()..];
            return format!("{}{framed}{}", &doc[..start], after.strip_prefix('\n').unwrap_or(after));
        }
    }
    let at = doc.find("\n## ").map_or(doc.len(), |i| i + 1);
    format!("{}{framed}\n{}", &doc[..at], &doc[at..])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn medians_and_ratios_are_taken_over_the_runs() {
        let mut s = Samples::new(3);
        for (run, (a, b)) in [(100.0, 1000.0), (300.0, 1000.0), (200.0, 500.0)]
            .into_iter()
            .enumerate()
        {
            s.add(run, "dispatch.batch.per_s", a);
            s.add(run, "smpp_raw.per_s", b);
        }
        assert_eq!(spread(s.of("dispatch.batch.per_s")), Some((200.0, 100.0, 300.0)));
        assert_eq!(
            spread(s.ratios("dispatch.batch.per_s", "smpp_raw.per_s")),
            Some((0.3, 0.1, 0.4))
        );
        assert_eq!(spread(vec![1.0, 4.0]), Some((2.5, 1.0, 4.0)));
        assert_eq!(spread(Vec::new()), None);
    }

    #[test]
    fn a_figure_no_run_gave_is_missing_not_zero() {
        let mut s = Samples::new(1);
        s.add(0, "views.dashboard.median_ms", 2.5);
        let line = table_line(&s, "x", Some("parse.smpp_per_s"), Unit::PerSec, None);
        assert!(line.contains("missing"), "{line}");
        let rows = views_rows(&s);
        assert!(rows
            .iter()
            .any(|(l, k, _)| l.contains("dashboard (median)") && k.is_some()));
        assert!(
            rows.iter().any(|(l, k, _)| l.contains("prefix") && k.is_none()),
            "{rows:?}"
        );
    }

    #[test]
    fn numbers_are_written_for_people() {
        assert_eq!(format(1_234_567.8, Unit::PerSec), "1,234,568");
        assert_eq!(format(999.0, Unit::PerSec), "999");
        assert_eq!(format(2.345, Unit::Ms), "2.35 ms");
        assert_eq!(format(1234.0, Unit::Ms), "1,234 ms");
    }

    #[test]
    fn the_head_block_replaces_the_last_one_and_keeps_the_history() {
        let doc = "# Benchmarks\n\nIntro.\n\n## Receipt parser\n\nold figures\n";
        let once = with_head_block(doc, "table 1\n");
        assert_eq!(
            once,
            format!("# Benchmarks\n\nIntro.\n\n{BEGIN}\ntable 1\n{END}\n\n## Receipt parser\n\nold figures\n")
        );
        let twice = with_head_block(&once, "table 2\n");
        assert_eq!(twice, once.replace("table 1", "table 2"));
        assert!(twice.ends_with("## Receipt parser\n\nold figures\n"));
    }
}
