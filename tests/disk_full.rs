//! A full disk the engine recovers from, on a real file system: `smsdesk serve` with its data
//! directory on a 24 MiB tmpfs takes messages and sends them to a slow SMSC (the sandbox in a
//! process of its own, answering one submit every 200 ms) while a file fills the disk to its last
//! byte, mid-send, and is then removed. While the disk is full, new messages get 503
//! `storage_full` and `/api/v1/health` says `degraded`, naming the disk. Once the room is back,
//! the WAL does not take it again: intake answers 201 and keeps answering it. One lease period
//! after the room came back, no message is left `sending` with an expired lease, the SMSC never
//! accepted one twice, and the database passes its integrity check. (Mounting needs root: where
//! it is refused, the test fails, unless `SMSDESK_TEST_SKIP_MOUNTS=1` asks to skip it knowingly.)

use std::io::Write;
use std::path::Path;
use std::process::{Child, Command};
use std::time::{Duration, Instant, SystemTime};

use serde_json::{json, Value};

use crate::support::{get, post_json, run, spawn_smsc, start, Mount, Response, BIN};

/// The dispatcher's lease on a message it sends (`DispatcherConfig::lease`).
const LEASE: Duration = Duration::from_secs(120);
/// How long each wait for what the test expects may take before it fails.
const WAIT: Duration = Duration::from_secs(60);

/// The slow SMSC, in a process of its own, with its counters outside the small disk.
struct Smsc(Child, std::path::PathBuf);

impl Smsc {
    fn start(counts: &Path) -> (Smsc, String) {
        let mut cmd = Command::new(BIN);
        cmd.args([
            "sandbox-smsc",
            "--port",
            "0",
            "--response-delay-ms",
            "200",
            "--receipt-delay-ms",
            "100",
        ])
        .arg("--counts-file")
        .arg(counts);
        let (child, port) = spawn_smsc(cmd);
        (Smsc(child, counts.to_owned()), port.to_string())
    }

    /// Stops it (SIGINT: it writes its counters on the way out): how many submits it accepted
    /// again for the same destination and text.
    fn accepted_twice(mut self) -> i64 {
        Command::new("kill")
            .args(["-INT", &self.0.id().to_string()])
            .status()
            .unwrap();
        assert!(self.0.wait().unwrap().success());
        let v: Value = serde_json::from_str(&std::fs::read_to_string(&self.1).unwrap()).unwrap();
        v["accepted_twice"].as_i64().unwrap()
    }
}

impl Drop for Smsc {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn batch(key: &str, url: &str, n: usize) -> Response {
    let messages: Vec<Value> = (0..20)
        // Numbers ending in 00: the sandbox's plain acceptance (other endings play scenarios).
        .map(|i| json!({ "destination": format!("+336{:06}00", n * 20 + i), "text": format!("Order {n}-{i} shipped") }))
        .collect();
    post_json(url, "/api/v1/messages/batch", key, &json!({ "messages": messages }))
}

/// Writes `path` until the disk has no room left for it.
fn fill(path: &Path) -> u64 {
    let mut f = std::fs::File::create(path).unwrap();
    let mut written = 0u64;
    for chunk in [1 << 20, 4096, 512] {
        let bytes = vec![0u8; chunk];
        while f.write_all(&bytes).is_ok() {
            written += chunk as u64;
        }
    }
    let _ = f.sync_all();
    written
}

fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64
}

fn count(db: &Path, sql: &str) -> i64 {
    let c = rusqlite::Connection::open_with_flags(db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
    c.busy_timeout(Duration::from_secs(5)).unwrap();
    c.query_row(sql, [], |r| r.get(0)).unwrap()
}

/// Waits until `done` holds, at most [`WAIT`]; false when it never did.
fn until(mut done: impl FnMut() -> bool) -> bool {
    let started = Instant::now();
    while started.elapsed() < WAIT {
        if done() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    false
}

#[test]
fn a_disk_that_fills_and_comes_back_leaves_no_expired_send_and_takes_messages_again() {
    let tmp = tempfile::tempdir().unwrap();
    // The data directory is the small disk (the captured standard error is beside it, outside).
    let data = tmp.path().join("data");
    std::fs::create_dir_all(&data).unwrap();
    let args = [
        "-t".as_ref(),
        "tmpfs".as_ref(),
        "-o".as_ref(),
        "size=24m".as_ref(),
        "tmpfs".as_ref(),
    ];
    let Some(_tmpfs) = Mount::new(&args, &data, "the full-disk test on a 24 MiB tmpfs") else {
        return;
    };
    let (smsc, port) = Smsc::start(&tmp.path().join("smsc-counts.json"));
    let env = [
        ("SMSDESK_STORE_RESERVE_MIB", "2"),
        ("SMSDESK_BACKUP_KEEP_DAYS", "0"),
        ("SMSDESK_SMPP_SANDBOX", "false"),
        ("SMSDESK_SMPP_HOST", "127.0.0.1"),
        ("SMSDESK_SMPP_PORT", port.as_str()),
        ("SMSDESK_SMPP_TPS", "1000"),
        ("SMSDESK_SMPP_RESPONSE_TIMEOUT_SECONDS", "30"),
    ];
    let serve = start(&data, &["serve", "--http-port", "0"], &env);
    let (code, out, err) = run(&data, &["api-key", "create", "--name", "website"]);
    assert_eq!(code, 0, "{err}");
    let key = out
        .lines()
        .map(str::trim)
        .find(|l| l.starts_with("sdk_"))
        .unwrap()
        .to_owned();
    let db = data.join("smsdesk.db");
    let mut n = 0;
    for _ in 0..5 {
        assert_eq!(
            batch(&key, &serve.url, n).status,
            201,
            "room on the disk: messages are taken"
        );
        n += 1;
    }
    let mid_send = "SELECT count(*) FROM queue WHERE status = 'sending'";
    assert!(
        until(|| count(&db, mid_send) > 0),
        "messages are being sent when the disk fills"
    );

    let wal = data.join("smsdesk.db-wal");
    let wal_size = || std::fs::metadata(&wal).map_or(0, |m| m.len());
    let filler = data.join("filler");
    let filled = fill(&filler);
    let mut refused = None;
    let mut degraded = None;
    let full = until(|| {
        let r = batch(&key, &serve.url, n);
        n += 1;
        if r.status == 503 && r.json()["code"] == "storage_full" {
            refused = Some(r.body);
        }
        let health = get(&serve.url, "/api/v1/health");
        let h = health.json();
        if health.status == 200 && h["status"] == "degraded" && h["storage"]["short"] == true {
            degraded = Some(h);
        }
        refused.is_some() && degraded.is_some()
    });
    assert!(
        full,
        "with the disk full ({filled} bytes of filler), new messages get 503 storage_full ({refused:?}) and health says degraded ({degraded:?})"
    );
    let reason = degraded.unwrap()["reason"].as_str().unwrap_or_default().to_owned();
    assert!(reason.contains("disk"), "health says why: the disk ({reason})");
    // Full for a while: whatever the dispatcher was sending cannot be recorded meanwhile.
    std::thread::sleep(Duration::from_secs(5));
    eprintln!(
        "full: {filled} bytes of filler, WAL {} bytes, {} sending",
        wal_size(),
        count(&db, mid_send)
    );

    std::fs::remove_file(&filler).unwrap();
    let back = Instant::now();
    assert!(
        until(|| {
            n += 1;
            batch(&key, &serve.url, n).status == 201
        }),
        "once there is room again, new messages are taken again"
    );
    // The room that came back goes to the messages, not to a WAL that grows into it.
    for _ in 0..20 {
        n += 1;
        let r = batch(&key, &serve.url, n);
        assert_eq!(r.status, 201, "the room that came back stays usable: {}", r.body);
        std::thread::sleep(Duration::from_millis(250));
    }
    assert!(
        until(|| get(&serve.url, "/api/v1/health").json()["storage"]["short"] == false),
        "health no longer says the disk is short once there is room"
    );
    eprintln!("room back: WAL {} bytes", wal_size());

    let expired = "SELECT count(*) FROM queue WHERE status = 'sending' AND lease_until <= ";
    while back.elapsed() < LEASE {
        std::thread::sleep(Duration::from_secs(1));
    }
    assert_eq!(
        count(&db, &format!("{expired}{}", now_ms())),
        0,
        "one lease period after the room came back, no message is left sending with an expired lease"
    );
    let accepted = count(&db, "SELECT count(*) FROM queue WHERE status = 'accepted'");
    assert!(accepted > 0, "messages went out");
    eprintln!(
        "after a lease: {accepted} accepted, {} sending, {} held with an unknown outcome",
        count(&db, mid_send),
        count(&db, "SELECT count(*) FROM queue WHERE status = 'outcome_unknown'")
    );

    serve.signal("TERM");
    let mut serve = serve;
    assert!(serve.wait(WAIT).success(), "{}", serve.stderr());
    let c = rusqlite::Connection::open(&db).unwrap();
    let check: String = c.query_row("PRAGMA integrity_check", [], |r| r.get(0)).unwrap();
    assert_eq!(check, "ok", "the database that filled its disk is whole");
    assert_eq!(smsc.accepted_twice(), 0, "no message was sent twice for the full disk");
}
