//! Crash safety: `smsdesk serve` sending 20,000 queued messages to a slow SMSC (the sandbox in a
//! process of its own) is killed with SIGKILL three times mid-stream and restarted. In the end every
//! message is accepted, failed with its reason, or held in an outcome-unknown exception; none is
//! lost, and the SMSC's own counters show none was accepted twice.

mod support;

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use rusqlite::{Connection, OpenFlags};
use smsdesk_engine::domain::{IntakeChannel, MessageKind};
use smsdesk_engine::messages::{self, NewMessage};
use smsdesk_engine::store::{Store, StoreError};
use support::BIN;

const MESSAGES: usize = 20_000;

/// The SMSC process, killed if the test fails half-way.
struct Smsc(std::process::Child);

impl Drop for Smsc {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn count(db: &std::path::Path, sql: &str) -> i64 {
    let c = Connection::open_with_flags(db, OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
    c.busy_timeout(Duration::from_secs(5)).unwrap();
    c.query_row(sql, [], |r| r.get(0)).unwrap()
}

#[test]
fn killed_three_times_mid_stream_nothing_is_lost_and_nothing_is_sent_twice() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("data");
    let counts_file = tmp.path().join("smsc-counts.json");

    // The SMSC, slow on purpose, in its own process: it outlives every kill of smsdesk.
    let mut smsc = Smsc(
        Command::new(BIN)
            .args([
                "sandbox-smsc",
                "--port",
                "0",
                "--response-delay-ms",
                "1",
                "--receipt-delay-ms",
                "50",
                "--counts-file",
            ])
            .arg(&counts_file)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    let mut first = String::new();
    let mut lines = BufReader::new(smsc.0.stderr.take().unwrap());
    lines.read_line(&mut first).unwrap();
    // Keep reading what it says, so it never writes into a closed pipe.
    std::thread::spawn(move || std::io::copy(&mut lines, &mut std::io::sink()));
    let port = first
        .split_whitespace()
        .find_map(|w| w.strip_prefix("127.0.0.1:"))
        .expect("the SMSC prints its address")
        .to_owned();

    // 20,000 messages in the queue before the first start.
    std::fs::create_dir_all(&dir).unwrap();
    let db = dir.join("smsdesk.db");
    let store = Store::open(&db).unwrap();
    for start in (0..MESSAGES).step_by(5_000) {
        store
            .writer()
            .write_blocking(move |tx| {
                for i in start..(start + 5_000).min(MESSAGES) {
                    let m = NewMessage::text(
                        IntakeChannel::Api,
                        &format!("+336{:06}00", i),
                        &format!("Order {i} has shipped"),
                        MessageKind::Transactional,
                        "smpp",
                    );
                    messages::insert(tx, &m)?;
                }
                Ok::<_, StoreError>(())
            })
            .unwrap();
    }
    store.shutdown();
    drop(store);

    let env = [
        ("SMSDESK_SMPP_SANDBOX", "false"),
        ("SMSDESK_SMPP_HOST", "127.0.0.1"),
        ("SMSDESK_SMPP_PORT", port.as_str()),
        ("SMSDESK_SMPP_TPS", "100000"),
        ("SMSDESK_SMPP_RESPONSE_TIMEOUT_SECONDS", "2"),
        ("SMSDESK_HTTP_PORT", "0"),
    ];
    let settled = "SELECT count(*) FROM queue WHERE status IN ('accepted', 'failed', 'outcome_unknown')";
    for kill in 1..=3 {
        let mut r = support::start(&dir, &["serve"], &env);
        let before = count(&db, settled);
        let started = Instant::now();
        // Kill once this run has made some progress, so it dies mid-stream.
        while count(&db, settled) < before + 1_000 {
            assert!(
                started.elapsed() < Duration::from_secs(60),
                "run {kill} made no progress:\n{}",
                r.stderr()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        r.signal("KILL");
        r.wait(Duration::from_secs(10));
        assert!(count(&db, settled) < MESSAGES as i64, "run {kill} must die mid-stream");
    }

    let mut r = support::start(&dir, &["serve"], &env);
    let started = Instant::now();
    while count(&db, "SELECT count(*) FROM queue WHERE status IN ('queued', 'sending')") > 0 {
        assert!(
            started.elapsed() < Duration::from_secs(180),
            "the queue never drained:\n{}",
            r.stderr()
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    r.signal("TERM");
    assert!(r.wait(Duration::from_secs(30)).success());
    Command::new("kill")
        .args(["-INT", &smsc.0.id().to_string()])
        .status()
        .unwrap();
    assert!(smsc.0.wait().unwrap().success());

    assert_eq!(
        count(&db, "SELECT count(*) FROM message"),
        MESSAGES as i64,
        "no message may be lost"
    );
    assert_eq!(
        count(&db, settled),
        MESSAGES as i64,
        "every message ends accepted, failed or outcome-unknown"
    );
    assert_eq!(
        count(
            &db,
            "SELECT count(*) FROM queue q WHERE status = 'failed' AND last_error IS NULL"
        ),
        0,
        "a failed message says why"
    );
    assert_eq!(
        count(
            &db,
            "SELECT count(*) FROM queue q WHERE status = 'outcome_unknown' AND NOT EXISTS
             (SELECT 1 FROM exception e WHERE e.message_id = q.message_id AND e.kind = 'outcome_unknown' AND e.status = 'open')"
        ),
        0,
        "every unknown outcome waits in an exception"
    );
    assert_eq!(
        count(&db, "SELECT count(*) FROM (SELECT message_id FROM attempt WHERE outcome = 'accepted' GROUP BY message_id HAVING count(*) > 1)"),
        0,
        "no message was accepted twice by our records"
    );
    let smsc_counts: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&counts_file).unwrap()).unwrap();
    assert_eq!(
        smsc_counts["accepted_twice"], 0,
        "the SMSC accepted nothing twice: {smsc_counts}"
    );
    let unknown = count(&db, "SELECT count(*) FROM queue WHERE status = 'outcome_unknown'");
    assert!(
        unknown <= 3 * 20,
        "unknown outcomes are at most the kills times the in-flight window: {unknown}"
    );
    eprintln!("crash test: {smsc_counts}; {unknown} outcome-unknown after 3 kills");
}
