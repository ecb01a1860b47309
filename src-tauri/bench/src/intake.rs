//! HTTP intake alone: N distinct messages posted one per request by concurrent keep-alive
//! clients, while the dispatcher is held off (its SMSC is a closed port, so nothing is claimed).
//! Requests/s, and each request's latency from its first byte written to its answer read. Twice,
//! each time on a new data directory: each request with an Idempotency-Key of its own (figures
//! `intake.*`), then without any (`intake.no_key.*`).

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
    run_one(r, true).await?;
    run_one(r, false).await
}

async fn run_one(r: &IntakeRun, keys: bool) -> Result<()> {
    let name = if keys { "intake" } else { "intake.no_key" };
    let dir = r.work.join(name);
    procs::fresh_dir(&dir)?;
    let data_dir = dir.join("data");
    let api_key = procs::create_api_key(&r.smsdesk, &data_dir)?;
    let mut server = Server::start(&r.smsdesk, &data_dir, Smpp::HeldOff, &dir.join("server.log"))?;
    server.wait_healthy(false, Duration::from_secs(60)).await?;
    let before = Usage::of(server.pid())?;
    say(&format!(
        "{name}: {} messages one per request, {} clients, sending held off",
        r.n, r.clients
    ));
    let plan = Plan {
        addr: server.addr,
        api_key,
        n: r.n,
        first: 0,
        clients: r.clients,
        intake: Intake::Single,
        idempotency_keys: keys,
    };
    let sent = load::run(&plan).await;
    let used = Usage::of(server.pid())?.since(&before);
    server.stop()?;
    if sent.failed > 0 {
        bail!("{name}: {} messages not accepted: {:?}", sent.failed, sent.reasons);
    }
    let expect = Expect {
        status: "queued",
        state: "pending",
        attempts: 0,
    };
    check::export_matches(&r.smsdesk, &data_dir, &sent.ids, expect)?;

    let l = &sent.latencies;
    figure(&format!("{name}.requests_per_s"), rate(sent.ids.len(), sent.elapsed()));
    figure(&format!("{name}.p50_ms"), percentile_ms(l, 50.0));
    figure(&format!("{name}.p99_ms"), percentile_ms(l, 99.0));
    figure(&format!("{name}.max_ms"), percentile_ms(l, 100.0));
    used.print_per_message(name, r.n);
    say(&format!(
        "{name}: {} accepted in {:.2} s; checked: stored = answered",
        sent.ids.len(),
        sent.elapsed().as_secs_f64()
    ));
    finish(&dir, r.keep);
    Ok(())
}
