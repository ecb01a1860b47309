//! Several SMPP connections, end to end: `smsdesk serve` with two connections, each to a sandbox
//! SMSC in a process of its own (`smsdesk sandbox-smsc`), over TCP. Messages follow their routes
//! (by destination prefix, API key and kind); when the primary is stopped mid-stream the rest fail
//! over to the backup once the grace has passed, and those whose outcome was unknown stay where
//! they were; they come back to the primary once it is up; refused binds fail over at once. Both
//! SMSCs number their message ids alike (from the same first id), and no receipt is ever taken
//! for a message of the other connection. The backup binds a transmitter and a receiver, and its
//! receipts arrive on the receiver.

#[path = "connections/holds.rs"]
mod holds;
#[path = "connections/reroute.rs"]
mod reroute;

use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::time::{Duration, Instant};

use crate::support::{post_json, run, spawn_smsc, Running, BIN};
use rusqlite::{Connection, OpenFlags};
use serde_json::{json, Value};

/// One `smsdesk sandbox-smsc` process and its counters file.
struct Smsc {
    child: Child,
    port: u16,
    counts: PathBuf,
}

/// What an SMSC counted: submits accepted, and accepted again for the same destination and text.
#[derive(Debug, Clone, Copy)]
struct Counts {
    accepted: i64,
    accepted_twice: i64,
}

impl Smsc {
    /// Starts one on `port` (0: any), refusing binds without `password` when one is given, its
    /// message ids from `first_id`.
    fn start(dir: &Path, name: &str, port: u16, password: Option<&str>, first_id: u64) -> Smsc {
        let counts = dir.join(format!("{name}-counts.json"));
        let mut cmd = Command::new(BIN);
        cmd.args(["sandbox-smsc", "--port", &port.to_string(), "--receipt-delay-ms", "20"])
            .args([
                "--response-delay-ms",
                "2",
                "--first-id",
                &first_id.to_string(),
                "--counts-file",
            ])
            .arg(&counts);
        if let Some(p) = password {
            cmd.args(["--password", p]);
        }
        let (child, port) = spawn_smsc(cmd);
        Smsc { child, port, counts }
    }

    /// Stops it (SIGINT: it writes its counters on the way out) and reads its counters.
    fn stop(mut self) -> Counts {
        let pid = self.child.id().to_string();
        Command::new("kill").args(["-INT", &pid]).status().unwrap();
        assert!(self.child.wait().unwrap().success());
        let v: Value = serde_json::from_str(&std::fs::read_to_string(&self.counts).unwrap()).unwrap();
        Counts {
            accepted: v["accepted"].as_i64().unwrap(),
            accepted_twice: v["accepted_twice"].as_i64().unwrap(),
        }
    }
}

impl Drop for Smsc {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn config(primary: u16, backup: u16) -> String {
    format!(
        r#"
[http]
port = 0

[routing]
failover_grace_seconds = 2
otp_failover_grace_seconds = 1

[connections.primary]
host = "127.0.0.1"
port = {primary}
password = "right"
window = 20
tps = 100000
response_timeout_seconds = 2
enquire_link_seconds = 1

[connections.backup]
host = "127.0.0.1"
port = {backup}
bind_mode = "transmitter_receiver"
window = 20
tps = 100000
response_timeout_seconds = 2

[[routes]]
name = "russia"
prefixes = ["+7"]
connections = ["backup"]

[[routes]]
name = "shop"
api_keys = ["shop"]
connections = ["backup", "primary"]

[[routes]]
name = "codes"
kinds = ["otp"]
connections = ["backup", "primary"]

[[routes]]
name = "main"
connections = ["primary", "backup"]
"#
    )
}

/// A data directory configured with [`config`] over two SMSCs (the primary, `primary` in its
/// files, asks for a password; the backup numbers its ids from `backup_ids`), and an API key
/// "crm": (tempdir, data dir, database, primary, backup, key).
fn two_smscs(primary: &str, backup_ids: u64) -> (tempfile::TempDir, PathBuf, PathBuf, Smsc, Smsc, String) {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    std::fs::create_dir_all(&data).unwrap();
    let db = data.join("smsdesk.db");
    let primary = Smsc::start(tmp.path(), primary, 0, Some("right"), 1 << 28);
    let backup = Smsc::start(tmp.path(), "backup", 0, None, backup_ids);
    std::fs::write(data.join("smsdesk.toml"), config(primary.port, backup.port)).unwrap();
    let crm = key(&data, "crm");
    (tmp, data, db, primary, backup, crm)
}

fn count(db: &Path, sql: &str) -> i64 {
    let c = Connection::open_with_flags(db, OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
    c.busy_timeout(Duration::from_secs(5)).unwrap();
    c.query_row(sql, [], |r| r.get(0)).unwrap()
}

/// The queue by status, route and pin, and the tries by connection and outcome, for a failure.
fn queue_state(db: &Path) -> String {
    let c = Connection::open_with_flags(db, OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
    let rows = |sql: &str| -> Vec<String> {
        let mut stmt = c.prepare(sql).unwrap();
        stmt.query_map([], |r| {
            Ok(format!("{:?}", (r.get::<_, String>(0)?, r.get::<_, i64>(1)?)))
        })
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
    };
    format!(
        "queue: {:?}\ntries: {:?}",
        rows("SELECT status || ' ' || coalesce(route, '-') || ' ' || coalesce(pinned, '-'), count(*) FROM queue GROUP BY 1"),
        rows("SELECT connection || ' ' || outcome, count(*) FROM attempt GROUP BY 1")
    )
}

fn wait_for(r: &Running, what: &str, mut done: impl FnMut() -> bool) {
    let started = Instant::now();
    let db = r.data_dir.join("smsdesk.db");
    while !done() {
        assert!(
            started.elapsed() < Duration::from_secs(90),
            "{what}: not within 90 s\n{}\n{}",
            queue_state(&db),
            r.stderr()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Hands in `n` messages (`kind`) numbered from `first` to numbers made by `number`, in batches.
fn send(r: &Running, key: &str, kind: &str, first: usize, n: usize, number: fn(usize) -> String) {
    for start in (first..first + n).step_by(500) {
        let messages: Vec<Value> = (start..(start + 500).min(first + n))
            .map(|i| json!({ "destination": number(i), "text": format!("Message {i}"), "kind": kind }))
            .collect();
        let answer = post_json(&r.url, "/api/v1/messages/batch", key, &json!({ "messages": messages }));
        assert_eq!(answer.status, 201, "{}", answer.body);
    }
}

fn french(i: usize) -> String {
    format!("+336{i:06}00")
}

fn russian(i: usize) -> String {
    format!("+79{i:07}00")
}

fn key(data: &Path, name: &str) -> String {
    let (code, out, err) = run(data, &["api-key", "create", "--name", name, "--scope", "send"]);
    assert_eq!(code, 0, "{err}");
    out.lines()
        .map(str::trim)
        .find(|l| l.starts_with("sdk_"))
        .unwrap_or_else(|| panic!("no key in: {out}"))
        .to_owned()
}

/// `connection` as `GET /api/v1/connections` answers (null when there is none of that name).
fn connection_of(r: &Running, connection: &str) -> Value {
    let all = r.get_as_operator("/api/v1/connections").json();
    all.as_array()
        .unwrap()
        .iter()
        .find(|c| c["connection"] == connection)
        .cloned()
        .unwrap_or_default()
}

fn link_of(r: &Running, connection: &str) -> String {
    connection_of(r, connection)["link"]["state"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

/// Messages of `route` from message id `from`, by the connections their tries went out on.
fn tries_by_connection(db: &Path, route: &str, from: i64) -> Vec<(String, i64)> {
    let c = Connection::open_with_flags(db, OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
    let mut stmt = c
        .prepare(
            "SELECT a.connection, count(DISTINCT a.message_id) FROM attempt a JOIN queue q ON q.message_id = a.message_id
             WHERE q.route = ?1 AND a.message_id >= ?2 AND a.outcome <> 'not_sent' GROUP BY a.connection ORDER BY 1",
        )
        .unwrap();
    stmt.query_map(rusqlite::params![route, from], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

#[test]
fn messages_follow_their_routes_fail_over_come_back_and_are_never_sent_twice() {
    // Both number their ids alike; the primary, started again, does not repeat its own.
    let (tmp, data, db, primary, backup, crm) = two_smscs("primary-1", 1 << 28);
    let (primary_port, backup_port) = (primary.port, backup.port);
    let shop = key(&data, "shop");

    let r = crate::support::start(&data, &["serve"], &[]);
    wait_for(&r, "both connections bound", || {
        link_of(&r, "primary") == "bound" && link_of(&r, "backup") == "bound"
    });

    // Routing by prefix, by API key and by kind; the rest on the primary.
    send(&r, &crm, "bulk", 0, 10, russian);
    send(&r, &shop, "transactional", 100, 10, french);
    send(&r, &crm, "otp", 200, 10, french);
    send(&r, &crm, "transactional", 300, 30, french);
    let accepted = "SELECT count(*) FROM queue WHERE status = 'accepted'";
    wait_for(&r, "the first 60 accepted", || count(&db, accepted) == 60);
    assert_eq!(tries_by_connection(&db, "russia", 0), vec![("backup".into(), 10)]);
    assert_eq!(tries_by_connection(&db, "shop", 0), vec![("backup".into(), 10)]);
    assert_eq!(tries_by_connection(&db, "codes", 0), vec![("backup".into(), 10)]);
    assert_eq!(tries_by_connection(&db, "main", 0), vec![("primary".into(), 30)]);

    // The primary stops mid-stream: the rest move to the backup once the grace has passed.
    let from = count(&db, "SELECT max(id) FROM message") + 1;
    send(&r, &crm, "transactional", 1_000, 1_500, french);
    wait_for(&r, "some of the stream accepted", || count(&db, accepted) >= 60 + 200);
    let first_primary = primary.stop();
    let open = "SELECT count(*) FROM queue WHERE status IN ('queued', 'sending')";
    wait_for(&r, "the stream settled", || count(&db, open) == 0);
    let moved = tries_by_connection(&db, "main", from);
    assert_eq!(moved.len(), 2, "the stream went out on both: {moved:?}");
    assert!(
        count(
            &db,
            &format!(
                "SELECT count(*) FROM attempt WHERE message_id >= {from} AND connection = 'backup'
                 AND (routing IS NULL OR routing NOT LIKE '%failover: primary not bound since%')"
            )
        ) == 0,
        "every try on the backup says why"
    );
    assert_eq!(
        count(
            &db,
            &format!(
                "SELECT count(*) FROM queue q WHERE q.message_id >= {from} AND (q.status <> 'accepted' AND q.status <> 'outcome_unknown')"
            )
        ),
        0,
        "every message of the stream is accepted or held for a person"
    );
    assert_eq!(
        count(
            &db,
            "SELECT count(*) FROM attempt a JOIN attempt u ON u.message_id = a.message_id
             WHERE u.outcome IN ('timeout', 'link_lost') AND a.id > u.id AND a.outcome <> 'not_sent'"
        ),
        0,
        "nothing is tried again after a try whose outcome is unknown"
    );
    assert_eq!(
        count(
            &db,
            "SELECT count(*) FROM queue q WHERE q.status = 'outcome_unknown' AND (q.pinned IS NOT 'primary'
             OR EXISTS (SELECT 1 FROM attempt a WHERE a.message_id = q.message_id AND a.connection <> 'primary'))"
        ),
        0,
        "a message whose outcome is unknown stays on the primary"
    );

    // The primary comes back on the same port: new messages go to it again.
    let primary = Smsc::start(tmp.path(), "primary-2", primary_port, Some("right"), 2 << 28);
    wait_for(&r, "the primary bound again", || link_of(&r, "primary") == "bound");
    let back = count(&db, "SELECT max(id) FROM message") + 1;
    send(&r, &crm, "transactional", 5_000, 50, french);
    wait_for(&r, "the last 50 accepted", || {
        count(
            &db,
            &format!("SELECT count(*) FROM queue WHERE message_id >= {back} AND status = 'accepted'"),
        ) == 50
    });
    assert_eq!(tries_by_connection(&db, "main", back), vec![("primary".into(), 50)]);
    // Every receipt due has arrived and was applied: all but those of the last messages the
    // first primary accepted before it stopped, whose receipts it never sent.
    wait_for(&r, "every receipt applied", || {
        count(
            &db,
            &format!(
                "SELECT count(*) FROM queue q LEFT JOIN projection p ON p.message_id = q.message_id
                 JOIN attempt a ON a.id = q.accepted_attempt_id
                 WHERE q.status = 'accepted' AND (p.state IS NULL OR p.state <> 'delivered')
                   AND (a.connection <> 'primary' OR q.message_id >= {back})"
            ),
        ) == 0
    });
    let mut r = r;
    r.signal("TERM");
    assert!(r.wait(Duration::from_secs(30)).success());

    // Neither SMSC accepted a message twice, nor did both accept one: every acceptance is a try
    // recorded as accepted, or one of the tries whose answer was lost.
    let counts = [first_primary, primary.stop(), backup.stop()];
    assert!(counts.iter().all(|c| c.accepted_twice == 0), "{counts:?}");
    let accepted_by_smscs: i64 = counts.iter().map(|c| c.accepted).sum();
    let accepted_tries = count(&db, "SELECT count(*) FROM attempt WHERE outcome = 'accepted'");
    let unknown_tries = count(
        &db,
        "SELECT count(*) FROM attempt WHERE outcome IN ('timeout', 'link_lost')",
    );
    assert_eq!(
        accepted_tries,
        count(&db, "SELECT count(*) FROM queue WHERE status = 'accepted'")
    );
    assert!(
        (accepted_tries..=accepted_tries + unknown_tries).contains(&accepted_by_smscs),
        "the SMSCs accepted {accepted_by_smscs}; tries accepted {accepted_tries}, unknown {unknown_tries}"
    );

    // The same ids on both connections, never crossed: each receipt applied to a message of the
    // connection it came on, sent to the handset it came from.
    let shared_ids = count(
        &db,
        "SELECT count(*) FROM attempt a JOIN attempt b ON b.provider_message_id = a.provider_message_id
         WHERE a.connection = 'primary' AND b.connection = 'backup'",
    );
    assert!(shared_ids > 0, "both SMSCs gave out the same ids");
    assert_eq!(
        count(
            &db,
            "SELECT count(*) FROM logical_event e WHERE e.message_id IS NOT NULL AND NOT EXISTS
             (SELECT 1 FROM attempt a WHERE a.message_id = e.message_id AND a.connection = e.connection
              AND a.outcome = 'accepted')"
        ),
        0,
        "a receipt is applied only to a message accepted on its connection"
    );
    assert_eq!(
        count(
            &db,
            "SELECT count(*) FROM receipt r JOIN receipt_outcome o ON o.receipt_id = r.id
             JOIN logical_event e ON e.id = o.logical_event_id JOIN message m ON m.id = e.message_id
             WHERE '+' || r.source_addr <> m.destination"
        ),
        0,
        "a receipt is applied only to the message sent to its handset"
    );
    assert_eq!(
        count(
            &db,
            "SELECT count(*) FROM exception WHERE kind NOT IN ('outcome_unknown', 'partly_sent')"
        ),
        0,
        "no receipt went unmatched or mismatched"
    );
    assert!(count(&db, "SELECT count(*) FROM receipt WHERE connection = 'backup'") > 0);
    assert_eq!(
        count(
            &db,
            "SELECT count(*) FROM receipt WHERE connection = 'backup' AND session_id NOT LIKE 'backup/rx1#%'"
        ),
        0,
        "the backup's receipts arrive on its receiver bind"
    );

    // The primary refuses the binds (a changed password): its messages go to the backup at once,
    // long before the grace (ten minutes here).
    let primary = Smsc::start(tmp.path(), "primary-3", primary_port, Some("changed"), 3 << 28);
    let _backup = Smsc::start(tmp.path(), "backup-2", backup_port, None, 4 << 28);
    let env = [("SMSDESK_ROUTING_FAILOVER_GRACE_SECONDS", "600")];
    let mut r = crate::support::start(&data, &["serve"], &env);
    wait_for(&r, "the primary's binds refused", || {
        link_of(&r, "primary") == "bind_refused"
    });
    wait_for(&r, "the backup bound", || link_of(&r, "backup") == "bound");
    let refused = count(&db, "SELECT max(id) FROM message") + 1;
    send(&r, &crm, "transactional", 7_000, 20, french);
    wait_for(&r, "the 20 accepted", || {
        count(
            &db,
            &format!("SELECT count(*) FROM queue WHERE message_id >= {refused} AND status = 'accepted'"),
        ) == 20
    });
    assert_eq!(tries_by_connection(&db, "main", refused), vec![("backup".into(), 20)]);
    let detail = r.get_as_operator(&format!("/api/v1/messages/{refused}")).json();
    let timeline = detail["timeline"].to_string();
    assert!(
        timeline.contains("route \\\"main\\\", queued for primary")
            && timeline.contains("route \\\"main\\\", failover: primary refused its binds"),
        "the timeline says which route and connection, and why: {timeline}"
    );
    assert_eq!(detail["queue"]["route"], "main");
    r.signal("TERM");
    assert!(r.wait(Duration::from_secs(30)).success());
    assert_eq!(primary.stop().accepted, 0);
}
