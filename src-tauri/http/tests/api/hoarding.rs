//! What one address, or one credential, may hold of the server's connections: a cap on the
//! connections of an address and on those without headers, small and quick bodies where no
//! credential is needed, event streams for readers only and a few per caller; and what `/health`
//! shows admins of it. A real engine, real TCP on loopback (127.0.0.0/8: one address per client).

use std::net::{IpAddr, SocketAddr};
use std::time::{Duration, Instant};

use serde_json::Value;
use smsdesk_engine::api::RunMode;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};

use crate::support::raw::{exchange, head, read_answer};
use crate::support::Running;

/// Far above every deadline configured here: only a server that never acts reaches it.
const GENEROUS: Duration = Duration::from_secs(30);

async fn start(env: &[(&str, &str)]) -> Running {
    let env = env.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    Running::launch(None, env, RunMode::Serve).await
}

/// A TCP connection to `to` from `ip` (any address of 127.0.0.0/8 is this computer).
async fn connect_from(ip: &str, to: SocketAddr) -> TcpStream {
    let socket = TcpSocket::new_v4().unwrap();
    socket.bind(SocketAddr::new(ip.parse::<IpAddr>().unwrap(), 0)).unwrap();
    socket.connect(to).await.unwrap()
}

async fn health(t: &Running, key: Option<&str>) -> Value {
    let mut r = t.http.get(format!("{}/api/v1/health", t.url));
    if let Some(k) = key {
        r = r.bearer_auth(k);
    }
    r.send().await.unwrap().json().await.unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_address_over_its_cap_is_refused_at_once_and_others_are_served() {
    let t = start(&[("SMSDESK_HTTP_MAX_CONNECTIONS_PER_ADDRESS", "5")]).await;
    let mut held = Vec::new();
    for _ in 0..5 {
        held.push(connect_from("127.0.0.66", t.addr()).await);
    }
    let mut sixth = connect_from("127.0.0.66", t.addr()).await;
    let answer = tokio::time::timeout(GENEROUS, read_answer(&mut sixth))
        .await
        .expect("a connection over its address's cap is answered at once");
    assert_eq!(answer.status, 429, "{answer:?}");
    assert!(answer.is_refusal("too_many_connections"), "{answer:?}");
    assert!(answer.header("retry-after").is_some());
    let elsewhere = exchange(t.addr(), head("GET", "/api/v1/health", "127.0.0.1", &[]).as_bytes()).await;
    assert_eq!(elsewhere.status, 200, "another address is served meanwhile");
    let door = &health(&t, Some(&t.operator)).await["door"];
    assert_eq!(door["maxConnectionsPerAddress"], 5);
    assert!(door["refusedConnections"].as_u64() >= Some(1), "{door}");
    assert!(door["busiestAddressConnections"].as_u64() <= Some(5), "{door}");
    t.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_connection_without_headers_makes_room_for_a_newer_one_of_its_address() {
    let t = start(&[("SMSDESK_HTTP_MAX_UNFINISHED_PER_ADDRESS", "3")]).await;
    let mut silent = Vec::new();
    for _ in 0..3 {
        silent.push(connect_from("127.0.0.66", t.addr()).await);
    }
    // Once they have waited over a second, a fourth that sends its request: the oldest silent
    // one is closed for it.
    tokio::time::sleep(Duration::from_millis(1_200)).await;
    let mut fourth = connect_from("127.0.0.66", t.addr()).await;
    fourth
        .write_all(head("GET", "/api/v1/health", "127.0.0.1", &[]).as_bytes())
        .await
        .unwrap();
    let answer = tokio::time::timeout(GENEROUS, read_answer(&mut fourth)).await.unwrap();
    assert_eq!(answer.status, 200, "the newer connection is served: {answer:?}");
    let mut first = [0u8; 1];
    let closed = tokio::time::timeout(GENEROUS, silent[0].read(&mut first)).await;
    assert!(
        matches!(closed, Ok(Ok(0)) | Ok(Err(_))),
        "the oldest connection without headers is closed to make room"
    );
    let door = &health(&t, Some(&t.operator)).await["door"];
    assert!(door["closedUnfinished"].as_u64() >= Some(1), "{door}");
    t.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sign_in_reads_a_small_body_soon_or_refuses_it() {
    let t = start(&[]).await;
    let large = head(
        "POST",
        "/api/v1/session",
        "127.0.0.1",
        &[("Content-Type", "application/json"), ("Content-Length", "1048576")],
    );
    let answer = tokio::time::timeout(GENEROUS, exchange(t.addr(), large.as_bytes()))
        .await
        .expect("a large declared body is refused from the head");
    assert_eq!(answer.status, 413, "{answer:?}");
    assert!(answer.is_refusal("too_large"), "{answer:?}");

    let slow = head(
        "POST",
        "/api/v1/session",
        "127.0.0.1",
        &[("Content-Type", "application/json"), ("Content-Length", "64")],
    );
    let mut stream = TcpStream::connect(t.addr()).await.unwrap();
    stream.write_all(slow.as_bytes()).await.unwrap();
    stream.write_all(br#"{"name": "#).await.unwrap();
    let started = Instant::now();
    let answer = tokio::time::timeout(GENEROUS, read_answer(&mut stream)).await.unwrap();
    assert_eq!(answer.status, 408, "{answer:?}");
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "a body that does not come whole is given up after its deadline (5 s), not the request's (30 s): {:?}",
        started.elapsed()
    );
    t.stop().await;
}

/// Opens `GET /api/v1/events` with `key` on a connection of its own; the stream after its head.
async fn open_stream(t: &Running, key: &str) -> (u16, TcpStream) {
    let bearer = format!("Bearer {key}");
    let mut s = TcpStream::connect(t.addr()).await.unwrap();
    let request = head("GET", "/api/v1/events", "127.0.0.1", &[("Authorization", &bearer)]);
    s.write_all(request.as_bytes()).await.unwrap();
    let mut seen = Vec::new();
    while !seen.windows(4).any(|w| w == b"\r\n\r\n") {
        let mut buf = [0u8; 1024];
        let n = s.read(&mut buf).await.unwrap();
        assert!(n > 0, "the stream's head arrives");
        seen.extend_from_slice(&buf[..n]);
    }
    let status = String::from_utf8_lossy(&seen[9..12]).parse().unwrap();
    (status, s)
}

/// What a stream says until it ends.
async fn until_closed(s: &mut TcpStream) -> String {
    let mut seen = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        match s.read(&mut buf).await {
            Ok(0) | Err(_) => return String::from_utf8_lossy(&seen).into_owned(),
            Ok(n) => seen.extend_from_slice(&buf[..n]),
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn event_streams_are_for_readers_and_a_caller_keeps_only_its_newest_few() {
    let t = start(&[("SMSDESK_HTTP_MAX_STREAMS_PER_CALLER", "2")]).await;
    let (_, send_only) = t.key_with("website", &["send"]).await;
    let (status, _) = open_stream(&t, &send_only).await;
    assert_eq!(
        status, 403,
        "a key that may not read messages may not follow their changes"
    );
    let (_, reader) = t.key_with("crm", &["send", "read:own"]).await;
    let (_, mut first) = open_stream(&t, &reader).await;
    let (_, _second) = open_stream(&t, &reader).await;
    let (_, _third) = open_stream(&t, &reader).await;
    let said = tokio::time::timeout(GENEROUS, until_closed(&mut first))
        .await
        .expect("the oldest stream of the caller ends");
    assert!(said.contains("event: replaced"), "it says why before it ends: {said}");
    let (status, _other) = open_stream(&t, &t.operator).await;
    assert_eq!(status, 200, "another caller opens its own");
    tokio::time::sleep(Duration::from_millis(200)).await;
    let door = &health(&t, Some(&t.operator)).await["door"];
    assert_eq!(door["maxStreamsPerCaller"], 2);
    assert_eq!(door["streams"], 3, "two of the key's, one of the operator: {door}");
    assert_eq!(door["closedStreams"], 1, "{door}");
    t.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn health_shows_the_caps_and_their_use_to_admins_only() {
    let t = start(&[]).await;
    let (_, key) = t.key("website").await;
    for (who, h) in [
        ("no credential", health(&t, None).await),
        ("a key", health(&t, Some(&key)).await),
        ("a wrong key", health(&t, Some("sdk_not_a_key")).await),
    ] {
        assert!(h["status"].as_str().is_some(), "{who}: {h}");
        assert!(
            h.get("door").is_none() && h.get("passwords").is_none(),
            "{who} is not shown the caps: {h}"
        );
    }
    let admin = health(&t, Some(&t.operator)).await;
    let (door, passwords) = (&admin["door"], &admin["passwords"]);
    assert_eq!(door["maxConnections"], 200, "{admin}");
    assert_eq!(door["maxConnectionsPerAddress"], 50);
    assert_eq!(door["maxUnfinishedPerAddress"], 10);
    assert!(door["connections"].as_u64() >= Some(1), "this request's own: {door}");
    assert!(
        passwords["workers"].as_u64().is_some_and(|w| (1..=4).contains(&w)),
        "{passwords}"
    );
    t.stop().await;
}
