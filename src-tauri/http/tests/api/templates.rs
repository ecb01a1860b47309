//! Message templates and the retry guard over real HTTP on a real engine (sandbox SMSC, real
//! SQLite file): who may list, save and delete templates; messages sent by template, filled by the
//! engine; the refusal of a retry of a message the SMSC refused for good, with the status named; a
//! browser's compose form refused a past send time; who may compare messages with an exception's
//! receipt.

use std::time::Duration;

use reqwest::{Method, StatusCode};
use serde_json::{json, Value};
use smsdesk_engine::api::RunMode;
use smsdesk_engine::audit::AuditAction;

use crate::support::people::Who;
use crate::support::Running;

/// What these tests do with a running server (a trait of this module's own: the server type is
/// shared by every module of the binary).
trait TemplatesServer {
    async fn start() -> Running;
    fn audited(&self, action: AuditAction) -> i64;
}

impl TemplatesServer for Running {
    async fn start() -> Running {
        Running::launch(None, Vec::new(), RunMode::Serve).await
    }

    fn audited(&self, action: AuditAction) -> i64 {
        self.count_where("audit", &format!("action = '{action}'"))
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn operators_save_and_delete_templates_viewers_read_them_and_a_website_key_does_neither() {
    let t = Running::start().await;
    let olga = t.signed_in("Olga", "operator").await;
    let vik = t.signed_in("Vik", "viewer").await;
    let (_, website) = t.key_with("website", &["send", "read:own"]).await;
    let website = Who::Key(website);

    let body = json!({ "name": " Reminder ", "text": "Hello {name}, see you on {date}." });
    let (status, saved) = t.call_as(&olga, Method::POST, "/api/v1/templates", Some(body)).await;
    assert_eq!(status, StatusCode::CREATED, "{saved}");
    assert_eq!(saved["name"], "Reminder", "the name is trimmed");
    assert_eq!(saved["placeholders"], json!(["name", "date"]));
    assert_eq!(saved["created_by"], "Olga");
    let id = saved["id"].as_i64().unwrap();
    assert_eq!(t.audited(AuditAction::TemplateCreate), 1);

    let (status, list) = t.call_as(&vik, Method::GET, "/api/v1/templates", None).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(list, json!([saved]), "a viewer reads the office's templates");

    let other = json!({ "name": "Other", "text": "x" });
    let (status, refused) = t
        .call_as(&vik, Method::POST, "/api/v1/templates", Some(other.clone()))
        .await;
    assert_eq!(
        (status, refused["code"].as_str()),
        (StatusCode::FORBIDDEN, Some("forbidden"))
    );
    let (status, _) = t
        .call_as(&vik, Method::DELETE, &format!("/api/v1/templates/{id}"), None)
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    let (status, _) = t.call_as(&website, Method::GET, "/api/v1/templates", None).await;
    assert_eq!(
        status,
        StatusCode::FORBIDDEN,
        "a key that reads only its own messages lists no templates"
    );
    let (status, _) = t
        .call_as(&website, Method::POST, "/api/v1/templates", Some(other))
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN);

    let same = json!({ "name": "REMINDER", "text": "again" });
    let (status, taken) = t.call_as(&olga, Method::POST, "/api/v1/templates", Some(same)).await;
    assert_eq!(
        (status, taken["code"].as_str()),
        (StatusCode::CONFLICT, Some("name_taken"))
    );
    let empty = json!({ "name": "", "text": "" });
    let (status, invalid) = t.call_as(&olga, Method::POST, "/api/v1/templates", Some(empty)).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    let fields: Vec<&str> = invalid["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["field"].as_str().unwrap())
        .collect();
    assert_eq!(fields, ["name", "text"]);
    assert_eq!(t.count_where("message_template", "1"), 1, "nothing refused was written");

    let (status, _) = t
        .call_as(&olga, Method::DELETE, &format!("/api/v1/templates/{id}"), None)
        .await;
    assert_eq!(status, StatusCode::NO_CONTENT);
    let (status, gone) = t
        .call_as(&olga, Method::DELETE, &format!("/api/v1/templates/{id}"), None)
        .await;
    assert_eq!(
        (status, gone["code"].as_str()),
        (StatusCode::NOT_FOUND, Some("not_found"))
    );
    assert_eq!(t.audited(AuditAction::TemplateDelete), 1);
    let (_, list) = t.call_as(&vik, Method::GET, "/api/v1/templates", None).await;
    assert_eq!(list, json!([]));
    t.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_retry_of_a_message_refused_for_good_answers_409_naming_the_status_until_confirmed() {
    let t = Running::start().await;
    let (_, key) = t.key("crm").await;
    let crm = Who::Key(key);
    let body = json!({ "destination": "+33612345613", "text": "Your parcel is on its way" });
    let (status, sent) = t.call_as(&crm, Method::POST, "/api/v1/messages", Some(body)).await;
    assert_eq!(status, StatusCode::CREATED);
    let id = sent["id"].as_i64().unwrap();
    let path = format!("/api/v1/messages/{id}");
    let deadline = std::time::Instant::now() + Duration::from_secs(15);
    loop {
        let (_, d) = t.call_as(&crm, Method::GET, &path, None).await;
        if d["queue"]["status"] == "failed" {
            break;
        }
        assert!(std::time::Instant::now() < deadline, "the sandbox refuses it: {d}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }

    let retry = format!("{path}/retry");
    let (status, refused) = t.call_as(&crm, Method::POST, &retry, Some(json!({ "note": "" }))).await;
    assert_eq!(status, StatusCode::CONFLICT);
    assert_eq!(refused["code"], "permanent_failure_retry");
    assert_eq!(refused["command_status"], "ESME_RINVDSTADR");
    assert!(
        refused["message"].as_str().unwrap().contains("refused for good"),
        "{refused}"
    );

    let confirmed = json!({ "note": "number checked with the customer", "confirm_permanent_failure": true });
    let (status, _) = t.call_as(&crm, Method::POST, &retry, Some(confirmed)).await;
    assert_eq!(status, StatusCode::NO_CONTENT);
    assert_eq!(t.audited(AuditAction::MessageRetryPermanentConfirmed), 1);

    let (_, missing) = t
        .call_as(&crm, Method::POST, "/api/v1/messages/999/retry", Some(json!({})))
        .await;
    assert!(
        missing.get("command_status").is_none(),
        "other refusals carry no status: {missing}"
    );
    t.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_browsers_compose_form_is_refused_a_past_send_time_and_an_integration_sends_now() {
    let t = Running::start().await;
    let olga = t.signed_in("Olga", "operator").await;
    let (_, key) = t.key("crm").await;
    let past = smsdesk_engine::clock::format_rfc3339(smsdesk_engine::clock::Clock::system().now_ms() - 60_000);
    let body = json!({ "destination": "+33612345600", "text": "hi", "scheduled_at": past });

    let (status, refused) = t
        .call_as(&olga, Method::POST, "/api/v1/messages", Some(body.clone()))
        .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(refused["errors"][0]["field"], "scheduled_at");
    assert_eq!(refused["errors"][0]["code"], "in_past");

    let (status, sent) = t
        .call_as(&Who::Key(key), Method::POST, "/api/v1/messages", Some(body))
        .await;
    assert_eq!(
        status,
        StatusCode::CREATED,
        "a past time from an integration still means now"
    );
    assert_eq!(sent["scheduled_at_ms"], Value::Null);
    t.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_message_by_template_is_filled_by_the_engine_and_a_missing_value_or_an_unknown_name_answers_422() {
    let t = Running::start().await;
    let olga = t.signed_in("Olga", "operator").await;
    let template = json!({ "name": "Reminder", "text": "Hello {name}, see you on {date}." });
    let (status, _) = t
        .call_as(&olga, Method::POST, "/api/v1/templates", Some(template))
        .await;
    assert_eq!(status, StatusCode::CREATED);
    let (_, key) = t.key("crm").await;
    let crm = Who::Key(key);

    let filled = json!({ "destination": "+33612345600", "template": "Reminder",
                         "values": { "name": "Anna", "date": "Monday" } });
    let (status, preview) = t
        .call_as(
            &crm,
            Method::POST,
            "/api/v1/messages/preview",
            Some(json!({ "messages": [filled] })),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{preview}");
    assert_eq!(preview["rows"][0]["text"], "Hello Anna, see you on Monday.");
    assert_eq!(preview["rows"][0]["plan"]["segments"], 1);
    let (status, sent) = t.call_as(&crm, Method::POST, "/api/v1/messages", Some(filled)).await;
    assert_eq!(status, StatusCode::CREATED, "{sent}");
    let id = sent["id"].as_i64().unwrap();
    let (_, detail) = t
        .call_as(&crm, Method::GET, &format!("/api/v1/messages/{id}"), None)
        .await;
    assert_eq!(detail["message"]["body"], "Hello Anna, see you on Monday.", "{detail}");

    let before = t.count_where("message", "1");
    let missing = json!({ "destination": "+33612345601", "template": "Reminder", "values": { "name": "Léo" } });
    let (status, refused) = t.call_as(&crm, Method::POST, "/api/v1/messages", Some(missing)).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{refused}");
    assert_eq!(refused["code"], "invalid");
    assert_eq!(refused["errors"][0]["field"], "values");
    assert_eq!(refused["errors"][0]["code"], "template_value_missing");
    assert_eq!(refused["errors"][0]["params"]["placeholder"], "date");

    let unknown = json!({ "destination": "+33612345602", "template": "Birthday", "values": {} });
    let (status, refused) = t.call_as(&crm, Method::POST, "/api/v1/messages", Some(unknown)).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{refused}");
    assert_eq!(refused["errors"][0]["field"], "template");
    assert_eq!(refused["errors"][0]["code"], "unknown_template");
    assert_eq!(t.count_where("message", "1"), before, "nothing refused was stored");
    t.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn comparing_messages_with_an_exceptions_receipt_needs_read_all_and_an_exception() {
    let t = Running::start().await;
    let (_, reader) = t.key_with("desk", &["read:all"]).await;
    let (_, website) = t.key_with("website", &["send", "read:own"]).await;
    let asked = json!({ "messages": [1, 2] });

    let (status, body) = t
        .call_as(
            &Who::Key(reader.clone()),
            Method::POST,
            "/api/v1/exceptions/999/compare",
            Some(asked.clone()),
        )
        .await;
    assert_eq!(
        (status, body["code"].as_str()),
        (StatusCode::NOT_FOUND, Some("not_found")),
        "no such exception: {body}"
    );
    let (status, body) = t
        .call_as(
            &Who::Key(website),
            Method::POST,
            "/api/v1/exceptions/999/compare",
            Some(asked),
        )
        .await;
    assert_eq!(
        (status, body["code"].as_str()),
        (StatusCode::FORBIDDEN, Some("forbidden")),
        "a key without read:all compares nothing: {body}"
    );
    let many: Vec<i64> = (1..=101).collect();
    let (status, body) = t
        .call_as(
            &Who::Key(reader),
            Method::POST,
            "/api/v1/exceptions/1/compare",
            Some(json!({ "messages": many })),
        )
        .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    assert_eq!(body["errors"][0]["code"], "too_many");
    t.stop().await;
}
