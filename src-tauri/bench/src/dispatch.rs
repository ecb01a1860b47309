//! End-to-end dispatch through `smsdesk serve`: N distinct messages handed in over HTTP (batches,
//! or one per request), sent over SMPP to the sandbox SMSC in its own process, and done once the
//! SMSC's receipt is applied (the dashboard counts the message delivered). Measured on the
//! smsdesk process from the first request to the last receipt: messages/s, write() calls and
//! bytes per message, CPU time.

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{bail, Result};

use crate::check::{self, Expect};
use crate::figures::{figure, percentile_ms, rate, say};
use crate::load::{self, Intake, Plan};
use crate::procs::{self, Sandbox, Server, Smpp, Usage};

/// One end-to-end run.
#[derive(Debug, Clone)]
pub struct Dispatch {
    pub smsdesk: PathBuf,
    pub work: PathBuf,
    /// Keep the run's directory (data, logs) even when its checks passed.
    pub keep: bool,
    pub intake: Intake,
    pub n: usize,
    pub clients: usize,
    pub window: u32,
    pub receipt_delay_ms: u64,
}

impl Dispatch {
    /// `dispatch.batch` or `dispatch.single`: the prefix of this run's figures.
    fn name(&self) -> &'static str {
        match self.intake {
            Intake::Single | Intake::Sendsms { .. } => "dispatch.single",
            Intake::Batch(_) => "dispatch.batch",
        }
    }
}

/// Runs it and prints its figures; fails when the database or the SMSC disagrees with what was
/// answered.
pub async fn run(d: &Dispatch) -> Result<()> {
    let name = d.name();
    let dir = d.work.join(name);
    procs::fresh_dir(&dir)?;
    let sandbox = Sandbox::start(&d.smsdesk, &dir, d.receipt_delay_ms)?;
    let data_dir = dir.join("data");
    let api_key = procs::create_api_key(&d.smsdesk, &data_dir)?;
    let smpp = Smpp::To {
        port: sandbox.port,
        window: d.window,
    };
    let mut server = Server::start(&d.smsdesk, &data_dir, smpp, &dir.join("server.log"))?;
    server.wait_healthy(true, Duration::from_secs(60)).await?;
    let before = Usage::of(server.pid())?;
    say(&format!(
        "{name}: {} messages, {} clients, window {}",
        d.n, d.clients, d.window
    ));

    let plan = Plan {
        addr: server.addr,
        api_key: api_key.clone(),
        n: d.n,
        first: 0,
        clients: d.clients,
        intake: d.intake,
        idempotency_keys: true,
    };
    let done = tokio::spawn(load::until_delivered(
        server.addr,
        api_key,
        d.n,
        Duration::from_secs(60),
    ));
    let sent = load::run(&plan).await;
    if sent.failed > 0 {
        bail!("{name}: {} messages not accepted: {:?}", sent.failed, sent.reasons);
    }
    let done = done.await??;
    let used = Usage::of(server.pid())?.since(&before);
    let end_to_end = done - sent.started;

    server.stop()?;
    check::sandbox_saw_each_once(sandbox.stop()?, d.n)?;
    let expect = Expect {
        status: "accepted",
        state: "delivered",
        attempts: 1,
    };
    check::export_matches(&d.smsdesk, &data_dir, &sent.ids, expect)?;

    figure(&format!("{name}.per_s"), rate(d.n, end_to_end));
    figure(&format!("{name}.intake_per_s"), rate(d.n, sent.elapsed()));
    // Each request's latency while the engine sends at full rate.
    let l = &sent.latencies;
    figure(&format!("{name}.p50_ms"), percentile_ms(l, 50.0));
    figure(&format!("{name}.p99_ms"), percentile_ms(l, 99.0));
    figure(&format!("{name}.max_ms"), percentile_ms(l, 100.0));
    used.print_per_message(name, d.n);
    say(&format!(
        "{name}: all delivered in {:.2} s (intake {:.2} s), smsdesk CPU {:.2} s; checked: {} stored = answered, one accepted submit each",
        end_to_end.as_secs_f64(),
        sent.elapsed().as_secs_f64(),
        used.cpu_secs,
        d.n
    ));
    finish(&dir, d.keep);
    Ok(())
}

/// Removes a run's directory once it passed its checks, unless asked to keep it (a failed one is
/// kept to be looked at).
pub fn finish(dir: &Path, keep: bool) {
    if keep {
        say(&format!("kept {}", dir.display()));
    } else if let Err(e) = std::fs::remove_dir_all(dir) {
        say(&format!("cannot remove {}: {e}", dir.display()));
    }
}
