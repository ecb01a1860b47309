//! HTTP/1.1 written byte by byte on a TCP connection of the test's own, for what a polite client
//! never does: a head sent without its body, headers never finished, a `Host` of a web page's
//! choosing.

use std::net::SocketAddr;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// An answer as read off the connection.
#[derive(Debug)]
pub struct Answer {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Answer {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The body as JSON; panics (naming the answer) when it is not.
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body).unwrap_or_else(|e| panic!("the answer is not JSON ({e}): {self:?}"))
    }

    /// Whether the answer is our `{code, message}` refusal with `code`, as JSON.
    pub fn is_refusal(&self, code: &str) -> bool {
        let json = self
            .header("content-type")
            .is_some_and(|t| t.starts_with("application/json"));
        let body = self.json();
        json && body["code"] == code && body["message"].as_str().is_some_and(|m| !m.is_empty())
    }
}

/// A request head: `method path`, `Host: host`, each of `headers`, and the blank line (the
/// connection closes after the answer, so an answer without a length ends there).
pub fn head(method: &str, path: &str, host: &str, headers: &[(&str, &str)]) -> String {
    let mut text = format!("{method} {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n");
    for (name, value) in headers {
        text.push_str(&format!("{name}: {value}\r\n"));
    }
    text.push_str("\r\n");
    text
}

/// Connects, writes `bytes`, and reads the answer.
pub async fn exchange(addr: SocketAddr, bytes: &[u8]) -> Answer {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    stream.write_all(bytes).await.unwrap();
    read_answer(&mut stream).await
}

/// Reads one answer: its head, then its body by `Content-Length`, chunks, or up to the close.
pub async fn read_answer(stream: &mut (impl AsyncRead + Unpin)) -> Answer {
    let mut buf = Vec::new();
    let end = loop {
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i;
        }
        let mut chunk = [0u8; 4096];
        let n = stream.read(&mut chunk).await.expect("the answer is read");
        assert!(
            n > 0,
            "the connection closed before an answer: {:?}",
            String::from_utf8_lossy(&buf)
        );
        buf.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&buf[..end]).into_owned();
    let mut rest = buf[end + 4..].to_vec();
    let mut lines = head.split("\r\n");
    let status = lines.next().unwrap().split(' ').nth(1).unwrap().parse().unwrap();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_owned(), v.trim().to_owned()))
        .collect();
    let mut answer = Answer {
        status,
        headers,
        body: Vec::new(),
    };
    if let Some(length) = answer.header("content-length").map(|l| l.parse::<usize>().unwrap()) {
        while rest.len() < length {
            let mut chunk = vec![0u8; length - rest.len()];
            let n = stream.read(&mut chunk).await.unwrap();
            assert!(n > 0, "the connection closed inside the body");
            rest.extend_from_slice(&chunk[..n]);
        }
        answer.body = rest;
    } else {
        let _ = stream.read_to_end(&mut rest).await;
        answer.body = if answer.header("transfer-encoding") == Some("chunked") {
            dechunk(&rest)
        } else {
            rest
        };
    }
    answer
}

fn dechunk(mut data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    while let Some(i) = data.windows(2).position(|w| w == b"\r\n") {
        let size = usize::from_str_radix(String::from_utf8_lossy(&data[..i]).trim(), 16).unwrap_or(0);
        if size == 0 {
            break;
        }
        out.extend_from_slice(&data[i + 2..(i + 2 + size).min(data.len())]);
        data = &data[(i + 4 + size).min(data.len())..];
    }
    out
}
