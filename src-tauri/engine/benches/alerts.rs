//! What the alert rules cost at a million messages. A database of N messages (each accepted and
//! reported, written with plain SQL so the fixture takes seconds) gets 2,000 messages queued and
//! due, and 60 open exceptions, so that rules hold and alerts open. Then:
//! - quiet: 30 looks at the rules, each timed, with the writer's busy time they caused (the
//!   writer's own clock: its transactions' time, commit included);
//! - busy: one message handed in at a time, as fast as the writer takes them, for a while without
//!   the watcher, then as long with a look every second (15 times the default rate), alternately;
//!   the writer's busy time and the messages per second of each.
//! - a metrics scrape, the first (which counts the evidence once) and the next ones.
//!
//! The baseline, in the same run and on the same disk: plain SQLite inserts, committed one by one
//! (what one message at a time is), and the ratio of intake to it.
//!
//!   cargo bench -p smsdesk-engine --bench alerts [-- N]     (default 1000000)

mod support;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use rusqlite::{params, Connection};
use smsdesk_engine::alerts::facts::Memory;
use smsdesk_engine::alerts::{look, Alerting};
use smsdesk_engine::intake::IntakeRules;
use smsdesk_engine::receipts::ingest::Ingestor;
use smsdesk_engine::service::Service;
use smsdesk_store::Store;

const QUEUED: i64 = 2_000;
const EXCEPTIONS: i64 = 60;

/// Messages queued and due an hour ago, and open exceptions: the queue and exception rules hold.
fn add_trouble(path: &std::path::Path) {
    let c = Connection::open(path).unwrap();
    let next: i64 = c
        .query_row("SELECT max(id) + 1 FROM message", [], |r| r.get(0))
        .unwrap();
    let due = support::now_ms() - 3_600_000;
    c.execute_batch("BEGIN").unwrap();
    for m in next..next + QUEUED {
        c.execute(
            "INSERT INTO message (id, created_at, channel, destination_raw, destination, body, encoding, segments,
                 kind, priority, registered_delivery, connection)
             VALUES (?1, ?2, 'api', '+33612345678', '+33612345678', 'waiting', 'gsm7', 1, 'bulk', 2, 1, 'bench')",
            params![m, due],
        )
        .unwrap();
        c.execute(
            "INSERT INTO queue (message_id, status, priority, next_attempt_at, attempts, updated_at, route)
             VALUES (?1, 'queued', 2, ?2, 0, ?2, 'default')",
            params![m, due],
        )
        .unwrap();
    }
    for m in next..next + EXCEPTIONS {
        c.execute(
            "INSERT INTO exception (kind, status, message_id, summary, created_at) VALUES ('no_receipt', 'open', ?1, 'bench', ?2)",
            params![m, due],
        )
        .unwrap();
    }
    c.execute_batch("COMMIT").unwrap();
    smsdesk_store::totals::refill(&c).unwrap();
}

/// The writer's busy time so far, in µs.
fn busy(store: &Store) -> u64 {
    store.writer().commit_times().micros
}

/// One message at a time for `run`, as fast as the writer takes them: how many went.
fn intake_for(store: &Arc<Store>, run: Duration) -> u64 {
    let stop = Arc::new(AtomicBool::new(false));
    let sender = support::hand_in_meanwhile(store.clone(), stop.clone(), Duration::ZERO);
    std::thread::sleep(run);
    stop.store(true, Ordering::Relaxed);
    sender.join().unwrap().len() as u64
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).filter(|a| a != "--bench").collect();
    let n: usize = args.first().and_then(|a| a.parse().ok()).unwrap_or(1_000_000);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bench.db");
    Store::open(&path).unwrap().shutdown();
    let t = Instant::now();
    support::seed_delivered(&path, n, 30);
    add_trouble(&path);
    eprintln!("alerts: seeded {n} messages in {:.1} s", t.elapsed().as_secs_f64());

    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let store = Arc::new(Store::open(&path).unwrap());
    let service = runtime.block_on(async {
        let ingestor = Ingestor::new(store.writer().clone(), Default::default());
        Service::new(store.clone(), ingestor, IntakeRules::new("bench", Some("FR")), 100)
    });
    let a = Alerting::default();
    let mut memory = Memory::default();
    let started = support::now_ms();

    // Quiet: the looks alone.
    let mut looks = Vec::new();
    let writer_before = busy(&store);
    for _ in 0..30 {
        let t = Instant::now();
        runtime.block_on(look(&service, &a, &mut memory, started)).unwrap();
        looks.push(t.elapsed());
    }
    let writer_per_look = (busy(&store) - writer_before) as f64 / 30.0;
    looks.sort();
    let open = runtime.block_on(service.alerts_overview()).unwrap().alerts.len();

    // Busy: intake alone, then intake with a look every second; alternately, three times each.
    let run = Duration::from_secs(10);
    let (mut alone, mut watched) = ((0u64, 0u64), (0u64, 0u64));
    for _ in 0..3 {
        let b = busy(&store);
        alone.0 += intake_for(&store, run);
        alone.1 += busy(&store) - b;
        let stop = Arc::new(AtomicBool::new(false));
        let st = stop.clone();
        let (svc, a2) = (service.clone(), a.clone());
        let watcher = runtime.spawn(async move {
            let mut memory = Memory::default();
            while !st.load(Ordering::Relaxed) {
                look(&svc, &a2, &mut memory, started).await.unwrap();
                tokio::time::sleep(Duration::from_secs(1)).await;
            }
        });
        let b = busy(&store);
        watched.0 += intake_for(&store, run);
        watched.1 += busy(&store) - b;
        stop.store(true, Ordering::Relaxed);
        runtime.block_on(watcher).unwrap();
    }
    let secs = 3.0 * run.as_secs_f64();

    // The metrics: the first scrape counts the evidence once; the next read what is new.
    let t = Instant::now();
    let text = runtime.block_on(service.metrics()).unwrap();
    let first_scrape = t.elapsed();
    let t = Instant::now();
    for _ in 0..10 {
        runtime.block_on(service.metrics()).unwrap();
    }
    let next_scrape = t.elapsed() / 10;
    store.shutdown();
    let base = support::baseline_inserts(dir.path(), 20_000, 1);

    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    println!("alerts: {n} messages, {QUEUED} queued and due, {EXCEPTIONS} open exceptions; {open} alerts open");
    println!(
        "  a look at the rules: median {:.1} ms, max {:.1} ms (reads); the writer's time per look: {writer_per_look:.0} µs",
        ms(looks[looks.len() / 2]),
        ms(*looks.last().unwrap())
    );
    println!(
        "  share of the writer's time: {:.4} % at one look per 15 s (the default), {:.3} % at one per second",
        writer_per_look / 15e6 * 100.0,
        writer_per_look / 1e6 * 100.0
    );
    println!(
        "  intake, one message at a time, {secs:.0} s each: alone {:.0} msgs/s (writer busy {:.1} %), \
         with a look every second {:.0} msgs/s (writer busy {:.1} %)",
        alone.0 as f64 / secs,
        alone.1 as f64 / 1e6 / secs * 100.0,
        watched.0 as f64 / secs,
        watched.1 as f64 / 1e6 / secs * 100.0
    );
    println!(
        "  metrics scrape: first {:.0} ms (counts the evidence once), then {:.1} ms; {} lines",
        ms(first_scrape),
        ms(next_scrape),
        text.lines().count()
    );
    println!(
        "  baseline: plain SQLite inserts, one per commit, same disk: {base:.0} rows/s; intake alone / baseline {:.2}",
        alone.0 as f64 / secs / base
    );
}
