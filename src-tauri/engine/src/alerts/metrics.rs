//! `GET /api/v1/metrics`: the Prometheus text format (version 0.0.4) for the server's monitoring.
//! Names follow Prometheus' conventions: `smsdesk_` first, base units (`_seconds`, `_bytes`),
//! `_total` for counters. Counters come from the database (they survive a restart); the receipts
//! and submit answers are counted from where the last scrape stopped, so a scrape reads only what
//! is new.

use std::fmt::Write;

use crate::alerts::{count_of, AlertRule};
use crate::service::Service;
use crate::smpp::session::{BindRole, LinkState};
use crate::store::metric_reads::{self, Counted};
use crate::store::{alert_facts, StoreError, COMMIT_BOUNDS_S};
use smsdesk_core::domain::{DeliveryState, QueueStatus};

/// The content type of the answer.
pub const CONTENT_TYPE: &str = "text/plain; version=0.0.4; charset=utf-8";

/// The receipt latency histogram's bounds, in seconds.
const LATENCY_BOUNDS_S: [f64; 10] = [1.0, 5.0, 10.0, 30.0, 60.0, 300.0, 900.0, 3_600.0, 21_600.0, 86_400.0];

/// One metric family being written.
struct Family<'a> {
    out: &'a mut String,
    name: &'static str,
}

fn family<'a>(out: &'a mut String, name: &'static str, kind: &str, help: &str) -> Family<'a> {
    let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} {kind}");
    Family { out, name }
}

/// A label value, escaped as the format wants (backslash, quote, newline).
fn escaped(v: &str) -> String {
    v.replace('\\', "\\\\").replace('"', "\\\"").replace('\n', "\\n")
}

impl Family<'_> {
    fn sample(&mut self, suffix: &str, labels: &[(&str, &str)], value: impl std::fmt::Display) {
        let labels: Vec<String> = labels.iter().map(|(k, v)| format!("{k}=\"{}\"", escaped(v))).collect();
        let labels = if labels.is_empty() {
            String::new()
        } else {
            format!("{{{}}}", labels.join(","))
        };
        let _ = writeln!(self.out, "{}{suffix}{labels} {value}", self.name);
    }

    /// A histogram from counts per bound (not cumulative; the last: over every bound) and a sum.
    fn histogram(&mut self, bounds: &[f64], counts: &[u64], sum: f64) {
        let mut running = 0u64;
        for (b, n) in bounds.iter().zip(counts) {
            running += n;
            self.sample("_bucket", &[("le", &b.to_string())], running);
        }
        running += counts.get(bounds.len()).copied().unwrap_or(0);
        self.sample("_bucket", &[("le", "+Inf")], running);
        self.sample("_sum", &[], sum);
        self.sample("_count", &[], running);
    }
}

/// What the database says, read at once.
struct Read {
    queue: Vec<(String, i64)>,
    states: Vec<(String, i64)>,
    messages: i64,
    days: Vec<(String, i64)>,
    latencies: Vec<(i64, i64)>,
    exceptions: Vec<(String, i64)>,
    firing: Vec<(String, i64)>,
    oldest_due_ms: Option<i64>,
    counted: Counted,
}

impl Service {
    /// The metrics, as Prometheus reads them.
    pub async fn metrics(&self) -> Result<String, StoreError> {
        let now = self.store().clock().now_ms();
        let mut counted = self.metrics_counted().lock().await;
        let mut c = counted.clone();
        let read = self
            .store()
            .reader()
            .read(move |db| {
                metric_reads::count_new(db, &mut c)?;
                Ok::<_, StoreError>(Read {
                    queue: metric_reads::totals(db, "queue")?,
                    states: metric_reads::totals(db, "projection")?,
                    messages: metric_reads::totals(db, "message")?.iter().map(|(_, n)| n).sum(),
                    days: metric_reads::day_totals(db)?,
                    latencies: metric_reads::latencies(db)?,
                    exceptions: metric_reads::open_exceptions(db)?,
                    firing: metric_reads::firing(db)?,
                    oldest_due_ms: alert_facts::oldest_due(db, now)?,
                    counted: c,
                })
            })
            .await?;
        *counted = read.counted.clone();
        drop(counted);
        let mut out = String::new();
        self.write_messages(&mut out, &read);
        write_evidence(&mut out, &read);
        self.write_links(&mut out, &read, now);
        self.write_storage(&mut out);
        write_alerts(&mut out, &read);
        Ok(out)
    }

    fn write_messages(&self, out: &mut String, r: &Read) {
        let mut f = family(out, "smsdesk_info", "gauge", "This instance's version (always 1).");
        f.sample("", &[("version", crate::VERSION)], 1);
        let mut f = family(
            out,
            "smsdesk_queue_messages",
            "gauge",
            "Messages by their status in the send queue.",
        );
        for s in QueueStatus::ALL {
            f.sample("", &[("status", s.as_str())], count_of(&r.queue, s.as_str()));
        }
        let mut f = family(
            out,
            "smsdesk_delivery_state_messages",
            "gauge",
            "Messages by the delivery state their receipts computed (pending: no receipt applied yet).",
        );
        let projected: i64 = r.states.iter().map(|(_, n)| n).sum();
        for s in DeliveryState::ALL {
            let mut n = count_of(&r.states, s.as_str());
            if *s == DeliveryState::Pending {
                n += (r.messages - projected).max(0);
            }
            f.sample("", &[("state", s.as_str())], n);
        }
    }

    fn write_links(&self, out: &mut String, r: &Read, now: i64) {
        let mut f = family(
            out,
            "smsdesk_queue_oldest_due_age_seconds",
            "gauge",
            "How long the oldest message due to be sent has waited (0: none waits).",
        );
        f.sample(
            "",
            &[],
            r.oldest_due_ms.map_or(0.0, |t| (now - t).max(0) as f64 / 1_000.0),
        );
        let mut f = family(
            out,
            "smsdesk_link_up",
            "gauge",
            "Whether each SMPP bind is bound (1) or not (0).",
        );
        for c in self.links_status() {
            for (i, b) in c.binds.iter().enumerate() {
                let role = match b.role {
                    BindRole::Transceiver => "transceiver",
                    BindRole::Transmitter => "transmitter",
                    BindRole::Receiver => "receiver",
                };
                let bind = format!("{}", i + 1);
                let up = u8::from(matches!(b.link, LinkState::Bound { .. }));
                f.sample(
                    "",
                    &[("connection", &c.connection), ("bind", &bind), ("role", role)],
                    up,
                );
            }
        }
    }

    fn write_storage(&self, out: &mut String) {
        let times = self.store().writer().commit_times();
        let mut f = family(
            out,
            "smsdesk_writer_commit_seconds",
            "histogram",
            "How long the database writer's transactions took, commit included, since start.",
        );
        f.histogram(&COMMIT_BOUNDS_S, &times.counts, times.micros as f64 / 1e6);
        // On PostgreSQL the size is the server's to report (its own exporter).
        if !self.store().on_postgres() {
            let path = self.store().path().to_owned();
            let size: u64 = ["", "-wal"]
                .iter()
                .filter_map(|s| std::fs::metadata(format!("{}{s}", path.display())).ok())
                .map(|m| m.len())
                .sum();
            let mut f = family(
                out,
                "smsdesk_database_size_bytes",
                "gauge",
                "The database file and its write-ahead log.",
            );
            f.sample("", &[], size);
        }
        if let Some(free) = self.store().room().free_bytes {
            let mut f = family(
                out,
                "smsdesk_disk_free_bytes",
                "gauge",
                "Free space on the database's disk.",
            );
            f.sample("", &[], free);
        }
    }
}

fn write_evidence(out: &mut String, r: &Read) {
    let mut f = family(
        out,
        "smsdesk_submits_total",
        "counter",
        "Submits by how the SMSC answered.",
    );
    for outcome in ["accepted", "refused", "unknown"] {
        f.sample("", &[("outcome", outcome)], count_of(&r.days, outcome));
    }
    let mut f = family(
        out,
        "smsdesk_submit_answers_total",
        "counter",
        "Answered submits by connection, SMPP command_status and outcome.",
    );
    for ((connection, status, outcome), n) in &r.counted.tries {
        let status = if *status < 0 {
            "none".to_owned()
        } else {
            format!("0x{status:08X}")
        };
        f.sample(
            "",
            &[
                ("connection", connection),
                ("command_status", &status),
                ("outcome", outcome),
            ],
            n,
        );
    }
    let mut f = family(
        out,
        "smsdesk_receipts_total",
        "counter",
        "Receipts received, repeats included, by stat.",
    );
    for (stat, n) in &r.counted.receipts {
        f.sample("", &[("stat", if stat.is_empty() { "none" } else { stat })], n);
    }
    let mut counts = vec![0u64; LATENCY_BOUNDS_S.len() + 1];
    let mut sum = 0.0;
    for (ms, n) in &r.latencies {
        let s = *ms as f64 / 1_000.0;
        let i = LATENCY_BOUNDS_S
            .iter()
            .position(|b| s <= *b)
            .unwrap_or(LATENCY_BOUNDS_S.len());
        counts[i] += *n as u64;
        sum += s * *n as f64;
    }
    let mut f = family(
        out,
        "smsdesk_receipt_latency_seconds",
        "histogram",
        "From the SMSC's acceptance to the first final receipt, per message.",
    );
    f.histogram(&LATENCY_BOUNDS_S, &counts, sum);
    let mut f = family(out, "smsdesk_open_exceptions", "gauge", "Open exceptions by kind.");
    for k in smsdesk_core::domain::ExceptionKind::ALL {
        f.sample("", &[("kind", k.as_str())], count_of(&r.exceptions, k.as_str()));
    }
}

fn write_alerts(out: &mut String, r: &Read) {
    let mut f = family(out, "smsdesk_alerts_firing", "gauge", "Alerts open now, by rule.");
    for rule in AlertRule::ALL {
        f.sample("", &[("rule", rule.as_str())], count_of(&r.firing, rule.as_str()));
    }
}
