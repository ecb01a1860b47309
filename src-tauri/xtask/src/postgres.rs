//! A private PostgreSQL for the tests: a cluster made with Debian's `initdb` in a directory of its
//! own under the system's temporary directory (which the server's user can reach), on a free port of 127.0.0.1 only, with a password made for this
//! run, run by an unprivileged user (PostgreSQL refuses root: as root, the `postgres` system user
//! the package creates runs it). The tests find it in `SMSDESK_TEST_PG_URL` (a superuser's URL:
//! each test makes a database and roles of its own there); it is stopped and removed on drop.

use std::fs;
use std::io::Read;
use std::net::TcpListener;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::cmd::{run, Cmd};

/// The variable the tests read the server's URL from.
pub const URL_VAR: &str = "SMSDESK_TEST_PG_URL";

/// The variable that gives a test the server's `pg_ctl`, to restart it (one argument a line:
/// the program, as the user that runs the server, and the cluster's options; the test adds the
/// action). Only a test binary of its own may use it: the others share the server.
pub const CTL_VAR: &str = "SMSDESK_TEST_PG_CTL";

/// The superuser the tests connect as.
const SUPERUSER: &str = "smsdesk_test";

/// A running private cluster; stopped (fast shutdown) and its directory removed on drop.
pub struct Postgres {
    dir: PathBuf,
    bin: PathBuf,
    runner: Runner,
    pub url: String,
}

/// Who runs the server's programs: ourselves, or (when we are root) the `postgres` system user.
#[derive(Clone, Copy)]
enum Runner {
    Me,
    PostgresUser,
}

impl Runner {
    fn cmd(self, program: PathBuf) -> Cmd {
        match self {
            Runner::Me => Cmd::new(program),
            Runner::PostgresUser => Cmd::new("runuser").args(["-u", "postgres", "--"]).arg(program),
        }
    }
}

impl Postgres {
    /// Makes and starts a cluster in `smsdesk-test-postgres-<pid>` of the temporary directory,
    /// after stopping and removing what runs that ended without their drop left there.
    pub fn start() -> Result<Postgres, String> {
        let bin = bin_dir()?;
        let runner = if is_root() { Runner::PostgresUser } else { Runner::Me };
        remove_left_behind(&bin, runner);
        let dir = std::env::temp_dir().join(format!("{PREFIX}{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        fs::set_permissions(&dir, fs::Permissions::from_mode(0o700))
            .map_err(|e| format!("cannot restrict {}: {e}", dir.display()))?;
        if let Runner::PostgresUser = runner {
            run(Cmd::new("chown").args(["postgres:postgres"]).arg(&dir))?;
        }
        let password = random_hex(16)?;
        // Readable by its owner alone: initdb reads it, then it goes.
        let pwfile = dir.join("password");
        write_private(&pwfile, &password)?;
        if let Runner::PostgresUser = runner {
            run(Cmd::new("chown").args(["postgres:postgres"]).arg(&pwfile))?;
        }
        let data = dir.join("data");
        let initdb = runner
            .cmd(bin.join("initdb"))
            .args(["-D"])
            .arg(&data)
            .args([
                "-U",
                SUPERUSER,
                "--auth=scram-sha-256",
                "--encoding=UTF8",
                "--no-locale",
            ])
            .arg(format!("--pwfile={}", pwfile.display()))
            .stdout_to_stderr();
        let made = run(initdb);
        let _ = fs::remove_file(&pwfile);
        made?;
        let port = free_port()?;
        let server = Postgres {
            dir: dir.clone(),
            bin,
            runner,
            url: format!("postgres://{SUPERUSER}:{password}@127.0.0.1:{port}/postgres"),
        };
        // Tests make their databases and kill nodes: room for many connections. fsync off: a
        // test machine's crash is not what the tests are about (a server's restart and a killed
        // client are, and those keep every commit).
        let options = format!(
            "-p {port} -c listen_addresses=127.0.0.1 -k {} -c max_connections=300 -c fsync=off",
            dir.display()
        );
        let start = runner
            .cmd(server.bin.join("pg_ctl"))
            .args(["start", "-w", "-t", "60", "-D"])
            .arg(&data)
            .args(["-o", &options, "-l"])
            .arg(dir.join("server.log"))
            .stdout_to_stderr();
        run(start).map_err(|e| format!("{e}; its log: {}", dir.join("server.log").display()))?;
        eprintln!(
            "xtask: PostgreSQL for the tests on 127.0.0.1:{port} (its files in {})",
            dir.display()
        );
        Ok(server)
    }
}

impl Postgres {
    /// The value of [`CTL_VAR`] for this server.
    pub fn ctl(&self) -> String {
        let mut args: Vec<String> = match self.runner {
            Runner::Me => Vec::new(),
            Runner::PostgresUser => ["runuser", "-u", "postgres", "--"].map(str::to_owned).to_vec(),
        };
        args.push(self.bin.join("pg_ctl").display().to_string());
        args.extend(["-D".to_owned(), self.dir.join("data").display().to_string()]);
        args.extend(["-l".to_owned(), self.dir.join("server.log").display().to_string()]);
        args.join("\n")
    }
}

impl Drop for Postgres {
    fn drop(&mut self) {
        if let Err(e) = stop(&self.bin, self.runner, &self.dir, "fast") {
            eprintln!("xtask: stopping the tests' PostgreSQL: {e}");
        }
        let _ = fs::remove_dir_all(&self.dir);
    }
}

/// The prefix of the clusters' directories, followed by the process id of the run that made one.
const PREFIX: &str = "smsdesk-test-postgres-";

fn stop(bin: &Path, runner: Runner, dir: &Path, mode: &str) -> Result<(), String> {
    let stop = runner
        .cmd(bin.join("pg_ctl"))
        .args(["stop", "-m", mode, "-w", "-D"])
        .arg(dir.join("data"))
        .stdout_to_stderr();
    run(stop)
}

/// Clusters whose run is gone (killed before its drop): stopped at once and removed.
fn remove_left_behind(bin: &Path, runner: Runner) {
    let Ok(entries) = fs::read_dir(std::env::temp_dir()) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name.to_str().and_then(|n| n.strip_prefix(PREFIX)) else {
            continue;
        };
        if Path::new("/proc").join(pid).exists() {
            continue;
        }
        if entry.path().join("data/postmaster.pid").exists() {
            let _ = stop(bin, runner, &entry.path(), "immediate");
        }
        let _ = fs::remove_dir_all(entry.path());
    }
}

/// Runs `args` (a command and its arguments) with a private PostgreSQL's URL in
/// [`URL_VAR`]: `cargo xtask postgres -- cargo test -p smsdesk-store`.
pub fn run_with(root: &Path, args: Vec<String>) -> Result<(), String> {
    let Some((program, rest)) = args.split_first() else {
        return Err("usage: cargo xtask postgres -- COMMAND [ARGS]".into());
    };
    let server = Postgres::start()?;
    run(Cmd::new(program)
        .args(rest)
        .dir(root)
        .env(URL_VAR, &server.url)
        .env(CTL_VAR, server.ctl()))
}

/// Where the server's programs are: the newest of Debian's /usr/lib/postgresql/<version>/bin, else
/// the directory of an `initdb` on the PATH.
fn bin_dir() -> Result<PathBuf, String> {
    let debian = fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| Some((e.file_name().to_str()?.parse::<u32>().ok()?, e.path().join("bin"))))
        .filter(|(_, bin)| bin.join("initdb").exists())
        .max_by_key(|(version, _)| *version)
        .map(|(_, bin)| bin);
    let on_path = || {
        std::env::var_os("PATH").and_then(|p| {
            std::env::split_paths(&p)
                .map(|d| d.join("initdb"))
                .find(|f| f.exists())
                .and_then(|f| f.parent().map(Path::to_owned))
        })
    };
    debian.or_else(on_path).ok_or_else(|| {
        "PostgreSQL's server programs (initdb, pg_ctl) are not installed: `cargo xtask setup` installs \
         Debian's postgresql package"
            .to_owned()
    })
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
}

/// A port nothing listens on now (the kernel's choice; given back at once for the server).
fn free_port() -> Result<u16, String> {
    let listener = TcpListener::bind("127.0.0.1:0").map_err(|e| format!("cannot find a free port: {e}"))?;
    listener
        .local_addr()
        .map(|a| a.port())
        .map_err(|e| format!("cannot find a free port: {e}"))
}

fn random_hex(bytes: usize) -> Result<String, String> {
    let mut buf = vec![0u8; bytes];
    fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut buf))
        .map_err(|e| format!("cannot read /dev/urandom: {e}"))?;
    Ok(buf.iter().map(|b| format!("{b:02x}")).collect())
}

fn write_private(path: &Path, text: &str) -> Result<(), String> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)
        .and_then(|mut f| f.write_all(text.as_bytes()))
        .map_err(|e| format!("cannot write {}: {e}", path.display()))
}
