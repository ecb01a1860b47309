//! The HTTP edge as a caller without a key, or a web page, meets it: what it is answered before
//! any credential is checked, and what it can make the server keep. A real engine, requests
//! written byte by byte on real TCP.

use std::borrow::Cow;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use smsdesk_engine::api::RunMode;
use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;

use crate::support::raw::{exchange, head, read_answer, Answer};
use crate::support::Running;

const SECRET: &str = "callback-secret-0123456789";
const REPORT: &str = "messageId=0A0000001&status=delivered&err-code=0&scts=2611291200&msisdn=33612345678";
/// Far above every deadline configured here: only a server that never answers reaches it.
const GENEROUS: Duration = Duration::from_secs(20);

async fn start(env: &[(&str, &str)]) -> Running {
    start_with_ui(env, None).await
}

async fn start_with_ui(env: &[(&str, &str)], ui: Option<Arc<dyn smsdesk_http::UiAssets>>) -> Running {
    let mut all = vec![(
        "SMSDESK_CALLBACKS_PROVIDERS".to_owned(),
        format!(r#"{{"vonage": {{"secret": "{SECRET}"}}}}"#),
    )];
    all.extend(env.iter().map(|(k, v)| (k.to_string(), v.to_string())));
    Running::launch_with_ui(None, all, RunMode::Serve, ui).await
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
    // All from one address: its cap on connections is raised so that every one is answered.
    let t = start(&[("SMSDESK_HTTP_MAX_CONNECTIONS_PER_ADDRESS", "200")]).await;
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_callback_secret_is_stored_nowhere_even_when_sent_in_other_headers_parameters_or_the_body() {
    let t = start(&[("SMSDESK_RECEIPTS_UNCORRELATED_GRACE_SECONDS", "0")]).await;
    let encoded: String = SECRET.bytes().map(|b| format!("%{b:02X}")).collect();
    let original_uri = format!("/api/v1/callbacks/vonage?token={SECRET}");
    let referer = format!("https://provider.example/send?ref=x{encoded}y");
    let cookie = format!("session={SECRET}; theme=dark");
    let copied_auth = format!("Basic {}", base64(&format!("vonage:{SECRET}")));
    let r = t
        .http
        .post(format!(
            "{}/api/v1/callbacks/vonage?token={SECRET}&note=sent-with-{encoded}",
            t.url
        ))
        .header("content-type", "application/x-www-form-urlencoded")
        .header("x-original-uri", &original_uri)
        .header("referer", &referer)
        .header("cookie", &cookie)
        .header("x-forwarded-authorization", &copied_auth)
        .body(format!("{REPORT}&callback={encoded}&echo={SECRET}"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200, "{}", r.text().await.unwrap());

    // What any key can read: the exception the receipt opened, with its evidence.
    let (_, key) = t.key("reader").await;
    let read = |path: String| {
        let (t, key) = (&t, key.clone());
        async move {
            let r = t
                .http
                .get(format!("{}{path}", t.url))
                .bearer_auth(key)
                .send()
                .await
                .unwrap();
            assert_eq!(r.status(), 200, "{path}");
            r.text().await.unwrap()
        }
    };
    let list: Value = serde_json::from_str(&read("/api/v1/exceptions".into()).await).unwrap();
    let id = list["items"][0]["id"]
        .as_i64()
        .expect("the receipt that matched nothing opened an exception");
    let detail = read(format!("/api/v1/exceptions/{id}")).await;
    assert!(
        detail.contains("REDACTED"),
        "the evidence shows where a secret was: {detail}"
    );
    assert!(
        detail.contains("theme=dark"),
        "the rest of the evidence is kept: {detail}"
    );
    let forms = [SECRET.to_owned(), encoded.clone(), base64(&format!("vonage:{SECRET}"))];
    for form in &forms {
        assert!(
            !detail.contains(form.as_str()),
            "the evidence shows the secret ({form}): {detail}"
        );
    }
    // And on disk: the database, its log, every file in the data directory.
    for file in files(t.dir.path()) {
        let bytes = std::fs::read(&file).unwrap();
        for form in &forms {
            assert!(
                !bytes.windows(form.len()).any(|w| w == form.as_bytes()),
                "{} holds the secret ({form})",
                file.display()
            );
        }
    }
    t.stop().await;
}

fn files(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut all = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            all.extend(files(&path));
        } else {
            all.push(path);
        }
    }
    all
}

fn base64(text: &str) -> String {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in text.as_bytes().chunks(3) {
        let n = chunk.iter().fold(0u32, |acc, b| (acc << 8) | u32::from(*b)) << (8 * (3 - chunk.len()));
        for k in 0..4 {
            out.push(if k <= chunk.len() {
                A[((n >> (18 - 6 * k)) & 63) as usize] as char
            } else {
                '='
            });
        }
    }
    out
}

/// The UI's entry page only.
struct Page;

impl smsdesk_http::UiAssets for Page {
    fn get(&self, path: &str) -> Option<Cow<'_, [u8]>> {
        (path == "/index.html").then_some(Cow::Borrowed(b"<!doctype html><title>smsdesk</title>".as_slice()))
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_host_this_server_does_not_answer_to_gets_421_on_every_route_and_its_own_names_are_served() {
    let t = start_with_ui(
        &[("SMSDESK_HTTP_ALLOWED_HOSTS", "desk.example.com")],
        Some(Arc::new(Page)),
    )
    .await;
    let port = t.addr().port();
    let bearer = format!("Bearer {}", t.operator);
    for host in [
        "evil.example",
        &format!("evil.example:{port}"),
        "localhost.evil.example",
    ] {
        for (path, headers) in [
            ("/", vec![]),
            ("/api/v1/health", vec![]),
            ("/api/v1/messages", vec![("Authorization", bearer.as_str())]),
        ] {
            let a = get(&t, path, host, &headers).await;
            assert_eq!(a.status, 421, "{host} {path}: {a:?}");
            assert!(a.is_refusal("host_not_allowed"), "{host} {path}: {a:?}");
        }
    }
    for host in [
        format!("127.0.0.1:{port}"),
        format!("localhost:{port}"),
        format!("desk.example.com:{port}"),
        "DESK.example.com".to_owned(),
    ] {
        let page = get(&t, "/", &host, &[]).await;
        assert_eq!(page.status, 200, "{host}: {page:?}");
        let api = get(&t, "/api/v1/messages", &host, &[("Authorization", &bearer)]).await;
        assert_eq!(api.status, 200, "{host}: {api:?}");
    }
    t.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unknown_route_is_a_json_404_whatever_the_method() {
    let t = start(&[]).await;
    for method in ["GET", "POST", "DELETE", "PUT"] {
        let a = exchange(
            t.addr(),
            head(method, "/api/v1/nothing-here", "127.0.0.1", &[]).as_bytes(),
        )
        .await;
        assert_eq!(a.status, 404, "{method}: {a:?}");
        assert!(a.is_refusal("not_found"), "{method}: {a:?}");
    }
    t.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_known_route_asked_with_another_method_is_a_json_405_naming_what_it_takes() {
    let t = start(&[]).await;
    let bearer = format!("Bearer {}", t.operator);
    let a = exchange(
        t.addr(),
        head("DELETE", "/api/v1/messages", "127.0.0.1", &[("Authorization", &bearer)]).as_bytes(),
    )
    .await;
    assert_eq!(a.status, 405);
    assert!(a.is_refusal("method_not_allowed"), "{a:?}");
    assert!(a.header("allow").is_some_and(|m| m.contains("GET")), "{a:?}");
    t.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_that_does_not_arrive_in_time_is_a_json_408() {
    let t = start(&[("SMSDESK_HTTP_REQUEST_TIMEOUT_SECONDS", "1")]).await;
    let bearer = format!("Bearer {}", t.operator);
    let text = head(
        "POST",
        "/api/v1/messages",
        "127.0.0.1",
        &[
            ("Authorization", &bearer),
            ("Content-Type", "application/json"),
            ("Content-Length", "100"),
        ],
    );
    let mut stream = TcpStream::connect(t.addr()).await.unwrap();
    stream.write_all(text.as_bytes()).await.unwrap();
    stream.write_all(b"{\"destination\":").await.unwrap();
    let a = tokio::time::timeout(GENEROUS, read_answer(&mut stream))
        .await
        .expect("a request whose body stalls is answered");
    assert_eq!(a.status, 408);
    assert!(a.is_refusal("request_timeout"), "{a:?}");
    assert_eq!(t.count_where("message", "1"), 0);
    t.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_address_over_8_kib_is_a_json_414() {
    let t = start(&[]).await;
    let long = format!("/api/v1/health?pad={}", "x".repeat(9 * 1024));
    let a = get(&t, &long, "127.0.0.1", &[]).await;
    assert_eq!(a.status, 414, "{:?}", a.status);
    assert!(a.is_refusal("uri_too_long"), "{a:?}");
    t.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_openapi_description_needs_no_key_and_says_so() {
    let t = start(&[]).await;
    let a = get(&t, "/api/v1/openapi.json", "127.0.0.1", &[]).await;
    assert_eq!(a.status, 200, "{:?}", a.status);
    let doc = a.json();
    assert_eq!(
        doc["paths"]["/api/v1/openapi.json"]["get"]["security"],
        serde_json::json!([{}]),
        "the description says it needs no key"
    );
    assert!(doc["paths"]["/api/v1/messages"].is_object());
    t.stop().await;
}
