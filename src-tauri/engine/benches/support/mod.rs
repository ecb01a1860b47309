//! Shared by the benchmarks.

use rusqlite::{params, Connection};

const DAY: i64 = 86_400_000;

/// The process's peak resident memory, in MiB (Linux; NaN elsewhere).
#[allow(dead_code)]
pub fn peak_rss_mib() -> f64 {
    status_mib("VmHWM:")
}

/// A `kB` line of /proc/self/status, in MiB (NaN when absent).
fn status_mib(field: &str) -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find(|l| l.starts_with(field))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|kb| kb.parse::<f64>().ok())
        .map_or(f64::NAN, |kb| kb / 1024.0)
}

#[allow(dead_code)]
/// User + system clock ticks in a /proc `stat` file's text (0 when unreadable).
fn stat_ticks(stat: &str) -> u64 {
    // Fields after the parenthesised command: state is field 3, utime 14, stime 15.
    let after = stat.rsplit_once(')').map_or("", |(_, rest)| rest);
    let fields: Vec<&str> = after.split_whitespace().collect();
    let num = |i: usize| fields.get(i).and_then(|f| f.parse::<u64>().ok()).unwrap_or(0);
    num(11) + num(12)
}

#[allow(dead_code)]
/// USER_HZ on Linux.
const TICKS_PER_SEC: f64 = 100.0;

#[allow(dead_code)] // not every benchmark reports it
/// CPU time (user + system, in seconds) used so far by this process's threads named `name`
/// (Linux; NaN elsewhere). Unlike wall time, it hardly moves when other work shares the machine.
pub fn thread_cpu_secs(name: &str) -> f64 {
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return f64::NAN;
    };
    let mut ticks = 0u64;
    for task in tasks.flatten() {
        let comm = std::fs::read_to_string(task.path().join("comm")).unwrap_or_default();
        if comm.trim_end() != name {
            continue;
        }
        ticks += stat_ticks(&std::fs::read_to_string(task.path().join("stat")).unwrap_or_default());
    }
    ticks as f64 / TICKS_PER_SEC
}

#[allow(dead_code)]
/// CPU time (user + system, in seconds) used so far by the whole process.
pub fn process_cpu_secs() -> f64 {
    stat_ticks(&std::fs::read_to_string("/proc/self/stat").unwrap_or_default()) as f64 / TICKS_PER_SEC
}

#[allow(dead_code)]
/// The process's private (anonymous) resident memory now, in MiB (Linux; NaN elsewhere). Unlike
/// VmHWM it leaves out the pages of files mapped into memory (the database, which SQLite maps),
/// which the kernel can drop at any time.
pub fn anon_rss_mib() -> f64 {
    status_mib("RssAnon:")
}

#[allow(dead_code)]
/// Samples [`anon_rss_mib`] every 50 ms on a thread of its own until stopped; [`AnonPeak::stop`]
/// gives the highest reading.
pub struct AnonPeak {
    stop: std::sync::mpsc::Sender<()>,
    thread: std::thread::JoinHandle<f64>,
}

#[allow(dead_code)]
impl AnonPeak {
    pub fn start() -> AnonPeak {
        let (stop, stopped) = std::sync::mpsc::channel::<()>();
        let thread = std::thread::spawn(move || {
            let mut peak = anon_rss_mib();
            while let Err(std::sync::mpsc::RecvTimeoutError::Timeout) =
                stopped.recv_timeout(std::time::Duration::from_millis(50))
            {
                peak = peak.max(anon_rss_mib());
            }
            peak.max(anon_rss_mib())
        });
        AnonPeak { stop, thread }
    }

    pub fn stop(self) -> f64 {
        let _ = self.stop.send(());
        self.thread.join().unwrap_or(f64::NAN)
    }
}

#[allow(dead_code)]
/// This process's write counters so far (Linux /proc/self/io; zeros elsewhere).
#[derive(Debug, Clone, Copy, Default)]
pub struct WriteCounters {
    /// write()-family calls.
    pub calls: u64,
    /// Bytes passed to them.
    pub bytes: u64,
    /// Bytes that reached the block layer.
    pub disk_bytes: u64,
}

#[allow(dead_code)]
impl WriteCounters {
    pub fn now() -> WriteCounters {
        let io = std::fs::read_to_string("/proc/self/io").unwrap_or_default();
        let field = |name: &str| {
            io.lines()
                .find_map(|l| l.strip_prefix(name))
                .and_then(|v| v.trim().parse::<u64>().ok())
                .unwrap_or(0)
        };
        WriteCounters {
            calls: field("syscw:"),
            bytes: field("wchar:"),
            disk_bytes: field("write_bytes:"),
        }
    }

    /// Per item of `n`, since `earlier`: "C write() calls, B KB passed to write(), D KB to disk".
    pub fn per_item(self, earlier: WriteCounters, n: usize) -> String {
        let n = n.max(1) as f64;
        format!(
            "{:.1} write() calls, {:.1} KB passed to write(), {:.1} KB to disk",
            (self.calls - earlier.calls) as f64 / n,
            (self.bytes - earlier.bytes) as f64 / n / 1024.0,
            (self.disk_bytes - earlier.disk_bytes) as f64 / n / 1024.0
        )
    }
}

/// Now, on the wall clock.
#[allow(dead_code)]
pub fn now_ms() -> i64 {
    smsdesk_engine::clock::Clock::system().now_ms()
}

/// A database of `n` messages created over the last `span_days` days, each accepted and reported
/// delivered by a receipt that echoes its text, written with plain SQL so that a million take
/// seconds; the totals, the search index and the report are filled as the product keeps them.
#[allow(dead_code)]
pub fn seed_delivered(path: &std::path::Path, n: usize, span_days: i64) {
    let mut c = Connection::open(path).unwrap();
    c.execute_batch("PRAGMA journal_mode = WAL; PRAGMA synchronous = OFF; PRAGMA cache_size = -200000;")
        .unwrap();
    let start = now_ms() - span_days * DAY;
    for from in (0..n).step_by(50_000) {
        let tx = c.transaction().unwrap();
        for i in from..(from + 50_000).min(n) {
            let m = i as i64 + 1;
            let at = start + m * span_days * DAY / n as i64;
            let kind = ["otp", "transactional", "transactional", "bulk"][i % 4];
            let dest = format!("+336{:08}", (i as u64 % 200_000) * 499 % 100_000_000);
            let text = format!("Reminder: your appointment number {m} is tomorrow at 10:00, Dr Martin.");
            tx.prepare_cached(
                "INSERT INTO message (id, created_at, channel, destination_raw, destination, body, encoding, segments,
                     kind, priority, registered_delivery, connection)
                 VALUES (?1, ?2, 'api', ?3, ?3, ?4, 'gsm7', 1, ?5, 15, 1, 'bench')",
            )
            .unwrap()
            .execute(params![m, at, dest, text, kind])
            .unwrap();
            tx.prepare_cached(
                "INSERT INTO queue (message_id, status, priority, next_attempt_at, attempts, updated_at, accepted_at)
                 VALUES (?1, 'accepted', 15, ?2, 1, ?2, ?2)",
            )
            .unwrap()
            .execute(params![m, at])
            .unwrap();
            let echo = format!(
                "id:P{m} sub:001 dlvrd:001 submit date:2605031200 done date:2605031201 stat:DELIVRD err:000 text:{}",
                &text[..20]
            );
            tx.prepare_cached(
                "INSERT INTO receipt (id, received_at, source, connection, source_addr, destination_addr, raw, raw_text,
                     kind, parser_version, message_id_raw, stat)
                 VALUES (?1, ?2, 'smpp_deliver_sm', 'bench', ?3, 'SMSDESK', ?4, ?5, 'receipt', 1, ?6, 'DELIVRD')",
            )
            .unwrap()
            .execute(params![m, at + 5_000, &dest[1..], echo.as_bytes(), echo, format!("P{m}")])
            .unwrap();
            tx.prepare_cached(
                "INSERT INTO logical_event (id, connection, dedup_key, key_source, stat, receipt_kind,
                     first_receipt_id, created_at, correlation, message_id, correlated_at, correlated_by)
                 VALUES (?1, 'bench', ?2, 'fingerprint', 'DELIVRD', 'receipt', ?1, ?3, 'matched', ?1, ?3, 'system')",
            )
            .unwrap()
            .execute(params![m, format!("fp1|P{m}"), at + 5_000])
            .unwrap();
            tx.prepare_cached(
                "INSERT INTO receipt_outcome (receipt_id, logical_event_id, is_repeat, processed_at) VALUES (?1, ?1, 0, ?2)",
            )
            .unwrap()
            .execute(params![m, at + 5_000])
            .unwrap();
        }
        tx.commit().unwrap();
    }
    c.execute_batch(
        "INSERT INTO message_fts (message_fts) VALUES ('rebuild');
         UPDATE search_indexed SET upto = (SELECT coalesce(max(id), 0) FROM message);",
    )
    .unwrap();
    smsdesk_store::totals::refill(&c).unwrap();
    smsdesk_store::reports::refill(&c).unwrap();
    c.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(())).unwrap();
}

/// The benchmarks' baseline: plain SQLite on the same disk, `rows` inserts of a message-sized row
/// committed `per_commit` at a time (WAL, synchronous FULL); rows a second.
#[allow(dead_code)]
pub fn baseline_inserts(dir: &std::path::Path, rows: usize, per_commit: usize) -> f64 {
    let c = Connection::open(dir.join("baseline.db")).unwrap();
    c.execute_batch(
        "PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL;
         CREATE TABLE t (id INTEGER PRIMARY KEY, at INTEGER, destination TEXT, body TEXT);",
    )
    .unwrap();
    let t = std::time::Instant::now();
    for from in (0..rows).step_by(per_commit) {
        c.execute_batch("BEGIN").unwrap();
        for i in from..(from + per_commit).min(rows) {
            c.prepare_cached("INSERT INTO t (at, destination, body) VALUES (?1, ?2, ?3)")
                .unwrap()
                .execute(params![
                    i as i64,
                    "+33600000000",
                    "Reminder: your appointment is tomorrow at 10:00."
                ])
                .unwrap();
        }
        c.execute_batch("COMMIT").unwrap();
    }
    rows as f64 / t.elapsed().as_secs_f64()
}

/// Intake going on beside what a benchmark measures: one message at a time until `stop`, with
/// `pause` after each; each commit's wait, sorted.
#[allow(dead_code)]
pub fn hand_in_meanwhile(
    store: std::sync::Arc<smsdesk_store::Store>,
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
    pause: std::time::Duration,
) -> std::thread::JoinHandle<Vec<std::time::Duration>> {
    use smsdesk_engine::domain::{IntakeChannel, MessageKind};
    use smsdesk_engine::messages::{self, NewMessage};
    std::thread::spawn(move || {
        let mut took = Vec::new();
        while !stop.load(std::sync::atomic::Ordering::Relaxed) {
            let m = NewMessage::text(
                IntakeChannel::Api,
                "+33699999999",
                "meanwhile",
                MessageKind::Transactional,
                "bench",
            );
            let t = std::time::Instant::now();
            store
                .writer()
                .write_blocking(move |tx| messages::insert(tx, &m))
                .unwrap();
            took.push(t.elapsed());
            if !pause.is_zero() {
                std::thread::sleep(pause);
            }
        }
        took.sort();
        took
    })
}
