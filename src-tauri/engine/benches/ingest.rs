//! Full receipt ingestion: parse, persist, de-duplicate, correlate, project, commit, for
//! N receipts against N accepted messages, through the same `Ingestor` the SMPP session uses, into
//! a real database file with synchronous=FULL. Prints receipts/s, peak memory (VmHWM) and the
//! writer thread's CPU time per receipt.
//!
//!   cargo bench -p smsdesk-engine --bench ingest [-- N [IN_FLIGHT]]     (default 1000000 64)

mod support;

use std::time::Instant;

use smsdesk_engine::clock::Clock;
use smsdesk_engine::domain::{IntakeChannel, MessageKind};
use smsdesk_engine::messages::{self, NewMessage};
use smsdesk_engine::receipts::ingest::{Ingestor, Outcome, SmppReceived};
use smsdesk_engine::receipts::policy::ReceiptPolicy;
use smsdesk_store::{Store, StoreError};

/// Writes `n` messages through the same functions intake and the dispatcher use, each with an
/// accepted submit carrying provider id `P<i>`.
fn seed(store: &Store, n: usize) {
    const CHUNK: usize = 10_000;
    for start in (0..n).step_by(CHUNK) {
        let end = (start + CHUNK).min(n);
        store
            .writer()
            .write_blocking(move |tx| {
                let policy = ReceiptPolicy::default();
                for i in start..end {
                    let m = NewMessage::text(
                        IntakeChannel::Api,
                        &format!("+3361{:07}", i % 10_000_000),
                        "Your order has shipped",
                        MessageKind::Transactional,
                        "bench",
                    );
                    let id = messages::insert(tx, &m)?;
                    let wire = messages::Wire {
                        connection: "bench",
                        session_id: "bench-1",
                        sequence_number: i as u32,
                        routing: None,
                    };
                    let attempt = messages::begin_attempt(tx, id, 1, wire, 1)?;
                    smsdesk_engine::decisions::record_accepted(tx, attempt.id, None, &format!("P{i}"), &policy)?;
                }
                Ok::<_, StoreError>(())
            })
            .unwrap();
    }
}

fn receipt(i: usize) -> SmppReceived {
    // Mostly delivered, some failures and intermediates, as real traffic looks.
    let stat = match i % 20 {
        0 => "UNDELIV",
        1 => "EXPIRED",
        2 => "ENROUTE",
        _ => "DELIVRD",
    };
    let text = format!(
        "id:P{i} sub:001 dlvrd:001 submit date:9911291200 done date:9911291201 stat:{stat} err:000 text:Your order has ship"
    );
    SmppReceived {
        connection: "bench".into(),
        session_id: Some("bench-1".into()),
        sequence_number: Some(i as u32),
        esm_class: Some(if stat == "ENROUTE" { 0x20 } else { 0x04 }),
        source_addr: Some(format!("3361{:07}", i % 10_000_000)),
        destination_addr: Some("SHOP".into()),
        short_message: text.into_bytes(),
        received_at: Clock::system().now_ms(),
        ..SmppReceived::default()
    }
}

fn main() {
    // Warnings and errors (a receipt whose effects failed, a batch recorded one by one) show.
    tracing_subscriber::fmt()
        .with_max_level(tracing::Level::WARN)
        .with_writer(std::io::stderr)
        .init();
    let args: Vec<String> = std::env::args().skip(1).filter(|a| a != "--bench").collect();
    let n: usize = args.first().and_then(|a| a.parse().ok()).unwrap_or(1_000_000);
    let in_flight: usize = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(64);
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("bench.db")).unwrap();

    let t = Instant::now();
    seed(&store, n);
    eprintln!("seeded {n} accepted messages in {:.1} s", t.elapsed().as_secs_f64());
    // The peak is the ingestion's, not the seeding's (ten thousand messages a transaction): the
    // writer lets the pages it cached go once idle for two seconds, as it does in service.
    std::thread::sleep(std::time::Duration::from_millis(2_500));
    let anon = support::AnonPeak::start();
    eprintln!("private memory before the receipts: {:.1} MiB", support::anon_rss_mib());

    let ingestor = Ingestor::new(store.writer().clone(), ReceiptPolicy::default());
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let (writer_cpu, process_cpu) = (support::thread_cpu_secs("smsdesk-writer"), support::process_cpu_secs());
    let t = Instant::now();
    let applied = runtime.block_on(async move {
        // Receipts come back roughly in the order the messages went out: task k takes every
        // in_flight-th one, so together they walk the messages in order.
        let mut tasks = Vec::new();
        for k in 0..in_flight {
            let ingestor = ingestor.clone();
            tasks.push(tokio::spawn(async move {
                let mut applied = 0usize;
                for i in (k..n).step_by(in_flight) {
                    let r = ingestor.smpp(receipt(i)).await.expect("ingest");
                    applied += usize::from(matches!(r.outcome, Outcome::Applied { .. }));
                }
                applied
            }));
        }
        let mut applied = 0;
        for t in tasks {
            applied += t.await.unwrap();
        }
        applied
    });
    let secs = t.elapsed().as_secs_f64();
    let writer_cpu = support::thread_cpu_secs("smsdesk-writer") - writer_cpu;
    let process_cpu = support::process_cpu_secs() - process_cpu;
    let batches = store
        .writer()
        .write_blocking(|tx| Ok::<_, StoreError>(tx.batch()))
        .unwrap();
    assert_eq!(applied, n, "every receipt must be correlated and applied");
    let db_mib = std::fs::metadata(dir.path().join("bench.db"))
        .map(|m| m.len() as f64 / 1048576.0)
        .unwrap_or(0.0);
    println!("ingest: {n} receipts against {n} messages, {in_flight} in flight, synchronous=FULL, {batches} transactions in all");
    // VmHWM counts the database pages SQLite maps into memory (up to 1 GiB), which the kernel
    // may drop at any time; the private peak is the memory the process itself needed.
    println!(
        "ingest: {:.1} s, {:.0} receipts/s, peak RSS {:.0} MiB (private {:.0} MiB), database {db_mib:.0} MiB",
        secs,
        n as f64 / secs,
        support::peak_rss_mib(),
        anon.stop()
    );
    // The writer thread is the bottleneck; its CPU time per receipt barely moves when other work
    // shares the machine, so it compares runs that wall time cannot.
    println!(
        "ingest: writer thread {:.1} µs CPU per receipt ({:.0} receipts per writer CPU second), whole process {:.1} µs",
        writer_cpu * 1e6 / n as f64,
        n as f64 / writer_cpu,
        process_cpu * 1e6 / n as f64
    );
    store.shutdown();
}
