//! End-to-end, the built binary under the bursts a single script can send: sign-ins at once,
//! sockets that never send a header, bodies sent slowly, event streams that never end. Bounded
//! and on loopback only (each client its own address of 127.0.0.0/8); what they assert is what
//! the server did (how many passwords it checked, what it answered, its peak memory as the
//! kernel measured it); the only times they hold it to are those a person waits for: a health
//! probe answered within a second and a signed-in page within two under each load.

use std::collections::VecDeque;
use std::net::{IpAddr, SocketAddr};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};

use crate::support::{start, Running};

/// The most resident memory the server may ever have reached (VmHWM), in MB of 10^6 bytes:
/// sign-in used to take 985 MB for 50 requests at once, and slow bodies 309 MB.
const PEAK_MEMORY_CEILING_MB: u64 = 200;
/// Longest wait for one answer in these tests: only a server that stopped answering reaches it.
const GENEROUS: Duration = Duration::from_secs(30);

fn serve(dir: &std::path::Path, env: &[(&str, &str)]) -> Running {
    start(dir, &["serve", "--http-port", "0"], env)
}

/// The server's peak resident memory so far, in MB of 10^6 bytes (the kernel counts it in
/// KiB).
fn peak_memory_mb(r: &Running) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{}/status", r.child.id())).unwrap();
    let kib: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("/proc/<pid>/status has VmHWM");
    kib * 1024 / 1_000_000
}

/// The server, spoken to over TCP from any loopback address.
#[derive(Clone)]
struct Server {
    addr: SocketAddr,
    operator: String,
}

/// One answer: its status and body.
struct Answer {
    status: u16,
    body: String,
}

impl Answer {
    fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.body))
    }
}

impl Server {
    fn of(r: &Running) -> Server {
        Server {
            addr: r.url.trim_start_matches("http://").parse().unwrap(),
            operator: std::fs::read_to_string(r.data_dir.join("operator.token")).unwrap(),
        }
    }

    /// A TCP connection to the server from `ip`.
    async fn connect(&self, ip: &str) -> TcpStream {
        let socket = TcpSocket::new_v4().unwrap();
        socket.bind(SocketAddr::new(ip.parse::<IpAddr>().unwrap(), 0)).unwrap();
        socket.connect(self.addr).await.unwrap()
    }

    /// One request from `ip` on a connection of its own, read to its end.
    async fn call(&self, ip: &str, method: &str, path: &str, headers: &[(&str, &str)], body: Option<&Value>) -> Answer {
        let mut s = self.connect(ip).await;
        let mut head = format!("{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n");
        for (k, v) in headers {
            head.push_str(&format!("{k}: {v}\r\n"));
        }
        let body = body.map(Value::to_string).unwrap_or_default();
        if !body.is_empty() {
            head.push_str(&format!(
                "Content-Type: application/json\r\nContent-Length: {}\r\n",
                body.len()
            ));
        }
        head.push_str("\r\n");
        head.push_str(&body);
        s.write_all(head.as_bytes()).await.unwrap();
        let mut raw = Vec::new();
        let read = tokio::time::timeout(GENEROUS, s.read_to_end(&mut raw)).await;
        assert!(read.is_ok(), "{method} {path} from {ip} is answered");
        let text = String::from_utf8_lossy(&raw).into_owned();
        let status = text.get(9..12).and_then(|s| s.parse().ok()).unwrap_or(0);
        let body = text
            .split_once("\r\n\r\n")
            .map(|(_, b)| b.to_owned())
            .unwrap_or_default();
        Answer { status, body }
    }

    async fn as_operator(&self, method: &str, path: &str, body: Option<&Value>) -> Answer {
        let bearer = format!("Bearer {}", self.operator.trim());
        self.call("127.0.0.1", method, path, &[("Authorization", &bearer)], body)
            .await
    }

    async fn sign_in(&self, ip: &str, name: &str, password: &str) -> Answer {
        let body = json!({ "name": name, "password": password });
        self.call(ip, "POST", "/api/v1/session", &[], Some(&body)).await
    }

    /// The password checks the server made since it started, as its health tells an admin.
    async fn password_checks(&self) -> u64 {
        let health = self.as_operator("GET", "/api/v1/health", None).await.json();
        health["passwords"]["passwordChecks"]
            .as_u64()
            .unwrap_or_else(|| panic!("an admin's health names the password checks: {health}"))
    }

    async fn account(&self, name: &str) {
        let new = json!({ "name": name, "role": "operator", "password": password(name) });
        let created = self.as_operator("POST", "/api/v1/accounts", Some(&new)).await;
        assert_eq!(created.status, 201, "{}", created.body);
    }
}

fn password(name: &str) -> String {
    format!("{name}-long-enough-password")
}

/// Counts `answers` by status.
fn tally(answers: &[u16]) -> std::collections::BTreeMap<u16, usize> {
    let mut t = std::collections::BTreeMap::new();
    for a in answers {
        *t.entry(*a).or_insert(0) += 1;
    }
    t
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn two_hundred_sign_ins_at_once_check_at_most_five_passwords_and_stay_under_200_mb() {
    let tmp = tempfile::tempdir().unwrap();
    // Every connection is let in: what bounds the checks and the memory is sign-in's own.
    let r = serve(
        &tmp.path().join("data"),
        &[
            ("SMSDESK_HTTP_MAX_CONNECTIONS", "500"),
            ("SMSDESK_HTTP_MAX_CONNECTIONS_PER_ADDRESS", "500"),
            ("SMSDESK_HTTP_MAX_UNFINISHED_PER_ADDRESS", "500"),
        ],
    );
    let server = Server::of(&r);
    server.account("olga").await;
    let before = server.password_checks().await;
    let burst = (0..200).map(|i| {
        let server = server.clone();
        tokio::spawn(async move {
            server
                .sign_in("127.0.0.1", "olga", &format!("wrong-guess-{i}"))
                .await
                .status
        })
    });
    let answers: Vec<u16> = futures::future::join_all(burst)
        .await
        .into_iter()
        .map(Result::unwrap)
        .collect();
    let checked = server.password_checks().await - before;
    eprintln!(
        "one account, one address: {checked} passwords checked; answers {:?}",
        tally(&answers)
    );
    assert!(
        checked <= 5,
        "200 wrong passwords at once for one account from one address check at most five: {checked} checked, answers {:?}",
        tally(&answers)
    );
    assert!(
        answers.iter().all(|s| [401, 429, 503].contains(s)),
        "each is refused as wrong, too many, or busy: {:?}",
        tally(&answers)
    );

    // Two hundred names nobody has, at once: each costs a check, so the bound is the pool's.
    let before = server.password_checks().await;
    let spread = (0..200).map(|i| {
        let server = server.clone();
        tokio::spawn(async move {
            server
                .sign_in("127.0.0.1", &format!("nobody-{i}"), "some-wrong-password")
                .await
                .status
        })
    });
    let answers: Vec<u16> = futures::future::join_all(spread)
        .await
        .into_iter()
        .map(Result::unwrap)
        .collect();
    let checked = server.password_checks().await - before;
    let peak = peak_memory_mb(&r);
    eprintln!(
        "two hundred names: {checked} passwords checked; answers {:?}; peak memory {peak} MB",
        tally(&answers)
    );
    assert!(answers.iter().all(|s| [401, 503].contains(s)), "{:?}", tally(&answers));
    assert_eq!(
        answers.iter().filter(|s| **s == 401).count() as u64,
        checked,
        "each 401 is one check, and each 503 none"
    );
    assert!(
        peak < PEAK_MEMORY_CEILING_MB,
        "the server's peak memory stays under 200 MB however many sign-ins come at once: {peak} MB"
    );
    assert_eq!(
        server.sign_in("127.0.0.2", "olga", &password("olga")).await.status,
        200,
        "the owner signs in afterwards from another address"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_strangers_failures_from_one_address_do_not_stop_the_owner_at_another() {
    let tmp = tempfile::tempdir().unwrap();
    let r = serve(&tmp.path().join("data"), &[]);
    let server = Server::of(&r);
    server.account("olga").await;
    let burst = (0..100).map(|i| {
        let server = server.clone();
        tokio::spawn(async move { server.sign_in("127.0.0.66", "olga", &format!("guess-{i}")).await.status })
    });
    let answers: Vec<u16> = futures::future::join_all(burst)
        .await
        .into_iter()
        .map(Result::unwrap)
        .collect();
    eprintln!("the stranger's answers: {:?}", tally(&answers));
    assert_eq!(
        server.sign_in("127.0.0.66", "olga", &password("olga")).await.status,
        429,
        "the stranger's address waits"
    );
    let owner = server.sign_in("127.0.0.1", "olga", &password("olga")).await;
    assert_eq!(
        owner.status, 200,
        "the owner at another address signs in at once: {}",
        owner.body
    );
}

/// Health probes from 127.0.0.1 and a signed-in person's page, every 200 ms until `done`: the
/// slowest of each, and how many were not answered 200.
async fn probe(server: Server, cookie: String, done: Arc<AtomicBool>) -> (Duration, Duration, usize) {
    let (mut health, mut page, mut failed) = (Duration::ZERO, Duration::ZERO, 0);
    while !done.load(Ordering::Relaxed) {
        let t = Instant::now();
        let h = server.call("127.0.0.1", "GET", "/api/v1/health", &[], None).await;
        health = health.max(t.elapsed());
        let t = Instant::now();
        let p = server
            .call(
                "127.0.0.1",
                "GET",
                "/api/v1/messages?limit=50",
                &[("Cookie", &cookie)],
                None,
            )
            .await;
        page = page.max(t.elapsed());
        failed += usize::from(h.status != 200) + usize::from(p.status != 200);
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    (health, page, failed)
}

/// The longest a health probe and a signed-in person's page may take under any of the loads. A
/// full server makes room for whoever waits within a quarter of a second (`gate::ROOM_PATIENCE`):
/// a probe that takes a second waits for the load, not on it.
const HEALTH_WITHIN: Duration = Duration::from_secs(1);
const PAGE_WITHIN: Duration = Duration::from_secs(2);

/// Runs `load` while probing; asserts the probes were answered, each in time, and says how slow.
async fn under_load<F: std::future::Future<Output = String>>(server: &Server, cookie: &str, what: &str, load: F) {
    let done = Arc::new(AtomicBool::new(false));
    let probes = tokio::spawn(probe(server.clone(), cookie.to_owned(), done.clone()));
    let said = load.await;
    done.store(true, Ordering::Relaxed);
    let (health, page, failed) = probes.await.unwrap();
    eprintln!("{what}: {said}; slowest health probe {health:?}, slowest signed-in page {page:?}");
    assert_eq!(failed, 0, "{what}: every probe and page is answered 200");
    assert!(
        health < HEALTH_WITHIN,
        "{what}: /health answers within a second ({health:?})"
    );
    assert!(
        page < PAGE_WITHIN,
        "{what}: a signed-in person's page answers within two seconds ({page:?})"
    );
}

/// 1,000 connections that never send a byte, from four addresses, the oldest closed by the
/// client itself once 300 are open (a script rotating its sockets).
async fn headerless_sockets(server: &Server) -> String {
    let mut open = VecDeque::new();
    for i in 0..1_000 {
        let ip = format!("127.0.0.{}", 2 + i % 4);
        open.push_back(server.connect(&ip).await);
        if open.len() > 300 {
            open.pop_front();
        }
        if i % 50 == 0 {
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
    tokio::time::sleep(Duration::from_secs(2)).await;
    format!("1000 sockets opened, {} still held by the client", open.len())
}

/// 250 sign-ins whose 1 MiB body comes 1 KiB every 200 ms, from five addresses; half declare
/// their length, half send it in chunks. Each must be refused, or closed to make room, long
/// before the whole body could have come.
async fn slow_bodies(server: &Server) -> String {
    let slow = (0..250).map(|i| {
        let server = server.clone();
        tokio::spawn(async move {
            let mut s = server.connect(&format!("127.0.0.{}", 10 + i % 5)).await;
            let length = if i % 2 == 0 { "Content-Length: 1048576" } else { "Transfer-Encoding: chunked" };
            let head = format!("POST /api/v1/session HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n{length}\r\n\r\n");
            let _ = s.write_all(head.as_bytes()).await;
            let started = Instant::now();
            let (mut reader, mut writer) = s.into_split();
            // Whether the whole body went out: a write refused means the server closed the
            // connection (answered or not), which is the end sought, not a body left to run.
            let feed = async move {
                for _ in 0..1024 {
                    let chunk = if i % 2 == 0 { "x".repeat(1024) } else { format!("400\r\n{}\r\n", "x".repeat(1024)) };
                    if writer.write_all(chunk.as_bytes()).await.is_err() {
                        return false;
                    }
                    tokio::time::sleep(Duration::from_millis(200)).await;
                }
                true
            };
            // What the server sends before it closes: an answer, or nothing when it closed the
            // connection to make room (0 below).
            let mut answer = Vec::new();
            let read = async {
                let mut buf = [0u8; 256];
                while answer.len() < 12 {
                    match reader.read(&mut buf).await {
                        Ok(0) | Err(_) => break,
                        Ok(n) => answer.extend_from_slice(&buf[..n]),
                    }
                }
            };
            let hung = tokio::select! {
                sent_whole = feed => sent_whole,
                r = tokio::time::timeout(GENEROUS, read) => r.is_err(),
            };
            assert!(!hung, "a slow body is answered or closed, never left to run");
            let status = answer.get(9..12).and_then(|s| String::from_utf8_lossy(s).parse::<u16>().ok()).unwrap_or(0);
            (status, started.elapsed())
        })
    });
    let results: Vec<(u16, Duration)> = futures::future::join_all(slow)
        .await
        .into_iter()
        .map(Result::unwrap)
        .collect();
    let statuses: Vec<u16> = results.iter().map(|(s, _)| *s).collect();
    let slowest = results.iter().map(|(_, d)| *d).max().unwrap_or_default();
    assert!(
        statuses.iter().all(|s| [0, 408, 413, 429].contains(s)),
        "each slow body is refused (too large, too slow, its address over its cap) or closed to make room (0): {:?}",
        tally(&statuses)
    );
    assert!(
        slowest < Duration::from_secs(15),
        "each is answered long before its body could have come (200 s): slowest {slowest:?}"
    );
    format!(
        "250 slow bodies answered {:?}, the slowest after {slowest:?}",
        tally(&statuses)
    )
}

/// 200 event streams of one key, from five addresses; how many the server keeps open.
async fn streams_of_one_key(server: &Server, key: &str) -> String {
    let bearer = format!("Bearer {key}");
    let mut held = Vec::new();
    for i in 0..200 {
        let mut s = server.connect(&format!("127.0.0.{}", 20 + i % 5)).await;
        let head = format!("GET /api/v1/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: {bearer}\r\n\r\n");
        s.write_all(head.as_bytes()).await.unwrap();
        held.push(s);
    }
    tokio::time::sleep(Duration::from_secs(2)).await;
    let health = server.as_operator("GET", "/api/v1/health", None).await.json();
    let door = &health["door"];
    let (open, closed) = (
        door["streams"].as_u64().unwrap(),
        door["closedStreams"].as_u64().unwrap(),
    );
    assert!(
        open <= door["maxStreamsPerCaller"].as_u64().unwrap(),
        "one key holds at most its cap of streams: {door}"
    );
    assert!(closed >= 192, "the oldest were closed as newer ones came: {door}");
    format!("200 streams of one key: {open} open, {closed} closed by the server")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn hoarded_connections_leave_health_and_a_signed_in_person_answered_and_memory_under_200_mb() {
    let tmp = tempfile::tempdir().unwrap();
    let r = serve(&tmp.path().join("data"), &[]);
    let server = Server::of(&r);
    server.account("olga").await;
    let cookie = {
        // The session cookie, as the browser would send it back.
        let mut s = server.connect("127.0.0.1").await;
        let body = json!({ "name": "olga", "password": password("olga") }).to_string();
        let head = format!(
            "POST /api/v1/session HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        );
        s.write_all(head.as_bytes()).await.unwrap();
        let mut raw = String::new();
        s.read_to_string(&mut raw).await.unwrap();
        let line = raw
            .lines()
            .find(|l| l.to_ascii_lowercase().starts_with("set-cookie:"))
            .expect("sign-in sets the session cookie");
        line.split_once(':')
            .unwrap()
            .1
            .split(';')
            .next()
            .unwrap()
            .trim()
            .to_owned()
    };
    let created = server
        .as_operator(
            "POST",
            "/api/v1/keys",
            Some(&json!({ "name": "website", "scopes": ["send", "read:own"] })),
        )
        .await
        .json();
    let key = created["key"].as_str().unwrap().to_owned();

    under_load(&server, &cookie, "header-less sockets", headerless_sockets(&server)).await;
    under_load(&server, &cookie, "slow bodies on sign-in", slow_bodies(&server)).await;
    under_load(
        &server,
        &cookie,
        "event streams of one key",
        streams_of_one_key(&server, &key),
    )
    .await;
    let peak = peak_memory_mb(&r);
    eprintln!("peak memory through the three loads: {peak} MB");
    assert!(
        peak < PEAK_MEMORY_CEILING_MB,
        "the server's peak memory stays under 200 MB through them: {peak} MB"
    );
}
