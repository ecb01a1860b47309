//! Signing in under pressure, against a real server on loopback: a burst of wrong passwords gets
//! no more checks than tries one after the other, a stranger's failures do not lock the owner or
//! the stranger's neighbours out, a proxy's forwarded address counts only from a trusted proxy;
//! and what a password must not be, what `/info` tells whom.

use std::net::IpAddr;

use reqwest::StatusCode;
use serde_json::{json, Value};
use smsdesk_engine::api::RunMode;

use crate::support::Running;

async fn start(env: &[(&str, &str)]) -> Running {
    let env = env.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    Running::launch(None, env, RunMode::Serve).await
}

/// A client whose connections come from `ip` (any address of 127.0.0.0/8 is this computer).
fn from(ip: &str) -> reqwest::Client {
    reqwest::Client::builder()
        .local_address(ip.parse::<IpAddr>().unwrap())
        .build()
        .unwrap()
}

fn password(name: &str) -> String {
    format!("{name}-long-enough-password")
}

trait People {
    async fn account(&self, name: &str);
    async fn sign_in(
        &self,
        client: &reqwest::Client,
        name: &str,
        password: &str,
        forwarded: Option<&str>,
    ) -> StatusCode;
    async fn health_as_admin(&self) -> Value;
}

impl People for Running {
    async fn account(&self, name: &str) {
        let r = self
            .http
            .post(format!("{}/api/v1/accounts", self.url))
            .bearer_auth(&self.operator)
            .json(&json!({ "name": name, "role": "operator", "password": password(name) }))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), StatusCode::CREATED, "{}", r.text().await.unwrap());
    }

    async fn sign_in(
        &self,
        client: &reqwest::Client,
        name: &str,
        password: &str,
        forwarded: Option<&str>,
    ) -> StatusCode {
        let mut r = client
            .post(format!("{}/api/v1/session", self.url))
            .json(&json!({ "name": name, "password": password }));
        if let Some(f) = forwarded {
            r = r.header("x-forwarded-for", f);
        }
        r.send().await.unwrap().status()
    }

    async fn health_as_admin(&self) -> Value {
        let r = self
            .http
            .get(format!("{}/api/v1/health", self.url))
            .bearer_auth(&self.operator)
            .send()
            .await
            .unwrap();
        r.json().await.unwrap()
    }
}

fn checks(health: &Value) -> u64 {
    health["passwords"]["passwordChecks"]
        .as_u64()
        .unwrap_or_else(|| panic!("an admin's health names the password checks: {health}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_hundred_wrong_passwords_at_once_get_at_most_five_checks() {
    // Every connection from one address is let in: only sign-in's own slow-down stands.
    let t = start(&[
        ("SMSDESK_HTTP_MAX_CONNECTIONS", "400"),
        ("SMSDESK_HTTP_MAX_CONNECTIONS_PER_ADDRESS", "400"),
        ("SMSDESK_HTTP_MAX_UNFINISHED_PER_ADDRESS", "400"),
    ])
    .await;
    t.account("Olga").await;
    let before = checks(&t.health_as_admin().await);
    let client = from("127.0.0.1");
    let burst = (0..200).map(|i| {
        let (t, client) = (&t, &client);
        async move { t.sign_in(client, "Olga", &format!("wrong-password-{i}"), None).await }
    });
    let answers = futures::future::join_all(burst).await;
    let count = |s: StatusCode| answers.iter().filter(|a| **a == s).count();
    let (wrong, waited, busy) = (
        count(StatusCode::UNAUTHORIZED),
        count(StatusCode::TOO_MANY_REQUESTS),
        count(StatusCode::SERVICE_UNAVAILABLE),
    );
    assert_eq!(
        wrong + waited + busy,
        200,
        "each try is answered 401, 429 or 503: {answers:?}"
    );
    let checked = checks(&t.health_as_admin().await) - before;
    assert!(
        checked <= 5 && wrong as u64 == checked,
        "at most five passwords are checked for one account from one address, however many come at once: \
         {checked} checked, {wrong} answered 401, {waited} 429, {busy} 503"
    );
    assert_eq!(
        t.sign_in(&from("127.0.0.2"), "Olga", &password("Olga"), None).await,
        StatusCode::OK,
        "the owner signs in from another address meanwhile"
    );
    t.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_strangers_failures_stop_neither_the_owner_elsewhere_nor_the_strangers_neighbours() {
    let t = start(&[]).await;
    t.account("Olga").await;
    t.account("Paul").await;
    let stranger = from("127.0.0.66");
    for i in 0..10 {
        t.sign_in(&stranger, "Olga", &format!("guess-number-{i}"), None).await;
    }
    assert_eq!(
        t.sign_in(&stranger, "Olga", &password("Olga"), None).await,
        StatusCode::TOO_MANY_REQUESTS,
        "the stranger's address waits, even with the right password"
    );
    assert_eq!(
        t.sign_in(&from("127.0.0.1"), "Olga", &password("Olga"), None).await,
        StatusCode::OK,
        "the owner signing in from another address is not stopped by the stranger's failures"
    );
    assert_eq!(
        t.sign_in(&stranger, "Paul", &password("Paul"), None).await,
        StatusCode::OK,
        "another account at the stranger's address (behind one proxy, everyone) is not stopped"
    );
    t.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_forwarded_address_counts_only_from_a_trusted_proxy() {
    let t = start(&[("SMSDESK_HTTP_TRUSTED_PROXIES", "127.0.0.10")]).await;
    t.account("Olga").await;
    let (proxy, other) = (from("127.0.0.10"), from("127.0.0.20"));
    for i in 0..5 {
        t.sign_in(&proxy, "Olga", &format!("guess-number-{i}"), Some("203.0.113.9"))
            .await;
    }
    assert_eq!(
        t.sign_in(&proxy, "Olga", &password("Olga"), Some("203.0.113.9")).await,
        StatusCode::TOO_MANY_REQUESTS,
        "behind the trusted proxy, the client that failed waits"
    );
    assert_eq!(
        t.sign_in(&proxy, "Olga", &password("Olga"), Some("203.0.113.9, 198.51.100.7"))
            .await,
        StatusCode::OK,
        "another client behind the same proxy is not stopped (the last address the proxy adds is the client's)"
    );
    for i in 0..5 {
        let forged = format!("192.0.2.{i}");
        t.sign_in(&other, "Olga", &format!("guess-number-{i}"), Some(&forged))
            .await;
    }
    assert_eq!(
        t.sign_in(&other, "Olga", &password("Olga"), Some("192.0.2.99")).await,
        StatusCode::TOO_MANY_REQUESTS,
        "a client that is no trusted proxy cannot escape the slow-down by writing X-Forwarded-For"
    );
    t.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn common_passwords_and_sequences_are_refused_with_their_reason() {
    let t = start(&[]).await;
    for (password, reason) in [
        ("1234567890", "common"),
        ("aaaaaaaaaa", "repeated"),
        ("98765432109876", "sequence"),
    ] {
        let r = t
            .http
            .post(format!("{}/api/v1/accounts", t.url))
            .bearer_auth(&t.operator)
            .json(&json!({ "name": "Olga", "role": "operator", "password": password }))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), StatusCode::UNPROCESSABLE_ENTITY, "{password} is refused");
        let body: Value = r.json().await.unwrap();
        let e = &body["errors"][0];
        assert_eq!(
            (&e["field"], &e["code"], &e["params"]["reason"]),
            (&json!("password"), &json!("weak_password"), &json!(reason)),
            "{password}: the refusal names the field and why, as a code the UI words: {body}"
        );
    }
    t.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn info_tells_where_the_data_lives_to_admins_only() {
    let t = start(&[]).await;
    let (_, send_only) = t.key_with("website", &["send"]).await;
    let info = |key: String| {
        let t = &t;
        async move {
            let r = t
                .http
                .get(format!("{}/api/v1/info", t.url))
                .bearer_auth(key)
                .send()
                .await
                .unwrap();
            r.json::<Value>().await.unwrap()
        }
    };
    let (key, admin) = (info(send_only).await, info(t.operator.clone()).await);
    for path in ["dataDir", "databasePath", "configPath"] {
        assert!(key.get(path).is_none(), "a send-only key is not told {path}: {key}");
        assert!(
            admin[path].as_str().is_some_and(|p| !p.is_empty()),
            "an admin is: {admin}"
        );
    }
    assert_eq!(key["version"], admin["version"], "the rest is told to every caller");
    t.stop().await;
}
