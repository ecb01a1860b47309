//! The package test of the test command: the .deb built from the tested binary is checked
//! (lintian, the desktop entry, the service unit), installed with apt on this machine, its
//! service's command line run as the `smsdesk` user against /var/lib/smsdesk until
//! `/api/v1/health` answers, then removed and purged, and the data must still be there.
//!
//! It installs and removes a system package, so it needs root (or `sudo` without a password), and
//! it refuses to run on a machine with an smsdesk installation of its own: it leaves a mark in
//! /var/lib/smsdesk and touches only what carries that mark.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::cmd::{run, target_dir, Cmd};
use crate::package::{bundle, Profile};
use crate::setup;

const DATA: &str = "/var/lib/smsdesk";
const CONFIG_DIR: &str = "/etc/smsdesk";
const UNIT: &str = "/usr/lib/systemd/system/smsdesk.service";
const DESKTOP: &str = "/usr/share/applications/smsdesk.desktop";
/// Left in the data folder by this test: what carries it was made by the test.
const MARK: &str = "/var/lib/smsdesk/.made-by-the-package-test";

pub fn run_test(root: &Path, bin: &Path) -> Result<(), String> {
    ensure_root()?;
    clear_previous_run()?;
    let deb = bundle(root, bin, Profile::Debug, &["deb"])?.remove(0);
    run(Cmd::new("lintian").args(["--fail-on", "error"]).arg(&deb))?;
    run(as_root("apt-get")
        .args(["install", "-y", "-q", "--no-install-recommends"])
        .arg(&deb)
        .env("DEBIAN_FRONTEND", "noninteractive"))?;
    run(as_root("touch").arg(MARK))?;
    let installed = installed_checks().and_then(|()| service_answers(root));
    let removed = installed.and_then(|()| remove_keeps_data());
    let cleaned = clear_previous_run();
    removed.and(cleaned)
}

fn installed_checks() -> Result<(), String> {
    let version = output(Cmd::new("/usr/bin/smsdesk").arg("--version"))?;
    let expected = format!("smsdesk {}", env!("CARGO_PKG_VERSION"));
    if version.trim() != expected {
        return Err(format!("/usr/bin/smsdesk --version said {version:?}, not {expected:?}"));
    }
    run(Cmd::new("desktop-file-validate").arg(DESKTOP))?;
    run(Cmd::new("systemd-analyze").arg("verify").arg(UNIT))?;
    for (path, owner, mode) in [(DATA, "smsdesk:smsdesk", "700"), (CONFIG_DIR, "root:smsdesk", "770")] {
        let found = output(as_root("stat").args(["-c", "%U:%G %a", path]))?;
        if found.trim() != format!("{owner} {mode}") {
            return Err(format!("{path} is {}, not {owner} {mode}", found.trim()));
        }
    }
    eprintln!(
        "xtask: package installed: {}, desktop entry and unit valid",
        version.trim()
    );
    Ok(())
}

/// The unit's command line, as its user, with its environment (and a free port): `/api/v1/health`
/// answers, the files it makes are the user's alone, nothing secret reaches the journal, and
/// SIGTERM stops it cleanly.
fn service_answers(root: &Path) -> Result<(), String> {
    let unit = std::fs::read_to_string(UNIT).map_err(|e| format!("cannot read {UNIT}: {e}"))?;
    let user = unit_values(&unit, "User").pop().ok_or("the unit names no User=")?;
    let exec = unit_values(&unit, "ExecStart")
        .pop()
        .ok_or("the unit has no ExecStart=")?;
    let log_path = target_dir(root).join("package").join("service.log");
    let log = std::fs::File::create(&log_path).map_err(|e| e.to_string())?;
    let mut cmd = as_root_command("env");
    cmd.args(["-i", "PATH=/usr/sbin:/usr/bin:/sbin:/bin", "HOME=/var/lib/smsdesk"]);
    cmd.args(unit_values(&unit, "Environment"));
    // As systemd does for a service whose standard error is the journal; and a free port.
    cmd.args(["JOURNAL_STREAM=8:1", "SMSDESK_HTTP_PORT=0"]);
    cmd.args(["setpriv", &format!("--reuid={user}"), &format!("--regid={user}")]);
    cmd.args(["--init-groups", "--inh-caps=-all", "--"]);
    cmd.args(exec.split_whitespace());
    cmd.stdin(Stdio::null()).stdout(Stdio::null()).stderr(log);
    let mut child = cmd.spawn().map_err(|e| format!("cannot start {exec}: {e}"))?;
    let answered = health(&mut child);
    let _ = Command::new("kill").args(["-TERM", &child.id().to_string()]).status();
    let stopped = wait(&mut child, Duration::from_secs(60));
    let journal = std::fs::read_to_string(&log_path).unwrap_or_default();
    let result = answered
        .and(stopped)
        .and_then(|()| own_files(&user))
        .and_then(|()| no_secret_in(&journal));
    result.map_err(|e| format!("{e}\nwhat the service printed:\n{journal}"))
}

fn health(child: &mut Child) -> Result<(), String> {
    let started = Instant::now();
    let url = loop {
        if let Some(status) = child.try_wait().map_err(|e| e.to_string())? {
            return Err(format!("the service's command line exited at once ({status})"));
        }
        let info = output(as_root("cat").arg(format!("{DATA}/instance.json"))).unwrap_or_default();
        if let Some(url) = json_field(&info, "httpUrl") {
            break url;
        }
        if started.elapsed() > Duration::from_secs(60) {
            return Err("the service published no address within 60 s".into());
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let answer = get(&url, "/api/v1/health")?;
    if !(answer.starts_with("HTTP/1.1 200") && answer.contains(r#""status":"ok""#)) {
        return Err(format!("GET {url}/api/v1/health answered:\n{answer}"));
    }
    eprintln!("xtask: the service's command line answers {url}/api/v1/health: 200, status ok");
    Ok(())
}

/// The database and the config file the service made belong to its user, readable by it alone.
fn own_files(user: &str) -> Result<(), String> {
    for path in [format!("{DATA}/smsdesk.db"), format!("{CONFIG_DIR}/smsdesk.toml")] {
        let found = output(as_root("stat").args(["-c", "%U %a"]).arg(&path))?;
        if found.trim() != format!("{user} 600") {
            return Err(format!("{path} is {}, not {user} 600", found.trim()));
        }
    }
    Ok(())
}

/// The first start prints how to make the first admin; in the journal it must not print the
/// one-time setup link (anyone who reads the journal could use it).
fn no_secret_in(journal: &str) -> Result<(), String> {
    if journal.contains("/setup#") || journal.contains("setup_") {
        return Err("the service printed its one-time setup link into the journal".into());
    }
    if !journal.contains("user add NAME --role admin") {
        return Err("the service did not say how to create the first admin".into());
    }
    Ok(())
}

/// `apt-get remove`, then `purge`: the program goes, the data and the config stay.
fn remove_keeps_data() -> Result<(), String> {
    for action in ["remove", "purge"] {
        run(as_root("apt-get")
            .args([action, "-y", "-q", "smsdesk"])
            .env("DEBIAN_FRONTEND", "noninteractive"))?;
        if Path::new("/usr/bin/smsdesk").exists() {
            return Err(format!("/usr/bin/smsdesk is still there after apt-get {action}"));
        }
        for kept in [
            format!("{DATA}/smsdesk.db"),
            format!("{CONFIG_DIR}/smsdesk.toml"),
            MARK.into(),
        ] {
            if !run_quiet(as_root("test").args(["-f", &kept])) {
                return Err(format!("{kept} is gone after apt-get {action}: the data must stay"));
            }
        }
    }
    eprintln!("xtask: package removed and purged; {DATA} and {CONFIG_DIR} are still there");
    Ok(())
}

/// Refuses a machine with a real installation; clears what an earlier run of this test left.
fn clear_previous_run() -> Result<(), String> {
    let marked = run_quiet(as_root("test").args(["-e", MARK]));
    let installed =
        output(Cmd::new("dpkg-query").args(["-W", "-f=${Status}", "smsdesk"])).is_ok_and(|s| s.contains("installed"));
    let user = run_quiet(Cmd::new("getent").args(["passwd", "smsdesk"]));
    let present = installed || user || Path::new(DATA).exists() || Path::new(CONFIG_DIR).exists();
    if present && !marked {
        return Err(format!(
            "this machine has an smsdesk installation of its own (the package, the smsdesk user, \
             {DATA} or {CONFIG_DIR}); the package test installs and removes smsdesk and would touch \
             it: run the test command on a machine without one"
        ));
    }
    if installed {
        run(as_root("dpkg").args(["--purge", "smsdesk"]))?;
    }
    // The user and group first, the folders (and the mark in them) last: a run stopped half-way
    // leaves the mark behind, and the next run clears what is left.
    for (kind, name) in [("passwd", "smsdesk"), ("group", "smsdesk")] {
        if run_quiet(Cmd::new("getent").args([kind, name])) {
            let tool = if kind == "passwd" { "userdel" } else { "groupdel" };
            run(as_root(tool).arg(name))?;
        }
    }
    run(as_root("rm").args(["-rf", DATA, CONFIG_DIR]))?;
    Ok(())
}

fn ensure_root() -> Result<(), String> {
    setup::system_packages(setup::PACKAGE_TEST_PACKAGES)?;
    if is_root() || run_quiet(Cmd::new("sudo").args(["-n", "true"])) {
        return Ok(());
    }
    Err(
        "the package test installs a system package: run the test command as root, or with sudo \
         that asks no password"
            .into(),
    )
}

/// Whether this process is root (asked once).
fn is_root() -> bool {
    static ROOT: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ROOT.get_or_init(|| output(Cmd::new("id").arg("-u")).is_ok_and(|u| u.trim() == "0"))
}

fn as_root(program: &str) -> Cmd {
    if is_root() {
        Cmd::new(program)
    } else {
        Cmd::new("sudo").args(["-n", program])
    }
}

/// As [`as_root`], with nothing of this process's environment.
fn as_root_command(program: &str) -> Command {
    let mut c = as_root(program).into_command();
    c.env_clear();
    c
}

/// The values of `key=` lines of a unit file, in order.
fn unit_values(unit: &str, key: &str) -> Vec<String> {
    unit.lines()
        .filter_map(|l| l.trim().strip_prefix(key)?.strip_prefix('='))
        .map(|v| v.trim().to_owned())
        .collect()
}

fn json_field(json: &str, key: &str) -> Option<String> {
    let rest = &json[json.find(&format!("\"{key}\""))? + key.len() + 2..];
    let start = rest.find('"')? + 1;
    let end = start + rest[start..].find('"')?;
    Some(rest[start..end].to_owned())
}

fn get(url: &str, path: &str) -> Result<String, String> {
    let host = url.trim_start_matches("http://").trim_end_matches('/');
    let mut stream = TcpStream::connect(host).map_err(|e| format!("cannot connect to {host}: {e}"))?;
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .map_err(|e| e.to_string())?;
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"
    )
    .map_err(|e| e.to_string())?;
    let mut answer = String::new();
    stream.read_to_string(&mut answer).map_err(|e| e.to_string())?;
    Ok(answer)
}

fn wait(child: &mut Child, limit: Duration) -> Result<(), String> {
    let started = Instant::now();
    loop {
        if let Some(status) = child.try_wait().map_err(|e| e.to_string())? {
            return if status.success() {
                Ok(())
            } else {
                Err(format!("the service exited with {status} after SIGTERM"))
            };
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            return Err(format!("the service did not stop within {limit:?} of SIGTERM"));
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn output(cmd: Cmd) -> Result<String, String> {
    let out = cmd.into_command().output().map_err(|e| e.to_string())?;
    if !out.status.success() {
        return Err(String::from_utf8_lossy(&out.stderr).into_owned());
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

fn run_quiet(cmd: Cmd) -> bool {
    cmd.into_command()
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}
