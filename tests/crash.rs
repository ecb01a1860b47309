//! Crash safety: `smsdesk serve` sending 20,000 queued messages to a slow SMSC (the sandbox in a
//! process of its own) is killed with SIGKILL four times mid-stream and restarted. The stream mixes
//! order updates, one-time codes, messages in three parts, and messages the SMSC accepts without
//! ever answering. In the end every message is accepted, failed with its reason, expired (a code),
//! or held with an exception; every message in parts is whole, held with an exception, or never
//! accepted at all; none is lost, and the SMSC's own counters show no content (no part) accepted
//! twice.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::support::BIN;
use rusqlite::{Connection, OpenFlags};
use smsdesk_engine::domain::{IntakeChannel, MessageKind};
use smsdesk_engine::messages::{self, NewMessage};
use smsdesk_store::{Store, StoreError};

const MESSAGES: usize = 20_000;
const KILLS: usize = 4;

/// What message `i` of the stream is: every 10th in three parts, every 7th a one-time code, every
/// 500th one the SMSC accepts without answering (sandbox scenario 24).
fn message(i: usize) -> NewMessage {
    let ghost = i % 500 == 499;
    let destination = format!("+336{:06}{}", i, if ghost { "24" } else { "00" });
    let body = if i % 10 == 3 {
        format!("Order {i}: ") + &"your parcel is on its way and will arrive tomorrow. ".repeat(8)
    } else {
        format!("Order {i} has shipped")
    };
    let kind = if i % 7 == 5 {
        MessageKind::Otp
    } else {
        MessageKind::Transactional
    };
    let mut m = NewMessage::text(IntakeChannel::Api, &destination, &body, kind, "smpp");
    if kind == MessageKind::Otp {
        m.valid_until = Some(smsdesk_engine::clock::Clock::system().now_ms() + 30 * 60_000);
    }
    m
}

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
fn killed_mid_stream_nothing_is_lost_nothing_is_sent_twice_and_no_long_message_is_left_half_sent() {
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
                    messages::insert(tx, &message(i))?;
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
    let settled = "SELECT count(*) FROM queue WHERE status IN ('accepted', 'failed', 'outcome_unknown', 'expired')";
    for kill in 1..=KILLS {
        let mut r = crate::support::start(&dir, &["serve"], &env);
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

    let mut r = crate::support::start(&dir, &["serve"], &env);
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
        "every message ends accepted, failed, expired or held"
    );
    assert_eq!(
        count(&db, "SELECT count(*) FROM attempt WHERE outcome = 'pending'"),
        0,
        "no try is left pending"
    );
    assert_eq!(
        count(
            &db,
            "SELECT count(*) FROM queue q JOIN message m ON m.id = q.message_id
             WHERE q.status = 'expired' AND m.kind <> 'otp'"
        ),
        0,
        "only codes expire"
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
             (SELECT 1 FROM exception e WHERE e.message_id = q.message_id
              AND e.kind IN ('outcome_unknown', 'partly_sent') AND e.status = 'open')"
        ),
        0,
        "every message held waits in an exception"
    );
    // Messages in three parts: accepted means every part accepted; none failed or expired with a
    // part out; what is between is held.
    assert_eq!(
        count(
            &db,
            "SELECT count(*) FROM queue q JOIN message m ON m.id = q.message_id
             WHERE m.segments = 3 AND q.status = 'accepted'
               AND (SELECT count(DISTINCT segment_no) FROM attempt a
                    WHERE a.message_id = m.id AND a.outcome = 'accepted') < 3"
        ),
        0,
        "a message in parts is accepted only whole"
    );
    assert_eq!(
        count(
            &db,
            "SELECT count(*) FROM queue q JOIN message m ON m.id = q.message_id
             WHERE m.segments = 3 AND q.status IN ('failed', 'expired')
               AND EXISTS (SELECT 1 FROM attempt a WHERE a.message_id = m.id AND a.outcome = 'accepted')"
        ),
        0,
        "a message in parts with a part out is never settled failed behind a person's back"
    );
    assert!(
        count(&db, "SELECT count(*) FROM message WHERE segments = 3") >= (MESSAGES / 10) as i64,
        "the stream carries messages in parts"
    );
    let ghosts = (MESSAGES / 500) as i64;
    assert_eq!(
        count(
            &db,
            "SELECT count(*) FROM queue q JOIN message m ON m.id = q.message_id
             WHERE m.destination LIKE '%24' AND q.status = 'outcome_unknown'"
        ),
        ghosts,
        "a submit accepted without an answer is held, never resent"
    );
    assert_eq!(
        count(
            &db,
            "SELECT count(*) FROM (SELECT message_id FROM attempt WHERE outcome = 'accepted'
             GROUP BY message_id, segment_no HAVING count(*) > 1)"
        ),
        0,
        "no message (no part of one) was accepted twice by our records"
    );
    let smsc_counts: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&counts_file).unwrap()).unwrap();
    assert_eq!(
        smsc_counts["accepted_twice"], 0,
        "the SMSC accepted nothing twice: {smsc_counts}"
    );
    let unknown = count(&db, "SELECT count(*) FROM queue WHERE status = 'outcome_unknown'") - ghosts;
    assert!(
        unknown <= (KILLS * 20) as i64,
        "besides the SMSC's silent accepts, unknown outcomes are at most the kills times the in-flight window: {unknown}"
    );
    eprintln!(
        "crash test: {smsc_counts}; {unknown} held by the kills (and {ghosts} silent accepts) after {KILLS} kills"
    );
}
