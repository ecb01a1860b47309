//! The scripting subcommands, run as a user would: with no instance (they open the database), and
//! against a running `smsdesk serve` (they go through its API as the operator).

use std::time::{Duration, Instant};

use crate::support::{get_with, run, start};

/// The key printed by `api-key create` (the line after the announcement).
fn created_key(stdout: &str) -> String {
    stdout
        .lines()
        .map(str::trim)
        .find(|l| l.starts_with("sdk_"))
        .unwrap_or_else(|| panic!("no key in: {stdout}"))
        .to_owned()
}

#[test]
fn without_an_instance_the_cli_writes_the_database_and_serve_then_sends_what_it_queued() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");

    let (code, out, err) = run(
        &data,
        &["api-key", "create", "--name", "backoffice", "--scope", "read:all"],
    );
    assert_eq!(code, 0, "{err}");
    let key = created_key(&out);
    assert!(out.contains("cannot be shown again"), "{out}");
    assert!(out.contains("(scopes: read:all)"), "the scopes are said: {out}");

    let (code, out, err) = run(
        &data,
        &[
            "send",
            "--to",
            "+33 6 12 34 56 00",
            "--text",
            "Hello from the command line",
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("Message 1 to +33612345600 queued"), "{out}");
    assert!(out.contains("not running"), "says when it will go: {out}");

    // A bad number is refused with the field and the reason, and nothing is queued.
    let (code, _, err) = run(&data, &["send", "--to", "12", "--text", "x"]);
    assert_eq!(code, 1);
    assert!(err.contains("destination"), "{err}");

    let (code, out, _) = run(&data, &["status", "1"]);
    assert_eq!(code, 0);
    assert!(out.contains("queued"), "{out}");
    let (code, _, err) = run(&data, &["status", "2"]);
    assert_eq!(code, 1, "no message 2");
    assert!(err.contains("not found"), "{err}");

    // The instance sends what was queued while it was stopped, and accepts the key made offline.
    let r = start(&data, &["serve", "--http-port", "0"], &[]);
    let started = Instant::now();
    let detail = loop {
        let d = get_with(&r.url, "/api/v1/messages/1", Some(&key));
        assert_eq!(d.status, 200, "{}", d.body);
        let v = d.json();
        if v["summary"]["state"] == "delivered" {
            break v;
        }
        assert!(started.elapsed() < Duration::from_secs(20), "not delivered: {v}");
        std::thread::sleep(Duration::from_millis(100));
    };
    assert_eq!(detail["summary"]["channel"], "cli");
    r.signal("TERM");
}

#[test]
fn with_an_instance_running_the_cli_goes_through_its_api() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let r = start(&data, &["serve", "--http-port", "0"], &[]);

    let (code, out, err) = run(
        &data,
        &[
            "api-key",
            "create",
            "--name",
            "crm",
            "--webhook-url",
            "http://127.0.0.1:9/hook",
        ],
    );
    assert_eq!(code, 0, "{err}");
    let key = created_key(&out);
    assert!(out.contains("whsec_"), "the webhook secret is shown once: {out}");
    let info = get_with(&r.url, "/api/v1/info", Some(&key));
    assert_eq!(
        info.status, 200,
        "a key made through the running instance works at once"
    );

    let (code, out, err) = run(
        &data,
        &[
            "send",
            "--to",
            "+33612345600",
            "--text",
            "Order 7 shipped",
            "--idempotency-key",
            "order-7",
            "--json",
        ],
    );
    assert_eq!(code, 0, "{err}");
    let sent: serde_json::Value = serde_json::from_str(&out).unwrap();
    let id = sent["id"].as_i64().unwrap();
    // Running it again with the same key queues nothing new.
    let (_, again, _) = run(
        &data,
        &[
            "send",
            "--to",
            "+33612345600",
            "--text",
            "Order 7 shipped",
            "--idempotency-key",
            "order-7",
            "--json",
        ],
    );
    let again: serde_json::Value = serde_json::from_str(&again).unwrap();
    assert_eq!(again["id"], sent["id"]);

    let started = Instant::now();
    loop {
        let (code, out, err) = run(&data, &["status", &id.to_string()]);
        assert_eq!(code, 0, "{err}");
        if out.contains("reported delivered") {
            assert!(out.contains("accepted by the SMSC"), "{out}");
            break;
        }
        assert!(started.elapsed() < Duration::from_secs(20), "not delivered: {out}");
        std::thread::sleep(Duration::from_millis(200));
    }

    let csv = tmp.path().join("out.csv");
    let (code, _, err) = run(
        &data,
        &["export", "--csv", "-o", csv.to_str().unwrap(), "--state", "delivered"],
    );
    assert_eq!(code, 0, "{err}");
    let text = std::fs::read_to_string(&csv).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2, "a header and the one delivered message: {text}");
    assert!(
        lines[1].contains("+33612345600") && lines[1].contains("delivered"),
        "{text}"
    );
    assert!(err.contains("1 messages written"), "{err}");

    let (code, out, _) = run(&data, &["api-key", "list"]);
    assert_eq!(code, 0);
    assert!(out.contains("crm") && out.contains("active"), "{out}");
    assert!(
        out.contains("send read:own"),
        "a key made without scopes gets send and read:own: {out}"
    );
    assert!(!out.contains(&key), "a list never shows a key");
    let id_of_key = out.split_whitespace().next().unwrap().to_owned();
    let (code, _, err) = run(&data, &["api-key", "revoke", &id_of_key]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        get_with(&r.url, "/api/v1/info", Some(&key)).status,
        401,
        "revoked at once"
    );
    r.signal("TERM");
}
