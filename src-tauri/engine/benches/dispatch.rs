//! Dispatch throughput: N queued messages sent over SMPP to the sandbox SMSC running as a separate
//! process on loopback, every attempt durably committed before its PDU and its result after, and
//! every receipt ingested. Prints messages/s, receipts/s and peak memory.
//!
//!   cargo bench -p smsdesk-engine --bench dispatch -- [N] [WINDOW]      (default 100000 64)

mod support;

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use smsdesk_engine::dispatch::worker::{Dispatcher, DispatcherConfig};
use smsdesk_engine::domain::{IntakeChannel, MessageKind};
use smsdesk_engine::messages::{self, NewMessage};
use smsdesk_engine::receipts::ingest::Ingestor;
use smsdesk_engine::receipts::policy::ReceiptPolicy;
use smsdesk_engine::sandbox::{Sandbox, SandboxConfig};
use smsdesk_engine::smpp::session::{Session, SessionConfig};
use smsdesk_store::{Store, StoreError};

fn count(store: &Store, sql: &'static str) -> i64 {
    store
        .reader()
        .read_blocking(|c| Ok::<_, StoreError>(c.query_row(sql, [], |r| r.get(0))?))
        .unwrap()
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).filter(|a| a != "--bench").collect();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    if args.first().map(String::as_str) == Some("--sandbox-child") {
        // The SMSC side, in its own process: print the port, serve until killed.
        runtime.block_on(async {
            let config = SandboxConfig {
                receipt_delay: Duration::from_millis(5),
                ..Default::default()
            };
            let sandbox = Sandbox::start(config).await.unwrap();
            println!("{}", sandbox.addr().port());
            std::future::pending::<()>().await;
        });
        return;
    }
    let n: usize = args.first().and_then(|a| a.parse().ok()).unwrap_or(100_000);
    let window: usize = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(64);

    let mut child = Command::new(std::env::current_exe().unwrap())
        .arg("--sandbox-child")
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let port: u16 = line.trim().parse().expect("the sandbox prints its port");

    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(Store::open(&dir.path().join("bench.db")).unwrap());
    let t = Instant::now();
    for start in (0..n).step_by(10_000) {
        let end = (start + 10_000).min(n);
        store
            .writer()
            .write_blocking(move |tx| {
                for i in start..end {
                    let m = NewMessage::text(
                        IntakeChannel::Api,
                        &format!("+336{:08}", i * 100),
                        &format!("Order {i} has shipped"),
                        MessageKind::Transactional,
                        "sandbox",
                    );
                    messages::insert(tx, &m)?;
                }
                Ok::<_, StoreError>(())
            })
            .unwrap();
    }
    eprintln!("queued {n} messages in {:.1} s", t.elapsed().as_secs_f64());

    let (sent, all) = runtime.block_on(async {
        let session = Session::start(
            SessionConfig {
                window,
                tps: 1_000_000.0,
                ..SessionConfig::new("sandbox", "127.0.0.1", port)
            },
            Arc::new(Ingestor::new(store.writer().clone(), ReceiptPolicy::default())),
        );
        let dispatcher = Dispatcher::start(
            store.clone(),
            session.handle(),
            ReceiptPolicy::default(),
            DispatcherConfig {
                idle_poll: Duration::from_millis(5),
                ..Default::default()
            },
        )
        .await
        .unwrap();
        let t = Instant::now();
        let io = support::WriteCounters::now();
        let (tx0, ops0) = store.writer().stats();
        let cpu = support::thread_cpu_secs("smsdesk-writer");
        let mut sent = None;
        loop {
            tokio::time::sleep(Duration::from_millis(250)).await;
            let s = store.clone();
            let (accepted, delivered) = tokio::task::spawn_blocking(move || {
                (
                    count(&s, "SELECT count(*) FROM queue WHERE status = 'accepted'"),
                    count(&s, "SELECT count(*) FROM projection WHERE state = 'delivered'"),
                )
            })
            .await
            .unwrap();
            if sent.is_none() && accepted as usize >= n {
                sent = Some(t.elapsed());
            }
            if delivered as usize >= n {
                break;
            }
            assert!(
                t.elapsed() < Duration::from_secs(900),
                "stalled at {accepted} accepted, {delivered} delivered"
            );
        }
        let all = t.elapsed();
        let (tx1, ops1) = store.writer().stats();
        eprintln!(
            "dispatch: per message {}; writer CPU {:.1} µs; {:.2} transactions and {:.2} write operations",
            support::WriteCounters::now().per_item(io, n),
            (support::thread_cpu_secs("smsdesk-writer") - cpu) * 1e6 / n as f64,
            (tx1 - tx0) as f64 / n as f64,
            (ops1 - ops0) as f64 / n as f64,
        );
        dispatcher.stop().await;
        session.stop().await;
        (sent.unwrap_or(all), all)
    });
    let _ = child.kill();
    let _ = child.wait();
    let attempts = count(&store, "SELECT count(*) FROM attempt");
    assert_eq!(attempts as usize, n, "one attempt per message: nothing sent twice");
    println!("dispatch: {n} messages, window {window}, sandbox in a separate process, synchronous=FULL");
    println!(
        "dispatch: all accepted in {:.1} s ({:.0} messages/s); all receipts applied in {:.1} s ({:.0} receipts/s); peak RSS {:.0} MiB",
        sent.as_secs_f64(),
        n as f64 / sent.as_secs_f64(),
        all.as_secs_f64(),
        n as f64 / all.as_secs_f64(),
        support::peak_rss_mib()
    );
}
