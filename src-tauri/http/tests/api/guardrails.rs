//! The guardrails at intake, over HTTP against a running engine (the sandbox SMSC over TCP, a
//! real SQLite file): where codes may go, how fast, what a key narrows, what is spent; each
//! refusal stores nothing and is counted and audited with who asked.

use crate::support::Running;
use reqwest::StatusCode;
use serde_json::{json, Value};
use smsdesk_engine::api::RunMode;

const FR: &str = "[intake]\ndefault_region = \"FR\"\n";

impl Running {
    async fn send(&self, key: &str, body: Value) -> (StatusCode, Value, Option<String>) {
        let r = self
            .http
            .post(format!("{}/api/v1/messages", self.url))
            .bearer_auth(key)
            .json(&body)
            .send()
            .await
            .unwrap();
        let status = r.status();
        let retry = r.headers().get("retry-after").map(|v| v.to_str().unwrap().to_owned());
        (status, r.json().await.unwrap(), retry)
    }

    async fn read(&self, key: &str, path: &str) -> (StatusCode, String) {
        let r = self
            .http
            .get(format!("{}{path}", self.url))
            .bearer_auth(key)
            .send()
            .await
            .unwrap();
        (r.status(), r.text().await.unwrap())
    }

    /// The details of the audit lines of `action`, in order.
    fn audited(&self, action: &str) -> Vec<Value> {
        let c = rusqlite::Connection::open_with_flags(&self.db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
        let mut s = c
            .prepare("SELECT actor, details_json FROM audit WHERE action = ?1 ORDER BY id")
            .unwrap();
        s.query_map([action], |r| {
            let mut d: Value = serde_json::from_str(&r.get::<_, String>(1)?).unwrap();
            d["actor"] = r.get::<_, String>(0)?.into();
            Ok(d)
        })
        .unwrap()
        .map(Result::unwrap)
        .collect()
    }
}

fn otp(to: &str) -> Value {
    json!({ "destination": to, "text": "Votre code : 482913", "kind": "otp" })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_code_to_a_country_outside_otp_countries_is_refused_naming_it_and_nothing_is_stored() {
    let t = Running::launch(Some(FR), Vec::new(), RunMode::Serve).await;
    let (_, key) = t.key("website").await;
    let (status, v, _) = t.send(&key, otp("+447400123456")).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{v}");
    assert_eq!(v["code"], "country_not_allowed");
    assert_eq!(v["errors"][0]["field"], "destination");
    assert_eq!(v["errors"][0]["params"]["country"], "GB");
    assert_eq!(v["errors"][0]["params"]["whose"], "office");
    assert!(v["message"].as_str().unwrap().contains("GB"), "{v}");
    assert_eq!(t.count_where("message", "1"), 0, "nothing refused is stored");
    // Other kinds may go anywhere by default; codes to the office's own country go.
    let (status, _, _) = t
        .send(
            &key,
            json!({ "destination": "+447400123456", "text": "Your parcel left" }),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED);
    assert_eq!(t.send(&key, otp("+33612345678")).await.0, StatusCode::CREATED);

    // Counted and audited with who asked, and the number is in neither.
    assert_eq!(
        t.count_where(
            "guardrail_count",
            "reason = 'country_not_allowed' AND country = 'GB' AND n = 1"
        ),
        1
    );
    let audited = t.audited("guardrail.refused");
    assert_eq!(audited.len(), 1);
    assert_eq!(audited[0]["key"], "website");
    assert_eq!(audited[0]["actor"], "api key website");
    assert!(!audited[0].to_string().contains("7400123456"), "{}", audited[0]);
    let (_, overview) = t.read(&t.operator, "/api/v1/guardrails").await;
    let overview: Value = serde_json::from_str(&overview).unwrap();
    let counts = overview["counts"].as_array().unwrap();
    assert_eq!(counts.len(), 1, "{overview}");
    assert_eq!(
        (&counts[0]["reason"], &counts[0]["label"], &counts[0]["n"]),
        (&json!("country_not_allowed"), &json!("website"), &json!(1))
    );
    // The preview says so before anything is sent.
    let r = t
        .http
        .post(format!("{}/api/v1/messages/preview", t.url))
        .bearer_auth(&key)
        .json(&json!({ "messages": [otp("+447400123456"), otp("+33612345679")] }))
        .send()
        .await
        .unwrap();
    let v: Value = r.json().await.unwrap();
    assert_eq!(v["rows"][0]["errors"][0]["code"], "country_not_allowed", "{v}");
    assert_eq!(v["rows"][1]["errors"], json!([]), "{v}");
    t.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_fourth_code_to_one_number_within_ten_minutes_is_refused_with_when_to_try_again() {
    let t = Running::launch(Some(FR), Vec::new(), RunMode::Serve).await;
    let (_, key) = t.key("website").await;
    for _ in 0..3 {
        assert_eq!(t.send(&key, otp("+33612345678")).await.0, StatusCode::CREATED);
    }
    let (status, v, retry) = t.send(&key, otp("+33612345678")).await;
    assert_eq!(status, StatusCode::TOO_MANY_REQUESTS, "{v}");
    assert_eq!(v["code"], "velocity_limit");
    assert_eq!(v["errors"][0]["params"]["limit"], "number");
    let retry: u64 = retry.expect("Retry-After").parse().unwrap();
    assert!((1..=600).contains(&retry), "{retry}");
    assert_eq!(t.count_where("message", "kind = 'otp'"), 3, "the fourth is not stored");
    // Another number, and another kind to the same number, still go.
    assert_eq!(t.send(&key, otp("+33612345679")).await.0, StatusCode::CREATED);
    let reminder = json!({ "destination": "+33612345678", "text": "RDV demain" });
    assert_eq!(t.send(&key, reminder).await.0, StatusCode::CREATED);
    // A batch counts its own codes: two more to a fresh number fit, a third in the same batch
    // does not, and then none of the batch is stored.
    let batch =
        json!({ "messages": [otp("+33612340000"), otp("+33612340000"), otp("+33612340000"), otp("+33612340000")] });
    let r = t
        .http
        .post(format!("{}/api/v1/messages/batch", t.url))
        .bearer_auth(&key)
        .json(&batch)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::TOO_MANY_REQUESTS);
    let v: Value = r.json().await.unwrap();
    assert_eq!(v["errors"][0]["field"], "messages[3].destination", "{v}");
    assert_eq!(t.count_where("message", "destination = '+33612340000'"), 0);
    assert_eq!(t.count_where("guardrail_count", "reason = 'velocity_limit'"), 1);
    t.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_key_with_a_narrower_list_is_refused_where_the_office_allows() {
    let toml = format!("{FR}[guardrails]\notp_countries = \"FR, BE\"\n");
    let t = Running::launch(Some(&toml), Vec::new(), RunMode::Serve).await;
    let r = t
        .http
        .post(format!("{}/api/v1/keys", t.url))
        .bearer_auth(&t.operator)
        .json(&json!({ "name": "france-only", "limits": { "otp_countries": ["fr"], "countries": ["FR", "BE"] } }))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::CREATED);
    let created: Value = r.json().await.unwrap();
    assert_eq!(created["info"]["limits"]["otp_countries"], json!(["FR"]));
    let narrow = created["key"].as_str().unwrap().to_owned();
    let (_, wide) = t.key("website").await;
    let belgian = "+32470123456";
    let (status, v, _) = t.send(&narrow, otp(belgian)).await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{v}");
    assert_eq!(
        (&v["errors"][0]["params"]["country"], &v["errors"][0]["params"]["whose"]),
        (&json!("BE"), &json!("key"))
    );
    assert_eq!(
        t.send(&wide, otp(belgian)).await.0,
        StatusCode::CREATED,
        "the office allows BE"
    );
    // The key's countries for every kind, too.
    let british = json!({ "destination": "+447400123456", "text": "Hello" });
    assert_eq!(
        t.send(&narrow, british.clone()).await.0,
        StatusCode::UNPROCESSABLE_ENTITY
    );
    assert_eq!(t.send(&wide, british).await.0, StatusCode::CREATED);
    // A list that is not countries is refused when the key is made.
    let r = t
        .http
        .post(format!("{}/api/v1/keys", t.url))
        .bearer_auth(&t.operator)
        .json(&json!({ "name": "bad", "limits": { "countries": ["France"] } }))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::UNPROCESSABLE_ENTITY);
    t.stop().await;
}

/// Two connections with their own prices: the embedded sandbox, and another SMSC (a sandbox the
/// test starts) on `{port}`.
const PRICED: &str = r#"
[intake]
default_region = "FR"
[guardrails]
spend_day = "0.40"
[connections.cheap]
sandbox = true
[[connections.cheap.prices]]
country = "FR"
price = 0.04
[connections.dear]
host = "127.0.0.1"
port = {port}
[[connections.dear.prices]]
country = "RU"
price = 0.09
[[routes]]
name = "russia"
prefixes = ["+7"]
connections = ["dear"]
[[routes]]
name = "rest"
connections = ["cheap"]
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn costs_follow_parts_and_route_prices_add_up_to_the_day_s_spend_and_its_limit_refuses() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let _dear = smsdesk_sandbox::Sandbox::start(smsdesk_sandbox::SandboxConfig {
        port,
        ..smsdesk_sandbox::SandboxConfig::default()
    })
    .await
    .unwrap();
    let toml = PRICED.replace("{port}", &port.to_string());
    let t = Running::launch(Some(&toml), Vec::new(), RunMode::Serve).await;
    let (_, key) = t.key("crm").await;
    // 3 UCS-2 parts to Russia at 0.09, 1 GSM-7 part to France at 0.04.
    let russian = "Здравствуйте! Напоминаем о записи к врачу завтра в 14:30 по адресу: ул. Ленина, 12. Пожалуйста, сообщите нам заранее, если не сможете прийти. Спасибо!";
    let (status, ru, _) = t
        .send(&key, json!({ "destination": "+79161234567", "text": russian }))
        .await;
    assert_eq!(status, StatusCode::CREATED, "{ru}");
    assert_eq!(
        (ru["segments"].as_u64(), ru["encoding"].as_str()),
        (Some(3), Some("ucs2"))
    );
    let (status, fr, _) = t
        .send(
            &key,
            json!({ "destination": "+33612345678", "text": "RDV demain 14h30" }),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED);
    let cost = |id: &Value| {
        t.count_where(
            "report_entry",
            &format!(
                "message_id = {id} AND cost = {}",
                if id == &ru["id"] { 270_000 } else { 40_000 }
            ),
        )
    };
    assert_eq!(
        (cost(&ru["id"]), cost(&fr["id"])),
        (1, 1),
        "each message's cost recorded"
    );
    let (_, dashboard) = t.read(&key, "/api/v1/dashboard").await;
    let dashboard: Value = serde_json::from_str(&dashboard).unwrap();
    assert_eq!(dashboard["spend"]["today"], "0.31", "{}", dashboard["spend"]);
    assert_eq!(dashboard["spend"]["day_limit"], "0.40");
    let (_, detail) = t.read(&key, &format!("/api/v1/messages/{}", ru["id"])).await;
    let detail: Value = serde_json::from_str(&detail).unwrap();
    assert_eq!(detail["cost_micros"], 270_000);

    // Another 3-part text to Russia would take the day to 0.58: refused, nothing stored.
    let (status, v, _) = t
        .send(&key, json!({ "destination": "+79161234568", "text": russian }))
        .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{v}");
    assert_eq!(v["code"], "spend_limit");
    let p = &v["errors"][0]["params"];
    assert_eq!(
        (&p["limit"], &p["spent"], &p["cost"], &p["max"]),
        (&json!("day"), &json!("0.31"), &json!("0.27"), &json!("0.40"))
    );
    assert_eq!(t.count_where("message", "1"), 2);
    // One more French part still fits (0.35).
    let one_more = json!({ "destination": "+33612345679", "text": "ok" });
    assert_eq!(t.send(&key, one_more).await.0, StatusCode::CREATED);

    // The report, in JSON and as CSV: per day, key, connection, country (once every message
    // went out, on its route's connection).
    for _ in 0..200 {
        if t.count_where("queue", "status = 'accepted'") == 3 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    let (status, csv) = t.read(&key, "/api/v1/reports/spend.csv?from_ms=0").await;
    assert_eq!(status, StatusCode::OK, "{csv}");
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines[0], "day,sender,connection,country,messages,parts,cost,currency");
    assert_eq!(lines.len(), 3, "{csv}");
    assert!(lines[1].ends_with(",crm,dear,RU,1,3,0.27,EUR"), "{csv}");
    assert!(lines[2].ends_with(",crm,cheap,FR,2,2,0.08,EUR"), "{csv}");
    // Days are the office's: ten hours behind UTC, the date is the one there.
    let (_, behind) = t
        .read(&key, "/api/v1/reports/spend.csv?from_ms=0&utc_offset_minutes=-600")
        .await;
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64;
    let there = smsdesk_engine::clock::format_rfc3339(now - 600 * 60_000);
    assert!(behind.lines().skip(1).all(|l| l.starts_with(&there[..10])), "{behind}");
    let (_, report) = t.read(&key, "/api/v1/reports/spend?from_ms=0").await;
    let report: Value = serde_json::from_str(&report).unwrap();
    assert_eq!(report["total"], "0.35", "{report}");
    t.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_spend_report_refuses_a_period_it_cannot_read_as_an_invalid_filter_whatever_the_numbers() {
    let t = Running::launch(None, Vec::new(), RunMode::Serve).await;
    for query in [
        "from_ms=1523478012858545152",
        "from_ms=0&to_ms=9223372036854775807",
        "from_ms=-9223372036854775808",
        "from_ms=8&utc_offset_minutes=5573&to_ms=281287",
        "from_ms=0&utc_offset_minutes=-2147483648",
        "from_ms=7200000&to_ms=3600000",
    ] {
        for path in ["/api/v1/reports/spend", "/api/v1/reports/spend.csv"] {
            let (status, body) = t.read(&t.operator, &format!("{path}?{query}")).await;
            assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{path}?{query}: {body}");
            let v: Value = serde_json::from_str(&body).unwrap();
            assert_eq!(v["code"], "invalid_filter", "{path}?{query}: {body}");
        }
    }
    let (status, _) = t.read(&t.operator, "/api/v1/reports/spend?from_ms=0").await;
    assert_eq!(status, StatusCode::OK, "the server still answers");
    t.stop().await;
}
