//! Why a message is where it is, and what a retry of it would meet, over real HTTP on a real
//! engine (sandbox SMSC, real SQLite file): the queue's reason as a code with the SMPP status, on
//! the detail and on the list row; the retry advice for an operator and a viewer, and the retry's
//! own answer matching it, for a message the SMSC refused for good and one the network rejected.

use std::time::Duration;

use reqwest::{Method, StatusCode};
use serde_json::{json, Value};
use smsdesk_engine::api::RunMode;

use crate::support::people::Who;
use crate::support::Running;

/// What these tests do with a running server (a trait of this module's own: the server type is
/// shared by every module of the binary).
trait AdviceServer {
    async fn start() -> Running;
}

impl AdviceServer for Running {
    async fn start() -> Running {
        Running::launch(None, Vec::new(), RunMode::Serve).await
    }
}

/// The message's detail once `done` says so (within 15 s).
async fn detail_once(t: &Running, who: &Who, id: i64, done: impl Fn(&Value) -> bool) -> Value {
    let path = format!("/api/v1/messages/{id}");
    let deadline = std::time::Instant::now() + Duration::from_secs(15);
    loop {
        let (_, d) = t.call_as(who, Method::GET, &path, None).await;
        if done(&d) {
            return d;
        }
        assert!(std::time::Instant::now() < deadline, "the sandbox gets it there: {d}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The newest entry of the audit log.
async fn last_audit(t: &Running) -> Value {
    let admin = Who::Key(t.operator.clone());
    let (status, page) = t.call_as(&admin, Method::GET, "/api/v1/audit?limit=1", None).await;
    assert_eq!(status, StatusCode::OK, "{page}");
    page["items"][0].clone()
}

fn codes(facts: &Value) -> Vec<&str> {
    facts
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["code"].as_str().unwrap())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_message_refused_for_good_says_why_in_a_code_and_its_advice_is_what_the_retry_answers() {
    let t = Running::start().await;
    let olga = t.signed_in("Olga", "operator").await;
    let vik = t.signed_in("Vik", "viewer").await;
    let body = json!({ "destination": "+33612345613", "text": "Your parcel is on its way" });
    let (status, sent) = t.call_as(&olga, Method::POST, "/api/v1/messages", Some(body)).await;
    assert_eq!(status, StatusCode::CREATED, "{sent}");
    let id = sent["id"].as_i64().unwrap();
    let d = detail_once(&t, &olga, id, |d| d["queue"]["status"] == "failed").await;

    let reason = &d["queue"]["reason"];
    assert_eq!(reason["code"], "refused_permanent", "{d}");
    assert_eq!(reason["params"]["status"], "ESME_RINVDSTADR");
    assert!(
        d["queue"]["last_error"]
            .as_str()
            .unwrap()
            .starts_with("ESME_RINVDSTADR"),
        "the engine's sentence stays beside it: {d}"
    );
    assert_eq!(&d["summary"]["reason"], reason);
    let (_, page) = t.call_as(&olga, Method::GET, "/api/v1/messages", None).await;
    let row = page["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["id"] == id)
        .unwrap();
    assert_eq!(&row["reason"], reason, "a list row says why as well");

    assert_eq!(codes(&d["retry"]["blocked"]), Vec::<&str>::new());
    assert_eq!(codes(&d["retry"]["confirm"]), ["will_fail_again"]);
    assert_eq!(d["retry"]["confirm"][0]["params"]["status"], "ESME_RINVDSTADR");
    let retry = format!("/api/v1/messages/{id}/retry");
    let (status, refused) = t
        .call_as(&olga, Method::POST, &retry, Some(json!({ "note": "" })))
        .await;
    assert_eq!(
        (status, refused["code"].as_str()),
        (StatusCode::CONFLICT, Some("permanent_failure_retry")),
        "the retry answers what the advice said: {refused}"
    );

    let seen = detail_once(&t, &vik, id, |_| true).await;
    assert_eq!(codes(&seen["retry"]["blocked"]), ["not_allowed"]);
    let (status, _) = t.call_as(&vik, Method::POST, &retry, Some(json!({ "note": "" }))).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "a viewer is refused, as the advice said");

    // will_fail_again is what `confirm_permanent_failure` confirms.
    let confirmed = json!({ "note": "the number was corrected at the SMSC", "confirm_permanent_failure": true });
    let (status, body) = t.call_as(&olga, Method::POST, &retry, Some(confirmed)).await;
    assert_eq!(status, StatusCode::NO_CONTENT, "{body}");
    let audit = last_audit(&t).await;
    assert_eq!(audit["action"], "message.retry_permanent_confirmed", "{audit}");
    assert_eq!(audit["subject_id"], id);
    assert_eq!(audit["actor"], "Olga");
    assert_eq!(audit["note"], "the number was corrected at the SMSC");
    t.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_message_the_network_rejected_asks_to_confirm_the_rejection_not_a_second_delivery() {
    let t = Running::start().await;
    let olga = t.signed_in("Olga", "operator").await;
    let body = json!({ "destination": "+33612345603", "text": "Your parcel is on its way" });
    let (status, sent) = t.call_as(&olga, Method::POST, "/api/v1/messages", Some(body)).await;
    assert_eq!(status, StatusCode::CREATED, "{sent}");
    let id = sent["id"].as_i64().unwrap();
    let d = detail_once(&t, &olga, id, |d| d["summary"]["state"] == "rejected").await;

    assert_eq!(codes(&d["retry"]["blocked"]), Vec::<&str>::new(), "{d}");
    assert_eq!(codes(&d["retry"]["confirm"]), ["rejected_by_network"]);
    assert_eq!(d["retry"]["confirm"][0]["params"]["state"], "rejected");
    let retry = format!("/api/v1/messages/{id}/retry");
    let (status, refused) = t
        .call_as(&olga, Method::POST, &retry, Some(json!({ "note": "" })))
        .await;
    assert_eq!(
        (status, refused["code"].as_str()),
        (StatusCode::CONFLICT, Some("confirmation_required"))
    );
    let message = refused["message"].as_str().unwrap();
    assert!(
        message.contains("rejected") && !message.contains("twice"),
        "the refusal speaks of the rejection: {message}"
    );
    // rejected_by_network is what `confirm_duplicate` confirms, as may_arrive_twice is.
    let confirmed = json!({ "note": "the customer fixed their phone", "confirm_duplicate": true });
    let (status, body) = t.call_as(&olga, Method::POST, &retry, Some(confirmed)).await;
    assert_eq!(status, StatusCode::NO_CONTENT, "{body}");
    let audit = last_audit(&t).await;
    assert_eq!(audit["action"], "message.retry_confirmed", "{audit}");
    assert_eq!(audit["subject_id"], id);
    assert_eq!(audit["actor"], "Olga");
    assert_eq!(audit["note"], "the customer fixed their phone");
    let tries = d["summary"]["attempts"].as_i64().unwrap();
    detail_once(&t, &olga, id, |d| d["summary"]["attempts"].as_i64() == Some(tries + 1)).await;
    t.stop().await;
}
