//! HTTP intake alone: N distinct messages posted one per request (each with its own
//! Idempotency-Key) by concurrent keep-alive clients, while the dispatcher is held off (its SMSC
//! is a closed port, so nothing is claimed). Requests/s, and each request's latency from its
//! first byte written to its answer read.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::{bail, Result};

use crate::check::{self, Expect};
use crate::dispatch::finish;
use crate::figures::{figure, percentile_ms, rate, say};
use crate::load::{self, Intake, Plan};
use crate::procs::{self, Server, Smpp, Usage};

#[derive(Debug, Clone)]
pub struct IntakeRun {
    pub smsdesk: PathBuf,
    pub work: PathBuf,
    /// Keep the run's directory (data, logs) even when its checks passed.
    pub keep: bool,
    pub n: usize,
    pub clients: usize,
}

pub async fn run(r: &IntakeRun) -> Result<()> {
    let dir = r.work.join("intake");
    procs::fresh_dir(&dir)?;
    let data_dir = dir.join("data");
    let api_key = procs::create_api_key(&r.smsdesk, &data_dir)?;
    let mut server = Server::start(&r.smsdesk, &data_dir, Smpp::HeldOff, &dir.join("server.log"))?;
    server.wait_healthy(false, Duration::from_secs(60)).await?;
    let before = Usage::of(server.pid())?;
    say(&format!(
        "intake: {} messages one per request, {} clients, sending held off",
        r.n, r.clients
    ));
    let plan = Plan {
        addr: server.addr,
        api_key,
        n: r.n,
        clients: r.clients,
        intake: Intake::Single,
    };
    let sent = load::run(&plan).await;
    let used = Usage::of(server.pid())?.since(&before);
    server.stop()?;
    if sent.failed > 0 {
        bail!("intake: {} messages not accepted: {:?}", sent.failed, sent.reasons);
    }
    let expect = Expect {
        status: "queued",
        state: "pending",
        attempts: 0,
    };
    check::export_matches(&r.smsdesk, &data_dir, &sent.ids, expect)?;

    let l = &sent.latencies;
    figure("intake.requests_per_s", rate(sent.ids.len(), sent.elapsed()));
    figure("intake.p50_ms", percentile_ms(l, 50.0));
    figure("intake.p99_ms", percentile_ms(l, 99.0));
    figure("intake.max_ms", percentile_ms(l, 100.0));
    used.print_per_message("intake", r.n);
    say(&format!(
        "intake: {} accepted in {:.2} s; checked: stored = answered",
        sent.ids.len(),
        sent.elapsed().as_secs_f64()
    ));
    finish(&dir, r.keep);
    Ok(())
}
