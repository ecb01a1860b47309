//! The HTTP API over real HTTP: a real engine on a temp data directory (sandbox SMSC, real SQLite
//! file), requests from a real client over TCP, and what was written checked on a separate
//! connection to the database file.

use std::time::Duration;

use reqwest::StatusCode;
use serde_json::{json, Value};
use smsdesk_engine::api::RunMode;
use smsdesk_engine::engine::Prepared;
use smsdesk_engine::{Engine, EngineOptions};

const PROVIDER_SECRET: &str = "callback-secret-0123456789";

use crate::support::Running;

/// What these tests do with a running server (a trait of this module's own: the server type is
/// shared by every module of the binary).
trait ApiServer {
    async fn start(extra_env: &[(&str, &str)]) -> Running;
    async fn start_as(extra_env: &[(&str, &str)], mode: RunMode) -> Running;
    async fn submit(&self, key: &str) -> i64;
    fn post(&self, path: &str, key: &str) -> reqwest::RequestBuilder;
    fn get(&self, path: &str, key: &str) -> reqwest::RequestBuilder;
    fn count(&self, table: &str) -> i64;
}

impl ApiServer for Running {
    async fn start(extra_env: &[(&str, &str)]) -> Running {
        Running::start_as(extra_env, RunMode::Serve).await
    }

    async fn start_as(extra_env: &[(&str, &str)], mode: RunMode) -> Running {
        let mut env = vec![(
            "SMSDESK_CALLBACKS_PROVIDERS".to_owned(),
            format!(r#"{{"vonage": {{"secret": "{PROVIDER_SECRET}"}}}}"#),
        )];
        env.extend(extra_env.iter().map(|(k, v)| (k.to_string(), v.to_string())));
        Running::launch(None, env, mode).await
    }

    /// Queues [`message()`] with `key`; its id.
    async fn submit(&self, key: &str) -> i64 {
        let r = self
            .post("/api/v1/messages", key)
            .json(&message())
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), StatusCode::CREATED);
        r.json::<Value>().await.unwrap()["id"].as_i64().unwrap()
    }

    fn post(&self, path: &str, key: &str) -> reqwest::RequestBuilder {
        self.http.post(format!("{}{path}", self.url)).bearer_auth(key)
    }

    fn get(&self, path: &str, key: &str) -> reqwest::RequestBuilder {
        self.http.get(format!("{}{path}", self.url)).bearer_auth(key)
    }

    fn count(&self, table: &str) -> i64 {
        self.count_where(table, "1")
    }
}

fn message() -> Value {
    json!({ "destination": "+33612345678", "text": "Your code is 1234", "kind": "otp" })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn requests_without_a_valid_key_are_refused_with_401_and_write_nothing() {
    let t = Running::start(&[]).await;
    let (id, key) = t.key("crm").await;

    let none = t
        .http
        .post(format!("{}/api/v1/messages", t.url))
        .json(&message())
        .send()
        .await
        .unwrap();
    assert_eq!(none.status(), StatusCode::UNAUTHORIZED);
    assert!(none.headers().contains_key("www-authenticate"));
    assert_eq!(none.json::<Value>().await.unwrap()["code"], "unauthorized");

    let wrong = t
        .post("/api/v1/messages", "sdk_0000")
        .json(&message())
        .send()
        .await
        .unwrap();
    assert_eq!(wrong.status(), StatusCode::UNAUTHORIZED);

    for path in ["/api/v1/messages", "/api/v1/info", "/api/v1/exceptions"] {
        let r = t.http.get(format!("{}{path}", t.url)).send().await.unwrap();
        assert_eq!(r.status(), StatusCode::UNAUTHORIZED, "{path}");
    }
    let openapi = t
        .http
        .get(format!("{}/api/v1/openapi.json", t.url))
        .send()
        .await
        .unwrap();
    assert_eq!(
        openapi.status(),
        StatusCode::OK,
        "the API's description holds no data and needs no key"
    );
    let health = t.http.get(format!("{}/api/v1/health", t.url)).send().await.unwrap();
    assert_eq!(health.status(), StatusCode::OK, "health needs no key");

    let ok = t.post("/api/v1/messages", &key).json(&message()).send().await.unwrap();
    assert_eq!(ok.status(), StatusCode::CREATED);
    assert_eq!(t.count("message"), 1);

    let revoked = t
        .post(&format!("/api/v1/keys/{id}/revoke"), &t.operator)
        .send()
        .await
        .unwrap();
    assert_eq!(revoked.status(), StatusCode::NO_CONTENT);
    let after = t.post("/api/v1/messages", &key).json(&message()).send().await.unwrap();
    assert_eq!(
        after.status(),
        StatusCode::UNAUTHORIZED,
        "a revoked key is refused at once"
    );
    assert_eq!(t.count("message"), 1, "nothing written by refused requests");

    let forbidden = t
        .post("/api/v1/keys", &t.key("other").await.1)
        .json(&json!({"name": "x"}))
        .send()
        .await
        .unwrap();
    assert_eq!(forbidden.status(), StatusCode::FORBIDDEN, "an API key cannot make keys");
    t.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_same_idempotency_key_replays_the_first_answer_and_another_body_is_refused() {
    let t = Running::start(&[]).await;
    let (_, key) = t.key("website").await;
    let send = |body: Value, idem: &str| {
        t.post("/api/v1/messages", &key)
            .header("Idempotency-Key", idem)
            .json(&body)
            .send()
    };

    let first = send(message(), "order-1").await.unwrap();
    assert_eq!(first.status(), StatusCode::CREATED);
    assert!(!first.headers().contains_key("idempotent-replayed"));
    let first: Value = first.json().await.unwrap();

    // The same request, fields in another order: the same answer, no second message.
    let same = send(
        json!({ "kind": "otp", "text": "Your code is 1234", "destination": "+33612345678" }),
        "order-1",
    )
    .await
    .unwrap();
    assert_eq!(same.status(), StatusCode::CREATED);
    assert_eq!(same.headers()["idempotent-replayed"], "true");
    assert_eq!(same.json::<Value>().await.unwrap(), first);
    assert_eq!(t.count("message"), 1);

    let other = send(
        json!({ "destination": "+33612345678", "text": "Another text" }),
        "order-1",
    )
    .await
    .unwrap();
    assert_eq!(other.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(other.json::<Value>().await.unwrap()["code"], "idempotency_key_reused");
    assert_eq!(t.count("message"), 1);

    // Keys are scoped per API key: another key may use the same idempotency key.
    let (_, key2) = t.key("crm").await;
    let theirs = t
        .post("/api/v1/messages", &key2)
        .header("Idempotency-Key", "order-1")
        .json(&message())
        .send()
        .await
        .unwrap();
    assert_eq!(theirs.status(), StatusCode::CREATED);
    assert_eq!(t.count("message"), 2);
    t.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_concurrent_duplicate_gets_409_while_the_first_is_still_being_committed() {
    let t = Running::start(&[]).await;
    let (_, key) = t.key("website").await;
    // Hold the writer so the first request waits for its commit.
    let writer = t.engine().store().writer().clone();
    let (held_tx, held_rx) = tokio::sync::oneshot::channel();
    let (release, released) = std::sync::mpsc::channel::<()>();
    let hold = tokio::task::spawn_blocking(move || {
        writer
            .write_blocking(move |_tx| {
                let _ = held_tx.send(());
                let _ = released.recv_timeout(Duration::from_secs(30));
                Ok::<_, smsdesk_store::StoreError>(())
            })
            .unwrap()
    });
    held_rx.await.unwrap();
    let first = tokio::spawn(
        t.post("/api/v1/messages", &key)
            .header("Idempotency-Key", "k-42")
            .json(&message())
            .send(),
    );
    // The first holds its key once it is being committed (it waits for the held writer).
    let service = t.engine().service().clone();
    tokio::time::timeout(Duration::from_secs(10), async {
        while service.idempotent_requests_in_flight() == 0 {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await
    .expect("the first request holds its key");
    let second = t
        .post("/api/v1/messages", &key)
        .header("Idempotency-Key", "k-42")
        .json(&message())
        .send()
        .await
        .unwrap();
    assert_eq!(second.status(), StatusCode::CONFLICT);
    assert_eq!(
        second.json::<Value>().await.unwrap()["code"],
        "idempotency_key_in_flight"
    );
    release.send(()).unwrap();
    let first = first.await.unwrap().unwrap();
    assert_eq!(first.status(), StatusCode::CREATED);
    hold.await.unwrap();
    let again = t
        .post("/api/v1/messages", &key)
        .header("Idempotency-Key", "k-42")
        .json(&message())
        .send()
        .await
        .unwrap();
    assert_eq!(
        again.status(),
        StatusCode::CREATED,
        "once committed, a repeat is a replay"
    );
    assert_eq!(again.headers()["idempotent-replayed"], "true");
    assert_eq!(t.count("message"), 1);
    t.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn invalid_fields_are_each_named_and_nothing_is_written() {
    let t = Running::start(&[]).await;
    let (_, key) = t.key("website").await;
    let cases = [
        (json!({ "destination": "hello", "text": "x" }), "destination"),
        (json!({ "destination": "+33612345678", "text": "" }), "text"),
        (json!({ "destination": "+33612345678" }), "text"),
        (
            json!({ "destination": "+33612345678", "text": "x", "kind": "spam" }),
            "kind",
        ),
        (
            json!({ "destination": "+33612345678", "text": "x", "priority": 12 }),
            "priority",
        ),
        (
            json!({ "destination": "+33612345678", "text": "x", "colour": "red" }),
            "colour",
        ),
        (
            json!({ "destination": "+33612345678", "text": "x", "valid_until": "tomorrow" }),
            "valid_until",
        ),
    ];
    for (body, field) in cases {
        let r = t.post("/api/v1/messages", &key).json(&body).send().await.unwrap();
        assert_eq!(r.status(), StatusCode::UNPROCESSABLE_ENTITY, "{body}");
        let v: Value = r.json().await.unwrap();
        assert_eq!(v["code"], "invalid", "{v}");
        let fields: Vec<&str> = v["errors"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["field"].as_str().unwrap())
            .collect();
        assert!(fields.contains(&field), "{body}: {v}");
    }
    let several = t
        .post("/api/v1/messages", &key)
        .json(&json!({ "destination": "12", "text": "", "ordering_key": "k".repeat(500) }))
        .send()
        .await
        .unwrap();
    let v: Value = several.json().await.unwrap();
    assert!(
        v["errors"].as_array().unwrap().len() >= 3,
        "every invalid field at once: {v}"
    );

    let not_json = t.post("/api/v1/messages", &key).body("{nope").send().await.unwrap();
    assert_eq!(not_json.status(), StatusCode::BAD_REQUEST);
    assert_eq!(not_json.json::<Value>().await.unwrap()["code"], "bad_json");

    // A batch is all or nothing, and names the message in error.
    let batch = t
        .post("/api/v1/messages/batch", &key)
        .json(&json!({ "messages": [message(), { "destination": "0", "text": "x" }, message()] }))
        .send()
        .await
        .unwrap();
    assert_eq!(batch.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let v: Value = batch.json().await.unwrap();
    assert_eq!(v["errors"][0]["field"], "messages[1].destination", "{v}");
    assert_eq!(t.count("message"), 0, "nothing written by invalid requests");

    let ok = t
        .post("/api/v1/messages/batch", &key)
        .json(&json!({ "messages": [message(), message()] }))
        .send()
        .await
        .unwrap();
    assert_eq!(ok.status(), StatusCode::CREATED);
    assert_eq!(
        ok.json::<Value>().await.unwrap()["messages"].as_array().unwrap().len(),
        2
    );
    assert_eq!(t.count("message"), 2);
    t.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_body_over_the_size_limit_gets_413_and_writes_nothing() {
    let t = Running::start(&[("SMSDESK_HTTP_MAX_BODY_KIB", "1")]).await;
    let (_, key) = t.key("website").await;
    let big = json!({ "destination": "+33612345678", "text": "x".repeat(2_000) });
    let r = t.post("/api/v1/messages", &key).json(&big).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::PAYLOAD_TOO_LARGE);
    assert_eq!(r.json::<Value>().await.unwrap()["code"], "too_large");
    assert_eq!(t.count("message"), 0);
    t.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_provider_callback_is_on_disk_before_its_2xx_and_a_repeat_gets_the_same_answer() {
    let t = Running::start(&[]).await;
    let url = format!("{}/api/v1/callbacks/vonage", t.url);
    let body = "messageId=0A0000001&status=delivered&err-code=0&scts=2611291200&msisdn=33612345678";

    let no_secret = t
        .http
        .post(&url)
        .header("content-type", "application/x-www-form-urlencoded")
        .body(body)
        .send()
        .await
        .unwrap();
    assert_eq!(no_secret.status(), StatusCode::UNAUTHORIZED);
    let wrong = t
        .http
        .post(format!("{url}?token=not-the-secret"))
        .body(body)
        .send()
        .await
        .unwrap();
    assert_eq!(wrong.status(), StatusCode::UNAUTHORIZED);
    assert_eq!(t.count("receipt"), 0, "a refused callback stores nothing");

    let unknown = t
        .http
        .post(format!("{}/api/v1/callbacks/nobody?token=x", t.url))
        .body(body)
        .send()
        .await
        .unwrap();
    assert_eq!(
        unknown.status(),
        StatusCode::UNAUTHORIZED,
        "an unknown provider is answered as a wrong secret"
    );

    let first = t
        .http
        .post(format!("{url}?token={PROVIDER_SECRET}"))
        .header("content-type", "application/x-www-form-urlencoded")
        .body(body)
        .send()
        .await
        .unwrap();
    assert_eq!(first.status(), StatusCode::OK);
    // Read at once, on another connection: the receipt was committed before the answer.
    assert_eq!(t.count("receipt"), 1);
    let c = rusqlite::Connection::open(&t.db).unwrap();
    let (query, raw): (String, Vec<u8>) = c
        .query_row("SELECT headers_json, raw FROM receipt", [], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })
        .unwrap();
    assert_eq!(raw, body.as_bytes(), "the body is kept exactly as received");
    assert!(query.contains("token=REDACTED"), "{query}");
    assert!(!query.contains(PROVIDER_SECRET), "the secret is not kept as evidence");
    let first: Value = first.json().await.unwrap();

    let repeat = t
        .http
        .post(format!("{url}?token={PROVIDER_SECRET}"))
        .header("content-type", "application/x-www-form-urlencoded")
        .body(body)
        .send()
        .await
        .unwrap();
    assert_eq!(repeat.status(), StatusCode::OK);
    assert_eq!(repeat.json::<Value>().await.unwrap(), first);
    assert_eq!(t.count("receipt"), 2, "the repeat is evidence too");
    assert_eq!(t.count("logical_event"), 1, "but one logical event");
    let stored_secret: i64 = c
        .query_row(
            "SELECT count(*) FROM receipt WHERE instr(coalesce(headers_json, ''), ?1) > 0 OR instr(coalesce(raw_text, ''), ?1) > 0",
            [PROVIDER_SECRET],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(stored_secret, 0);
    t.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn server_sent_events_announce_a_message_only_once_it_is_committed() {
    let t = Running::start(&[]).await;
    let (_, key) = t.key("browser").await;
    let events = t.get("/api/v1/events", &key).send().await.unwrap();
    assert_eq!(events.status(), StatusCode::OK);
    assert_eq!(events.headers()["content-type"], "text/event-stream");
    let mut stream = events;

    let id = t.submit(&key).await;
    let mut seen = String::new();
    let found = tokio::time::timeout(Duration::from_secs(10), async {
        while let Some(chunk) = stream.chunk().await.unwrap() {
            seen.push_str(&String::from_utf8_lossy(&chunk));
            let wanted = format!("data: {{\"entity\":\"message\",\"id\":{id}}}");
            if seen.contains(&wanted) {
                // At the moment the event is read, another connection sees the row.
                let c = rusqlite::Connection::open(&t.db).unwrap();
                let n: i64 = c
                    .query_row("SELECT count(*) FROM message WHERE id = ?1", [id], |r| r.get(0))
                    .unwrap();
                return n;
            }
        }
        0
    })
    .await
    .expect("the change arrives");
    assert_eq!(found, 1);
    assert!(seen.contains("event: change"));
    drop(stream);
    t.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_message_posted_over_http_reaches_the_sandbox_and_its_timeline_shows_it() {
    let t = Running::start(&[]).await;
    let (_, key) = t.key("crm").await;
    let created: Value = t
        .post("/api/v1/messages", &key)
        .json(&json!({ "destination": "+33 6 12 34 56 00", "text": "Votre rendez-vous est confirmé", "client_ref": "rdv-7" }))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(created["destination"], "+33612345600");
    assert_eq!(created["destination_raw"], "+33 6 12 34 56 00");
    assert_eq!(created["segments"], 1);
    let id = created["id"].as_i64().unwrap();

    let detail = tokio::time::timeout(Duration::from_secs(20), async {
        loop {
            let d: Value = t
                .get(&format!("/api/v1/messages/{id}"), &key)
                .send()
                .await
                .unwrap()
                .json()
                .await
                .unwrap();
            if d.to_string().contains("\"delivered\"") {
                return d;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    })
    .await
    .expect("the sandbox reports it delivered");
    let text = detail.to_string();
    assert!(text.contains("rdv-7"), "{text}");
    assert!(!detail["attempts"].as_array().unwrap().is_empty(), "{detail}");
    assert!(!detail["receipts"].as_array().unwrap().is_empty(), "{detail}");

    let page: Value = t
        .get("/api/v1/messages?limit=10", &key)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(page["items"][0]["id"], id);
    let missing = t.get("/api/v1/messages/999999", &key).send().await.unwrap();
    assert_eq!(missing.status(), StatusCode::NOT_FOUND);

    // A delivered message can be retried only with the duplicate warning acknowledged.
    let retry = t
        .post(&format!("/api/v1/messages/{id}/retry"), &key)
        .json(&json!({ "note": "customer asks again" }))
        .send()
        .await
        .unwrap();
    assert_eq!(retry.status(), StatusCode::CONFLICT);
    assert_eq!(retry.json::<Value>().await.unwrap()["code"], "confirmation_required");
    t.stop().await;
}

/// The list reads a number as people type it, national ones in `intake.default_region`, finds it
/// by its last digits, refuses what cannot be searched, and its first page says how many match.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_list_finds_a_number_as_typed_and_says_how_many_messages_match() {
    let t = Running::start(&[("SMSDESK_INTAKE_DEFAULT_REGION", "FR")]).await;
    let (_, key) = t.key("crm").await;
    let mut ids = Vec::new();
    for destination in ["+33 6 12 34 56 00", "+33 6 99 99 99 99"] {
        let r = t
            .post("/api/v1/messages", &key)
            .json(&json!({ "destination": destination, "text": "Votre colis arrive demain" }))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), StatusCode::CREATED);
        ids.push(r.json::<Value>().await.unwrap()["id"].as_i64().unwrap());
    }
    let list = |query: String| {
        let request = t.get(&format!("/api/v1/messages?{query}"), &key);
        async move {
            let r = request.send().await.unwrap();
            (r.status(), r.json::<Value>().await.unwrap())
        }
    };
    for typed in [
        "06%2012%2034%2056%2000",
        "06.12.34.56.00",
        "0612345600",
        "%2B33612345600",
        "33612345600",
        "5600",
    ] {
        let (status, page) = list(format!("destination={typed}")).await;
        assert_eq!(status, StatusCode::OK, "{typed}: {page}");
        let found: Vec<i64> = page["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["id"].as_i64().unwrap())
            .collect();
        assert_eq!(found, vec![ids[0]], "{typed}");
        assert_eq!(page["total"], json!({ "count": 1, "bound": "exact" }), "{typed}");
    }
    let (_, all) = list("limit=1".into()).await;
    assert_eq!(all["total"], json!({ "count": 2, "bound": "exact" }));
    let next = all["next_cursor"].as_str().unwrap().to_owned();
    let (_, later) = list(format!("limit=1&cursor={next}")).await;
    assert_eq!(later["total"], Value::Null, "a page further on has no total");
    let (status, refused) = list("destination=456".into()).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{refused}");
    assert_eq!(refused["code"], "invalid_filter");
    assert!(
        refused["message"].as_str().unwrap().contains("at least 4 digits"),
        "{refused}"
    );
    t.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_openapi_description_lists_every_route() {
    let t = Running::start(&[]).await;
    let (_, key) = t.key("tools").await;
    let doc: Value = t
        .get("/api/v1/openapi.json", &key)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert!(doc["openapi"].as_str().unwrap().starts_with("3."));
    for path in [
        "/api/v1/messages",
        "/api/v1/messages/batch",
        "/api/v1/messages/{id}",
        "/api/v1/messages/{id}/retry",
        "/api/v1/exceptions/{id}/resolve",
        "/api/v1/callbacks/{provider}",
        "/api/v1/events",
        "/api/v1/dashboard/activity",
        "/api/v1/messages/export",
    ] {
        assert!(doc["paths"][path].is_object(), "{path} missing");
    }
    let export = &doc["paths"]["/api/v1/messages/export"]["get"]["responses"]["200"];
    assert!(
        export["content"]["text/csv"].is_object(),
        "the export is described as CSV: {export}"
    );
    assert!(export["headers"]["X-Total-Count"].is_object(), "{export}");
    t.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_open_event_stream_ends_once_its_key_is_revoked() {
    let t = Running::start(&[]).await;
    let (id, key) = t.key("browser").await;
    let mut events = t.get("/api/v1/events", &key).send().await.unwrap();
    assert_eq!(events.status(), StatusCode::OK);
    let revoked = t
        .post(&format!("/api/v1/keys/{id}/revoke"), &t.operator)
        .send()
        .await
        .unwrap();
    assert_eq!(revoked.status(), StatusCode::NO_CONTENT);
    let mut seen = String::new();
    let ended = tokio::time::timeout(Duration::from_secs(15), async {
        while let Some(chunk) = events.chunk().await.unwrap() {
            seen.push_str(&String::from_utf8_lossy(&chunk));
        }
    })
    .await;
    assert!(ended.is_ok(), "the stream ends: {seen}");
    assert!(seen.contains("event: revoked"), "{seen}");
    let again = t.get("/api/v1/events", &key).send().await.unwrap();
    assert_eq!(again.status(), StatusCode::UNAUTHORIZED);
    t.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn control_characters_in_names_notes_and_searches_are_refused_or_ignored_never_a_500() {
    let t = Running::start(&[]).await;
    let (_, key) = t.key("website").await;
    let name = t
        .post("/api/v1/keys", &t.operator)
        .json(&json!({ "name": "\u{0}" }))
        .send()
        .await
        .unwrap();
    assert_eq!(name.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let id = t.submit(&key).await;
    for path in ["retry", "cancel"] {
        let r = t
            .post(&format!("/api/v1/messages/{id}/{path}"), &key)
            .json(&json!({ "note": "\u{0} checked" }))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), StatusCode::UNPROCESSABLE_ENTITY, "{path}");
        assert_eq!(r.json::<Value>().await.unwrap()["errors"][0]["field"], "note");
    }
    let resolve = t
        .post("/api/v1/exceptions/1/resolve", &key)
        .json(&json!({ "action": "dismiss", "note": "\u{0} checked" }))
        .send()
        .await
        .unwrap();
    assert_eq!(resolve.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let search = t.get("/api/v1/messages?q=ab%00cd", &key).send().await.unwrap();
    assert_eq!(search.status(), StatusCode::OK, "a NUL separates words like a space");
    t.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn listening_beyond_loopback_needs_the_explicit_setting() {
    let dir = tempfile::tempdir().unwrap();
    let env = [
        ("SMSDESK_HTTP_PORT".to_owned(), "0".to_owned()),
        ("SMSDESK_HTTP_BIND".to_owned(), "0.0.0.0".to_owned()),
    ];
    let options = || EngineOptions {
        mode: RunMode::Serve,
        http_port: None,
        door: Some(smsdesk_http::HttpDoor::new(None)),
    };
    let refused = Engine::start(Prepared::load(dir.path().to_owned(), env.clone()).unwrap(), options()).await;
    let err = refused.err().expect("refused without http.allow_network").to_string();
    assert!(err.contains("allow_network"), "{err}");

    let mut allowed = env.to_vec();
    allowed.push(("SMSDESK_HTTP_ALLOW_NETWORK".to_owned(), "true".to_owned()));
    let engine = Engine::start(Prepared::load(dir.path().to_owned(), allowed).unwrap(), options())
        .await
        .expect("starts once allowed");
    assert!(engine
        .info()
        .http_url
        .as_deref()
        .unwrap()
        .starts_with("http://0.0.0.0:"));
    engine.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_connection_route_says_the_sandbox_is_bound() {
    let t = Running::start(&[]).await;
    let (_, key) = t.key("dashboard").await;
    let started = std::time::Instant::now();
    let status = loop {
        let v: Value = t
            .get("/api/v1/connection", &key)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        if v["link"]["state"] == "bound" || started.elapsed() > Duration::from_secs(10) {
            break v;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert_eq!(status["connection"], "sandbox");
    assert_eq!(status["sandbox"], true);
    assert_eq!(status["link"]["state"], "bound", "{status}");
    assert!(status["link"]["since_ms"].as_i64().unwrap() > 0);
    t.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_pace_route_says_the_sandbox_runs_at_its_own_pace_and_counts_what_is_scheduled_apart() {
    let t = Running::start(&[]).await;
    let (_, key) = t.key("dashboard").await;
    let r = t.get("/api/v1/dashboard/pace", &key).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    let pace: Value = r.json().await.unwrap();
    assert_eq!(pace["connection"], "sandbox", "{pace}");
    assert_eq!(
        (
            pace["tps_limit"].as_u64(),
            pace["window"].as_u64(),
            pace["max_rate_per_s"].as_u64()
        ),
        (
            Some(smsdesk_engine::pace::SANDBOX_TPS.into()),
            Some(smsdesk_engine::pace::SANDBOX_WINDOW.into()),
            Some(smsdesk_engine::pace::SANDBOX_TPS.into())
        ),
        "not the provider defaults (10/s, window 10): {pace}"
    );
    assert_eq!(
        (pace["queued"].as_i64(), pace["eta_seconds"].as_u64()),
        (Some(0), Some(0)),
        "{pace}"
    );
    assert_eq!(pace["sent_last_minute_per_s"].as_f64(), Some(0.0), "{pace}");

    // A message scheduled for tomorrow is scheduled, not queued, and takes no time of the ETA;
    // the dashboard's queued figure holds it, read at the same moment as its own.
    let tomorrow_ms = smsdesk_engine::clock::Clock::system().now_ms() + 86_400_000;
    let tomorrow_ms = tomorrow_ms - tomorrow_ms % 1_000;
    let r = t
        .post("/api/v1/messages", &key)
        .json(&json!({ "destination": "+33612345600", "text": "Rappel",
            "scheduled_at": smsdesk_engine::clock::format_rfc3339(tomorrow_ms) }))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::CREATED, "{}", r.text().await.unwrap());
    let pace: Value = t
        .get("/api/v1/dashboard/pace", &key)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(
        (
            pace["queued"].as_i64(),
            pace["scheduled"].as_i64(),
            pace["eta_seconds"].as_u64(),
            pace["next_scheduled_at_ms"].as_i64()
        ),
        (Some(0), Some(1), Some(0), Some(tomorrow_ms)),
        "{pace}"
    );
    let dashboard: Value = t
        .get("/api/v1/dashboard", &key)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let queued = dashboard["queue"]
        .as_array()
        .unwrap()
        .iter()
        .find(|q| q["status"] == "queued")
        .unwrap()["count"]
        .as_i64();
    assert_eq!(queued, Some(1), "{dashboard}");
    t.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_activity_route_charts_a_sent_message_in_the_window_asked_for() {
    let t = Running::start(&[]).await;
    let (_, key) = t.key("dashboard").await;
    let created = t.post("/api/v1/messages", &key).json(&message()).send().await.unwrap();
    assert_eq!(created.status(), StatusCode::CREATED);
    let sum = |v: &Value, field: &str| -> i64 {
        v["buckets"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| b[field].as_i64().unwrap())
            .sum()
    };
    // The sandbox accepts the message and answers with a receipt within moments.
    let started = std::time::Instant::now();
    let day = loop {
        let v: Value = t
            .get("/api/v1/dashboard/activity?window=day", &key)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        if (sum(&v, "accepted") == 1 && sum(&v, "finals") == 1) || started.elapsed() > Duration::from_secs(10) {
            break v;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert_eq!(day["window"], "day");
    assert_eq!(day["bucket_ms"], 3_600_000);
    assert_eq!(day["buckets"].as_array().unwrap().len(), 24);
    assert_eq!((sum(&day, "accepted"), sum(&day, "finals")), (1, 1), "{day}");
    let today = &day["days"][29];
    assert_eq!(
        (today["created"].as_i64(), today["delivered"].as_i64()),
        (Some(1), Some(1)),
        "{day}"
    );

    let hour: Value = t
        .get("/api/v1/dashboard/activity", &key)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(
        (hour["window"].as_str(), hour["buckets"].as_array().map(Vec::len)),
        (Some("hour"), Some(60))
    );
    let month = t
        .get("/api/v1/dashboard/activity?window=month", &key)
        .send()
        .await
        .unwrap();
    assert_eq!(month.status(), StatusCode::OK);
    let bad = t
        .get("/api/v1/dashboard/activity?window=week", &key)
        .send()
        .await
        .unwrap();
    assert_eq!(
        bad.status(),
        StatusCode::UNPROCESSABLE_ENTITY,
        "only hour, day and month exist"
    );
    t.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_key_with_a_webhook_hears_its_message_accepted_then_delivered_signed() {
    use axum::body::Bytes;
    use axum::http::HeaderMap;
    use std::sync::{Arc, Mutex};

    // The CRM: records every POST it receives.
    let got: Arc<Mutex<Vec<(HeaderMap, Bytes)>>> = Arc::default();
    let sink = got.clone();
    let app = axum::Router::new().route(
        "/hook",
        axum::routing::post(move |headers: HeaderMap, body: Bytes| {
            let sink = sink.clone();
            async move {
                sink.lock().unwrap().push((headers, body));
                "ok"
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let hook = format!("http://{}/hook", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });

    let t = Running::start(&[]).await;
    let created: Value = t
        .post("/api/v1/keys", &t.operator)
        .json(&json!({ "name": "crm", "webhook_url": hook }))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let key = created["key"].as_str().unwrap().to_owned();
    let secret = created["webhook_secret"].as_str().unwrap().to_owned();
    let sent: Value = t
        .post("/api/v1/messages", &key)
        .json(&json!({ "destination": "+33612345600", "text": "Order 9 shipped", "client_ref": "order-9" }))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();

    let bodies = tokio::time::timeout(Duration::from_secs(20), async {
        loop {
            let seen: Vec<Value> = got
                .lock()
                .unwrap()
                .iter()
                .map(|(_, b)| serde_json::from_slice(b).unwrap())
                .collect();
            if seen.iter().any(|v| v["field"] == "state" && v["value"] == "delivered") {
                return seen;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    })
    .await
    .expect("the webhook hears the delivery");
    assert!(bodies
        .iter()
        .all(|v| v["message_id"] == sent["id"] && v["client_ref"] == "order-9"));
    let accepted = bodies
        .iter()
        .position(|v| v["field"] == "status" && v["value"] == "accepted");
    let delivered = bodies
        .iter()
        .position(|v| v["field"] == "state" && v["value"] == "delivered");
    assert!(accepted.unwrap() < delivered.unwrap(), "in order: {bodies:?}");
    let now = smsdesk_engine::clock::Clock::system().now_ms() / 1000;
    for (headers, body) in got.lock().unwrap().iter() {
        let signature = headers["smsdesk-signature"].to_str().unwrap();
        assert!(
            smsdesk_engine::webhooks::verify(&secret, signature, body, now, 300),
            "{signature}"
        );
        assert!(!smsdesk_engine::webhooks::verify(
            "another-secret",
            signature,
            body,
            now,
            300
        ));
        assert!(headers.contains_key("smsdesk-delivery"));
    }
    // Every try is recorded and shown with the message.
    let detail: Value = t
        .get(&format!("/api/v1/messages/{}", sent["id"]), &key)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert!(
        detail["webhooks"].as_array().unwrap().len() >= 2,
        "{}",
        detail["webhooks"]
    );
    t.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_preview_checks_each_message_and_writes_nothing() {
    let t = Running::start(&[]).await;
    let (_, key) = t.key("import").await;
    let r = t
        .post("/api/v1/messages/preview", &key)
        .json(&json!({ "messages": [
            { "destination": "+33 6 12 34 56 78", "text": "Hello" },
            { "destination": "12", "text": "Привет" },
            { "destination": "+33612345678", "text": "x".repeat(161) },
        ]}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    let v: Value = r.json().await.unwrap();
    let rows = v["rows"].as_array().unwrap();
    assert_eq!(rows[0]["destination"], "+33612345678");
    assert_eq!(rows[0]["plan"]["encoding"], "gsm7");
    assert_eq!(rows[0]["plan"]["remaining_in_segment"], 155);
    assert!(rows[0]["errors"].as_array().unwrap().is_empty());
    assert_eq!(rows[1]["errors"][0]["field"], "destination");
    assert_eq!(
        rows[1]["plan"]["encoding"], "ucs2",
        "the counter works even when the number is wrong"
    );
    assert_eq!(rows[2]["plan"]["segments"], 2);
    assert_eq!(t.count("message"), 0, "a preview writes nothing");
    t.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_export_streams_the_filtered_messages_as_the_command_line_writes_them() {
    let t = Running::start(&[]).await;
    let (_, key) = t.key("reports").await;
    // Scheduled far ahead, so nothing changes while the two exports are compared.
    let later =
        smsdesk_engine::clock::format_rfc3339(smsdesk_engine::clock::Clock::system().now_ms() + 30 * 86_400_000);
    let tricky = "Hello, \"world\"\nsecond line";
    for (text, kind, client_ref) in [
        (tricky, "otp", "ref, with comma"),
        // No digit: a one-time code's words with digits are masked.
        ("=SUM(A)", "otp", "+cmd"),
        ("not an otp", "bulk", "b-1"),
    ] {
        let r = t
            .post("/api/v1/messages", &key)
            .json(&json!({ "destination": "+33612345600", "text": text, "kind": kind,
                "client_ref": client_ref, "scheduled_at": later }))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), StatusCode::CREATED, "{}", r.text().await.unwrap());
    }

    let r = t.get("/api/v1/messages/export?kind=otp", &key).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    let header = |name: &str| r.headers()[name].to_str().unwrap().to_owned();
    assert_eq!(header("content-type"), "text/csv; charset=utf-8");
    let disposition = header("content-disposition");
    let name = disposition
        .strip_prefix("attachment; filename=\"messages-")
        .and_then(|n| n.strip_suffix(".csv\""))
        .unwrap_or_else(|| panic!("{disposition}"));
    assert!(
        name.len() == 13 && name.as_bytes()[8] == b'-' && name.replace('-', "").bytes().all(|b| b.is_ascii_digit()),
        "messages-YYYYMMDD-HHMM.csv: {disposition}"
    );
    assert_eq!(header("x-total-count"), "2", "the count the filter selects");
    let body = r.text().await.unwrap();

    let mut csv = csv::Reader::from_reader(body.as_bytes());
    let columns: Vec<String> = csv.headers().unwrap().iter().map(str::to_owned).collect();
    assert_eq!(
        columns,
        smsdesk_engine::views::EXPORT_COLUMNS,
        "the header line names every column"
    );
    let rows: Vec<csv::StringRecord> = csv.records().map(Result::unwrap).collect();
    assert_eq!(rows.len(), 2, "only the otp messages, as filtered: {body}");
    let cell = |row: &csv::StringRecord, column: &str| {
        let at = columns.iter().position(|c| c == column).unwrap();
        row[at].to_owned()
    };
    assert_eq!(
        (cell(&rows[0], "body"), cell(&rows[0], "client_ref")),
        ("'=SUM(A)".to_owned(), "'+cmd".to_owned()),
        "newest first, and what a spreadsheet would run as a formula made inert"
    );
    assert_eq!(cell(&rows[1], "body"), tricky, "commas, quotes and line breaks survive");
    assert_eq!(cell(&rows[1], "client_ref"), "ref, with comma");
    assert!(rows.iter().all(|r| cell(r, "kind") == "otp"));
    assert!(
        body.contains("\"Hello, \"\"world\"\"\nsecond line\""),
        "a cell with a comma, a quote or a line break is quoted, its quotes doubled: {body}"
    );

    // What `smsdesk export --csv --kind otp` writes, from its own read-only connection.
    let conn = smsdesk_store::open_read_only(&t.db).unwrap();
    let filter = smsdesk_engine::views::MessageFilter {
        kind: Some(smsdesk_engine::domain::MessageKind::Otp),
        ..Default::default()
    };
    let mut cli = Vec::new();
    smsdesk_engine::views::write_csv(&conn, &filter, &mut cli, |_| std::ops::ControlFlow::Continue(())).unwrap();
    assert_eq!(
        body,
        String::from_utf8(cli).unwrap(),
        "the API's file is the command line's, byte for byte (=SUM(A) included, written as stored)"
    );

    let all = t.get("/api/v1/messages/export", &key).send().await.unwrap();
    assert_eq!(all.headers()["x-total-count"], "3");
    assert_eq!(
        all.text()
            .await
            .unwrap()
            .lines()
            .filter(|l| l.contains("+33612345600"))
            .count(),
        3
    );

    let paged = t
        .get("/api/v1/messages/export?limit=1&cursor=anything", &key)
        .send()
        .await
        .unwrap();
    assert_eq!(paged.status(), StatusCode::OK, "the list's paging parameters are taken");
    assert_eq!(
        paged.headers()["x-total-count"],
        "3",
        "an export has no pages: it writes every message the filter selects"
    );
    assert_eq!(
        paged
            .text()
            .await
            .unwrap()
            .lines()
            .filter(|l| l.contains("+33612345600"))
            .count(),
        3,
        "an export has no pages: it writes every message the filter selects"
    );

    let bad = t.get("/api/v1/messages/export?status=nope", &key).send().await.unwrap();
    assert_eq!(bad.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(bad.json::<Value>().await.unwrap()["code"], "invalid");
    let anonymous = t
        .http
        .get(format!("{}/api/v1/messages/export", t.url))
        .send()
        .await
        .unwrap();
    assert_eq!(anonymous.status(), StatusCode::UNAUTHORIZED);
    t.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_start_can_bring_the_window_to_the_front_only_as_the_operator_and_only_where_there_is_one() {
    let t = Running::start_as(&[], RunMode::Window).await;
    let mut requests = t.engine().window_requests();
    let (_, key) = t.key("website").await;
    let refused = t.post("/api/v1/window/show", &key).send().await.unwrap();
    assert_eq!(
        refused.status(),
        StatusCode::FORBIDDEN,
        "an API key may not move the operator's window"
    );
    assert!(requests.try_recv().is_err(), "a refused request reaches no window");
    let shown = t.post("/api/v1/window/show", &t.operator).send().await.unwrap();
    assert_eq!(shown.status(), StatusCode::NO_CONTENT);
    tokio::time::timeout(std::time::Duration::from_secs(5), requests.recv())
        .await
        .expect("the window hears the request")
        .unwrap();
    t.stop().await;

    let headless = Running::start(&[]).await;
    let answer = headless
        .post("/api/v1/window/show", &headless.operator)
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), StatusCode::CONFLICT);
    let body: serde_json::Value = answer.json().await.unwrap();
    assert_eq!(body["code"], "no_window", "{body}");
    headless.stop().await;
}

/// GET /api/v1/health until `done` holds for its status code and body (at most 10 s).
async fn health_until(t: &Running, done: impl Fn(StatusCode, &Value) -> bool) -> (StatusCode, Value) {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        let r = t.http.get(format!("{}/api/v1/health", t.url)).send().await.unwrap();
        let (code, body) = (r.status(), r.json::<Value>().await.unwrap());
        if done(code, &body) || tokio::time::Instant::now() > deadline {
            return (code, body);
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn health_reports_the_writer_the_link_and_the_last_checkpoint_and_503_while_the_writer_is_stuck() {
    let t = Running::start(&[]).await;
    let (code, body) = health_until(&t, |_, b| b["status"] == "ok" && b["lastCheckpointMs"].is_i64()).await;
    assert_eq!(code, StatusCode::OK, "{body}");
    assert_eq!(
        body["status"], "ok",
        "writer answers and the sandbox link is bound: {body}"
    );
    assert_eq!(body["writer"]["answered"], true, "{body}");
    assert_eq!(body["connection"]["link"]["state"], "bound", "{body}");
    assert!(body["lastCheckpointMs"].is_i64(), "a checkpoint ran: {body}");

    // An operation that does not end holds the writer: nothing new could be stored.
    let store = t.engine.as_ref().unwrap().store().clone();
    let (held, holding) = std::sync::mpsc::channel::<()>();
    let (release, released) = std::sync::mpsc::channel::<()>();
    let blocker = tokio::task::spawn_blocking(move || {
        store.writer().write_blocking(move |_| {
            held.send(()).unwrap();
            let _ = released.recv_timeout(Duration::from_secs(30));
            Ok::<_, smsdesk_store::StoreError>(())
        })
    });
    holding.recv_timeout(Duration::from_secs(5)).unwrap();
    let r = t.http.get(format!("{}/api/v1/health", t.url)).send().await.unwrap();
    let (code, body) = (r.status(), r.json::<Value>().await.unwrap());
    assert_eq!(
        code,
        StatusCode::SERVICE_UNAVAILABLE,
        "a stuck writer is not healthy: {body}"
    );
    assert_eq!(body["status"], "unavailable", "{body}");
    assert_eq!(body["writer"]["answered"], false, "{body}");
    assert!(
        body["writer"]["error"].as_str().unwrap().contains("no answer"),
        "{body}"
    );

    release.send(()).unwrap();
    blocker.await.unwrap().unwrap();
    let (code, body) = health_until(&t, |c, _| c == StatusCode::OK).await;
    assert_eq!(code, StatusCode::OK, "healthy again once the writer answers: {body}");
}

/// A request for `spec` at its method and path (path arguments as `1`), with `key` if any and an
/// empty JSON object as the body of those that take one.
fn request_for(t: &Running, spec: &smsdesk_engine::operations::Spec, key: Option<&str>) -> reqwest::RequestBuilder {
    use smsdesk_engine::operations::{Method, Place};
    let url = format!("{}{}", t.url, spec.http_path().replace("{id}", "1"));
    let mut r = match spec.method {
        Method::Get => t.http.get(url),
        Method::Post => t.http.post(url),
        Method::Patch => t.http.patch(url),
        Method::Delete => t.http.delete(url),
    };
    if spec.args.iter().any(|a| a.place == Place::Body) {
        r = r.json(&json!({}));
    }
    match key {
        Some(k) => r.bearer_auth(k),
        None => r,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_operation_of_the_catalogue_is_served_at_its_path_to_exactly_those_it_allows() {
    use smsdesk_engine::access::Access;
    use smsdesk_engine::operations::OPERATIONS;
    let t = Running::start(&[]).await;
    let (_, key) = t.key("website").await;
    let messages_before = t.count("message");
    for spec in OPERATIONS {
        let anonymous = request_for(&t, spec, None).send().await.unwrap();
        assert_eq!(
            anonymous.status(),
            StatusCode::UNAUTHORIZED,
            "{}: a request without a credential must be refused",
            spec.name
        );
        let with_key = request_for(&t, spec, Some(&key)).send().await.unwrap();
        let status = with_key.status();
        let body: Value = with_key.json().await.unwrap_or(Value::Null);
        // The key has every scope: only what is an admin's or a person's is refused to it.
        match spec.access {
            Access::Admin | Access::Person => {
                assert_eq!(status, StatusCode::FORBIDDEN, "{}: {body}", spec.name);
                assert_eq!(body["code"], "forbidden", "{}: {body}", spec.name);
                assert!(
                    body["message"].as_str().unwrap().contains(spec.name),
                    "the refusal names the operation: {body}"
                );
            }
            _ => {
                assert!(
                    !matches!(
                        status,
                        StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN | StatusCode::METHOD_NOT_ALLOWED
                    ),
                    "{}: an API key may call it at {} {}: {status} {body}",
                    spec.name,
                    spec.method.as_str(),
                    spec.http_path()
                );
                assert!(
                    !body["message"].as_str().unwrap_or("").starts_with("no API route"),
                    "{}: served at its path: {body}",
                    spec.name
                );
            }
        }
    }
    assert_eq!(
        t.count("message"),
        messages_before,
        "empty bodies are refused: nothing was queued"
    );
    t.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_delivery_report_counts_a_delivered_message_by_its_sender_and_opens_it_in_the_list() {
    let t = Running::start(&[]).await;
    let (id, key) = t.key("shop").await;
    let created = t.post("/api/v1/messages", &key).json(&message()).send().await.unwrap();
    assert_eq!(created.status(), StatusCode::CREATED);
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64;
    let period = format!("from_ms={}&to_ms={}", now - 3_600_000, now + 3_600_000);
    // The sandbox accepts the message and answers with a receipt within moments.
    let started = std::time::Instant::now();
    let report = loop {
        let v: Value = t
            .get(&format!("/api/v1/reports/delivery?{period}&by=sender,outcome"), &key)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        if v["total"]["delivered"] == 1 || started.elapsed() > Duration::from_secs(10) {
            break v;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    let group = &report["groups"][0];
    assert_eq!(
        group["key"],
        serde_json::json!([format!("key:{id}"), "delivered"]),
        "{report}"
    );
    assert_eq!(group["label"][0], "shop", "an API key is named");
    assert_eq!(group["figures"]["messages"], 1);
    assert_eq!(group["figures"]["delivered_pct"], 100.0);
    assert_eq!(report["step"], "hour");
    // The country as intake read it with the number.
    let by_country: Value = t
        .get(&format!("/api/v1/reports/delivery?{period}&by=country,kind"), &key)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(
        by_country["groups"][0]["key"],
        serde_json::json!(["FR", "otp"]),
        "{by_country}"
    );

    let list: Value = t
        .get(
            &format!(
                "/api/v1/messages?from_ms={}&to_ms={}&sender=key:{id}&outcome=delivered",
                report["from_ms"], report["to_ms"]
            ),
            &key,
        )
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(list["items"].as_array().map(Vec::len), Some(1), "{list}");
    assert_eq!(list["total"]["count"], 1);

    for (query, why) in [
        (format!("{period}&by=carrier"), "an unknown dimension"),
        (format!("{period}&by=kind,route,country"), "three dimensions"),
        (format!("from_ms=0&to_ms={now}&step=hour"), "by hour over years"),
    ] {
        let bad = t
            .get(&format!("/api/v1/reports/delivery?{query}"), &key)
            .send()
            .await
            .unwrap();
        assert_eq!(bad.status(), StatusCode::UNPROCESSABLE_ENTITY, "{why}");
        let body: Value = bad.json().await.unwrap();
        assert_eq!(body["code"], "invalid_filter", "{why}: {body}");
    }
    t.stop().await;
}
