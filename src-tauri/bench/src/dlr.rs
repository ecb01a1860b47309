//! The `dlr-url` a baseline gateway reports to: a minimal HTTP/1.1 server on a loopback port that
//! answers every GET with an empty 200 (keep-alive) and counts, per message, the delivery reports
//! its query names (`?i=INDEX&t=TYPE`, Kannel's `%d`: 1 delivered, 2 undeliverable, 4 queued on
//! the SMSC, 8 accepted by the SMSC, 16 refused by it).

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{bail, Result};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Notify;

/// What the reports said so far.
#[derive(Debug, Default)]
struct Tally {
    /// One flag per message: a delivered report came.
    delivered: Vec<bool>,
    distinct_delivered: usize,
    /// Delivered reports for a message already reported delivered.
    repeated: usize,
    /// Reports of any other final type (2 or 16), and reports whose query made no sense.
    failed: usize,
    unreadable: usize,
    last_change: Option<Instant>,
}

/// The receiver: its address, and what it counted.
pub struct DlrReceiver {
    pub addr: SocketAddr,
    tally: Arc<Mutex<Tally>>,
    changed: Arc<Notify>,
}

impl DlrReceiver {
    /// Listens on a loopback port for the reports of `n` messages (indexes 0 to n-1).
    pub async fn start(n: usize) -> Result<DlrReceiver> {
        let listener = TcpListener::bind("127.0.0.1:0").await?;
        let addr = listener.local_addr()?;
        let tally = Arc::new(Mutex::new(Tally {
            delivered: vec![false; n],
            ..Tally::default()
        }));
        let changed = Arc::new(Notify::new());
        let (t, c) = (tally.clone(), changed.clone());
        tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                tokio::spawn(serve(stream, t.clone(), c.clone()));
            }
        });
        Ok(DlrReceiver { addr, tally, changed })
    }

    /// Waits until every message was reported delivered; returns when that was first seen. Fails
    /// when a message was reported failed, or when nothing came for `stall`.
    pub async fn until_all_delivered(&self, stall: Duration) -> Result<Instant> {
        let started = Instant::now();
        loop {
            let notified = self.changed.notified();
            {
                let t = self.tally.lock().expect("the tally");
                if t.failed > 0 || t.unreadable > 0 {
                    bail!(
                        "{} reports of failure and {} unreadable ones ({} of {} delivered)",
                        t.failed,
                        t.unreadable,
                        t.distinct_delivered,
                        t.delivered.len()
                    );
                }
                if t.distinct_delivered == t.delivered.len() {
                    return Ok(t.last_change.unwrap_or_else(Instant::now));
                }
                let since = t.last_change.unwrap_or(started);
                if since.elapsed() > stall {
                    bail!(
                        "{} of {} delivered, and no report for {stall:?}",
                        t.distinct_delivered,
                        t.delivered.len()
                    );
                }
            }
            let _ = tokio::time::timeout(Duration::from_millis(200), notified).await;
        }
    }

    /// Delivered reports that repeated one already received.
    pub fn repeated(&self) -> usize {
        self.tally.lock().expect("the tally").repeated
    }
}

/// Serves one keep-alive connection until the gateway closes it.
async fn serve(stream: TcpStream, tally: Arc<Mutex<Tally>>, changed: Arc<Notify>) {
    let _ = stream.set_nodelay(true);
    let mut stream = BufReader::new(stream);
    let mut line = String::new();
    loop {
        line.clear();
        match stream.read_line(&mut line).await {
            Ok(0) | Err(_) => return,
            Ok(_) => {}
        }
        let target = line.split_whitespace().nth(1).unwrap_or("").to_owned();
        // The headers, to the empty line; a GET has no body.
        loop {
            line.clear();
            match stream.read_line(&mut line).await {
                Ok(0) | Err(_) => return,
                Ok(_) if line.trim_end().is_empty() => break,
                Ok(_) => {}
            }
        }
        count(&tally, &target);
        changed.notify_waiters();
        let answer = b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: keep-alive\r\n\r\n";
        if stream.get_mut().write_all(answer).await.is_err() {
            return;
        }
    }
}

/// Counts the report `/dlr?i=INDEX&t=TYPE`.
fn count(tally: &Mutex<Tally>, target: &str) {
    let query = target.split_once('?').map_or("", |(_, q)| q);
    let field = |name: &str| {
        query
            .split('&')
            .find_map(|kv| kv.strip_prefix(name)?.strip_prefix('='))
            .and_then(|v| v.parse::<usize>().ok())
    };
    let mut t = tally.lock().expect("the tally");
    t.last_change = Some(Instant::now());
    match (field("i"), field("t")) {
        (Some(i), Some(1)) if i < t.delivered.len() => {
            if std::mem::replace(&mut t.delivered[i], true) {
                t.repeated += 1;
            } else {
                t.distinct_delivered += 1;
            }
        }
        (Some(_), Some(2 | 16)) => t.failed += 1,
        // Intermediate reports (queued, accepted by the SMSC) are not asked for, and ignored.
        (Some(_), Some(4 | 8)) => {}
        _ => t.unreadable += 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_report_counts_once_per_message_and_types_are_told_apart() {
        let t = Mutex::new(Tally {
            delivered: vec![false; 3],
            ..Tally::default()
        });
        count(&t, "/dlr?i=0&t=1");
        count(&t, "/dlr?i=0&t=1");
        count(&t, "/dlr?i=2&t=8");
        count(&t, "/dlr?i=1&t=2");
        count(&t, "/dlr?t=1");
        count(&t, "/dlr?i=7&t=1");
        let t = t.into_inner().unwrap();
        assert_eq!(t.delivered, vec![true, false, false]);
        assert_eq!((t.distinct_delivered, t.repeated, t.failed, t.unreadable), (1, 1, 1, 2));
    }
}
