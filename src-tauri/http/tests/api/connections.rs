//! What a connection may hold of the server: its headers must arrive in time, it may not stall
//! for ever, at most `http.max_connections` are served at once, and none of this keeps requests
//! in flight from finishing when the server stops. A real engine and real TCP connections.

use std::borrow::Cow;
use std::sync::Arc;
use std::time::Duration;

use smsdesk_engine::api::RunMode;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};

use crate::support::raw::{exchange, head, read_answer};
use crate::support::Running;

/// Far above every deadline configured here: only a server that never acts reaches it.
const GENEROUS: Duration = Duration::from_secs(30);

async fn start(env: &[(&str, &str)]) -> Running {
    start_with_ui(env, None).await
}

async fn start_with_ui(env: &[(&str, &str)], ui: Option<Arc<dyn smsdesk_http::UiAssets>>) -> Running {
    let env = env.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    Running::launch_with_ui(None, env, RunMode::Serve, ui).await
}

/// Reads until the server closes the connection; what it sent.
async fn until_closed(stream: &mut TcpStream) -> Vec<u8> {
    let mut seen = Vec::new();
    let mut buf = [0u8; 8192];
    loop {
        match stream.read(&mut buf).await {
            Ok(0) | Err(_) => return seen,
            Ok(n) => seen.extend_from_slice(&buf[..n]),
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connections_that_never_finish_their_headers_are_closed_while_requests_keep_being_served() {
    let t = start(&[
        ("SMSDESK_HTTP_HEADER_READ_TIMEOUT_SECONDS", "1"),
        ("SMSDESK_HTTP_MAX_CONNECTIONS", "16"),
    ])
    .await;
    // Three times the cap: half send nothing, half start a request and never end its headers.
    let mut slow = Vec::new();
    for i in 0..48 {
        let mut s = TcpStream::connect(t.addr()).await.unwrap();
        if i % 2 == 1 {
            s.write_all(b"GET /api/v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
                .await
                .unwrap();
        }
        slow.push(s);
    }
    for _ in 0..3 {
        let answer = tokio::time::timeout(
            GENEROUS,
            exchange(t.addr(), head("GET", "/api/v1/health", "127.0.0.1", &[]).as_bytes()),
        )
        .await
        .expect("a request is served while slow connections hold the server");
        assert_eq!(answer.status, 200, "{answer:?}");
    }
    for (i, s) in slow.iter_mut().enumerate() {
        tokio::time::timeout(GENEROUS, until_closed(s))
            .await
            .unwrap_or_else(|_| panic!("connection {i} that never finished its headers must be closed"));
    }
    t.stop().await;
}

/// The UI's files, one of them large enough to fill every buffer between server and client.
struct BigFile;

const BIG: usize = 32 * 1024 * 1024;

impl smsdesk_http::UiAssets for BigFile {
    fn get(&self, path: &str) -> Option<Cow<'_, [u8]>> {
        (path == "/big.bin").then(|| Cow::Owned(vec![b'x'; BIG]))
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_stops_reading_its_answer_is_cut_off_after_the_idle_timeout() {
    let t = start_with_ui(&[("SMSDESK_HTTP_IDLE_TIMEOUT_SECONDS", "1")], Some(Arc::new(BigFile))).await;
    let socket = TcpSocket::new_v4().unwrap();
    socket.set_recv_buffer_size(4096).unwrap();
    let mut stream = socket.connect(t.addr()).await.unwrap();
    stream
        .write_all(head("GET", "/big.bin", "127.0.0.1", &[]).as_bytes())
        .await
        .unwrap();
    // The client reads nothing for several idle timeouts: the server's writes stall.
    tokio::time::sleep(Duration::from_secs(5)).await;
    let got = tokio::time::timeout(GENEROUS, until_closed(&mut stream))
        .await
        .expect("the connection ends");
    assert!(
        got.len() < BIG,
        "a connection that moved no byte for the idle timeout must be closed, not finished later ({} bytes read)",
        got.len()
    );
    let answer = exchange(t.addr(), head("GET", "/api/v1/health", "127.0.0.1", &[]).as_bytes()).await;
    assert_eq!(answer.status, 200);
    t.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stopping_lets_a_request_in_flight_finish_and_ends_the_event_stream() {
    let t = start(&[]).await;
    let (_, key) = t.key("website").await;
    let addr = t.addr();
    let mut events = t
        .http
        .get(format!("{}/api/v1/events", t.url))
        .bearer_auth(&key)
        .send()
        .await
        .unwrap();
    assert_eq!(events.status(), 200);
    let body = br#"{"destination": "+33612345678", "text": "Your code is 1234", "kind": "otp"}"#;
    let length = body.len().to_string();
    let bearer = format!("Bearer {key}");
    let mut in_flight = TcpStream::connect(addr).await.unwrap();
    let request_head = head(
        "POST",
        "/api/v1/messages",
        "127.0.0.1",
        &[
            ("Authorization", &bearer),
            ("Content-Type", "application/json"),
            ("Content-Length", &length),
        ],
    );
    in_flight.write_all(request_head.as_bytes()).await.unwrap();
    // Let the server read the head: the request is in flight, waiting for its body.
    tokio::time::sleep(Duration::from_millis(300)).await;
    let stopped = tokio::spawn(t.stop());
    // Once the listener is closed, the server is stopping.
    tokio::time::timeout(GENEROUS, async {
        while TcpStream::connect(addr).await.is_ok() {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await
    .expect("the server stops accepting connections");
    in_flight.write_all(body).await.unwrap();
    let answer = tokio::time::timeout(GENEROUS, read_answer(&mut in_flight))
        .await
        .expect("the request in flight is answered");
    assert_eq!(
        answer.status, 201,
        "a request in flight when the server stops still finishes: {answer:?}"
    );
    let ended = tokio::time::timeout(GENEROUS, async { while let Ok(Some(_)) = events.chunk().await {} }).await;
    assert!(ended.is_ok(), "the event stream ends when the server stops");
    tokio::time::timeout(GENEROUS, stopped)
        .await
        .expect("the engine stops")
        .unwrap();
}

/// The server full and nobody else waiting: no one is closed. A further client arrives: the oldest
/// connection without its headers is closed for it, never the newcomer, which is served.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_server_closes_a_connection_only_for_a_client_that_waits_and_never_the_newest() {
    let t = start(&[
        ("SMSDESK_HTTP_HEADER_READ_TIMEOUT_SECONDS", "30"),
        ("SMSDESK_HTTP_MAX_CONNECTIONS", "2"),
    ])
    .await;
    let mut oldest = TcpStream::connect(t.addr()).await.unwrap();
    let mut second = TcpStream::connect(t.addr()).await.unwrap();
    // Every slot is taken and no one else knocks: both stay open.
    let mut buf = [0u8; 1];
    for (name, s) in [("the oldest", &mut oldest), ("the second", &mut second)] {
        let read = tokio::time::timeout(Duration::from_millis(500), s.read(&mut buf)).await;
        assert!(
            read.is_err(),
            "{name} connection is left open while no one waits for its place: {read:?}"
        );
    }
    // Both have waited over a second for their headers now. A client that sends its request at
    // once gets a place: the oldest makes room, not the second.
    tokio::time::sleep(Duration::from_millis(300)).await;
    let answer = tokio::time::timeout(
        GENEROUS,
        exchange(t.addr(), head("GET", "/api/v1/health", "127.0.0.1", &[]).as_bytes()),
    )
    .await
    .expect("the newcomer is served");
    assert_eq!(answer.status, 200, "{answer:?}");
    tokio::time::timeout(GENEROUS, until_closed(&mut oldest))
        .await
        .expect("the oldest connection without headers made room");
    let read = tokio::time::timeout(Duration::from_millis(300), second.read(&mut buf)).await;
    assert!(
        read.is_err(),
        "the second is still open: one place was needed, one was made: {read:?}"
    );
    t.stop().await;
}
