//! The writer under intake: N messages handed in one per write operation (replayable, as the
//! service hands them in) by C concurrent callers (as C HTTP clients posting one message each
//! would), each message different, each answered only after its transaction committed
//! (`synchronous=FULL`). Prints messages/s, the latency of each write from queueing to answer
//! (p50, p99, max), the writer thread's CPU per message and the write() calls and bytes per
//! message.
//!
//!   cargo bench -p smsdesk-engine --bench intake -- [N] [C]      (default 50000 16)

mod support;

use std::sync::Arc;
use std::time::{Duration, Instant};

use smsdesk_engine::domain::{IntakeChannel, MessageKind};
use smsdesk_engine::messages::{self, NewMessage};
use smsdesk_store::{Store, StoreError};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).filter(|a| a != "--bench").collect();
    let n: usize = args.first().and_then(|a| a.parse().ok()).unwrap_or(50_000);
    let clients: usize = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(16);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(Store::open(&dir.path().join("bench.db")).unwrap());
    let io = support::WriteCounters::now();
    let cpu = support::thread_cpu_secs("smsdesk-writer");
    let (tx0, _) = store.writer().stats();
    let t = Instant::now();
    let mut latencies: Vec<Duration> = runtime.block_on(async {
        let tasks: Vec<_> = (0..clients)
            .map(|c| {
                let store = store.clone();
                tokio::spawn(async move {
                    let mut lat = Vec::with_capacity(n / clients + 1);
                    for i in (c..n).step_by(clients) {
                        let mut m = NewMessage::text(
                            IntakeChannel::Api,
                            &format!("+336{:08}", i * 7 % 100_000_000),
                            &format!("Bonjour, votre commande {i} est prête au retrait ({c})"),
                            MessageKind::Transactional,
                            "sandbox",
                        );
                        // As intake does: the country read with the number, before the writer.
                        m.country = Some(smsdesk_core::country::country_of(&m.destination).unwrap_or_default());
                        let asked = Instant::now();
                        store
                            .writer()
                            .write_replayable(move |tx| messages::insert(tx, &m).map(|_| ()))
                            .await
                            .unwrap();
                        lat.push(asked.elapsed());
                    }
                    lat
                })
            })
            .collect();
        let mut all = Vec::with_capacity(n);
        for t in tasks {
            all.extend(t.await.unwrap());
        }
        all
    });
    let wall = t.elapsed();
    let per = support::WriteCounters::now().per_item(io, n);
    let writer_us = (support::thread_cpu_secs("smsdesk-writer") - cpu) * 1e6 / n as f64;
    let (tx1, _) = store.writer().stats();
    latencies.sort();
    let at = |q: f64| latencies[((latencies.len() as f64 * q) as usize).min(latencies.len() - 1)];
    let stored: i64 = store
        .reader()
        .read_blocking(|c| Ok::<_, StoreError>(c.query_row("SELECT count(*) FROM message", [], |r| r.get(0))?))
        .unwrap();
    assert_eq!(stored as usize, n, "every message answered is stored");
    println!("intake: {n} messages, one per write, {clients} callers, synchronous=FULL");
    println!(
        "intake: {:.0} messages/s; latency p50 {:.2} ms, p99 {:.2} ms, max {:.1} ms; writer CPU {writer_us:.1} µs per message; {per} per message; {:.1} messages per transaction",
        n as f64 / wall.as_secs_f64(),
        at(0.5).as_secs_f64() * 1e3,
        at(0.99).as_secs_f64() * 1e3,
        latencies.last().copied().unwrap_or_default().as_secs_f64() * 1e3,
        n as f64 / (tx1 - tx0).max(1) as f64,
    );
    store.shutdown();
}
