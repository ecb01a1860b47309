//! One process per database file, with the built `smsdesk` binary: while `smsdesk serve` runs, a
//! second `serve`, `rebuild` or `send` that reaches its database through another data directory
//! (`SMSDESK_STORE_DATABASE`: absolute, through a symbolic link, or relative) is refused and names
//! the running one (its process and address); `export` still reads it. A database file that is
//! empty or not SQLite refuses the start, naming the file.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use crate::support::{get_with, start, BIN};

/// Runs `smsdesk <args>` in `cwd` with `env`: (exit code, stdout, stderr). `--data-dir` is the
/// caller's to give, so that it may be relative to `cwd`.
fn run_in(cwd: &Path, args: &[&str], env: &[(&str, &str)]) -> (i32, String, String) {
    let mut cmd = Command::new(BIN);
    cmd.current_dir(cwd)
        .args(args)
        .env("RUST_LOG", "warn")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let child = cmd.spawn().expect("the smsdesk binary runs");
    let out = wait_with_timeout(child, Duration::from_secs(60));
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A refused command must not run on: a second `serve` that was not refused would run forever.
fn wait_with_timeout(mut child: std::process::Child, limit: Duration) -> std::process::Output {
    let started = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > limit {
            let _ = child.kill();
            let out = child.wait_with_output().unwrap();
            panic!(
                "smsdesk still runs after {limit:?}: it was not refused\n{}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    child.wait_with_output().unwrap()
}

fn assert_names_the_first(what: &str, (code, _, err): &(i32, String, String), pid: u32, url: &str) {
    assert_eq!(*code, 2, "{what} must be refused: {err}");
    assert!(err.contains("is in use by another smsdesk"), "{what}: {err}");
    assert!(
        err.contains(&format!("process {pid}")),
        "{what} names the running process: {err}"
    );
    assert!(err.contains(url), "{what} says where the running one listens: {err}");
}

#[test]
fn a_live_database_is_refused_to_a_second_serve_rebuild_and_send_through_another_data_directory() {
    let tmp = tempfile::tempdir().unwrap();
    let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
    let first = start(&a, &["serve", "--http-port", "0"], &[]);
    let pid = first.child.id();
    let live = a.join("smsdesk.db");
    std::fs::create_dir_all(&b).unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(&live, tmp.path().join("link.db")).unwrap();

    let (code, _, err) = run_in(
        tmp.path(),
        &[
            "send",
            "--to",
            "+33612345600",
            "--text",
            "Order 7 shipped",
            "--data-dir",
            "a",
        ],
        &[],
    );
    assert_eq!(code, 0, "through the running instance's own data directory: {err}");

    let live_abs = live.display().to_string();
    let link = tmp.path().join("link.db").display().to_string();
    // (working directory, data directory, database) as a user might write them.
    let mut ways: Vec<(&Path, &str, &str)> = vec![
        (tmp.path(), "b", &live_abs),
        (&b, ".", "../a/smsdesk.db"),
        (&a, "../b", "../a/./smsdesk.db"),
    ];
    if cfg!(unix) {
        ways.push((tmp.path(), "b", &link));
    }
    for (cwd, dir, database) in &ways {
        let env = [("SMSDESK_STORE_DATABASE", *database)];
        let what = format!("serve with --data-dir {dir} and the database {database}");
        let serve = run_in(cwd, &["serve", "--http-port", "0", "--data-dir", dir], &env);
        assert_names_the_first(&what, &serve, pid, &first.url);
        let rebuild = run_in(cwd, &["rebuild", "--data-dir", dir], &env);
        assert_names_the_first(&format!("rebuild as {database}"), &rebuild, pid, &first.url);
        let send = run_in(
            cwd,
            &["send", "--to", "+33612345601", "--text", "x", "--data-dir", dir],
            &env,
        );
        assert_names_the_first(&format!("send as {database}"), &send, pid, &first.url);
    }

    let env = [("SMSDESK_STORE_DATABASE", live_abs.as_str())];
    let (code, csv, err) = run_in(tmp.path(), &["export", "--csv", "--data-dir", "b"], &env);
    assert_eq!(
        code, 0,
        "export only reads: it works beside the running instance: {err}"
    );
    assert!(csv.contains("+33612345600"), "{csv}");
    assert!(!csv.contains("+33612345601"), "the refused send queued nothing: {csv}");

    let health = get_with(&first.url, "/api/v1/health", None);
    assert_eq!(health.status, 200, "the running instance goes on: {}", health.body);
    first.signal("TERM");
    let mut first = first;
    assert!(first.wait(Duration::from_secs(20)).success());
    let (code, _, err) = run_in(tmp.path(), &["rebuild", "--check", "--data-dir", "b"], &env);
    assert_eq!(code, 0, "once the instance has stopped, the database is free: {err}");
}

#[test]
fn serve_refuses_an_empty_or_foreign_database_file_and_names_it() {
    let tmp = tempfile::tempdir().unwrap();
    for (name, content) in [("empty", &b""[..]), ("text", &b"not a database\n"[..])] {
        let dir = tmp.path().join(name);
        std::fs::create_dir_all(&dir).unwrap();
        let db = dir.join("smsdesk.db");
        std::fs::write(&db, content).unwrap();
        let data_dir = dir.display().to_string();
        let (code, _, err) = run_in(tmp.path(), &["serve", "--http-port", "0", "--data-dir", &data_dir], &[]);
        assert_eq!(code, 2, "{name}: {err}");
        assert!(err.contains(&db.display().to_string()), "{name}: names the file: {err}");
        assert!(
            err.contains("Restore it from a backup") && err.contains("move it away"),
            "{err}"
        );
        assert_eq!(std::fs::read(&db).unwrap(), content, "{name}: left as it was");
    }
}
