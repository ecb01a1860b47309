//! Kannel, a baseline of the field: Debian's `kannel` package (bearerbox and smsbox) against the
//! same sandbox SMSC process, loaded by the same client as smsdesk through its `sendsms` interface
//! (one message a request, each distinct), its delivery reports sent to a local `dlr-url`.
//!
//! Configured as Kannel's user guide advises for throughput: no message store (Kannel keeps its
//! queue in memory, so it is not durable, which smsdesk is), delivery reports kept in memory
//! (`dlr-storage = internal`), logs at warnings only and no access log, unlimited queues, the
//! SMPP window (`max-pending-submits`) and no throughput cap, as smsdesk's run has.
//!
//! Two runs: end to end (messages/s from the first request to the last delivered report, the
//! latency of each request while sending, bearerbox's and smsbox's CPU), and intake alone (the
//! SMSC a closed port, so Kannel queues what it takes: requests/s and latency).

use std::fs::File;
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};

use crate::dispatch::finish;
use crate::dlr::DlrReceiver;
use crate::figures::{figure, percentile_ms, rate, say};
use crate::load::{self, Intake, Plan};
use crate::procs::{self, cpu_secs, free_port, Sandbox};

/// One Kannel run.
#[derive(Debug, Clone)]
pub struct KannelRun {
    /// The smsdesk binary: its sandbox SMSC is Kannel's SMSC.
    pub smsdesk: PathBuf,
    pub work: PathBuf,
    pub keep: bool,
    pub n: usize,
    pub clients: usize,
    pub window: u32,
    pub receipt_delay_ms: u64,
    /// Intake alone: the SMSC a closed port.
    pub held_off: bool,
}

/// The sendsms user the load signs in as (Kannel takes it in the query).
const USER: &str = "bench";

pub async fn run(r: &KannelRun) -> Result<()> {
    let name = if r.held_off { "kannel_intake" } else { "kannel" };
    let dir = r.work.join(name);
    procs::fresh_dir(&dir)?;
    let sandbox = match r.held_off {
        false => Some(Sandbox::start(&r.smsdesk, &dir, r.receipt_delay_ms)?),
        true => None,
    };
    let smsc_port = sandbox.as_ref().map_or_else(free_port, |s| Ok(s.port))?;
    // One more message than the load's: the first, sent alone before the load (not measured).
    let dlr = DlrReceiver::start(r.n + 1).await?;
    let mut kannel = Kannel::start(&dir, smsc_port, r.window)?;
    if !r.held_off {
        kannel.wait_online(Duration::from_secs(30))?;
    }
    kannel.first_request(r.n, dlr.addr).await?;
    let cpu_before = kannel.cpu_secs()?;
    say(&format!(
        "{name}: {} messages one per request to Kannel's sendsms, {} clients{}",
        r.n,
        r.clients,
        if r.held_off { ", SMSC down" } else { "" }
    ));
    let plan = Plan {
        addr: kannel.sendsms,
        api_key: String::new(),
        n: r.n,
        first: 0,
        clients: r.clients,
        intake: Intake::Sendsms {
            user: USER,
            dlr: dlr.addr,
        },
        idempotency_keys: false,
    };
    let sent = load::run(&plan).await;
    if sent.failed > 0 {
        bail!("{name}: {} messages not accepted: {:?}", sent.failed, sent.reasons);
    }
    let done = if r.held_off {
        None
    } else {
        Some(dlr.until_all_delivered(Duration::from_secs(60)).await?)
    };
    let cpu = kannel.cpu_secs()? - cpu_before;
    kannel.stop(!r.held_off)?;
    if let Some(sandbox) = sandbox {
        crate::check::sandbox_saw_each_once(sandbox.stop()?, r.n + 1)?;
    }
    let l = &sent.latencies;
    match done {
        Some(done) => {
            figure("kannel.per_s", rate(r.n, done - sent.started));
            figure("kannel.intake_per_s", rate(r.n, sent.elapsed()));
            figure("kannel.cpu_us_per_msg", cpu * 1e6 / r.n as f64);
        }
        None => figure("kannel_intake.requests_per_s", rate(r.n, sent.elapsed())),
    }
    figure(&format!("{name}.p50_ms"), percentile_ms(l, 50.0));
    figure(&format!("{name}.p99_ms"), percentile_ms(l, 99.0));
    figure(&format!("{name}.max_ms"), percentile_ms(l, 100.0));
    say(&format!(
        "{name}: {} accepted in {:.2} s{}; Kannel CPU {cpu:.2} s; repeated reports {}",
        sent.ids.len(),
        sent.elapsed().as_secs_f64(),
        done.map_or(String::new(), |d| format!(
            ", all delivered in {:.2} s",
            (d - sent.started).as_secs_f64()
        )),
        dlr.repeated()
    ));
    finish(&dir, r.keep);
    Ok(())
}

/// bearerbox and smsbox, on ports of their own, their configuration and logs in one directory.
struct Kannel {
    /// bearerbox, then smsbox once it started.
    boxes: Vec<Child>,
    admin: SocketAddr,
    sendsms: SocketAddr,
}

impl Kannel {
    fn start(dir: &Path, smsc_port: u16, window: u32) -> Result<Kannel> {
        let ports = Ports {
            admin: free_port()?,
            smsbox: free_port()?,
            sendsms: free_port()?,
        };
        let conf = dir.join("kannel.conf");
        std::fs::write(&conf, config(dir, &ports, smsc_port, window))?;
        let at = |port| SocketAddr::from(([127, 0, 0, 1], port));
        let mut kannel = Kannel {
            boxes: Vec::new(),
            admin: at(ports.admin),
            sendsms: at(ports.sendsms),
        };
        for (program, listens_on) in [("bearerbox", ports.smsbox), ("smsbox", ports.sendsms)] {
            let child = spawn(program, &conf, &dir.join(format!("{program}.out")))?;
            kannel.boxes.push(child);
            wait_listening(kannel.boxes.last_mut().expect("pushed"), at(listens_on))?;
        }
        Ok(kannel)
    }

    /// Waits until bearerbox says its SMSC connection is online (its admin status page).
    fn wait_online(&mut self, within: Duration) -> Result<()> {
        let deadline = Instant::now() + within;
        loop {
            if status_text(self.admin).is_ok_and(|s| s.contains("(online")) {
                return Ok(());
            }
            if Instant::now() > deadline {
                bail!("Kannel's SMSC connection was not online within {within:?}");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Sends message `i` alone and waits for its answer. smsbox listens before it is ready: the
    /// first request after a start waited about a second (for smsbox's link to bearerbox), which
    /// would have been the load's slowest request had it not been made first. smsdesk listens
    /// only once ready.
    async fn first_request(&self, i: usize, dlr: SocketAddr) -> Result<()> {
        let path = crate::messages::sendsms_path(i, USER, dlr);
        let r = crate::http::Conn::new(self.sendsms).get(&path, &[]).await?;
        if r.status != 202 {
            bail!("Kannel answered its first request {}: {}", r.status, r.body_text(300));
        }
        Ok(())
    }

    fn cpu_secs(&self) -> Result<f64> {
        self.boxes.iter().map(|c| cpu_secs(c.id())).sum()
    }

    /// Stops smsbox, then bearerbox: with SIGTERM when `gently` (bearerbox sends what it holds
    /// first), else at once (an intake-alone run's queue can never be sent).
    fn stop(mut self, gently: bool) -> Result<()> {
        while let Some(mut child) = self.boxes.pop() {
            if gently {
                procs::terminate(&mut child, Duration::from_secs(30))?;
            } else {
                let _ = child.kill();
                let _ = child.wait();
            }
        }
        Ok(())
    }
}

impl Drop for Kannel {
    fn drop(&mut self) {
        for child in &mut self.boxes {
            if matches!(child.try_wait(), Ok(None)) {
                let _ = child.kill();
                let _ = child.wait();
            }
        }
    }
}

struct Ports {
    admin: u16,
    smsbox: u16,
    sendsms: u16,
}

/// Kannel's configuration for the run.
fn config(dir: &Path, p: &Ports, smsc_port: u16, window: u32) -> String {
    let log = |name: &str| dir.join(name).display().to_string();
    format!(
        r#"group = core
admin-port = {admin}
admin-interface = 127.0.0.1
admin-password = bench
smsbox-port = {smsbox}
box-allow-ip = 127.0.0.1
log-file = "{bearerbox_log}"
log-level = 2
dlr-storage = internal
sms-incoming-queue-limit = -1
sms-outgoing-queue-limit = -1

group = smsc
smsc = smpp
smsc-id = sandbox
host = 127.0.0.1
port = {smsc_port}
transceiver-mode = true
smsc-username = kannel
smsc-password = bench
system-type = ""
max-pending-submits = {window}
msg-id-type = 0x00
reconnect-delay = 1
log-level = 2

group = smsbox
bearerbox-host = 127.0.0.1
bearerbox-port = {smsbox}
sendsms-port = {sendsms}
sendsms-interface = 127.0.0.1
log-file = "{smsbox_log}"
log-level = 2
max-pending-requests = 512

group = sendsms-user
username = {USER}
password = {USER}
max-messages = 1
"#,
        admin = p.admin,
        smsbox = p.smsbox,
        sendsms = p.sendsms,
        bearerbox_log = log("bearerbox.log"),
        smsbox_log = log("smsbox.log"),
    )
}

/// Starts `program CONF`, its console output to `out`.
fn spawn(program: &str, conf: &Path, out: &Path) -> Result<Child> {
    let out = File::create(out)?;
    Command::new(program)
        .args(["-v", "2"])
        .arg(conf)
        .stdin(Stdio::null())
        .stdout(out.try_clone()?)
        .stderr(out)
        .spawn()
        .with_context(|| format!("cannot start {program} (Debian's kannel package; `cargo xtask bench` installs it)"))
}

/// Waits until something listens on `addr`, or `child` exited.
fn wait_listening(child: &mut Child, addr: SocketAddr) -> Result<()> {
    let deadline = Instant::now() + Duration::from_secs(30);
    while TcpStream::connect_timeout(&addr, Duration::from_millis(200)).is_err() {
        if let Some(status) = child.try_wait()? {
            bail!("a Kannel box exited ({status}) before it listened on {addr}");
        }
        if Instant::now() > deadline {
            bail!("nothing listened on {addr} within 30 s");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    Ok(())
}

/// bearerbox's status page, as text.
fn status_text(admin: SocketAddr) -> std::io::Result<String> {
    use std::io::{Read, Write};
    let mut s = TcpStream::connect_timeout(&admin, Duration::from_secs(1))?;
    s.set_read_timeout(Some(Duration::from_secs(2)))?;
    write!(s, "GET /status.txt?password=bench HTTP/1.0\r\nHost: {admin}\r\n\r\n")?;
    let mut text = String::new();
    s.read_to_string(&mut text)?;
    Ok(text)
}
