//! The rows of the benchmarks' table: each figure as the benchmarks print it, what the table
//! calls it, its unit, and the baseline of the same run it is divided by.

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
