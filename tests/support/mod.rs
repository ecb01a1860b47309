//! Helpers for the end-to-end tests: run the real `smsdesk` binary and talk to it over real TCP.

#![allow(dead_code)]

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

pub mod pg;

pub const BIN: &str = env!("CARGO_BIN_EXE_smsdesk");

/// A running smsdesk process with its own data directory and captured standard error.
pub struct Running {
    pub child: Child,
    pub data_dir: PathBuf,
    pub stderr_path: PathBuf,
    pub url: String,
}

/// Starts `smsdesk <args> --data-dir <data_dir>` and waits until it has published its address.
pub fn start(data_dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Running {
    let child = spawn(data_dir, args, env);
    let stderr_path = stderr_file(data_dir);
    let mut running = Running {
        child,
        data_dir: data_dir.to_owned(),
        stderr_path,
        url: String::new(),
    };
    running.url = wait_for_instance(&mut running, Duration::from_secs(60));
    running
}

/// Spawns without waiting.
pub fn spawn(data_dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Child {
    let log = std::fs::File::create(stderr_file(data_dir)).expect("stderr capture file");
    let mut cmd = Command::new(BIN);
    cmd.args(args).arg("--data-dir").arg(data_dir).env("RUST_LOG", "info");
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.stdin(Stdio::null()).stdout(Stdio::null()).stderr(log);
    cmd.spawn().expect("the smsdesk binary starts")
}

/// The captured standard error lives beside (not inside) the data directory.
pub fn stderr_file(data_dir: &Path) -> PathBuf {
    let mut name = data_dir.file_name().unwrap().to_os_string();
    name.push(".stderr.log");
    data_dir.with_file_name(name)
}

fn wait_for_instance(r: &mut Running, limit: Duration) -> String {
    let started = Instant::now();
    let file = r.data_dir.join("instance.json");
    loop {
        if let Some(status) = r.child.try_wait().unwrap() {
            panic!("smsdesk exited early ({status}):\n{}", r.stderr());
        }
        // A process killed with SIGKILL leaves its instance.json behind: wait for this one's.
        let published = std::fs::read_to_string(&file)
            .ok()
            .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok());
        if let Some(v) = published.filter(|v| v["pid"].as_u64() == Some(u64::from(r.child.id()))) {
            return v["httpUrl"].as_str().expect("instance.json has httpUrl").to_owned();
        }
        assert!(
            started.elapsed() < limit,
            "smsdesk did not publish instance.json in time:\n{}",
            r.stderr()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

impl Running {
    pub fn stderr(&self) -> String {
        std::fs::read_to_string(&self.stderr_path).unwrap_or_default()
    }

    pub fn signal(&self, name: &str) {
        let ok = Command::new("kill")
            .arg(format!("-{name}"))
            .arg(self.child.id().to_string())
            .status()
            .unwrap();
        assert!(ok.success(), "kill -{name} failed");
    }

    /// Waits for the process to exit by itself.
    pub fn wait(&mut self, limit: Duration) -> ExitStatus {
        let started = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            if started.elapsed() > limit {
                let _ = self.child.kill();
                panic!("smsdesk did not exit within {limit:?}:\n{}", self.stderr());
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    pub fn get(&self, path: &str) -> Response {
        get(&self.url, path)
    }

    /// A GET as the operator, with the token the instance wrote in its data directory.
    pub fn get_as_operator(&self, path: &str) -> Response {
        let token = std::fs::read_to_string(self.data_dir.join("operator.token")).expect("operator.token");
        get_with(&self.url, path, Some(token.trim()))
    }
}

/// Runs `smsdesk <args> --data-dir <data_dir>` to completion: (exit code, stdout, stderr).
pub fn run(data_dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(BIN)
        .args(args)
        .arg("--data-dir")
        .arg(data_dir)
        .stdin(Stdio::null())
        .output()
        .expect("the smsdesk binary runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// An HTTP response, read whole.
#[derive(Debug)]
pub struct Response {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Response {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.body))
    }
}

/// What `sql` (a query of one integer) counts in the database `db`, opened read-only.
pub fn count(db: &Path, sql: &str) -> i64 {
    let c = rusqlite::Connection::open_with_flags(db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
    c.query_row(sql, [], |r| r.get(0)).unwrap()
}

/// Runs `smsdesk <args> --data-dir <data_dir>` to completion with `input` on its standard input.
pub fn run_with_input(data_dir: &Path, args: &[&str], input: &str) -> (i32, String, String) {
    let mut child = Command::new(BIN)
        .args(args)
        .arg("--data-dir")
        .arg(data_dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the smsdesk binary runs");
    child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A POST of a JSON body with `Authorization: Bearer <key>`, over a fresh TCP connection.
pub fn post_json(base: &str, path: &str, key: &str, body: &serde_json::Value) -> Response {
    request(base, "POST", path, Some(key), Some(&body.to_string()))
}

/// A POST of a JSON body without credentials (sign-in), over a fresh TCP connection.
pub fn post_json_anonymous(base: &str, path: &str, body: &serde_json::Value) -> Response {
    request(base, "POST", path, None, Some(&body.to_string()))
}

/// A plain HTTP/1.1 GET over a fresh TCP connection.
pub fn get(base: &str, path: &str) -> Response {
    get_with(base, path, None)
}

/// A GET with `Authorization: Bearer <key>` when a key is given.
pub fn get_with(base: &str, path: &str, key: Option<&str>) -> Response {
    request(base, "GET", path, key, None)
}

/// A POST of a JSON body with an `Idempotency-Key`.
pub fn post_json_idempotent(
    base: &str,
    path: &str,
    key: &str,
    idempotency_key: &str,
    body: &serde_json::Value,
) -> Response {
    let extra = format!("Idempotency-Key: {idempotency_key}\r\n");
    request_with(base, "POST", path, Some(key), Some(&body.to_string()), &extra)
}

fn request(base: &str, method: &str, path: &str, key: Option<&str>, json: Option<&str>) -> Response {
    request_with(base, method, path, key, json, "")
}

/// A request, with `extra` header lines (each ending in CRLF).
fn request_with(base: &str, method: &str, path: &str, key: Option<&str>, json: Option<&str>, extra: &str) -> Response {
    let authority = base.strip_prefix("http://").expect("http URL");
    let mut stream = TcpStream::connect(authority).expect("connect to smsdesk");
    stream.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    let auth = key
        .map(|k| format!("Authorization: Bearer {k}\r\n"))
        .unwrap_or_default();
    let body = json.map_or(String::new(), |j| {
        format!(
            "Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{j}",
            j.len()
        )
    });
    let head_end = if json.is_some() { "" } else { "\r\n" };
    write!(
        stream,
        "{method} {path} HTTP/1.1\r\nHost: {authority}\r\n{auth}{extra}Connection: close\r\n{head_end}{body}"
    )
    .unwrap();
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).unwrap();
    let text = String::from_utf8_lossy(&raw).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").expect("a complete HTTP response");
    let mut lines = head.lines();
    let status = lines.next().unwrap().split(' ').nth(1).unwrap().parse().unwrap();
    let headers = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_owned(), v.trim().to_owned()))
        .collect::<Vec<_>>();
    let chunked = headers
        .iter()
        .any(|(k, v)| k.eq_ignore_ascii_case("transfer-encoding") && v.contains("chunked"));
    let body = if chunked { dechunk(body) } else { body.to_owned() };
    Response { status, headers, body }
}

fn dechunk(mut s: &str) -> String {
    let mut out = String::new();
    while let Some((size, rest)) = s.split_once("\r\n") {
        let n = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
        if n == 0 {
            break;
        }
        out.push_str(&rest[..n]);
        s = &rest[n + 2..];
    }
    out
}

/// A file system mounted for a test (a tmpfs, a bind mount), unmounted when dropped. Mounting
/// needs root (the test command runs as root: it installs the system packages). Where mounting is
/// refused the test fails, saying so, unless `SMSDESK_TEST_SKIP_MOUNTS=1` is set: then `None`, and
/// the test says which case it skipped and why (a case skipped in silence would pass untested).
pub struct Mount(PathBuf);

impl Mount {
    /// `mount <args> <at>`; `case` names what a refusal skips.
    pub fn new(args: &[&std::ffi::OsStr], at: &Path, case: &str) -> Option<Mount> {
        let why = match Command::new("mount").args(args).arg(at).output() {
            Ok(out) if out.status.success() => return Some(Mount(at.to_owned())),
            Ok(out) => format!(
                "mounting is not permitted here ({}; run as root)",
                String::from_utf8_lossy(&out.stderr).trim()
            ),
            Err(e) => format!("no mount command ({e})"),
        };
        if std::env::var_os("SMSDESK_TEST_SKIP_MOUNTS").is_some_and(|v| v == "1") {
            eprintln!("SKIPPED {case}: {why}");
            return None;
        }
        panic!("{case} needs a mount: {why}. Set SMSDESK_TEST_SKIP_MOUNTS=1 to skip it knowingly.");
    }
}

impl Drop for Mount {
    fn drop(&mut self) {
        // Lazy: a process the test left behind must not keep the mount (and the machine) busy.
        let _ = Command::new("umount").arg("-l").arg(&self.0).status();
    }
}

/// Starts `cmd` (an `smsdesk sandbox-smsc`) with its standard error piped: waits for the first
/// line, which names the address it listens on, and drains the rest. The process and its port.
pub fn spawn_smsc(mut cmd: Command) -> (Child, u16) {
    use std::io::{BufRead, BufReader};
    let mut child = cmd.stdout(Stdio::null()).stderr(Stdio::piped()).spawn().unwrap();
    let mut lines = BufReader::new(child.stderr.take().unwrap());
    let mut first = String::new();
    lines.read_line(&mut first).unwrap();
    std::thread::spawn(move || std::io::copy(&mut lines, &mut std::io::sink()));
    let port = first
        .split_whitespace()
        .find_map(|w| w.strip_prefix("127.0.0.1:"))
        .and_then(|p| p.trim().parse().ok())
        .unwrap_or_else(|| panic!("the SMSC prints its address: {first}"));
    (child, port)
}

/// Every file under `dir`, in its subfolders too.
pub fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(files_under(&p));
        } else {
            out.push(p);
        }
    }
    out
}
