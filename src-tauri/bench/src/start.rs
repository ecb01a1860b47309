//! Start and memory on a large database: `smsdesk serve` started on a copy of it (sending held
//! off), timed from the process's start to the first 200 of `GET /api/v1/health`; its private
//! memory (RssAnon) after a few idle seconds; then SIGTERM, and whether a `-wal` file is left
//! behind and how large.
//!
//! The first start on a fresh copy does what an instance does once on a database it has not run
//! on (its figure is `start.first_health_ms`); the starts measured after it are restarts.

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{bail, Context, Result};

use crate::figures::{figure, say};
use crate::procs::{self, Server, Smpp};

#[derive(Debug, Clone)]
pub struct StartRun {
    pub smsdesk: PathBuf,
    pub work: PathBuf,
    /// The database to start on (copied, never changed).
    pub fixture: PathBuf,
    pub idle: Duration,
}

/// What one start and stop measured.
struct Measured {
    health: Duration,
    rss_anon_mib: f64,
    rss_mib: f64,
    stop: Duration,
    wal_bytes: Option<u64>,
}

async fn start_and_stop(r: &StartRun, data_dir: &Path, log: &Path) -> Result<Measured> {
    let mut server = Server::start(&r.smsdesk, data_dir, Smpp::HeldOff, log)?;
    let health = server.wait_healthy(false, Duration::from_secs(600)).await?;
    tokio::time::sleep(r.idle).await;
    let pid = server.pid();
    let (rss_anon_mib, rss_mib) = (procs::status_mib(pid, "RssAnon")?, procs::status_mib(pid, "VmRSS")?);
    let stop = server.stop()?;
    let wal = data_dir.join("smsdesk.db-wal");
    Ok(Measured {
        health,
        rss_anon_mib,
        rss_mib,
        stop,
        wal_bytes: std::fs::metadata(&wal).ok().map(|m| m.len()),
    })
}

pub async fn run(r: &StartRun) -> Result<()> {
    if !r.fixture.is_file() {
        bail!("no database to start on at {}", r.fixture.display());
    }
    let dir = r.work.join("start");
    let data_dir = dir.join("data");
    let log = dir.join("server.log");
    if !data_dir.join("smsdesk.db").exists() {
        procs::fresh_dir(&data_dir)?;
        say(&format!("start: copying {}", r.fixture.display()));
        std::fs::copy(&r.fixture, data_dir.join("smsdesk.db"))
            .with_context(|| format!("cannot copy {}", r.fixture.display()))?;
        let first = start_and_stop(r, &data_dir, &log).await?;
        figure("start.first_health_ms", first.health.as_secs_f64() * 1e3);
        say(&format!(
            "start: first start on the copy healthy after {:.0} ms",
            first.health.as_secs_f64() * 1e3
        ));
    }
    let m = start_and_stop(r, &data_dir, &log).await?;
    figure("start.health_ms", m.health.as_secs_f64() * 1e3);
    figure("start.rss_anon_mib", m.rss_anon_mib);
    figure("start.rss_mib", m.rss_mib);
    figure("start.stop_ms", m.stop.as_secs_f64() * 1e3);
    figure("start.wal_left_bytes", m.wal_bytes.unwrap_or(0) as f64);
    say(&format!(
        "start: healthy after {:.0} ms, RssAnon {:.1} MiB (VmRSS {:.1}) after {:?} idle, stopped in {:.0} ms, {}",
        m.health.as_secs_f64() * 1e3,
        m.rss_anon_mib,
        m.rss_mib,
        r.idle,
        m.stop.as_secs_f64() * 1e3,
        match m.wal_bytes {
            Some(b) => format!("a {b}-byte -wal file left"),
            None => "no -wal file left".into(),
        }
    ));
    Ok(())
}
