//! Retention on a large database: N messages over 100 days, each accepted with a receipt that
//! echoes its text, written with plain SQL so the fixture takes seconds. Then a retention run
//! with every period at 10 days redacts the texts and numbers of the 90 % older than that (and
//! their receipts), while another thread goes on handing in one message at a time: the run's
//! time, its batches, the longest a batch held the writer, and the slowest of those messages are
//! printed; then how long erasing one number takes (one transaction). The baseline, in the same run and on the same disk: plain SQLite inserts, committed
//! in batches of 200 rows (what one retention batch redacts), and the ratio of the two rates.
//!
//!   cargo bench -p smsdesk-engine --bench retention [-- N]     (default 1000000)

mod support;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use smsdesk_engine::config::{Days, RetentionSettings};
use smsdesk_store::privacy::token::NumberKey;
use smsdesk_store::Store;

const SPAN_DAYS: i64 = 100;

/// Every period at ten days; the audit lines' kept.
fn ten_days() -> RetentionSettings {
    let ten = Days::Days(10);
    RetentionSettings {
        otp_text_days: ten,
        transactional_text_days: ten,
        bulk_text_days: ten,
        destination_days: ten,
        replies_days: ten,
        audit_days: Days::Never,
    }
}

/// The waits of the messages handed in meanwhile: p50, p99 and max in ms, and how many over 50.
fn waits(took: &[Duration]) -> (f64, f64, f64, usize) {
    let at = |q: f64| took.get(((took.len() as f64 * q) as usize).min(took.len().saturating_sub(1)));
    let ms = |d: Option<&Duration>| d.map_or(0.0, |d| d.as_secs_f64() * 1e3);
    let over_50 = took.iter().filter(|d| d.as_millis() >= 50).count();
    (ms(at(0.5)), ms(at(0.99)), ms(took.last()), over_50)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).filter(|a| a != "--bench").collect();
    let n: usize = args.first().and_then(|a| a.parse().ok()).unwrap_or(1_000_000);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bench.db");
    Store::open(&path).unwrap().shutdown();
    let t = Instant::now();
    support::seed_delivered(&path, n, SPAN_DAYS);
    let mib = std::fs::metadata(&path)
        .map(|m| m.len() as f64 / 1_048_576.0)
        .unwrap_or(0.0);
    eprintln!(
        "retention: seeded {n} messages in {:.1} s ({mib:.0} MiB)",
        t.elapsed().as_secs_f64()
    );

    let store = Arc::new(Store::open(&path).unwrap());
    store.set_number_key(NumberKey::new([7; 32])).unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let meanwhile = support::hand_in_meanwhile(store.clone(), stop.clone(), Duration::from_millis(5));
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let cpu = support::process_cpu_secs();
    let run = runtime
        .block_on(smsdesk_engine::privacy::run(&store, &ten_days(), "bench"))
        .unwrap();
    let cpu = support::process_cpu_secs() - cpu;
    stop.store(true, Ordering::Relaxed);
    let (p50, p99, max, over_50) = waits(&meanwhile.join().unwrap());
    // Then one number erased: its recent messages (retention left them) and every mention of it,
    // read through the whole receipt, audit and idempotency tables in one transaction.
    let number = format!("+336{:08}", ((n as u64 - 1) % 200_000) * 499 % 100_000_000);
    let t = Instant::now();
    let erased = runtime
        .block_on(smsdesk_engine::privacy::erase(&store, &number, "bench", "bench"))
        .unwrap();
    let erase_ms = t.elapsed().as_secs_f64() * 1e3;
    store.shutdown();
    let r = &run.redacted;
    let rate = r.texts as f64 / (run.took_ms as f64 / 1000.0);
    let base = support::baseline_inserts(dir.path(), 200_000, 200);
    println!("retention: {n} messages over {SPAN_DAYS} days, every period 10 days");
    println!(
        "  redacted {} texts, {} numbers, {} receipts in {:.1} s ({rate:.0} messages/s, {:.0} µs CPU each)",
        r.texts,
        r.numbers,
        r.receipts,
        run.took_ms as f64 / 1000.0,
        cpu * 1e6 / r.texts.max(1) as f64
    );
    println!(
        "  {} batches; the longest held the writer {} ms; WAL emptied after: {}",
        run.batches, run.longest_batch_ms, run.wal_emptied
    );
    println!(
        "  meanwhile, one message at a time: p50 {p50:.1} ms, p99 {p99:.1} ms, max {max:.1} ms, {over_50} over 50 ms"
    );
    println!(
        "  erasing one number ({} messages, {} receipts): {erase_ms:.0} ms, in one transaction",
        erased.redacted.texts, erased.redacted.receipts
    );
    println!(
        "  baseline: plain SQLite inserts, 200 per commit, same disk: {base:.0} rows/s; ratio {:.2}",
        rate / base
    );
}
