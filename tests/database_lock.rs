//! One process per database file, with the built `smsdesk` binary: while `smsdesk serve` runs, a
//! second `serve`, `rebuild` or `send` that reaches its database through another data directory
//! (`SMSDESK_STORE_DATABASE`: absolute, through a symbolic link, or relative) is refused and names
//! the running one (its process and address); `export` still reads it. Through another name of
//! the same file (a hard link, a bind mount of its folder or of the file alone), `serve` and
//! `rebuild` are refused too, naming it; so are `backup` and `export` where that name does not
//! share the running one's WAL (a hard link, the file alone), and they write nothing beside it.
//! The first goes on, and its database passes its integrity check. A database file that is empty
//! or not SQLite refuses the start, naming the file.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use crate::support::{get_with, start, Mount, BIN};

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

/// Another name of the live database: what it is, the data directory that reaches it, the
/// database as `SMSDESK_STORE_DATABASE` names it (if not the data directory's own), and whether
/// its WAL is the running one's (a bind mount of the whole folder brings the WAL along).
type Name = (&'static str, String, Option<String>, bool);

/// The other names the live database `a/smsdesk.db` is given under `tmp`: a hard link, and
/// (where mounting is permitted) a bind mount of its folder and one of the file alone. The
/// mounts go when the returned guards are dropped.
fn other_names(tmp: &Path) -> (Vec<Name>, Vec<Mount>) {
    let (a, b, c, d) = (tmp.join("a"), tmp.join("b"), tmp.join("c"), tmp.join("d"));
    for dir in [&b, &c, &d, &tmp.join("mnt")] {
        std::fs::create_dir_all(dir).unwrap();
    }
    std::fs::hard_link(a.join("smsdesk.db"), b.join("smsdesk.db")).unwrap();
    let mut ways = vec![("a hard link", "b".to_owned(), None, false)];
    let mut mounts = Vec::new();
    let folder = tmp.join("mnt");
    if let Some(m) = Mount::new(
        &["--bind".as_ref(), a.as_os_str()],
        &folder,
        "the bind mount of the folder",
    ) {
        mounts.push(m);
        let db = folder.join("smsdesk.db").display().to_string();
        ways.push(("a bind mount of its folder", "c".to_owned(), Some(db), true));
    }
    std::fs::write(d.join("smsdesk.db"), b"").unwrap();
    let file = a.join("smsdesk.db");
    if let Some(m) = Mount::new(
        &["--bind".as_ref(), file.as_os_str()],
        &d.join("smsdesk.db"),
        "the bind mount of the file",
    ) {
        mounts.push(m);
        ways.push(("a bind mount of the file alone", "d".to_owned(), None, false));
    }
    (ways, mounts)
}

#[test]
fn a_second_name_of_the_live_database_is_refused_naming_the_holder_and_the_first_goes_on() {
    let tmp = tempfile::tempdir().unwrap();
    let a = tmp.path().join("a");
    let first = start(&a, &["serve", "--http-port", "0"], &[]);
    let pid = first.child.id();
    let send = |to: &str| {
        let args = ["send", "--to", to, "--text", "Order 7 shipped", "--data-dir", "a"];
        let (code, _, err) = run_in(tmp.path(), &args, &[]);
        assert_eq!(code, 0, "through the running instance's own data directory: {err}");
    };
    send("+33612345610");
    // A good copy to restore from, taken beside the running instance through its own name.
    let good = tmp.path().join("good.db").display().to_string();
    let (code, _, err) = run_in(tmp.path(), &["backup", &good, "--data-dir", "a"], &[]);
    assert_eq!(code, 0, "a backup beside the running instance: {err}");
    let (ways, mounts) = other_names(tmp.path());
    let copy = tmp.path().join("copy.db").display().to_string();
    for (what, dir, database, shares_wal) in &ways {
        let env: Vec<(&str, &str)> = database
            .iter()
            .map(|d| ("SMSDESK_STORE_DATABASE", d.as_str()))
            .collect();
        let serve = run_in(tmp.path(), &["serve", "--http-port", "0", "--data-dir", dir], &env);
        assert_names_the_first(&format!("serve through {what}"), &serve, pid, &first.url);
        assert!(
            serve.2.contains(&a.display().to_string()),
            "{what}: names the running one's data directory: {}",
            serve.2
        );
        let rebuild = run_in(tmp.path(), &["rebuild", "--data-dir", dir], &env);
        assert_names_the_first(&format!("rebuild through {what}"), &rebuild, pid, &first.url);
        let restore = run_in(tmp.path(), &["restore", &good, "--data-dir", dir], &env);
        assert_names_the_first(&format!("restore through {what}"), &restore, pid, &first.url);
        assert!(restore.2.contains("Nothing was restored"), "{}", restore.2);
        let (code, csv, err) = run_in(tmp.path(), &["export", "--csv", "--data-dir", dir], &env);
        if *shares_wal {
            assert_eq!(
                code, 0,
                "{what} shares the running one's WAL: export reads beside it: {err}"
            );
            assert!(csv.contains("+33612345610"), "{csv}");
            continue;
        }
        for (tool, (code, _, err)) in [
            ("export", (code, csv, err)),
            (
                "backup",
                run_in(tmp.path(), &["backup", &copy, "--data-dir", dir], &env),
            ),
        ] {
            assert_eq!(code, 2, "{tool} through {what} must be refused: {err}");
            assert!(
                err.contains(&format!("process {pid}")) && err.contains("another name"),
                "{tool} through {what} names the holder and why: {err}"
            );
        }
        let beside = tmp.path().join(dir).join("smsdesk.db-wal");
        assert!(
            !beside.exists(),
            "{what}: a refused process writes nothing beside its name of the database"
        );
    }
    assert!(!Path::new(&copy).exists(), "a refused backup leaves no file");

    let health = get_with(&first.url, "/api/v1/health", None);
    assert_eq!(health.status, 200, "the running instance goes on: {}", health.body);
    send("+33612345611");
    drop(mounts);
    first.signal("TERM");
    let mut first = first;
    assert!(first.wait(Duration::from_secs(20)).success());
    let db = rusqlite::Connection::open(a.join("smsdesk.db")).unwrap();
    let check: String = db.query_row("PRAGMA integrity_check", [], |r| r.get(0)).unwrap();
    assert_eq!(check, "ok", "the database two names reached is whole");
    let messages: i64 = db.query_row("SELECT count(*) FROM message", [], |r| r.get(0)).unwrap();
    assert_eq!(messages, 2, "only what the running instance was given is stored");
}
