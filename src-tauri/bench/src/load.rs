//! The load: concurrent keep-alive clients handing in N distinct messages, one per request (each
//! with its own Idempotency-Key) or in batches, each client taking the next messages as soon as
//! its previous request was answered. Every request's latency is kept, and the ids of the
//! messages answered 201.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{bail, Result};

use crate::http::{Conn, Response};
use crate::messages;

/// How messages are handed in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Intake {
    /// `POST /api/v1/messages`, one message per request.
    Single,
    /// `POST /api/v1/messages/batch`, this many per request.
    Batch(usize),
    /// Kannel's `GET /cgi-bin/sendsms`, one message per request, signed in as `user` (its
    /// password the same), a final report of each asked for at the `dlr` receiver
    /// ([`crate::dlr`]).
    Sendsms { user: &'static str, dlr: SocketAddr },
}

impl Intake {
    fn per_request(self) -> usize {
        match self {
            Intake::Single | Intake::Sendsms { .. } => 1,
            Intake::Batch(n) => n.max(1),
        }
    }
}

/// What to send, and to whom.
#[derive(Debug, Clone)]
pub struct Plan {
    pub addr: SocketAddr,
    pub api_key: String,
    pub n: usize,
    /// The index of the first message (another plan sends those before it).
    pub first: usize,
    pub clients: usize,
    pub intake: Intake,
    /// Each request with an Idempotency-Key of its own (smsdesk's API).
    pub idempotency_keys: bool,
}

/// What came back.
#[derive(Debug)]
pub struct Outcome {
    /// The ids of the messages answered 201, in no particular order.
    pub ids: Vec<i64>,
    /// Each request's time from its first byte written to its answer's last byte read, sorted.
    pub latencies: Vec<Duration>,
    /// Messages whose request failed, and the first few reasons.
    pub failed: usize,
    pub reasons: Vec<String>,
    pub started: Instant,
    /// When the last answer was read.
    pub finished: Instant,
}

impl Outcome {
    pub fn elapsed(&self) -> Duration {
        self.finished - self.started
    }
}

/// Runs the plan to its end: every message sent once, whatever the answers.
pub async fn run(plan: &Plan) -> Outcome {
    let plan = Arc::new(plan.clone());
    let next = Arc::new(AtomicUsize::new(0));
    let started = Instant::now();
    let clients: Vec<_> = (0..plan.clients.max(1))
        .map(|_| tokio::spawn(client(plan.clone(), next.clone())))
        .collect();
    let mut all = Outcome {
        ids: Vec::with_capacity(plan.n),
        latencies: Vec::new(),
        failed: 0,
        reasons: Vec::new(),
        started,
        finished: started,
    };
    for c in clients {
        let mut one = c.await.expect("a load client panicked");
        all.ids.append(&mut one.ids);
        all.latencies.append(&mut one.latencies);
        all.failed += one.failed;
        for r in one.reasons {
            if all.reasons.len() < 5 && !all.reasons.contains(&r) {
                all.reasons.push(r);
            }
        }
        all.finished = all.finished.max(one.finished);
    }
    all.latencies.sort();
    all
}

/// One client: takes the next messages until none are left.
async fn client(plan: Arc<Plan>, next: Arc<AtomicUsize>) -> Outcome {
    let mut conn = Conn::new(plan.addr);
    let auth = format!("Bearer {}", plan.api_key);
    let per = plan.intake.per_request();
    let started = Instant::now();
    let mut out = Outcome {
        ids: Vec::new(),
        latencies: Vec::new(),
        failed: 0,
        reasons: Vec::new(),
        started,
        finished: started,
    };
    loop {
        let from = next.fetch_add(per, Ordering::Relaxed);
        if from >= plan.n {
            break;
        }
        let to = (from + per).min(plan.n);
        let t = Instant::now();
        let answer = request(&mut conn, &plan, &auth, from, to).await;
        out.finished = Instant::now();
        out.latencies.push(out.finished - t);
        let problem = match answer {
            Ok(r) if r.status == 202 && matches!(plan.intake, Intake::Sendsms { .. }) => {
                // Kannel gives no id: the message is known by its index.
                out.ids.push(from as i64);
                continue;
            }
            Ok(r) if r.status == 201 => match created_ids(&r, to - from) {
                Ok(mut ids) => {
                    out.ids.append(&mut ids);
                    continue;
                }
                Err(e) => e.to_string(),
            },
            Ok(r) => format!("HTTP {}: {}", r.status, r.body_text(300)),
            Err(e) => format!("request failed: {e}"),
        };
        out.failed += to - from;
        if out.reasons.len() < 5 {
            out.reasons.push(problem);
        }
    }
    out
}

/// Hands in messages `from..to` as the plan says.
async fn request(conn: &mut Conn, plan: &Plan, auth: &str, from: usize, to: usize) -> std::io::Result<Response> {
    let (from, to) = (plan.first + from, plan.first + to);
    let (path, body) = match plan.intake {
        Intake::Single => ("/api/v1/messages".to_owned(), messages::single_body(from)),
        Intake::Batch(_) => ("/api/v1/messages/batch".to_owned(), messages::batch_body(from, to)),
        Intake::Sendsms { user, dlr } => {
            let path = messages::sendsms_path(from, user, dlr);
            return conn.get(&path, &[]).await;
        }
    };
    let idempotency_key = format!("bench-{from}");
    let headers = [
        ("Authorization", auth),
        ("Content-Type", "application/json"),
        ("Idempotency-Key", idempotency_key.as_str()),
    ];
    let n = if plan.idempotency_keys { 3 } else { 2 };
    conn.send("POST", &path, &headers[..n], &body).await
}

/// The ids a 201 answer gives: one message's, or each of a batch's (as many as were sent).
fn created_ids(r: &Response, sent: usize) -> Result<Vec<i64>> {
    let v: serde_json::Value = serde_json::from_slice(&r.body)?;
    let ids: Vec<i64> = match v.get("messages").and_then(|m| m.as_array()) {
        Some(batch) => batch.iter().filter_map(|m| m["id"].as_i64()).collect(),
        None => v["id"].as_i64().into_iter().collect(),
    };
    if ids.len() != sent {
        bail!("a 201 with {} ids for {sent} messages: {}", ids.len(), r.body_text(300));
    }
    Ok(ids)
}

/// Reads the dashboard (`GET /api/v1/dashboard`) until `n` messages are reported delivered;
/// returns when that was first seen. Fails when the count stops moving for `stall`. It reads
/// every 200 ms, then every 20 ms for the last tenth: precise at the end without loading the
/// server all along (a dashboard read counts today's messages).
pub async fn until_delivered(addr: SocketAddr, api_key: String, n: usize, stall: Duration) -> Result<Instant> {
    let mut conn = Conn::new(addr);
    let auth = format!("Bearer {api_key}");
    let (mut last, mut moved) = (None, Instant::now());
    loop {
        let r = conn.get("/api/v1/dashboard", &[("Authorization", &auth)]).await?;
        if r.status != 200 {
            bail!("GET /api/v1/dashboard answered {}: {}", r.status, r.body_text(300));
        }
        let v: serde_json::Value = serde_json::from_slice(&r.body)?;
        let delivered = v["states"]
            .as_array()
            .and_then(|states| states.iter().find(|s| s["state"] == "delivered"))
            .and_then(|s| s["count"].as_u64())
            .unwrap_or(0) as usize;
        if delivered >= n {
            return Ok(Instant::now());
        }
        if last != Some(delivered) {
            (last, moved) = (Some(delivered), Instant::now());
        } else if moved.elapsed() > stall {
            bail!(
                "{delivered} of {n} delivered, and no change for {stall:?}; queue {} states {}",
                v["queue"],
                v["states"]
            );
        }
        let pause = if delivered * 10 >= n * 9 { 20 } else { 200 };
        tokio::time::sleep(Duration::from_millis(pause)).await;
    }
}
