//! End to end on each store, in the same run: one node on SQLite, one node on PostgreSQL, two
//! nodes on one PostgreSQL database; the same N messages (batch API, split between the nodes),
//! sent to the sandbox SMSC in its own process, done once every receipt is applied. On one
//! machine the nodes and the server share the cores: what matters is the CPU a message costs
//! (every smsdesk process, and the PostgreSQL server's processes), and the ratios.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use anyhow::{bail, Context, Result};

use crate::check;
use crate::figures::{figure, rate, say};
use crate::load::{self, Intake, Plan};
use crate::procs::{self, cpu_secs, Sandbox, Server, Smpp};

/// One run of the three.
#[derive(Debug, Clone)]
pub struct NodesRun {
    pub smsdesk: PathBuf,
    pub work: PathBuf,
    pub keep: bool,
    pub n: usize,
    /// A superuser's address of the PostgreSQL server (`postgres://user:password@host:port/db`).
    pub pg_url: String,
    pub clients: usize,
    pub window: u32,
}

/// Where a configuration keeps its store.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum StoreKind {
    Sqlite,
    Postgres,
}

pub async fn run(r: &NodesRun) -> Result<()> {
    for (label, store, nodes) in [
        ("sqlite", StoreKind::Sqlite, 1),
        ("pg1", StoreKind::Postgres, 1),
        ("pg2", StoreKind::Postgres, 2),
    ] {
        one(r, label, store, nodes).await?;
    }
    Ok(())
}

async fn one(r: &NodesRun, label: &str, store: StoreKind, nodes: usize) -> Result<()> {
    let name = format!("nodes.{label}");
    let dir = r.work.join(&name);
    procs::fresh_dir(&dir)?;
    let database = match store {
        StoreKind::Postgres => Some(Database::new(
            &r.pg_url,
            &format!("bench_{label}_{}", std::process::id()),
        )?),
        StoreKind::Sqlite => None,
    };
    let sandbox = Sandbox::start(&r.smsdesk, &dir, 5)?;
    let (servers, api_key) = start_nodes(r, &dir, nodes, database.as_ref(), sandbox.port).await?;
    let postmaster = database.as_ref().map(Database::postmaster).transpose()?;
    let cpu = |servers: &[Server]| -> Result<(f64, f64)> {
        let smsdesk: f64 = servers.iter().map(|s| cpu_secs(s.pid())).sum::<Result<f64>>()?;
        let server = postmaster.map(server_cpu_secs).transpose()?.unwrap_or(0.0);
        Ok((smsdesk, server))
    };
    let before = cpu(&servers)?;
    say(&format!("{name}: {} messages over {nodes} node(s)", r.n));
    let per = r.n / nodes;
    let plans: Vec<Plan> = servers
        .iter()
        .enumerate()
        .map(|(k, s)| Plan {
            addr: s.addr,
            api_key: api_key.clone(),
            n: if k + 1 == nodes { r.n - per * k } else { per },
            first: per * k,
            clients: r.clients,
            intake: Intake::Batch(500),
            idempotency_keys: true,
        })
        .collect();
    let done = tokio::spawn(load::until_delivered(
        servers[0].addr,
        api_key,
        r.n,
        Duration::from_secs(60),
    ));
    let sent = futures::future::join_all(plans.iter().map(load::run)).await;
    let failed: usize = sent.iter().map(|s| s.failed).sum();
    if failed > 0 {
        bail!("{name}: {failed} messages not accepted: {:?}", sent[0].reasons);
    }
    let started = sent.iter().map(|s| s.started).min().expect("a plan");
    let done = done.await??;
    let after = cpu(&servers)?;
    for s in servers {
        s.stop()?;
    }
    check::sandbox_saw_each_once(sandbox.stop()?, r.n)?;
    let (smsdesk, server) = (after.0 - before.0, after.1 - before.1);
    let per_msg = |secs: f64| secs * 1e6 / r.n as f64;
    figure(&format!("{name}.per_s"), rate(r.n, done - started));
    figure(&format!("{name}.cpu_us_per_msg"), per_msg(smsdesk + server));
    figure(&format!("{name}.smsdesk_cpu_us_per_msg"), per_msg(smsdesk));
    figure(&format!("{name}.server_cpu_us_per_msg"), per_msg(server));
    say(&format!(
        "{name}: all delivered in {:.2} s; CPU {smsdesk:.2} s in smsdesk, {server:.2} s in PostgreSQL; the SMSC accepted each once",
        (done - started).as_secs_f64()
    ));
    crate::dispatch::finish(&dir, r.keep);
    Ok(())
}

/// The nodes, each on its data directory (configured for `database` when there is one), bound to
/// the sandbox on `port`; and an API key made with the command line on the first.
async fn start_nodes(
    r: &NodesRun,
    dir: &Path,
    nodes: usize,
    database: Option<&Database>,
    port: u16,
) -> Result<(Vec<Server>, String)> {
    let dirs: Vec<PathBuf> = (0..nodes).map(|k| dir.join(format!("node{k}"))).collect();
    for (k, d) in dirs.iter().enumerate() {
        std::fs::create_dir_all(d)?;
        if let Some(db) = database {
            db.configure(d, &format!("node{k}"))?;
        }
    }
    let api_key = procs::create_api_key(&r.smsdesk, &dirs[0])?;
    let smpp = Smpp::To { port, window: r.window };
    let mut servers = Vec::new();
    for d in &dirs {
        servers.push(Server::start(&r.smsdesk, d, smpp, &d.with_extension("log"))?);
    }
    for s in &mut servers {
        // A node on PostgreSQL binds once the others have seen it (two heartbeats).
        s.wait_healthy(true, Duration::from_secs(90)).await?;
    }
    Ok((servers, api_key))
}

/// A database of the run's own on the server, dropped at the end.
struct Database {
    admin: String,
    name: String,
    /// postgres://user@host:port/name, and the password apart.
    url: String,
    password: String,
}

impl Database {
    fn new(admin: &str, name: &str) -> Result<Database> {
        psql(admin, &format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"))?;
        psql(admin, &format!("CREATE DATABASE {name}"))?;
        let rest = admin.strip_prefix("postgres://").context("a postgres:// address")?;
        let (user_password, host_and_db) = rest.rsplit_once('@').context("a user")?;
        let (user, password) = user_password.split_once(':').context("a password")?;
        let host = host_and_db.split('/').next().unwrap_or_default();
        Ok(Database {
            admin: admin.to_owned(),
            name: name.to_owned(),
            url: format!("postgres://{user}@{host}/{name}"),
            password: password.to_owned(),
        })
    }

    /// The node's config: this database, its password in a file of the node's alone, its name.
    fn configure(&self, dir: &Path, node: &str) -> Result<()> {
        use std::os::unix::fs::PermissionsExt;
        let file = dir.join("pg.password");
        std::fs::write(&file, format!("{}\n", self.password))?;
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600))?;
        std::fs::write(
            dir.join("smsdesk.toml"),
            format!(
                "[store]\nbackend = \"postgres\"\nurl = \"{}\"\npassword_file = \"pg.password\"\nnode = \"{node}\"\n",
                self.url
            ),
        )?;
        Ok(())
    }

    /// The server's main process (the parent of every session's), found through its checkpointer,
    /// which lives as long as the server.
    fn postmaster(&self) -> Result<u32> {
        let sql = "SELECT pid FROM pg_stat_activity WHERE backend_type = 'checkpointer'";
        let child: u32 = psql(&self.admin, sql)?.trim().parse()?;
        Ok(procs::stat(child)
            .context("the PostgreSQL server runs on this machine")?
            .parent)
    }
}

impl Drop for Database {
    fn drop(&mut self) {
        let _ = psql(
            &self.admin,
            &format!("DROP DATABASE IF EXISTS {} WITH (FORCE)", self.name),
        );
    }
}

/// The CPU the server has used: its main process, the sessions it reaped, and those running.
fn server_cpu_secs(postmaster: u32) -> Result<f64> {
    let main = procs::stat(postmaster)?;
    let mut total = main.cpu_secs + main.reaped_cpu_secs;
    for entry in std::fs::read_dir("/proc")?.flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|p| p.parse::<u32>().ok()) else {
            continue;
        };
        // A process that ended meanwhile counts in the main process's reaped time.
        match procs::stat(pid) {
            Ok(s) if s.parent == postmaster => total += s.cpu_secs,
            _ => {}
        }
    }
    Ok(total)
}

fn psql(url: &str, sql: &str) -> Result<String> {
    let out = Command::new("psql")
        .args([url, "-X", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-c", sql])
        .output()
        .context("psql runs (Debian's postgresql-client)")?;
    if !out.status.success() {
        bail!("{sql}: {}", String::from_utf8_lossy(&out.stderr));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}
