//! The smsdesk processes a benchmark drives: `smsdesk serve` on its own data directory, the sandbox
//! SMSC in a process of its own (`smsdesk sandbox-smsc`), an API key made with the command line;
//! and what the kernel says about a process (`/proc/PID/io`, its CPU time, its memory).
//!
//! A process still running when its handle is dropped (a benchmark that failed half-way) is killed.

use std::fs::File;
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use anyhow::{anyhow, bail, Context, Result};

use crate::figures::figure;
use crate::http::Conn;

/// A loopback port nothing listens on now (bound, then released).
pub fn free_port() -> Result<u16> {
    Ok(TcpListener::bind("127.0.0.1:0")?.local_addr()?.port())
}

/// `smsdesk` with none of the caller's SMSDESK_* variables or RUST_LOG: each benchmark sets what
/// it means, and smsdesk logs at its configured level (`info`), as it runs for its users.
fn smsdesk(bin: &Path) -> Command {
    let mut c = Command::new(bin);
    for (name, _) in std::env::vars_os() {
        if name.to_string_lossy().starts_with("SMSDESK_") || name == "RUST_LOG" {
            c.env_remove(name);
        }
    }
    c.stdin(Stdio::null());
    c
}

/// Sends SIGTERM and waits for the exit (`within` at most, then kills it and says so).
pub fn terminate(child: &mut Child, within: Duration) -> Result<ExitStatus> {
    if let Some(status) = child.try_wait()? {
        return Ok(status);
    }
    let pid = libc::pid_t::try_from(child.id()).context("a pid")?;
    // SAFETY: kill(2) on our own child's pid, which has not been reaped (try_wait above).
    if unsafe { libc::kill(pid, libc::SIGTERM) } != 0 {
        bail!("cannot send SIGTERM to {pid}: {}", std::io::Error::last_os_error());
    }
    let deadline = Instant::now() + within;
    loop {
        if let Some(status) = child.try_wait()? {
            return Ok(status);
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            bail!("process {pid} did not stop within {within:?} of SIGTERM (killed)");
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Kills `child` if it still runs (the benchmark failed before stopping it).
fn kill_if_running(child: &mut Child) {
    if matches!(child.try_wait(), Ok(None)) {
        let _ = child.kill();
        let _ = child.wait();
    }
}

/// The sandbox SMSC in a process of its own, on a loopback port.
pub struct Sandbox {
    child: Child,
    pub port: u16,
    counts: PathBuf,
}

/// What the sandbox counted: submit_sm received, accepted, and accepted more than once for the
/// same destination and text (a duplicate sent by the client).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SandboxCounts {
    pub submits: u64,
    pub accepted: u64,
    pub accepted_twice: u64,
}

impl Sandbox {
    /// Starts `smsdesk sandbox-smsc` (its log and counters in `dir`) and waits until it listens.
    pub fn start(bin: &Path, dir: &Path, receipt_delay_ms: u64) -> Result<Sandbox> {
        let port = free_port()?;
        let counts = dir.join("sandbox-counts.json");
        let log = File::create(dir.join("sandbox.log"))?;
        let mut child = smsdesk(bin)
            .arg("sandbox-smsc")
            .args(["--port", &port.to_string()])
            .args(["--receipt-delay-ms", &receipt_delay_ms.to_string()])
            .arg("--counts-file")
            .arg(&counts)
            .stdout(log.try_clone()?)
            .stderr(log)
            .spawn()
            .with_context(|| format!("cannot start {} sandbox-smsc", bin.display()))?;
        let addr = SocketAddr::from(([127, 0, 0, 1], port));
        let deadline = Instant::now() + Duration::from_secs(30);
        while TcpStream::connect_timeout(&addr, Duration::from_millis(200)).is_err() {
            if let Some(status) = child.try_wait()? {
                bail!(
                    "the sandbox SMSC exited ({status}); see {}",
                    dir.join("sandbox.log").display()
                );
            }
            if Instant::now() > deadline {
                kill_if_running(&mut child);
                bail!("the sandbox SMSC did not listen on {addr} within 30 s");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        Ok(Sandbox { child, port, counts })
    }

    /// Stops it (SIGTERM) and reads its counters, written on exit.
    pub fn stop(mut self) -> Result<SandboxCounts> {
        terminate(&mut self.child, Duration::from_secs(30))?;
        let text = std::fs::read_to_string(&self.counts)
            .with_context(|| format!("the sandbox wrote no counts file ({})", self.counts.display()))?;
        let v: serde_json::Value = serde_json::from_str(&text)?;
        let n = |k: &str| {
            v[k].as_u64()
                .ok_or_else(|| anyhow!("no {k} in the sandbox's counts: {text}"))
        };
        Ok(SandboxCounts {
            submits: n("submits")?,
            accepted: n("accepted")?,
            accepted_twice: n("accepted_twice")?,
        })
    }
}

impl Drop for Sandbox {
    fn drop(&mut self) {
        kill_if_running(&mut self.child);
    }
}

/// Where `smsdesk serve` sends.
#[derive(Debug, Clone, Copy)]
pub enum Smpp {
    /// To an SMSC on this loopback port, at most `window` submits awaiting their answer, no
    /// practical rate limit (100,000 per second).
    To { port: u16, window: u32 },
    /// To a closed loopback port: the link never binds and nothing is sent.
    HeldOff,
}

/// `smsdesk serve` on its own data directory and HTTP port.
pub struct Server {
    child: Child,
    pub addr: SocketAddr,
    pub data_dir: PathBuf,
    pub spawned: Instant,
}

impl Server {
    /// Starts `smsdesk serve` (its output to `log`), configured through the environment.
    pub fn start(bin: &Path, data_dir: &Path, smpp: Smpp, log: &Path) -> Result<Server> {
        Server::start_with(bin, data_dir, smpp, log, &[])
    }

    /// [`Server::start`], with more settings through the environment (`SMSDESK_…` variables).
    pub fn start_with(bin: &Path, data_dir: &Path, smpp: Smpp, log: &Path, env: &[(&str, String)]) -> Result<Server> {
        let http_port = free_port()?;
        let (smpp_port, window) = match smpp {
            Smpp::To { port, window } => (port, window),
            Smpp::HeldOff => (free_port()?, 10),
        };
        let log_file = File::create(log)?;
        let mut cmd = smsdesk(bin);
        cmd.arg("serve")
            .args(["--http-port", &http_port.to_string()])
            .arg("--data-dir")
            .arg(data_dir)
            .env("SMSDESK_SMPP_SANDBOX", "false")
            .env("SMSDESK_SMPP_HOST", "127.0.0.1")
            .env("SMSDESK_SMPP_PORT", smpp_port.to_string())
            .env("SMSDESK_SMPP_TPS", "100000")
            .env("SMSDESK_SMPP_WINDOW", window.to_string())
            .envs(env.iter().map(|(k, v)| (*k, v)))
            .stdout(log_file.try_clone()?)
            .stderr(log_file);
        let spawned = Instant::now();
        let child = cmd
            .spawn()
            .with_context(|| format!("cannot start {} serve", bin.display()))?;
        Ok(Server {
            child,
            addr: SocketAddr::from(([127, 0, 0, 1], http_port)),
            data_dir: data_dir.to_owned(),
            spawned,
        })
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Waits until `GET /api/v1/health` answers 200 (with `"status":"ok"`, the SMPP link bound,
    /// when `bound`); returns the time since the process was started.
    pub async fn wait_healthy(&mut self, bound: bool, within: Duration) -> Result<Duration> {
        let mut conn = Conn::new(self.addr);
        loop {
            if let Ok(r) = conn.get("/api/v1/health", &[]).await {
                let status = serde_json::from_slice::<serde_json::Value>(&r.body).map(|v| v["status"] == "ok");
                if r.status == 200 && (!bound || status.unwrap_or(false)) {
                    return Ok(self.spawned.elapsed());
                }
            }
            if let Some(status) = self.child.try_wait()? {
                bail!("smsdesk serve exited ({status}) before it was healthy");
            }
            if self.spawned.elapsed() > within {
                bail!("smsdesk serve was not healthy within {within:?} (bound link wanted: {bound})");
            }
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
    }

    /// Stops it as a service manager would (SIGTERM); a non-zero exit is an error. Returns how
    /// long it took to exit.
    pub fn stop(mut self) -> Result<Duration> {
        let t = Instant::now();
        let status = terminate(&mut self.child, Duration::from_secs(120))?;
        if !status.success() {
            bail!("smsdesk serve exited with {status} after SIGTERM");
        }
        Ok(t.elapsed())
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        kill_if_running(&mut self.child);
    }
}

/// Creates an API key (sending and reading) in `data_dir` with the command line; returns it.
pub fn create_api_key(bin: &Path, data_dir: &Path) -> Result<String> {
    let out = smsdesk(bin)
        .args(["api-key", "create", "--name", "bench", "--scope", "send,read:all"])
        .arg("--data-dir")
        .arg(data_dir)
        .output()
        .context("cannot run smsdesk api-key create")?;
    let text = String::from_utf8_lossy(&out.stdout);
    if !out.status.success() {
        bail!(
            "smsdesk api-key create failed ({}): {}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
    }
    text.lines()
        .map(str::trim)
        .find(|l| l.starts_with("sdk_"))
        .map(str::to_owned)
        .ok_or_else(|| anyhow!("smsdesk api-key create printed no key:\n{text}"))
}

/// Creates an SMPP account for smsdesk's SMPP server (no practical rate limit, a window of
/// `window`) in `data_dir` with the command line; returns its password.
pub fn create_smpp_account(bin: &Path, data_dir: &Path, window: usize) -> Result<String> {
    let out = smsdesk(bin)
        .args(["smpp-user", "add", "bench", "--tps", "10000", "--window"])
        .arg(window.to_string())
        .arg("--data-dir")
        .arg(data_dir)
        .output()
        .context("cannot run smsdesk smpp-user add")?;
    let text = String::from_utf8_lossy(&out.stdout);
    if !out.status.success() {
        bail!(
            "smsdesk smpp-user add failed ({}): {}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let mut lines = text.lines().map(str::trim);
    lines
        .find(|l| l.ends_with("with the password:"))
        .and_then(|_| lines.next())
        .map(str::to_owned)
        .ok_or_else(|| anyhow!("smsdesk smpp-user add printed no password:\n{text}"))
}

/// The write counters of `/proc/PID/io`: write-family system calls (`syscw`: write, pwrite,
/// writev, not send on a socket), bytes passed to them (`wchar`), bytes sent to the storage
/// layer (`write_bytes`).
#[derive(Debug, Clone, Copy, Default)]
pub struct IoCounters {
    pub syscw: u64,
    pub wchar: u64,
    pub write_bytes: u64,
}

pub fn io_counters(pid: u32) -> Result<IoCounters> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/io")).with_context(|| format!("/proc/{pid}/io"))?;
    let field = |name: &str| -> Result<u64> {
        text.lines()
            .find_map(|l| l.strip_prefix(name)?.strip_prefix(':'))
            .and_then(|v| v.trim().parse().ok())
            .ok_or_else(|| anyhow!("no {name} in /proc/{pid}/io"))
    };
    Ok(IoCounters {
        syscw: field("syscw")?,
        wchar: field("wchar")?,
        write_bytes: field("write_bytes")?,
    })
}

/// What a process has used so far: its write counters and its CPU time.
#[derive(Debug, Clone, Copy, Default)]
pub struct Usage {
    pub io: IoCounters,
    pub cpu_secs: f64,
}

impl Usage {
    pub fn of(pid: u32) -> Result<Usage> {
        Ok(Usage {
            io: io_counters(pid)?,
            cpu_secs: cpu_secs(pid)?,
        })
    }

    /// What was used between `before` and this.
    pub fn since(&self, before: &Usage) -> Usage {
        Usage {
            io: IoCounters {
                syscw: self.io.syscw.saturating_sub(before.io.syscw),
                wchar: self.io.wchar.saturating_sub(before.io.wchar),
                write_bytes: self.io.write_bytes.saturating_sub(before.io.write_bytes),
            },
            cpu_secs: self.cpu_secs - before.cpu_secs,
        }
    }

    /// Prints `PREFIX.syscw_per_msg`, `.wchar_per_msg`, `.write_bytes_per_msg` and
    /// `.cpu_us_per_msg` for `n` messages.
    pub fn print_per_message(&self, prefix: &str, n: usize) {
        let n = n.max(1) as f64;
        figure(&format!("{prefix}.syscw_per_msg"), self.io.syscw as f64 / n);
        figure(&format!("{prefix}.wchar_per_msg"), self.io.wchar as f64 / n);
        figure(&format!("{prefix}.write_bytes_per_msg"), self.io.write_bytes as f64 / n);
        figure(&format!("{prefix}.cpu_us_per_msg"), self.cpu_secs * 1e6 / n);
    }
}

/// The CPU time (user + system, every thread) the process has used, in seconds.
pub fn cpu_secs(pid: u32) -> Result<f64> {
    Ok(stat(pid)?.cpu_secs)
}

/// What `/proc/PID/stat` says of a process: its parent, and its CPU time and that of the
/// children it reaped (user + system), in seconds.
#[derive(Debug, Clone, Copy)]
pub struct Stat {
    pub parent: u32,
    pub cpu_secs: f64,
    pub reaped_cpu_secs: f64,
}

pub fn stat(pid: u32) -> Result<Stat> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat"))?;
    // The fields after the name (which may hold spaces and parentheses): the state first.
    let after = text.rsplit_once(')').map_or("", |(_, rest)| rest);
    let fields: Vec<&str> = after.split_whitespace().collect();
    let n = |i: usize| fields.get(i).and_then(|f| f.parse::<u64>().ok()).unwrap_or(0);
    // SAFETY: sysconf has no preconditions.
    let per_sec = unsafe { libc::sysconf(libc::_SC_CLK_TCK) }.max(1) as f64;
    Ok(Stat {
        parent: n(1) as u32,
        cpu_secs: (n(11) + n(12)) as f64 / per_sec,
        reaped_cpu_secs: (n(13) + n(14)) as f64 / per_sec,
    })
}

/// A `kB` line of `/proc/PID/status` (`RssAnon`, `VmRSS`, ...), in MiB.
pub fn status_mib(pid: u32, field: &str) -> Result<f64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status"))?;
    status
        .lines()
        .find_map(|l| l.strip_prefix(field)?.strip_prefix(':'))
        .and_then(|v| v.split_whitespace().next()?.parse::<f64>().ok())
        .map(|kib| kib / 1024.0)
        .ok_or_else(|| anyhow!("no {field} in /proc/{pid}/status"))
}

/// A fresh directory (what was there before is removed).
pub fn fresh_dir(path: &Path) -> Result<()> {
    if path.exists() {
        std::fs::remove_dir_all(path).with_context(|| format!("cannot empty {}", path.display()))?;
    }
    std::fs::create_dir_all(path).with_context(|| format!("cannot create {}", path.display()))
}
