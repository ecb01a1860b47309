//! A full disk over real HTTP: every write route answers 503 `storage_full` with `Retry-After`
//! (never 500 `internal`), nothing of the refused request is stored, and the same request is
//! taken once there is room again; meanwhile `/api/v1/health` says `degraded`, and why. The disk
//! fills for real as far as SQLite can tell (`PRAGMA max_page_count` on the writer's connection
//! makes it answer SQLITE_FULL), or every commit fails as it would on a full disk. Below the
//! reserve (`store.reserve_mib`), new messages are refused the same way while the rest is
//! written.

use reqwest::StatusCode;
use serde_json::{json, Value};
use smsdesk_engine::api::RunMode;

use crate::support::Running;

const PROVIDER_SECRET: &str = "callback-secret-0123456789";

async fn start() -> Running {
    let env = vec![(
        "SMSDESK_CALLBACKS_PROVIDERS".to_owned(),
        format!(r#"{{"vonage": {{"secret": "{PROVIDER_SECRET}"}}}}"#),
    )];
    Running::launch(None, env, RunMode::Serve).await
}

/// Caps the database at the pages it has now (`None`: lifts the cap): SQLite then refuses any
/// write that needs another page with SQLITE_FULL, as on a full disk.
async fn cap_pages(t: &Running, cap: bool) {
    t.engine()
        .store()
        .writer()
        .write(move |tx| {
            let c = tx.sql_for_tests();
            let pages: i64 = c.query_row("PRAGMA page_count", [], |r| r.get(0))?;
            c.pragma_update(None, "max_page_count", if cap { pages } else { 1 << 30 })?;
            Ok::<_, smsdesk_store::StoreError>(())
        })
        .await
        .unwrap();
}

/// A batch of 40 messages of 600 characters: a few pages' worth.
fn batch(n: usize) -> Value {
    let text = format!("Batch {n}: {}", "x".repeat(600));
    let messages: Vec<Value> = (0..40)
        .map(|i| json!({ "destination": format!("+336123456{:02}", i), "text": text }))
        .collect();
    json!({ "messages": messages })
}

async fn post_batch(t: &Running, key: &str, n: usize) -> reqwest::Response {
    t.http
        .post(format!("{}/api/v1/messages/batch", t.url))
        .bearer_auth(key)
        .header("Idempotency-Key", format!("fill-{n}"))
        .json(&batch(n))
        .send()
        .await
        .unwrap()
}

/// The answer must be 503 `storage_full` with a `Retry-After`.
async fn storage_full(r: reqwest::Response, what: &str) {
    assert_eq!(r.status(), StatusCode::SERVICE_UNAVAILABLE, "{what}");
    let retry_after = r.headers().get("retry-after").map(|v| v.to_str().unwrap().to_owned());
    let body: Value = r.json().await.unwrap();
    assert_eq!(body["code"], "storage_full", "{what}: {body}");
    let secs: u64 = retry_after
        .unwrap_or_else(|| panic!("{what}: a 503 for a full disk says when to try again"))
        .parse()
        .unwrap();
    assert!(secs > 0, "{what}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_disk_answers_503_storage_full_and_the_refused_batch_is_taken_once_there_is_room() {
    let t = start().await;
    let (_, key) = t.key("website").await;
    cap_pages(&t, true).await;
    let mut accepted = 0;
    let mut refused = None;
    for n in 0..100 {
        let r = post_batch(&t, &key, n).await;
        if r.status() == StatusCode::CREATED {
            accepted += 1;
            continue;
        }
        storage_full(r, "a batch the full disk refused").await;
        refused = Some(n);
        break;
    }
    let refused = refused.expect("the capped database fills up");
    assert_eq!(
        t.count_where("message", "1"),
        accepted * 40,
        "every message of each accepted batch is stored, none of the refused one"
    );
    assert_eq!(t.count_where("queue", "1"), accepted * 40);
    assert_eq!(
        t.count_where("idempotency", "1"),
        accepted,
        "the refused batch's key is not recorded"
    );

    cap_pages(&t, false).await;
    let again = post_batch(&t, &key, refused).await;
    assert_eq!(
        again.status(),
        StatusCode::CREATED,
        "once there is room, the same request is taken"
    );
    assert!(
        again.headers().get("idempotent-replayed").is_none(),
        "it is new: the refused attempt left nothing to replay"
    );
    assert_eq!(t.count_where("message", "1"), (accepted + 1) * 40);
    t.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn while_commits_fail_for_a_full_disk_every_write_route_answers_503_and_stores_nothing() {
    let t = start().await;
    let (key_id, key) = t.key("website").await;
    // Scheduled a month ahead: it stays queued for the cancel below.
    let later = smsdesk_engine::clock::format_rfc3339(t.engine().store().clock().now_ms() + 30 * 86_400_000);
    let scheduled = json!({ "destination": "+33612345678", "text": "later", "scheduled_at": later });
    let r = t
        .http
        .post(format!("{}/api/v1/messages", t.url))
        .bearer_auth(&key)
        .json(&scheduled)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::CREATED);
    let id = r.json::<Value>().await.unwrap()["id"].as_i64().unwrap();
    let tables = ["message", "queue", "idempotency", "api_key", "receipt", "audit"];
    let before: Vec<i64> = tables.iter().map(|table| t.count_where(table, "1")).collect();

    t.engine().store().writer().fail_commits_for_tests(true);
    let url = |path: &str| format!("{}/api/v1{path}", t.url);
    let requests = [
        (
            "submit",
            t.http
                .post(url("/messages"))
                .bearer_auth(&key)
                .header("Idempotency-Key", "full-1")
                .json(&json!({ "destination": "+33612345678", "text": "hello" })),
        ),
        (
            "batch",
            t.http
                .post(url("/messages/batch"))
                .bearer_auth(&key)
                .json(&json!({ "messages": [{ "destination": "+33612345678", "text": "hello" }] })),
        ),
        (
            "cancel",
            t.http
                .post(url(&format!("/messages/{id}/cancel")))
                .bearer_auth(&key)
                .json(&json!({ "note": "not needed" })),
        ),
        (
            "create key",
            t.http
                .post(url("/keys"))
                .bearer_auth(&t.operator)
                .json(&json!({ "name": "crm" })),
        ),
        (
            "revoke key",
            t.http
                .post(url(&format!("/keys/{key_id}/revoke")))
                .bearer_auth(&t.operator)
                .json(&json!({})),
        ),
        (
            "callback",
            t.http
                .post(url(&format!("/callbacks/vonage?token={PROVIDER_SECRET}")))
                .header("content-type", "application/x-www-form-urlencoded")
                .body("messageId=0A0000001&status=delivered&err-code=0&scts=2611291200&msisdn=33612345678"),
        ),
    ];
    for (what, request) in requests {
        storage_full(request.send().await.unwrap(), what).await;
    }
    let health = health_of(&t).await;
    assert_eq!(
        health["status"], "degraded",
        "writes fail: not ok, but the writer answers: {health}"
    );
    assert_eq!(health["storage"]["short"], true, "{health}");
    assert!(health["storage"]["writesFailingSinceMs"].is_i64(), "{health}");
    assert!(
        health["reason"]
            .as_str()
            .unwrap()
            .contains("writes fail: the disk holding the database is full"),
        "health says why: {health}"
    );
    let after: Vec<i64> = tables.iter().map(|table| t.count_where(table, "1")).collect();
    assert_eq!(after, before, "nothing of a refused request is stored ({tables:?})");
    assert_eq!(
        t.count_where("queue", &format!("message_id = {id} AND status = 'queued'")),
        1,
        "the cancel was not half done"
    );

    t.engine().store().writer().fail_commits_for_tests(false);
    let r = t
        .http
        .post(url(&format!("/messages/{id}/cancel")))
        .bearer_auth(&key)
        .json(&json!({ "note": "not needed" }))
        .send()
        .await
        .unwrap();
    assert_eq!(
        r.status(),
        StatusCode::NO_CONTENT,
        "once there is room, the same request is taken"
    );
    let health = health_of(&t).await;
    assert_eq!(
        (health["status"].as_str(), health["storage"]["short"].as_bool()),
        (Some("ok"), Some(false)),
        "a write that commits ends the degraded state: {health}"
    );
    t.stop().await;
}

async fn health_of(t: &Running) -> Value {
    let r = t.http.get(format!("{}/api/v1/health", t.url)).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::OK, "the writer answers");
    r.json().await.unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn below_the_reserve_new_messages_get_503_while_the_rest_is_written_and_health_says_why() {
    // More than any disk has free: the disk is below the reserve from the start.
    let env = vec![("SMSDESK_STORE_RESERVE_MIB".to_owned(), "4000000000".to_owned())];
    let t = Running::launch(None, env, RunMode::Serve).await;
    if t.engine().store().room().free_bytes.is_none() {
        eprintln!("SKIPPED: the free room of this file system cannot be measured here");
        return t.stop().await;
    }
    let (_, key) = t.key("website").await;
    let r = t
        .http
        .post(format!("{}/api/v1/messages", t.url))
        .bearer_auth(&key)
        .json(&json!({ "destination": "+33612345678", "text": "hello" }))
        .send()
        .await
        .unwrap();
    storage_full(r, "a new message below the reserve").await;
    assert_eq!(t.count_where("message", "1"), 0, "nothing of it is stored");
    let (_, other) = t.key("crm").await;
    assert!(
        !other.is_empty(),
        "below the reserve, what is not a new message is still written"
    );
    let health = health_of(&t).await;
    assert_eq!(health["status"], "degraded", "{health}");
    let reason = health["reason"].as_str().unwrap();
    assert!(
        reason.contains("below the 4000000000 MiB reserve: new messages are refused"),
        "health says why: {health}"
    );
    t.stop().await;
}
