//! `smsdesk serve` on PostgreSQL (`[store] backend = "postgres"`): the built binary, a database of
//! its own on the test command's private PostgreSQL (`SMSDESK_TEST_PG_URL`), the embedded sandbox
//! SMSC. Messages go out and their receipts are applied, everything is there after a restart, the
//! password is in no log, answer or file, and what only a SQLite file allows is refused, saying
//! what to do instead.

use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::json;

use crate::support::pg::{configure, psql, Database};
use crate::support::{files_under, post_json_idempotent, run, spawn, start, stderr_file, Running};

fn operator_token(data: &std::path::Path) -> String {
    std::fs::read_to_string(data.join("operator.token"))
        .unwrap()
        .trim()
        .to_owned()
}

/// Waits until message `id` is accepted by the SMSC and delivered by its receipt.
fn wait_delivered(r: &Running, id: i64) {
    let started = Instant::now();
    loop {
        let d = r.get_as_operator(&format!("/api/v1/messages/{id}")).json();
        if d["queue"]["status"] == "accepted" && d["state"]["state"] == "delivered" {
            return;
        }
        assert!(started.elapsed() < Duration::from_secs(30), "{id} not delivered: {d}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn stop(mut r: Running) {
    r.signal("TERM");
    let status = r.wait(Duration::from_secs(30));
    assert!(status.success(), "{status}\n{}", r.stderr());
}

#[test]
fn serve_on_postgres_sends_applies_receipts_and_keeps_everything_across_a_restart() {
    let db = Database::new("e2e_serve");
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    // The owner makes the schema; the node runs as a role that may not change it.
    configure(&data, &db.url, &db.password);
    let (code, out, err) = run(&data, &["store", "migrate"]);
    assert!(code == 0 && out.contains("migrated from schema 0 to"), "{out}{err}");
    let (code, out, _) = run(&data, &["store", "migrate"]);
    assert!(code == 0 && out.contains("nothing to do"), "{out}");
    db.make_node_role();
    configure(&data, &db.node_url, &db.node_password);

    let serve = start(&data, &["serve", "--http-port", "0"], &[]);
    let token = operator_token(&data);
    let info = serve.get_as_operator("/api/v1/info").json();
    let shown = info["databasePath"].as_str().unwrap().to_owned();
    assert!(
        shown.starts_with("postgres://") && shown.ends_with(&format!("/{}", db.name)),
        "{info}"
    );
    let ids: Vec<i64> = (0..5)
        .map(|i| {
            let r = post_json_idempotent(
                &serve.url,
                "/api/v1/messages",
                &token,
                &format!("pg-{i}"),
                &json!({ "destination": format!("+336123{i}5600"), "text": format!("rendez-vous {i}"),
                         "kind": "transactional" }),
            );
            assert_eq!(r.status, 201, "{}", r.body);
            r.json()["id"].as_i64().unwrap()
        })
        .collect();
    for &id in &ids {
        wait_delivered(&serve, id);
    }
    let csv = serve.get_as_operator("/api/v1/messages/export");
    assert_eq!((csv.status, csv.body.lines().count()), (200, 1 + 5), "{}", csv.body);
    // In PostgreSQL, not in a file of the data directory.
    assert_eq!(db.count("SELECT count(*) FROM message"), 5);
    assert_eq!(db.count("SELECT count(*) FROM receipt"), 5);
    assert!(!data.join("smsdesk.db").exists());

    // A second node joins the same database; one under the name of a live node is refused,
    // saying so.
    let other = tmp.path().join("other");
    configure(&other, &db.node_url, &db.node_password);
    let first = psql(&db.admin_url(), "SELECT name FROM node").trim().to_owned();
    let mut twin = spawn(
        &other,
        &["serve", "--http-port", "0"],
        &[("SMSDESK_STORE_NODE", first.as_str())],
    );
    let status = twin.wait().unwrap();
    let second_said = std::fs::read_to_string(stderr_file(&other)).unwrap();
    assert!(
        !status.success() && second_said.contains(&format!("runs under the name {first}")),
        "{status}: {second_said}"
    );
    let second = start(&other, &["serve", "--http-port", "0"], &[]);
    let nodes = serve.get_as_operator("/api/v1/nodes").json();
    let alive: Vec<&str> = nodes
        .as_array()
        .unwrap()
        .iter()
        .filter(|n| n["state"] == "alive")
        .map(|n| n["name"].as_str().unwrap())
        .collect();
    assert_eq!(alive.len(), 2, "{nodes}");
    assert!(alive.contains(&first.as_str()), "{nodes}");
    stop(second);

    // What only a file allows says what to do instead.
    let (code, _, err) = run(&other, &["backup"]);
    assert!(code != 0 && err.contains("pg_dump"), "{err}");

    stop(serve);
    let serve = start(&data, &["serve", "--http-port", "0"], &[]);
    for &id in &ids {
        wait_delivered(&serve, id);
    }
    // The same idempotency key gives the same message, across the restart (the operator's token
    // is made anew by each start).
    let again = post_json_idempotent(
        &serve.url,
        "/api/v1/messages",
        &operator_token(&data),
        "pg-0",
        &json!({ "destination": "+33612305600", "text": "rendez-vous 0", "kind": "transactional" }),
    );
    assert!(again.status < 300, "{}", again.body);
    assert_eq!(again.json()["id"].as_i64(), Some(ids[0]));
    assert_eq!(db.count("SELECT count(*) FROM message"), 5);
    let logs = serve.stderr();
    stop(serve);

    // The node's role may not remove evidence, whatever a bug asks of it.
    let base = db.node_url.rsplit_once('@').unwrap().1;
    let as_node = format!("postgres://{}_node:{}@{base}", db.name, db.node_password);
    let refused = Command::new("psql")
        .args([as_node.as_str(), "-X", "-c", "DELETE FROM receipt"])
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&refused.stderr);
    assert!(
        !refused.status.success() && said.contains("permission denied"),
        "{said}"
    );
    assert_eq!(db.count("SELECT count(*) FROM receipt"), 5);

    // The password: in no log, and in no file but its own.
    for (what, text) in [
        ("the log", &logs),
        ("the second node's log", &second_said),
        ("the info answer", &info.to_string()),
    ] {
        assert!(!text.contains(&db.node_password), "{what} holds the password");
    }
    for entry in files_under(&data) {
        if entry.file_name().unwrap() != "pg.password" {
            let bytes = std::fs::read(&entry).unwrap_or_default();
            let password = db.node_password.as_bytes();
            assert!(
                !bytes.windows(password.len()).any(|w| w == password),
                "{} holds the password",
                entry.display()
            );
        }
    }
}

#[test]
fn store_copy_moves_an_office_to_postgres_and_back_and_rebuild_check_agrees_on_each() {
    let db = Database::new("e2e_copy");
    let tmp = tempfile::tempdir().unwrap();
    let (a, b, c) = (tmp.path().join("a"), tmp.path().join("b"), tmp.path().join("c"));
    std::fs::create_dir_all(&a).unwrap();
    std::fs::create_dir_all(&c).unwrap();
    std::fs::copy(
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../tests/fixtures/upgrade/smsdesk-0.1.0-schema17.db"
        ),
        a.join("smsdesk.db"),
    )
    .unwrap();
    let (code, checked_a, err) = run(&a, &["rebuild", "--check"]);
    assert_eq!(code, 0, "{checked_a}{err}");
    let messages: i64 = rusqlite::Connection::open(a.join("smsdesk.db"))
        .unwrap()
        .query_row("SELECT count(*) FROM message", [], |r| r.get(0))
        .unwrap();
    assert!(messages > 0);

    // To PostgreSQL, as its owner, the password from a file of the owner's alone.
    configure(&b, &db.url, &db.password);
    let password = b.join("pg.password");
    let password = password.to_str().unwrap();
    let (code, out, err) = run(&a, &["store", "copy", "--to", &db.url, "--password-file", password]);
    assert!(
        code == 0 && out.contains(&format!("({messages} messages)")),
        "{out}{err}"
    );
    assert_eq!(db.count("SELECT count(*) FROM message"), messages);
    let (code, checked_b, err) = run(&b, &["rebuild", "--check"]);
    assert_eq!((code, checked_b.as_str()), (0, checked_a.as_str()), "{err}");

    // Only into an empty database; never with a password in the address.
    let (code, _, err) = run(&a, &["store", "copy", "--to", &db.url, "--password-file", password]);
    assert!(code != 0 && err.contains("not empty"), "{err}");
    let (code, _, err) = run(&a, &["store", "copy", "--to", "postgres://owner:s3cret@127.0.0.1/x"]);
    assert!(
        code != 0 && err.contains("holds a password") && !err.contains("s3cret"),
        "{err}"
    );

    // And back, into a new file.
    let file = c.join("smsdesk.db");
    let (code, out, err) = run(&b, &["store", "copy", "--to", file.to_str().unwrap()]);
    assert!(
        code == 0 && out.contains(&format!("({messages} messages)")),
        "{out}{err}"
    );
    let (code, checked_c, err) = run(&c, &["rebuild", "--check"]);
    assert_eq!((code, checked_c.as_str()), (0, checked_a.as_str()), "{err}");
    let (code, _, err) = run(&b, &["store", "copy", "--to", file.to_str().unwrap()]);
    assert!(code != 0 && err.contains("exists"), "{err}");
}
