//! Routes changed while smsdesk runs: messages waiting on a route the new settings no longer have
//! take a route by the new ones at once (not at the next start), and each connection's queue says
//! what waits for it.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde_json::{json, Value};

use super::{config, connection_of, count, link_of, two_smscs, wait_for};
use crate::support::{self, post_json};

#[test]
fn messages_waiting_on_a_route_a_reload_removes_take_a_route_by_the_new_routes_at_once() {
    let (_tmp, data, db, primary, backup, crm) = two_smscs("primary", 2 << 28);
    let file = data.join("smsdesk.toml");
    let mut r = support::start(&data, &["serve"], &[]);
    wait_for(&r, "both connections bound", || {
        link_of(&r, "primary") == "bound" && link_of(&r, "backup") == "bound"
    });

    // Five messages for later, on the main route (the primary's).
    let now_ms = SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_millis() as i64;
    let later = smsdesk_engine::clock::format_rfc3339(now_ms + 3_600_000);
    let messages: Vec<Value> = (0..5)
        .map(|i| json!({ "destination": format!("+3361234{i:04}"), "text": "later", "scheduled_at": later }))
        .collect();
    let answer = post_json(&r.url, "/api/v1/messages/batch", &crm, &json!({ "messages": messages }));
    assert_eq!(answer.status, 201, "{}", answer.body);
    let on = |route: &str| {
        count(
            &db,
            &format!("SELECT count(*) FROM queue WHERE status = 'queued' AND route = '{route}'"),
        )
    };
    assert_eq!(on("main"), 5);
    assert_eq!(
        connection_of(&r, "primary")["queued"],
        5,
        "the primary's queue counts them"
    );
    assert_eq!(connection_of(&r, "backup")["queued"], 0);

    // The main route is replaced by one over the backup alone, and the file re-read.
    let changed = config(primary.port, backup.port).replace(
        "name = \"main\"\nconnections = [\"primary\", \"backup\"]",
        "name = \"everything\"\nconnections = [\"backup\"]",
    );
    assert!(changed.contains("everything"));
    std::fs::write(&file, changed).unwrap();
    r.signal("HUP");
    wait_for(&r, "the waiting messages given the new route", || on("everything") == 5);
    assert_eq!(on("main"), 0);
    wait_for(&r, "the backup's queue counts them", || {
        connection_of(&r, "backup")["queued"] == 5
    });
    assert_eq!(connection_of(&r, "primary")["queued"], 0);
    assert!(
        r.stderr().contains("given a route by the routes in force"),
        "{}",
        r.stderr()
    );
    r.signal("TERM");
    assert!(r.wait(Duration::from_secs(30)).success());
}
