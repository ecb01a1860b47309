//! An operator drains, disables and enables a connection: over HTTP (admin only) and from the
//! command line on the running instance; the hold passes the connection over at once (no grace),
//! a disabled one unbinds, and the hold outlasts a restart.

use std::time::Duration;

use serde_json::json;

use super::{connection_of, count, french, link_of, send, tries_by_connection, two_smscs, wait_for};
use crate::support::{self, post_json, run};

#[test]
fn an_operator_drains_disables_and_enables_a_connection_and_the_hold_outlasts_a_restart() {
    let (_tmp, data, db, primary, backup, crm) = two_smscs("primary", 2 << 28);
    let (code, out, err) = run(
        &data,
        &["api-key", "create", "--name", "monitor", "--scope", "send,read:all,act"],
    );
    assert_eq!(code, 0, "{err}");
    let monitor = out
        .lines()
        .map(str::trim)
        .find(|l| l.starts_with("sdk_"))
        .unwrap()
        .to_owned();
    // Ten minutes of grace: only the hold can move the messages now.
    let env = [("SMSDESK_ROUTING_FAILOVER_GRACE_SECONDS", "600")];
    let r = support::start(&data, &["serve"], &env);
    let operator = std::fs::read_to_string(data.join("operator.token"))
        .unwrap()
        .trim()
        .to_owned();
    wait_for(&r, "both connections bound", || {
        link_of(&r, "primary") == "bound" && link_of(&r, "backup") == "bound"
    });
    let command = |who: &str, body: serde_json::Value| post_json(&r.url, "/api/v1/connections/command", who, &body);

    // Only an admin commands a connection; an unknown one is named with those there are.
    let refused = command(&monitor, json!({ "connection": "primary", "command": "drain" }));
    assert_eq!(refused.status, 403, "{}", refused.body);
    let unknown = command(&operator, json!({ "connection": "primray", "command": "drain" }));
    assert_eq!(unknown.status, 404, "{}", unknown.body);
    assert!(unknown.body.contains("primary, backup"), "{}", unknown.body);
    assert!(connection_of(&r, "primary")["hold"].is_null());

    // Drained: the main route's messages go to the backup at once; the primary stays bound.
    let drained = command(
        &operator,
        json!({ "connection": "primary", "command": "drain", "note": "provider maintenance" }),
    );
    assert_eq!(drained.status, 204, "{}", drained.body);
    let from = count(&db, "SELECT coalesce(max(id), 0) FROM message") + 1;
    send(&r, &crm, "transactional", 0, 20, french);
    let accepted_from = |from: i64| {
        count(
            &db,
            &format!("SELECT count(*) FROM queue WHERE message_id >= {from} AND status = 'accepted'"),
        )
    };
    wait_for(&r, "the 20 accepted", || accepted_from(from) == 20);
    assert_eq!(tries_by_connection(&db, "main", from), vec![("backup".into(), 20)]);
    assert_eq!(
        count(
            &db,
            &format!(
                "SELECT count(*) FROM attempt WHERE message_id >= {from}
                 AND (routing IS NULL OR routing NOT LIKE '%primary is draining by an operator%')"
            )
        ),
        0,
        "each try says why it went to the backup"
    );
    let status = connection_of(&r, "primary");
    assert_eq!(status["hold"]["hold"], "draining", "{status}");
    assert_eq!(status["hold"]["note"], "provider maintenance");
    assert_eq!(status["link"]["state"], "bound", "a drained connection keeps its binds");
    assert_eq!(status["queued"], 0);
    assert!(connection_of(&r, "backup")["accepted_per_s"].as_f64().unwrap() > 0.0);

    // Disabled from the command line, on the running instance: it unbinds.
    let (code, out, err) = run(
        &data,
        &["connection", "disable", "primary", "--note", "account blocked"],
    );
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(out.contains("Connection primary disabled"), "{out}");
    wait_for(&r, "the primary unbound", || link_of(&r, "primary") == "stopped");

    // The hold outlasts a restart: the primary is not even bound.
    let mut r = r;
    r.signal("TERM");
    assert!(r.wait(Duration::from_secs(30)).success());
    let r = support::start(&data, &["serve"], &env);
    wait_for(&r, "the backup bound again", || link_of(&r, "backup") == "bound");
    wait_for(&r, "the primary kept unbound", || link_of(&r, "primary") == "stopped");
    assert_eq!(connection_of(&r, "primary")["hold"]["hold"], "disabled");
    let (code, out, err) = run(&data, &["connection", "list"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("primary") && out.contains("disabled by"), "{out}");
    let while_disabled = count(&db, "SELECT max(id) FROM message") + 1;
    send(&r, &crm, "transactional", 100, 10, french);
    wait_for(&r, "the 10 accepted", || accepted_from(while_disabled) == 10);
    assert_eq!(
        tries_by_connection(&db, "main", while_disabled),
        vec![("backup".into(), 10)]
    );

    // Enabled: it binds again and takes its route back.
    let (code, out, err) = run(&data, &["connection", "enable", "primary"]);
    assert_eq!(code, 0, "{out}\n{err}");
    wait_for(&r, "the primary bound again", || link_of(&r, "primary") == "bound");
    let enabled = count(&db, "SELECT max(id) FROM message") + 1;
    send(&r, &crm, "transactional", 200, 10, french);
    wait_for(&r, "the last 10 accepted", || accepted_from(enabled) == 10);
    assert_eq!(tries_by_connection(&db, "main", enabled), vec![("primary".into(), 10)]);
    assert!(connection_of(&r, "primary")["hold"].is_null());

    let mut r = r;
    r.signal("TERM");
    assert!(r.wait(Duration::from_secs(30)).success());
    assert_eq!(
        count(
            &db,
            "SELECT count(*) FROM audit WHERE subject_type = 'connection' AND
               (action, coalesce(note, '')) IN (VALUES ('connection.drain', 'provider maintenance'),
               ('connection.disable', 'account blocked'), ('connection.enable', ''))"
        ),
        3,
        "each command is audited with its note"
    );
    assert_eq!(
        primary.stop().accepted,
        10,
        "the primary sent only after it was enabled"
    );
    assert_eq!(backup.stop().accepted, 30);
}
