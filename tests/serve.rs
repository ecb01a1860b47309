//! End-to-end: the built `smsdesk` binary, headless, over real HTTP and a real SQLite file.

use std::process::Command;
use std::time::Duration;

use crate::support::{start, Running, BIN};
use rusqlite::{Connection, OpenFlags};
use smsdesk_store::TABLES;

fn serve(dir: &std::path::Path) -> Running {
    start(dir, &["serve", "--http-port", "0"], &[])
}

fn stop(mut r: Running, signal: &str) {
    r.signal(signal);
    let status = r.wait(Duration::from_secs(20));
    assert!(
        status.success(),
        "smsdesk must exit 0 after {signal}, got {status}:\n{}",
        r.stderr()
    );
    assert!(
        !r.data_dir.join("instance.json").exists(),
        "instance.json must be removed on a clean stop"
    );
}

fn migrations(db: &std::path::Path) -> Vec<(i64, i64)> {
    let c = Connection::open_with_flags(db, OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
    let mut s = c
        .prepare("SELECT version, applied_at FROM schema_migration ORDER BY version")
        .unwrap();
    s.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

#[test]
fn serve_creates_every_table_keeps_data_across_restarts_and_does_not_rerun_migrations() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("data");
    let db = dir.join("smsdesk.db");

    let first = serve(&dir);
    let health = first.get("/api/v1/health");
    assert_eq!(health.status, 200, "{}", health.body);
    assert_eq!(health.json()["status"], "ok");
    assert!(
        dir.join("smsdesk.toml").exists(),
        "the documented config file is created on first run"
    );
    assert!(
        std::fs::read_dir(dir.join("logs")).unwrap().next().is_some(),
        "a log file is written in the data dir"
    );
    stop(first, "TERM");

    let conn = Connection::open(&db).unwrap();
    for t in TABLES {
        let n: i64 = conn
            .query_row(
                "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?1",
                [t],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(n, 1, "table {t} must exist after the first start");
    }
    conn.execute(
        "INSERT INTO audit (at, actor, action, note) VALUES (1, 'test', 'marker', 'kept?')",
        [],
    )
    .unwrap();
    drop(conn);
    let applied_before = migrations(&db);
    assert!(!applied_before.is_empty());

    let second = serve(&dir);
    assert_eq!(second.get("/api/v1/health").status, 200);
    stop(second, "INT");

    let conn = Connection::open_with_flags(&db, OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
    let note: String = conn
        .query_row("SELECT note FROM audit WHERE action = 'marker'", [], |r| r.get(0))
        .unwrap();
    assert_eq!(
        note, "kept?",
        "data written before a restart must still be there after it"
    );
    assert_eq!(migrations(&db), applied_before, "a restart must not re-run migrations");
}

#[test]
fn serve_answers_the_api_and_serves_the_ui() {
    let tmp = tempfile::tempdir().unwrap();
    let r = serve(&tmp.path().join("data"));

    let anonymous = r.get("/api/v1/info");
    assert_eq!(anonymous.status, 401, "the API needs a key: {}", anonymous.body);
    let info = r.get_as_operator("/api/v1/info").json();
    assert_eq!(info["mode"], "serve");
    assert_eq!(info["httpUrl"].as_str(), Some(r.url.as_str()));
    assert!(info["schemaVersion"].as_u64().unwrap() >= 1);

    let page = r.get("/");
    assert_eq!(page.status, 200);
    assert!(page.header("content-type").unwrap().starts_with("text/html"));
    assert!(
        page.body.contains("<div id=\"root\">"),
        "the built UI's entry page is served: {}",
        page.body
    );
    let csp = page
        .header("content-security-policy")
        .expect("the UI is served with a CSP");
    assert!(csp.contains("default-src 'self'"), "{csp}");
    assert_eq!(
        page.header("referrer-policy"),
        Some("no-referrer"),
        "a link followed from the UI tells no other site where it came from"
    );
    assert_eq!(
        page.header("x-frame-options"),
        Some("DENY"),
        "no page may frame the UI, in browsers that ignore frame-ancestors too"
    );

    let missing = r.get("/api/v1/no-such-route");
    assert_eq!(missing.status, 404);
    assert_eq!(missing.json()["code"], "not_found", "API errors are {{code, message}}");
    stop(r, "TERM");
}

#[test]
fn a_second_instance_on_the_same_data_directory_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("data");
    let first = serve(&dir);
    let out = Command::new(BIN)
        .args(["serve", "--http-port", "0", "--data-dir"])
        .arg(&dir)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "the second instance must refuse to start");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("already running") && err.contains(&first.url), "{err}");
    assert_eq!(
        first.get("/api/v1/health").status,
        200,
        "the first instance is unaffected"
    );
    stop(first, "TERM");
}

#[test]
fn a_bad_config_value_is_refused_at_start_with_file_key_and_reason() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("data");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("smsdesk.toml");
    std::fs::write(&file, "[http]\nport = \"eighty\"\n").unwrap();
    let out = Command::new(BIN)
        .args(["serve", "--data-dir"])
        .arg(&dir)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&file.display().to_string()) && err.contains("http.port") && err.contains("expected an integer"),
        "{err}"
    );
    assert!(
        !dir.join("smsdesk.db").exists(),
        "nothing is created when the config is refused"
    );

    std::fs::write(&file, "").unwrap();
    let out = Command::new(BIN)
        .args(["serve", "--data-dir"])
        .arg(&dir)
        .env("SMSDESK_HTTP_PORT", "eighty")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("SMSDESK_HTTP_PORT") && err.contains("http.port"), "{err}");
}

#[test]
fn the_environment_points_an_instance_elsewhere() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("via-env");
    let r = start(
        &tmp.path().join("flag"),
        &["serve"],
        &[
            ("SMSDESK_DATA_DIR", "ignored-because-flag-wins"),
            ("SMSDESK_HTTP_PORT", "0"),
        ],
    );
    // --data-dir (set by the helper) wins over SMSDESK_DATA_DIR; SMSDESK_HTTP_PORT=0 picked a free port.
    assert!(!r.url.ends_with(":8470"), "{}", r.url);
    stop(r, "TERM");

    let mut child = Command::new(BIN)
        .args(["serve", "--http-port", "0"])
        .env("SMSDESK_DATA_DIR", &dir)
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let started = std::time::Instant::now();
    while !dir.join("instance.json").exists() {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "SMSDESK_DATA_DIR must choose the data directory"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(child.wait().unwrap().success());
}

#[test]
fn help_lists_the_subcommands() {
    let out = Command::new(BIN).arg("--help").output().unwrap();
    assert!(out.status.success());
    let help = String::from_utf8_lossy(&out.stdout);
    assert!(help.contains("serve") && help.contains("--data-dir"), "{help}");
}

#[test]
fn parse_receipts_reads_json_lines_and_scores_the_corpus() {
    use std::io::Write;
    let mut child = Command::new(BIN)
        .arg("parse-receipts")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let line = r#"{"id":"a","transport":"smpp","esm_class":4,"text":"id:77 sub:001 dlvrd:001 submit date:2611291200 done date:2611291201 stat:DELIVRD err:000 text:hi","tlvs":{}}"#;
    writeln!(child.stdin.take().unwrap(), "{line}\nnot json").unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let lines: Vec<serde_json::Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2, "one answer per input line, even a malformed one");
    assert_eq!(
        (lines[0]["message_id"].as_str(), lines[0]["stat"].as_str()),
        (Some("77"), Some("DELIVRD"))
    );
    assert_eq!(lines[1]["kind"], "unparseable");

    // The whole corpus, scored by its check script through the binary.
    let fixtures = concat!(env!("CARGO_MANIFEST_DIR"), "/engine/tests/fixtures/receipts");
    let out = Command::new("python3")
        .arg(format!("{fixtures}/check.py"))
        .arg(format!("{fixtures}/corpus.jsonl"))
        .args(["--", BIN, "parse-receipts"])
        .output()
        .expect("python3 runs the corpus check");
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{report}");
    assert!(report.trim_end().ends_with(", 0 failed"), "{report}");
}

#[test]
fn rebuild_checks_a_data_directory_and_refuses_while_an_instance_runs() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("data");
    let r = serve(&dir);
    let refused = Command::new(BIN)
        .args(["rebuild", "--check", "--data-dir"])
        .arg(&dir)
        .output()
        .unwrap();
    assert_eq!(
        refused.status.code(),
        Some(2),
        "rebuild must not run beside a running instance"
    );
    stop(r, "TERM");
    let out = Command::new(BIN)
        .args(["rebuild", "--check", "--data-dir"])
        .arg(&dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout).contains("every one equals the stored state"));
    assert!(String::from_utf8_lossy(&out.stdout).contains("report's sums equal a recount"));

    // A sum of the delivery report that no message accounts for: found by --check, put right by a
    // rebuild.
    rusqlite::Connection::open(dir.join("smsdesk.db"))
        .unwrap()
        .execute(
            "INSERT INTO report_hour (hour, kind, connection, route, country, sender, outcome, command_status,
                                      error_code, messages, parts)
             VALUES (0, 'otp', '', '', 'FR', 'cli', 'pending', -1, '', 5, 5)",
            [],
        )
        .unwrap();
    let rebuild = |check: bool| {
        let out = Command::new(BIN)
            .arg("rebuild")
            .args(check.then_some("--check"))
            .arg("--data-dir")
            .arg(&dir)
            .output()
            .unwrap();
        (out.status.success(), String::from_utf8_lossy(&out.stdout).into_owned())
    };
    let (ok, said) = rebuild(true);
    assert!(
        !ok && said.contains("differ from a recount from the messages in 1 rows"),
        "{said}"
    );
    let (ok, said) = rebuild(false);
    assert!(ok && said.contains("were replaced"), "{said}");
    let (ok, said) = rebuild(true);
    assert!(ok && said.contains("report's sums equal a recount"), "{said}");
}

/// `smsdesk sandbox-smsc` on a free port: the process, its standard error, and the first line it
/// printed (where it listens).
fn sandbox_smsc() -> (
    std::process::Child,
    std::io::BufReader<std::process::ChildStderr>,
    String,
) {
    use std::io::BufRead;
    let mut child = Command::new(BIN)
        .args(["sandbox-smsc", "--port", "0"])
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = std::io::BufReader::new(child.stderr.take().unwrap());
    let mut first = String::new();
    stderr.read_line(&mut first).unwrap();
    (child, stderr, first)
}

#[test]
fn the_standalone_sandbox_smsc_answers_smpp_over_tcp() {
    use futures::{SinkExt, StreamExt};
    use rusmpp::tokio_codec::CommandCodec;
    use rusmpp::{Command as SmppCommand, CommandId, CommandStatus, Pdu};

    let (mut child, mut stderr, first) = sandbox_smsc();
    // Keep reading what it prints: a closed pipe would make its next line fail (and the process
    // with it), which is not what this test is about.
    let drained = std::thread::spawn(move || std::io::copy(&mut stderr, &mut std::io::sink()));
    assert!(first.contains("no real SMS is sent"), "{first}");
    let addr = first
        .split_whitespace()
        .find(|w| w.starts_with("127.0.0.1:"))
        .expect("the address is printed")
        .to_owned();

    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let stream = tokio::net::TcpStream::connect(&addr).await.unwrap();
        let mut framed = tokio_util::codec::Framed::new(stream, CommandCodec::new());
        framed
            .send(SmppCommand::new(CommandStatus::EsmeRok, 1, Pdu::EnquireLink))
            .await
            .unwrap();
        let answer = framed.next().await.unwrap().unwrap();
        assert_eq!((answer.id(), answer.sequence_number()), (CommandId::EnquireLinkResp, 1));
    });
    Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(child.wait().unwrap().success());
    drained.join().unwrap().unwrap();
}

#[test]
fn the_standalone_sandbox_smsc_stopped_as_soon_as_it_says_where_it_listens_exits_cleanly() {
    // The signal comes right after the first line, with no exchange between: the handler must be
    // in place before that line is printed, or the default action kills the process.
    for _ in 0..10 {
        let (mut child, mut stderr, first) = sandbox_smsc();
        assert!(first.contains("listening on"), "{first}");
        Command::new("kill")
            .args(["-INT", &child.id().to_string()])
            .status()
            .unwrap();
        std::io::copy(&mut stderr, &mut std::io::sink()).unwrap();
        let status = child.wait().unwrap();
        assert!(status.success(), "{status}");
    }
}

/// Waits until the captured standard error holds `needle`.
fn wait_for_log(r: &Running, needle: &str) -> String {
    let started = std::time::Instant::now();
    loop {
        let log = r.stderr();
        if log.contains(needle) {
            return log;
        }
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "no {needle:?} in the log:\n{log}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn a_config_file_outside_the_data_directory_is_used_and_re_read_at_sighup() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("data");
    let config = tmp.path().join("etc").join("smsdesk.toml");
    let config_arg = config.to_str().unwrap();
    let r = start(&dir, &["serve", "--http-port", "0", "--config", config_arg], &[]);
    assert!(config.exists(), "the config is created where --config says");
    assert!(!dir.join("smsdesk.toml").exists(), "and not in the data directory");

    // A live setting edited by hand, then `systemctl reload` (SIGHUP).
    std::fs::write(&config, "[smpp]\ntps = 40\n").unwrap();
    r.signal("HUP");
    wait_for_log(&r, "SIGHUP: config re-read; what applies while running is in effect");
    let db = Connection::open_with_flags(dir.join("smsdesk.db"), OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
    let reloads: i64 = db
        .query_row(
            "SELECT count(*) FROM audit WHERE action = 'settings.reload' AND actor = 'system'",
            [],
            |row| row.get(0),
        )
        .unwrap();
    assert_eq!(reloads, 1, "the reload is audited");

    // A broken edit changes nothing and stops nothing.
    std::fs::write(&config, "[smpp]\ntps = \"fast\"\n").unwrap();
    r.signal("HUP");
    let log = wait_for_log(&r, "SIGHUP: the config was not re-read, nothing changed");
    assert!(log.contains("smpp.tps"), "the refusal names the key:\n{log}");
    assert_eq!(r.get("/api/v1/health").status, 200, "the engine runs on");
    stop(r, "TERM");
}
