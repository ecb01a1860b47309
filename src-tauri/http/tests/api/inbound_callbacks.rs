//! Messages from handsets that HTTP providers post to their inbound webhook
//! (`/api/v1/callbacks/{provider}/inbound`), over real HTTP to a running engine: admitted by the
//! provider's secret, stored as evidence and filed in the inbox before the provider hears 2xx, a
//! stop word opting the number out, and a message posted again filed once.

use reqwest::StatusCode;
use serde_json::{json, Value};
use smsdesk_engine::api::RunMode;

use crate::support::Running;

const TWILIO_SECRET: &str = "twilio-secret-0123456789";
const VONAGE_SECRET: &str = "vonage-secret-0123456789";

async fn start() -> (Running, String) {
    let toml = format!(
        "[callbacks]\nproviders = {{ twilio = {{ secret = \"{TWILIO_SECRET}\" }}, vonage = {{ secret = \"{VONAGE_SECRET}\" }} }}\n"
    );
    let t = Running::launch(Some(&toml), Vec::new(), RunMode::Serve).await;
    let (_, key) = t.key("office").await;
    (t, key)
}

async fn get(t: &Running, key: &str, path: &str) -> Value {
    let r = t
        .http
        .get(format!("{}/api/v1{path}", t.url))
        .bearer_auth(key)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK, "{path}");
    r.json().await.unwrap()
}

/// The texts received in a thread.
async fn received(t: &Running, key: &str, thread: &str) -> Vec<String> {
    let v = get(t, key, &format!("/inbox/thread?thread={}", thread.replace('+', "%2B"))).await;
    v["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["direction"] == "received")
        .map(|i| i["text"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_twilio_stop_opts_the_number_out_before_twilio_hears_200() {
    let (t, key) = start().await;
    let r = t
        .http
        .post(format!(
            "{}/api/v1/callbacks/twilio/inbound?token={TWILIO_SECRET}",
            t.url
        ))
        .header("content-type", "application/x-www-form-urlencoded")
        .body(
            "ToCountry=FR&SmsMessageSid=SM11&NumMedia=0&SmsStatus=received&Body=STOP&To=%2B33757000000\
             &NumSegments=1&MessageSid=SM11&AccountSid=AC00&From=%2B33612345678&ApiVersion=2010-04-01",
        )
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    assert!(r.headers()["content-type"].to_str().unwrap().contains("xml"));
    assert_eq!(
        r.text().await.unwrap(),
        "<Response></Response>",
        "no reply for Twilio to send"
    );

    // Read at once: the reply was filed, and the number put on the list, before the answer.
    let page = get(&t, &key, "/opt-outs?q=33612345678").await;
    let entry = page["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["phone"] == "+33612345678")
        .cloned()
        .unwrap_or_else(|| panic!("not opted out: {page}"));
    assert_eq!(entry["reason"], "reply");
    assert_eq!(entry["reply_text"], "STOP");
    assert_eq!(received(&t, &key, "+33612345678").await, vec!["STOP"]);
    t.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_vonage_message_is_filed_in_its_thread_once_however_often_it_is_posted() {
    let (t, key) = start().await;
    let url = format!("{}/api/v1/callbacks/vonage/inbound", t.url);
    let message = json!({
        "msisdn": "33612345679", "to": "33757000000", "messageId": "0A0000000123ABCD1",
        "text": "Bonjour, à demain", "type": "unicode", "keyword": "BONJOUR",
        "message-timestamp": "2025-01-01 12:00:00",
    });
    for _ in 0..2 {
        let r = t
            .http
            .post(&url)
            .header("x-smsdesk-token", VONAGE_SECRET)
            .json(&message)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), StatusCode::OK);
        assert_eq!(r.json::<Value>().await.unwrap(), json!({ "received": 1 }));
    }
    assert_eq!(received(&t, &key, "+33612345679").await, vec!["Bonjour, à demain"]);
    assert_eq!(
        t.count_where("receipt", "kind = 'mo' AND source = 'http'"),
        2,
        "the repeat is kept as evidence"
    );
    assert_eq!(t.count_where("receipt_outcome", "is_repeat = 1"), 1);
    assert_eq!(t.count_where("inbox_message", "1"), 1, "but filed once");

    // Vonage may call with GET, its fields in the query string.
    let r = t
        .http
        .get(format!(
            "{url}?token={VONAGE_SECRET}&msisdn=33612345679&to=33757000000&messageId=0A0000000123ABCD2&text=Merci&type=text"
        ))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    assert_eq!(
        received(&t, &key, "+33612345679").await,
        vec!["Bonjour, à demain", "Merci"]
    );
    let leaked = t.count_where(
        "receipt",
        &format!("instr(coalesce(headers_json, '') || coalesce(raw_text, ''), '{VONAGE_SECRET}') > 0"),
    );
    assert_eq!(leaked, 0, "the secret is not kept as evidence");
    t.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wrong_secret_or_an_unknown_provider_stores_nothing() {
    let (t, _key) = start().await;
    let body = "From=%2B33612345670&To=%2B33757000000&Body=STOP&MessageSid=SM12";
    for url in [
        format!("{}/api/v1/callbacks/twilio/inbound?token=not-the-secret", t.url),
        format!("{}/api/v1/callbacks/twilio/inbound?token={VONAGE_SECRET}", t.url),
        format!("{}/api/v1/callbacks/twilio/inbound", t.url),
        format!("{}/api/v1/callbacks/nobody/inbound?token={TWILIO_SECRET}", t.url),
    ] {
        let r = t
            .http
            .post(&url)
            .header("content-type", "application/x-www-form-urlencoded")
            .body(body)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), StatusCode::UNAUTHORIZED, "{url}");
        assert_eq!(r.json::<Value>().await.unwrap()["code"], "unauthorized");
    }
    assert_eq!(t.count_where("receipt", "1"), 0);
    assert_eq!(t.count_where("inbox_message", "1"), 0);
    assert_eq!(t.count_where("opt_out", "1"), 0);
    t.stop().await;
}
