//! The Settings routes over real HTTP, on a real engine (sandbox SMSC over TCP, real config file):
//! edits land in smsdesk.toml, and what may change while running does, without a restart.

use std::time::{Duration, Instant};

use reqwest::StatusCode;
use serde_json::{json, Value};
use smsdesk_engine::api::RunMode;
use smsdesk_engine::sandbox::{Sandbox, SandboxConfig};

use crate::support::Running;

/// What these tests do with a running server (a trait of this module's own: the server type is
/// shared by every module of the binary).
trait SettingsServer {
    async fn start(toml: &str) -> Running;
    fn config_text(&self) -> String;
    async fn patch(&self, body: Value) -> (StatusCode, Value);
    async fn get(&self, path: &str) -> Value;
    async fn send(&self, destination: &str, text: &str);
    fn accepted(&self) -> i64;
    async fn wait_accepted(&self, n: i64) -> Duration;
    async fn bound_session(&self) -> String;
    async fn queue(&self, body: Value) -> i64;
    async fn until_row(&self, table: &str, condition: &str, what: &str);
    fn text(&self, sql: &str) -> String;
}

impl SettingsServer for Running {
    /// An engine whose config file starts as `toml`.
    async fn start(toml: &str) -> Running {
        Running::launch(Some(toml), Vec::new(), RunMode::Serve).await
    }

    fn config_text(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("smsdesk.toml")).unwrap()
    }

    async fn patch(&self, body: Value) -> (StatusCode, Value) {
        let r = self
            .http
            .patch(format!("{}/api/v1/settings", self.url))
            .bearer_auth(&self.operator)
            .json(&body)
            .send()
            .await
            .unwrap();
        (r.status(), r.json().await.unwrap())
    }

    async fn get(&self, path: &str) -> Value {
        let r = self
            .http
            .get(format!("{}{path}", self.url))
            .bearer_auth(&self.operator)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), StatusCode::OK, "{path}");
        r.json().await.unwrap()
    }

    async fn send(&self, destination: &str, text: &str) {
        let r = self
            .http
            .post(format!("{}/api/v1/messages", self.url))
            .bearer_auth(&self.operator)
            .json(&json!({ "destination": destination, "text": text }))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), StatusCode::CREATED);
    }

    fn accepted(&self) -> i64 {
        self.count_where("queue", "status = 'accepted'")
    }

    async fn wait_accepted(&self, n: i64) -> Duration {
        let started = Instant::now();
        while self.accepted() < n {
            assert!(
                started.elapsed() < Duration::from_secs(30),
                "{n} messages must be accepted"
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        started.elapsed()
    }

    async fn bound_session(&self) -> String {
        let started = Instant::now();
        loop {
            let v = self.get("/api/v1/connection").await;
            if v["link"]["state"] == "bound" {
                return v["link"]["session_id"].as_str().unwrap().to_owned();
            }
            assert!(started.elapsed() < Duration::from_secs(15), "the link must bind: {v}");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// Queues a message through the API; its id.
    async fn queue(&self, body: Value) -> i64 {
        let r = self
            .http
            .post(format!("{}/api/v1/messages", self.url))
            .bearer_auth(&self.operator)
            .json(&body)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), StatusCode::CREATED);
        r.json::<Value>().await.unwrap()["id"].as_i64().unwrap()
    }

    /// Waits until `condition` holds for the row of `table` it names.
    async fn until_row(&self, table: &str, condition: &str, what: &str) {
        let started = Instant::now();
        while self.count_where(table, condition) == 0 {
            assert!(started.elapsed() < Duration::from_secs(30), "{what}");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    fn text(&self, sql: &str) -> String {
        let c = rusqlite::Connection::open_with_flags(&self.db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
        c.busy_timeout(Duration::from_secs(5)).unwrap();
        c.query_row(sql, [], |r| r.get(0)).unwrap()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn settings_are_the_operators_an_api_key_gets_403() {
    let t = Running::start("").await;
    let (_, key) = t.key("crm").await;
    let key = key.as_str();
    let get = t
        .http
        .get(format!("{}/api/v1/settings", t.url))
        .bearer_auth(key)
        .send()
        .await
        .unwrap();
    assert_eq!(get.status(), StatusCode::FORBIDDEN);
    assert_eq!(get.json::<Value>().await.unwrap()["code"], "forbidden");
    let patch = t
        .http
        .patch(format!("{}/api/v1/settings", t.url))
        .bearer_auth(key)
        .json(&json!({ "values": { "smpp.tps": "99" } }))
        .send()
        .await
        .unwrap();
    assert_eq!(patch.status(), StatusCode::FORBIDDEN);
    let test = t
        .http
        .post(format!("{}/api/v1/settings/test-connection", t.url))
        .bearer_auth(key)
        .json(&json!({}))
        .send()
        .await
        .unwrap();
    assert_eq!(test.status(), StatusCode::FORBIDDEN);
    assert!(!t.config_text().contains("99"), "a refused edit writes nothing");
    t.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tps_change_is_followed_by_the_dispatcher_without_a_restart() {
    // The account's limits apply to a provider (here a second sandbox, over TCP); the embedded
    // sandbox runs at its own pace whatever they are.
    let provider = Sandbox::start(SandboxConfig::default()).await.unwrap();
    let t = Running::start(&format!(
        "[smpp]\nsandbox = false\nhost = \"127.0.0.1\"\nport = {}\ntps = 2\n",
        provider.addr().port()
    ))
    .await;
    t.bound_session().await;
    for i in 0..5 {
        t.send(&format!("+33612{i}45600"), "slow").await;
    }
    let slow = t.wait_accepted(5).await;
    // Five submits at 2 per second are spaced 0.5 s apart: two seconds at least.
    assert!(
        slow >= Duration::from_millis(1_800),
        "tps = 2 must pace submits: {slow:?}"
    );

    assert!(!t.engine().ingestor().policy().ignore_case);
    let (status, saved) = t
        .patch(json!({ "values": { "smpp.tps": "200", "smpp.window": "3", "receipts.id_ignore_case": "true" } }))
        .await;
    assert_eq!(status, StatusCode::OK, "{saved}");
    assert_eq!(
        saved["reconnected"], false,
        "the rate and window change on the running link"
    );
    assert_eq!(t.engine().session().unwrap().limits(), (3, 200.0));
    assert!(
        t.engine().ingestor().policy().ignore_case,
        "receipts arriving from now on are matched by the new id rules"
    );
    assert!(t.config_text().contains("tps = 200"));
    for i in 0..5 {
        t.send(&format!("+33613{i}45600"), "fast").await;
    }
    let fast = t.wait_accepted(10).await;
    assert!(
        fast < Duration::from_millis(1_500),
        "tps = 200 must apply at once: {fast:?}"
    );
    t.stop().await;
    provider.stop();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_callback_provider_added_in_settings_is_accepted_without_a_restart() {
    let t = Running::start("").await;
    let post = |token: &str| {
        t.http
            .post(format!("{}/api/v1/callbacks/acme?token={token}", t.url))
            .body("messageId=0A0000001&status=delivered&err-code=0&scts=2611291200&msisdn=33612345678")
            .header("content-type", "application/x-www-form-urlencoded")
            .send()
    };
    // Unknown yet: answered as a wrong secret would be.
    assert_eq!(post("x").await.unwrap().status(), StatusCode::UNAUTHORIZED);

    let (status, saved) = t
        .patch(json!({ "callback_providers": [{ "name": "acme", "preset": "vonage" }] }))
        .await;
    assert_eq!(status, StatusCode::OK, "{saved}");
    let secret = saved["generated_secrets"][0]["secret"].as_str().unwrap().to_owned();
    assert_eq!(saved["generated_secrets"][0]["provider"], "acme");
    assert!(t.config_text().contains("acme"));
    let view = t.get("/api/v1/settings").await;
    assert!(
        !view.to_string().contains(&secret),
        "the secret is shown once, in the save's answer"
    );

    assert_eq!(
        post("wrong-secret-0123456789").await.unwrap().status(),
        StatusCode::UNAUTHORIZED
    );
    let ok = post(&secret).await.unwrap();
    assert_eq!(ok.status(), StatusCode::OK, "the new provider is accepted at once");

    // Removed: refused at once as well.
    let (status, _) = t.patch(json!({ "callback_providers": [] })).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(post(&secret).await.unwrap().status(), StatusCode::UNAUTHORIZED);
    t.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_connection_change_rebinds_the_link_and_sending_goes_on() {
    let t = Running::start("").await;
    let first = t.bound_session().await;
    t.send("+33612345600", "before").await;
    t.wait_accepted(1).await;

    let (status, saved) = t
        .patch(json!({ "values": { "smpp.system_id": "office2" }, "password": "pw2" }))
        .await;
    assert_eq!(status, StatusCode::OK, "{saved}");
    assert_eq!(saved["reconnected"], true);
    let second = t.bound_session().await;
    assert_ne!(first, second, "a new session is bound with the new settings");
    t.send("+33612345601", "after").await;
    t.wait_accepted(2).await;

    let text = t.config_text();
    assert!(
        text.contains("system_id = \"office2\"") && !text.contains("pw2"),
        "{text}"
    );
    let audit = t.get("/api/v1/audit").await;
    let entry = audit["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["action"] == "settings.update")
        .expect("the change is audited");
    assert!(
        entry["actor"].as_str().unwrap().ends_with(" (command line)"),
        "the audit names who changed it: {entry}"
    );
    assert!(
        !audit.to_string().contains("pw2"),
        "the audit log never holds the password"
    );
    let view = t.get("/api/v1/settings").await;
    assert_eq!(view["password_set"], true);
    assert!(!view.to_string().contains("pw2"));
    t.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn invalid_fields_are_all_named_with_422_and_test_connection_reports_the_sandbox_bound() {
    let t = Running::start("").await;
    let (status, body) = t
        .patch(json!({ "values": { "smpp.tps": "0", "receipts.otp_deadline_minutes": "soon" } }))
        .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    let fields: Vec<&str> = body["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["field"].as_str().unwrap())
        .collect();
    assert_eq!(fields, ["receipts.otp_deadline_minutes", "smpp.tps"]);

    let r: Value = t
        .http
        .post(format!("{}/api/v1/settings/test-connection", t.url))
        .bearer_auth(&t.operator)
        .json(&json!({ "sandbox": true }))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(r["outcome"], "bound", "{r}");
    t.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn changing_the_id_rules_while_running_matches_the_receipts_that_waited_for_them() {
    let t = Running::start("").await;
    t.bound_session().await;
    // The sandbox answers in hex and reports in decimal: under the default rules, no match.
    let id = t
        .queue(json!({ "destination": "+33612345618", "text": "hex then decimal" }))
        .await;
    t.until_row(
        "exception",
        "kind = 'uncorrelated' AND status = 'open'",
        "the receipt waits, then asks a person",
    )
    .await;
    let (status, saved) = t
        .patch(json!({ "values": {
            "receipts.response_id": "hex",
            "receipts.receipt_id": "decimal",
            "receipts.tlv_id": "decimal"
        } }))
        .await;
    assert_eq!(status, StatusCode::OK, "{saved}");
    t.until_row(
        "projection",
        &format!("message_id = {id} AND state = 'delivered'"),
        "by the new rules the receipt is the message's",
    )
    .await;
    assert_eq!(
        t.count_where("exception", "kind = 'uncorrelated' AND status = 'open'"),
        0,
        "its exception closed by itself"
    );
    t.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_message_queued_on_the_sandbox_goes_out_on_the_provider_after_a_switch_and_is_recorded_there() {
    use smsdesk_engine::sandbox::{Sandbox, SandboxConfig};
    let provider = Sandbox::start(SandboxConfig::default()).await.unwrap();
    let t = Running::start("").await;
    t.bound_session().await;
    let at = smsdesk_engine::clock::format_rfc3339(smsdesk_engine::clock::Clock::system().now_ms() + 4_000);
    let id = t
        .queue(json!({ "destination": "+33612345600", "text": "sent after the switch", "scheduled_at": at }))
        .await;
    let (status, saved) = t
        .patch(json!({ "values": {
            "smpp.sandbox": "false",
            "smpp.host": "127.0.0.1",
            "smpp.port": provider.addr().port().to_string()
        } }))
        .await;
    assert_eq!(status, StatusCode::OK, "{saved}");
    assert_eq!(saved["reconnected"], true);
    t.until_row(
        "projection",
        &format!("message_id = {id} AND state = 'delivered'"),
        "the message goes out on the provider and its receipt is matched there",
    )
    .await;
    assert_eq!(
        t.text(&format!("SELECT connection FROM message WHERE id = {id}")),
        "sandbox",
        "the message keeps the connection it was queued for"
    );
    assert_eq!(
        t.text(&format!(
            "SELECT group_concat(connection) FROM attempt WHERE message_id = {id}"
        )),
        "smpp",
        "the try records the connection that wrote it"
    );
    assert_eq!(
        t.text(&format!(
            "SELECT group_concat(r.connection) FROM receipt r JOIN receipt_outcome o ON o.receipt_id = r.id
             JOIN logical_event e ON e.id = o.logical_event_id WHERE e.message_id = {id}"
        )),
        "smpp"
    );
    assert_eq!(
        provider.counts("33612345600", b"sent after the switch").accepted,
        1,
        "the provider took it, once"
    );
    t.stop().await;
    provider.stop();
}
