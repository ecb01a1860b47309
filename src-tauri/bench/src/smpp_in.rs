//! Messages in over smsdesk's own SMPP server: a bare SMPP client (the same as the baseline's)
//! binds to `smsdesk serve` as an account, keeps `window` submits awaiting their answer, and
//! answers every deliver_sm, until it has the receipt of each of its N messages; smsdesk sends
//! them to the sandbox SMSC in its own process. The SMPP path's counterpart of the HTTP batch
//! path's end-to-end figure, measured the same way (first submit to last receipt).

use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::Result;
use rusmpp::{Command, CommandStatus, Pdu};

use crate::check;
use crate::dispatch::finish;
use crate::figures::{figure, rate, say};
use crate::procs::{self, Sandbox, Server, Smpp, Usage};
use crate::smpp_raw::{bind, pump};

#[derive(Debug, Clone)]
pub struct SmppIn {
    pub smsdesk: PathBuf,
    pub work: PathBuf,
    /// Keep the run's directory (data, logs) even when its checks passed.
    pub keep: bool,
    pub n: usize,
    /// The client's window, the account's and smsdesk's own to the SMSC.
    pub window: usize,
    pub receipt_delay_ms: u64,
}

pub async fn run(r: &SmppIn) -> Result<()> {
    let dir = r.work.join("smpp-in");
    procs::fresh_dir(&dir)?;
    let sandbox = Sandbox::start(&r.smsdesk, &dir, r.receipt_delay_ms)?;
    let data_dir = dir.join("data");
    let password = procs::create_smpp_account(&r.smsdesk, &data_dir, r.window)?;
    let port = procs::free_port()?;
    let smpp = Smpp::To {
        port: sandbox.port,
        window: r.window as u32,
    };
    let env = [
        ("SMSDESK_SMPP_SERVER_ENABLED", "true".to_owned()),
        ("SMSDESK_SMPP_SERVER_PORT", port.to_string()),
    ];
    let mut server = Server::start_with(&r.smsdesk, &data_dir, smpp, &dir.join("server.log"), &env)?;
    server.wait_healthy(true, Duration::from_secs(60)).await?;
    // The SMPP server listens a moment after the HTTP door answers.
    let addr = format!("127.0.0.1:{port}");
    let waited = Instant::now();
    while tokio::net::TcpStream::connect(&addr).await.is_err() && waited.elapsed() < Duration::from_secs(10) {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let before = Usage::of(server.pid())?;
    let mut wire = bind(&addr, "bench", &password).await?;
    say(&format!(
        "smpp-in: {} messages, window {}, through smsdesk's SMPP server",
        r.n, r.window
    ));
    let started = Instant::now();
    let times = pump(&mut wire, r.n, r.window.max(1)).await?;
    let used = Usage::of(server.pid())?.since(&before);
    let _ = futures::SinkExt::send(
        &mut wire,
        Command::new(CommandStatus::EsmeRok, u32::MAX >> 1, Pdu::Unbind),
    )
    .await;
    drop(wire);
    server.stop()?;
    check::sandbox_saw_each_once(sandbox.stop()?, r.n)?;
    figure("smpp_in.per_s", rate(r.n, times.receipted - started));
    figure("smpp_in.intake_per_s", rate(r.n, times.accepted - started));
    used.print_per_message("smpp_in", r.n);
    say(&format!(
        "smpp-in: every receipt back to the client in {:.2} s (all answered in {:.2} s), smsdesk CPU {:.2} s; \
         checked: the SMSC accepted each once",
        (times.receipted - started).as_secs_f64(),
        (times.accepted - started).as_secs_f64(),
        used.cpu_secs
    ));
    finish(&dir, r.keep);
    Ok(())
}
