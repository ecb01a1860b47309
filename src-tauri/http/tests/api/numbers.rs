//! The office's country over real HTTP: a number typed the usual way ("06 12 34 56 00") finds the
//! same messages and replies in the message list and the inbox, a national number without an
//! office country is refused as `country_needed` everywhere instead of finding nothing, the first
//! admin sets the country at setup, and SMPP credentials longer than a bind carries are refused
//! where they are typed.

use std::time::Duration;

use reqwest::StatusCode;
use serde_json::{json, Value};
use smsdesk_engine::api::RunMode;

use crate::support::Running;

/// Far above what any step here takes: only a step that never happens reaches it.
const PATIENCE: Duration = Duration::from_secs(20);

/// "06 12 34 56 00" in a query string.
const TYPED: &str = "06%2012%2034%2056%2000";

/// What these tests do with a running server (a trait of this module's own: the server type is
/// shared by every module of the binary).
trait NumbersServer {
    async fn start(env: &[(&str, &str)]) -> Running;
    async fn get(&self, path: &str) -> (StatusCode, Value);
    async fn send(&self, method: reqwest::Method, path: &str, body: Value) -> (StatusCode, Value);
    fn config_text(&self) -> String;
    /// Who did `action`, and the keys of the settings it changed (as the audit's details list them).
    fn audit_of(&self, action: &str) -> Vec<(String, String)>;
}

impl NumbersServer for Running {
    async fn start(env: &[(&str, &str)]) -> Running {
        let env = env.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        Running::launch(None, env, RunMode::Serve).await
    }

    async fn get(&self, path: &str) -> (StatusCode, Value) {
        let r = self
            .http
            .get(format!("{}/api/v1{path}", self.url))
            .bearer_auth(&self.operator)
            .send()
            .await
            .unwrap();
        (r.status(), r.json().await.unwrap_or(Value::Null))
    }

    async fn send(&self, method: reqwest::Method, path: &str, body: Value) -> (StatusCode, Value) {
        let r = self
            .http
            .request(method, format!("{}/api/v1{path}", self.url))
            .bearer_auth(&self.operator)
            .json(&body)
            .send()
            .await
            .unwrap();
        (r.status(), r.json().await.unwrap_or(Value::Null))
    }

    fn config_text(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("smsdesk.toml")).unwrap_or_default()
    }

    /// The audit entries of `action`: (actor, note), oldest first.
    fn audit_of(&self, action: &str) -> Vec<(String, String)> {
        let c = rusqlite::Connection::open_with_flags(&self.db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
        let mut stmt = c
            .prepare("SELECT actor, coalesce(json_extract(details_json, '$.keys'), '') FROM audit WHERE action = ?1 ORDER BY id")
            .unwrap();
        stmt.query_map([action], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap()
    }
}

/// The one field error of a refused request: (field, code).
fn field_error(body: &Value) -> (String, String) {
    let errors = body["errors"]
        .as_array()
        .unwrap_or_else(|| panic!("no field errors: {body}"));
    assert_eq!(errors.len(), 1, "{body}");
    (
        errors[0]["field"].as_str().unwrap().to_owned(),
        errors[0]["code"].as_str().unwrap().to_owned(),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_number_typed_the_usual_way_finds_its_messages_and_its_replies_alike() {
    let t = Running::start(&[("SMSDESK_INTAKE_DEFAULT_REGION", "fr")]).await;
    let (status, sent) = t
        .send(
            reqwest::Method::POST,
            "/messages",
            json!({ "destination": "+33 6 12 34 56 00", "text": "Votre colis arrive demain" }),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{sent}");
    let (status, other) = t
        .send(
            reqwest::Method::POST,
            "/messages",
            json!({ "destination": "+33 6 99 99 99 99", "text": "Autre" }),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{other}");
    let (status, body) = t
        .send(
            reqwest::Method::POST,
            "/sandbox/reply",
            json!({ "from": "06 12 34 56 00", "text": "Arrêt à 9 h" }),
        )
        .await;
    assert_eq!(status, StatusCode::NO_CONTENT, "{body}");

    let (status, list) = t.get(&format!("/messages?destination={TYPED}")).await;
    assert_eq!(status, StatusCode::OK, "{list}");
    let ids: Vec<&Value> = list["items"].as_array().unwrap().iter().map(|m| &m["id"]).collect();
    assert_eq!(ids, vec![&sent["id"]], "the message list");

    let started = std::time::Instant::now();
    let threads = loop {
        let (status, page) = t.get(&format!("/inbox?q={TYPED}")).await;
        assert_eq!(status, StatusCode::OK, "{page}");
        if !page["items"].as_array().unwrap().is_empty() {
            break page;
        }
        assert!(started.elapsed() < PATIENCE, "the reply never reached the inbox");
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    let found: Vec<&Value> = threads["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| &t["thread"])
        .collect();
    assert_eq!(found, vec!["+33612345600"], "the inbox");
    let (status, thread) = t.get(&format!("/inbox/thread?thread={TYPED}")).await;
    assert_eq!(status, StatusCode::OK, "{thread}");
    assert_eq!(thread["phone"], "+33612345600", "the thread, looked up as typed");
    assert!(
        thread["items"]
            .as_array()
            .unwrap()
            .iter()
            .any(|i| i["id"] == sent["id"]),
        "beside the message sent to it: {thread}"
    );
    for q in ["arret", "ARRET", "arrêt"] {
        let (_, page) = t.get(&format!("/inbox?q={q}")).await;
        assert_eq!(page["items"][0]["thread"], "+33612345600", "{q}: {page}");
    }
    t.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_an_office_country_a_national_number_is_refused_as_country_needed_everywhere() {
    let t = Running::start(&[]).await;
    for (path, field) in [
        (format!("/messages?destination={TYPED}"), "destination"),
        (format!("/messages/export?destination={TYPED}"), "destination"),
        (format!("/inbox?q={TYPED}"), "q"),
        (format!("/inbox/thread?thread={TYPED}"), "thread"),
        (format!("/opt-outs?q={TYPED}"), "q"),
    ] {
        let (status, body) = t.get(&path).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{path}: {body}");
        assert_eq!(
            field_error(&body),
            (field.to_owned(), "country_needed".to_owned()),
            "{path}"
        );
    }
    for (path, body, field) in [
        (
            "/messages",
            json!({ "destination": "06 12 34 56 00", "text": "x" }),
            "destination",
        ),
        ("/opt-outs", json!({ "phone": "06 12 34 56 00" }), "phone"),
        (
            "/opt-outs/remove",
            json!({ "phone": "06 12 34 56 00", "note": "asked" }),
            "phone",
        ),
        ("/opt-outs/import", json!({ "csv": "06 12 34 56 00\n" }), "lines[1]"),
    ] {
        let (status, answer) = t.send(reqwest::Method::POST, path, body).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{path}: {answer}");
        assert_eq!(
            field_error(&answer),
            (field.to_owned(), "country_needed".to_owned()),
            "{path}"
        );
    }
    let (status, preview) = t
        .send(
            reqwest::Method::POST,
            "/messages/preview",
            json!({ "messages": [{ "destination": "06 12 34 56 00", "text": "x" }] }),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{preview}");
    assert_eq!(preview["rows"][0]["errors"][0]["code"], "country_needed", "{preview}");
    // International numbers and endings need no country.
    let (status, _) = t.get("/messages?destination=%2B33612345600").await;
    assert_eq!(status, StatusCode::OK);
    let (status, _) = t.get("/inbox?q=5600").await;
    assert_eq!(status, StatusCode::OK);
    t.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_first_admin_sets_the_office_country_and_an_unknown_one_makes_nothing() {
    let t = Running::start(&[]).await;
    let token = t.engine().service().issue_setup_token().await.unwrap().unwrap();
    let setup = |country: &str| json!({ "token": token, "name": "Ada", "password": "correct horse battery", "country": country });
    let anonymous = |body: Value| t.http.post(format!("{}/api/v1/setup", t.url)).json(&body).send();
    let refused = anonymous(setup("France")).await.unwrap();
    assert_eq!(refused.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let body: Value = refused.json().await.unwrap();
    assert_eq!(field_error(&body), ("country".to_owned(), "unknown_country".to_owned()));
    assert!(
        body["errors"][0]["message"].as_str().unwrap().contains("such as FR"),
        "{body}"
    );
    let (_, state) = t.get("/setup").await;
    assert_eq!(state["open"], true, "no account was made");
    assert!(
        !t.config_text().contains("default_region = \"FR\""),
        "nor the setting changed"
    );

    let made = anonymous(setup("fr")).await.unwrap();
    assert_eq!(
        made.status(),
        StatusCode::CREATED,
        "the same link, once the country is right"
    );
    assert!(
        t.config_text().contains("default_region = \"FR\""),
        "{}",
        t.config_text()
    );
    assert_eq!(
        t.audit_of("settings.update"),
        vec![("Ada".to_owned(), r#"["intake.default_region"]"#.to_owned())],
        "audited as a settings change by the new admin, naming the setting"
    );
    // National numbers are read in it at once.
    let (status, body) = t
        .send(
            reqwest::Method::POST,
            "/messages",
            json!({ "destination": "06 12 34 56 00", "text": "Bienvenue" }),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    assert_eq!(body["destination"], "+33612345600");
    t.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn smpp_credentials_longer_than_a_bind_carries_and_a_country_name_are_refused_where_typed() {
    let t = Running::start(&[]).await;
    let patch = |body: Value| t.send(reqwest::Method::PATCH, "/settings", body);
    let (status, body) = patch(json!({ "password": "elevenchars" })).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    assert_eq!(
        field_error(&body),
        ("smpp.password".to_owned(), "password_too_long".to_owned())
    );
    assert_eq!(body["errors"][0]["params"], json!({ "max": "8" }));
    let (status, body) = patch(json!({ "values": { "smpp.system_id": "sixteen-chars-id" } })).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    assert_eq!(
        field_error(&body),
        ("smpp.system_id".to_owned(), "system_id_too_long".to_owned())
    );
    assert_eq!(body["errors"][0]["params"], json!({ "max": "15" }));
    let (status, body) = patch(json!({ "values": { "intake.default_region": "France" } })).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    assert_eq!(
        field_error(&body),
        ("intake.default_region".to_owned(), "unknown_country".to_owned())
    );
    let (status, body) = patch(json!({ "values": { "intake.default_region": "be" } })).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert!(
        t.config_text().contains("default_region = \"BE\""),
        "{}",
        t.config_text()
    );

    let (status, body) = t
        .send(
            reqwest::Method::POST,
            "/settings/test-connection",
            json!({ "sandbox": false, "host": "127.0.0.1", "port": 1, "system_id": "office", "password": "elevenchars" }),
        )
        .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    assert_eq!(
        field_error(&body),
        ("smpp.password".to_owned(), "password_too_long".to_owned())
    );

    let connection = json!({
        "name": "provider", "sandbox": false, "host": "smpp.example.net", "port": 2775,
        "system_id": "a-system-id-too-long", "system_type": "", "bind_mode": "transceiver", "binds": 1,
        "window": 10, "tps": 10, "source_addr": "", "enabled": true, "password": "elevenchars",
        "password_set": false
    });
    let (status, body) = t
        .send(
            reqwest::Method::POST,
            "/settings/connections",
            json!({ "connections": [connection], "routes": [] }),
        )
        .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    let codes: Vec<(&str, &str)> = body["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (e["field"].as_str().unwrap(), e["code"].as_str().unwrap()))
        .collect();
    assert_eq!(
        codes,
        [
            ("connections[0].password", "password_too_long"),
            ("connections[0].system_id", "system_id_too_long")
        ]
    );
    t.stop().await;
}
