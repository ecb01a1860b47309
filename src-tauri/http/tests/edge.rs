//! The HTTP edge as a caller without a key, or a web page, meets it: what it is answered before
//! any credential is checked, and what it can make the server keep. A real engine, requests
//! written byte by byte on real TCP.

use std::time::Duration;

use smsdesk_engine::api::RunMode;
use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;

mod support;

use support::raw::{exchange, head, read_answer, Answer};
use support::Running;

const SECRET: &str = "callback-secret-0123456789";
const REPORT: &str = "messageId=0A0000001&status=delivered&err-code=0&scts=2611291200&msisdn=33612345678";
/// Far above every deadline configured here: only a server that never answers reaches it.
const GENEROUS: Duration = Duration::from_secs(20);

async fn start(env: &[(&str, &str)]) -> Running {
    let mut all = vec![(
        "SMSDESK_CALLBACKS_PROVIDERS".to_owned(),
        format!(r#"{{"vonage": {{"secret": "{SECRET}"}}}}"#),
    )];
    all.extend(env.iter().map(|(k, v)| (k.to_string(), v.to_string())));
    Running::launch(None, all, RunMode::Serve).await
}

/// `GET path` on `t`, as `host`, with `headers`.
async fn get(t: &Running, path: &str, host: &str, headers: &[(&str, &str)]) -> Answer {
    exchange(t.addr(), head("GET", path, host, headers).as_bytes()).await
}

/// Writes a request's head declaring a body of `length` bytes, then reads the answer without
/// sending a byte of that body.
async fn head_only(t: &Running, path: &str, length: usize) -> Answer {
    let length = length.to_string();
    let text = head(
        "POST",
        path,
        "127.0.0.1",
        &[
            ("Content-Type", "application/x-www-form-urlencoded"),
            ("Content-Length", &length),
        ],
    );
    let mut stream = TcpStream::connect(t.addr()).await.unwrap();
    stream.write_all(text.as_bytes()).await.unwrap();
    tokio::time::timeout(GENEROUS, read_answer(&mut stream))
        .await
        .unwrap_or_else(|_| panic!("{path}: answered from the head alone, without waiting for the body"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn callbacks_without_the_secret_are_refused_from_their_head_before_their_body_is_read() {
    let t = start(&[]).await;
    // Many at once, each declaring a large body it never sends; known and unknown providers.
    let flood = (0..120).map(|i| {
        let path = if i % 2 == 0 {
            "/api/v1/callbacks/vonage?token=not-the-secret"
        } else {
            "/api/v1/callbacks/nobody?token=not-the-secret"
        };
        head_only(&t, path, 1024 * 1024)
    });
    for answer in futures::future::join_all(flood).await {
        assert_eq!(answer.status, 401, "{answer:?}");
        assert!(answer.is_refusal("unauthorized"), "{answer:?}");
    }
    let health = get(&t, "/api/v1/health", "127.0.0.1", &[]).await;
    assert_eq!(health.status, 200, "the server keeps answering");
    assert_eq!(t.count_where("receipt", "1"), 0, "a refused callback stores nothing");
    t.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_callback_body_over_its_own_limit_gets_a_json_413_and_stores_nothing() {
    let t = start(&[]).await;
    let path = format!("/api/v1/callbacks/vonage?token={SECRET}");
    // Declared too large: refused from the head.
    let declared = head_only(&t, &path, 65 * 1024).await;
    assert_eq!(declared.status, 413, "{declared:?}");
    assert!(declared.is_refusal("too_large"), "{declared:?}");
    // Sent in chunks without a declared length: refused once the limit is passed.
    let chunked = head(
        "POST",
        &path,
        "127.0.0.1",
        &[
            ("Content-Type", "application/x-www-form-urlencoded"),
            ("Transfer-Encoding", "chunked"),
        ],
    );
    let (mut from, mut to) = TcpStream::connect(t.addr()).await.unwrap().into_split();
    to.write_all(chunked.as_bytes()).await.unwrap();
    // The server may answer, and close, before the last chunk: a write may then fail.
    let writer = tokio::spawn(async move {
        for _ in 0..100 {
            let chunk = format!("400\r\n{}\r\n", "a".repeat(1024));
            if to.write_all(chunk.as_bytes()).await.is_err() {
                return;
            }
        }
        let _ = to.write_all(b"0\r\n\r\n").await;
    });
    let answer = tokio::time::timeout(GENEROUS, read_answer(&mut from))
        .await
        .expect("answered");
    assert_eq!(answer.status, 413, "{answer:?}");
    assert!(answer.is_refusal("too_large"), "{answer:?}");
    let _ = writer.await;
    assert_eq!(t.count_where("receipt", "1"), 0, "nothing stored");
    let fits = t
        .http
        .post(format!("{}{path}", t.url))
        .header("content-type", "application/x-www-form-urlencoded")
        .body(REPORT)
        .send()
        .await
        .unwrap();
    assert_eq!(fits.status(), 200, "a real receipt fits");
    t.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unknown_provider_is_answered_exactly_as_a_wrong_secret() {
    let t = start(&[]).await;
    let answer = |provider: &'static str| {
        let path = format!("/api/v1/callbacks/{provider}?token=not-the-secret");
        let length = REPORT.len().to_string();
        let text = format!(
            "{}{REPORT}",
            head("POST", &path, "127.0.0.1", &[("Content-Length", &length)])
        );
        let addr = t.addr();
        async move {
            let a = exchange(addr, text.as_bytes()).await;
            let mut headers = a.headers.clone();
            headers.retain(|(n, _)| !n.eq_ignore_ascii_case("date"));
            (a.status, headers, a.body)
        }
    };
    let (wrong, unknown) = (answer("vonage").await, answer("nobody").await);
    assert_eq!(wrong.0, 401);
    assert_eq!(
        unknown, wrong,
        "whether a provider exists must not be told to someone without its secret"
    );
    t.stop().await;
}
