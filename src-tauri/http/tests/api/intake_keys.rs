//! `client_ref` and `ordering_key` are repeated in logs, lists, exports and webhooks: a control
//! character in them is refused, naming the field, however the message comes in (one, a batch, a
//! preview, which is what a CSV import runs before its batches).

use crate::support::Running;
use reqwest::StatusCode;
use serde_json::{json, Value};
use smsdesk_engine::api::RunMode;

fn fields(v: &Value) -> Vec<(String, String)> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["field"].as_str().unwrap().to_owned(),
                e["code"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

fn pair(field: &str) -> (String, String) {
    (field.to_owned(), "invalid_character".to_owned())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn control_characters_in_client_ref_or_ordering_key_are_refused_everywhere_with_the_field_named() {
    let t = Running::launch(None, Vec::new(), RunMode::Serve).await;
    let (_, key) = t.key("crm").await;
    let post = |path: &str, body: Value| {
        t.http
            .post(format!("{}{path}", t.url))
            .bearer_auth(&key)
            .json(&body)
            .send()
    };
    let good = json!({ "destination": "+33612345678", "text": "hi", "client_ref": "order-1" });

    for (client_ref, ordering_key) in [
        ("order\u{0}1", "k"),
        ("order-1", "\u{1b}[2J"),
        ("a\r\nX-Forged: 1", "k"),
    ] {
        let one = json!({ "destination": "+33612345678", "text": "hi", "client_ref": client_ref, "ordering_key": ordering_key });
        let want_field = if client_ref == "order-1" {
            "ordering_key"
        } else {
            "client_ref"
        };

        let r = post("/api/v1/messages", one.clone()).await.unwrap();
        assert_eq!(r.status(), StatusCode::UNPROCESSABLE_ENTITY, "{one}");
        let v: Value = r.json().await.unwrap();
        assert_eq!(fields(&v["errors"]), vec![pair(want_field)], "{v}");

        let r = post("/api/v1/messages/batch", json!({ "messages": [good, one] }))
            .await
            .unwrap();
        assert_eq!(r.status(), StatusCode::UNPROCESSABLE_ENTITY);
        let v: Value = r.json().await.unwrap();
        assert_eq!(
            fields(&v["errors"]),
            vec![pair(&format!("messages[1].{want_field}"))],
            "{v}"
        );

        let r = post("/api/v1/messages/preview", json!({ "messages": [good, one] }))
            .await
            .unwrap();
        assert_eq!(r.status(), StatusCode::OK);
        let v: Value = r.json().await.unwrap();
        assert!(fields(&v["rows"][0]["errors"]).is_empty(), "{v}");
        assert_eq!(fields(&v["rows"][1]["errors"]), vec![pair(want_field)], "{v}");
    }
    assert_eq!(t.count_where("message", "1"), 0, "nothing refused was written");
    t.stop().await;
}
