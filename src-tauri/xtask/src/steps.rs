//! The commands behind `cargo xtask start|test|api-fuzz|bench-http|bindings|icons`.

use std::cell::RefCell;
use std::path::Path;
use std::time::{Duration, Instant};

use crate::app::{build_app, npm};
use crate::cmd::{linted_cargo, run, target_dir, Cmd};
use crate::lane::Lane;
use crate::postgres::{self, Postgres};
use crate::setup::{self, Purpose};

pub fn start(root: &Path, args: Vec<String>) -> Result<(), String> {
    let bin = build_app(root, true)?;
    let has_display = ["DISPLAY", "WAYLAND_DISPLAY"]
        .iter()
        .any(|v| std::env::var_os(v).is_some_and(|x| !x.is_empty()));
    let mut cmd = Cmd::new(&bin);
    if has_display {
        eprintln!("xtask: starting the smsdesk window");
    } else {
        eprintln!(
            "xtask: no display found (DISPLAY and WAYLAND_DISPLAY are unset), so smsdesk starts headless \
             with `smsdesk serve`: open the address it prints in a browser. Stop it with Ctrl+C."
        );
        cmd = cmd.arg("serve");
    }
    run(cmd.args(args))
}

/// A step of the test command: `Ok(Some(d))` when it only collects what ran alongside for `d`.
type Step<'a> = Box<dyn Fn() -> Result<Option<Duration>, String> + 'a>;

/// The steps that run in a lane beside the Rust tests (their names, in order): they need the
/// binary the build made or nothing of Rust, and mostly wait on servers, browsers and timers, where
/// the Rust tests leave one of the two cores idle.
const ALONGSIDE: [&str; 5] = ["ui-unit-tests", "smpplib", "chromium", "layout", "window"];

pub fn test(root: &Path) -> Result<(), String> {
    let target = target_dir(root);
    let bin = target.join("debug").join("smsdesk");
    let logs = target.join("test-logs");
    let (fuzzing, full_disk, lane) = (RefCell::new(None), RefCell::new(None), RefCell::new(None));
    // The store's tests on PostgreSQL find it here; it stops when the test command ends.
    let postgres = RefCell::new(None);
    let next = |lane: &RefCell<Option<Lane>>, name: &str| match lane.borrow().as_ref() {
        Some(lane) => lane.next(name).map(Some),
        None => Err(format!("`{name}` was not started")),
    };
    let steps: Vec<(&str, Step)> = vec![
        ("install what is missing", Box::new(|| here(setup::all(root, Purpose::Test)))),
        ("ui: type check", Box::new(|| here(run(npm(root, "ui", "typecheck"))))),
        ("ui: build", Box::new(|| here(run(npm(root, "ui", "build"))))),
        (
            "rust: formatting",
            Box::new(|| here(run(Cmd::new("cargo").args(["fmt", "--all", "--check"]).dir(root)))),
        ),
        (
            "rust: house rules (crates and modules without circles, SQL only in the store, files and functions within their lengths, the manual's pictures)",
            Box::new(|| here(crate::house::run(root, false))),
        ),
        (
            "docs: the manual built (mdBook), its links, pictures and pages checked",
            Box::new(|| here(crate::manual::build(root).and_then(|_| crate::manual::check(root)))),
        ),
        (
            "rust: every target built once, with clippy's lints (warnings denied)",
            Box::new(|| {
                let build = ["test", "--workspace", "--all-targets", "--no-run", "--locked", "--profile", "dev"];
                here(run(linted_cargo(root)?.args(build)))
            }),
        ),
        (
            "rust: unit, integration and end-to-end tests (the store's on SQLite and on a private PostgreSQL)",
            Box::new(|| {
                // The API fuzzing needs only the binary just built, and mostly waits on its own
                // Python and on the server's answers: it runs alongside the Rust tests.
                let args = ["--seed", FUZZ_SEED, "--max-examples", FUZZ_EXAMPLES].map(str::to_owned);
                let fuzz = vec![("api-fuzz", fuzz_script(root, &bin, &args))];
                *fuzzing.borrow_mut() = Some(Lane::start(fuzz, &logs)?);
                // The full-disk test mostly waits (a lease period, on a slow SMSC): alongside too.
                // Over the workspace, as the build step built it: `-p smsdesk` resolves features
                // apart and compiled 26 crates again beside the tests.
                let e2e = ["test", "--workspace", "--test", "e2e", "--locked", "--profile", "dev", "--"];
                let disk = vec![("full-disk", linted_cargo(root)?.args(e2e).arg(FULL_DISK))];
                *full_disk.borrow_mut() = Some(Lane::start(disk, &logs)?);
                *lane.borrow_mut() = Some(Lane::start(alongside(root, &bin), &logs)?);
                let server = Postgres::start()?;
                let (url, ctl) = (server.url.clone(), server.ctl());
                *postgres.borrow_mut() = Some(server);
                let all = ["test", "--workspace", "--locked", "--profile", "dev", "--", "--skip", FULL_DISK];
                let tests = linted_cargo(root)?.args(all).env(postgres::URL_VAR, url);
                here(run(tests.env(postgres::CTL_VAR, ctl)))
            }),
        ),
        (
            "api: malformed and valid requests from the OpenAPI description, then the database checked",
            // A fixed seed keeps the test command reproducible; `cargo xtask api-fuzz` explores a
            // new seed on every run.
            Box::new(|| next(&fuzzing, "api-fuzz")),
        ),
        (
            "rust: the full-disk test on a 24 MiB tmpfs",
            Box::new(|| next(&full_disk, "full-disk")),
        ),
        ("ui: unit tests", Box::new(|| next(&lane, ALONGSIDE[0]))),
        (
            "smpp: an independent client (smpplib) through smsdesk's SMPP server: 10,000 messages, a burst throttled, kill -9 and restart",
            Box::new(|| next(&lane, ALONGSIDE[1])),
        ),
        ("browser: the UI served by `smsdesk serve`, in headless Chromium", Box::new(|| next(&lane, ALONGSIDE[2]))),
        (
            // No sideways scroll, no overlapping or spilling labels, and axe, on a server of its own.
            "layout: every screen at 390 and 1366 px in English, French and Russian, in headless Chromium",
            Box::new(|| next(&lane, ALONGSIDE[3])),
        ),
        (
            "window: the desktop window through tauri-driver and WebKitWebDriver, under Xvfb",
            Box::new(|| next(&lane, ALONGSIDE[4])),
        ),
        (
            "package: the .deb checked (lintian, desktop entry, unit), installed, its service run as its user, removed",
            Box::new(|| here(crate::package_test::run_test(root, &bin))),
        ),
    ];
    run_steps(&steps)
}

/// A step that ran here, in the foreground: its time is the step's own.
fn here<T>(result: Result<T, String>) -> Result<Option<Duration>, String> {
    result.map(|_| None)
}

/// The lane's commands, named as in [`ALONGSIDE`].
fn alongside(root: &Path, bin: &Path) -> Vec<(&'static str, Cmd)> {
    let browser = |script: &str| {
        Cmd::new("npm")
            .args(["run", script])
            .dir(root.join("tests/browser"))
            .env("SMSDESK_BIN", bin)
    };
    let smpplib = Cmd::new("python3")
        .arg(root.join("tests/smpp/smpplib_peer.py"))
        .arg("--bin")
        .arg(bin);
    let window = browser("test:window").env("TAURI_DRIVER", setup::cargo_bin("tauri-driver"));
    let cmds = [
        npm(root, "ui", "test"),
        smpplib,
        browser("test:chromium"),
        browser("test:layout"),
        window,
    ];
    ALONGSIDE.into_iter().zip(cmds).collect()
}

/// Runs the steps in order, stopping at the first failure, and ends with the time of each.
fn run_steps(steps: &[(&str, Step)]) -> Result<(), String> {
    let started = Instant::now();
    let total = steps.len();
    let mut took: Vec<(&str, Duration, bool)> = Vec::new();
    for (name, step) in steps {
        eprintln!("\nxtask: ── {name}");
        let t = Instant::now();
        let result = step();
        let alongside = matches!(result, Ok(Some(_)));
        let own = match &result {
            Ok(Some(d)) => *d,
            _ => t.elapsed(),
        };
        took.push((name, own, alongside));
        if let Err(e) = result {
            eprintln!("\nxtask: FAILED at step \"{name}\": {e}");
            eprint!("{}", times(&took, started.elapsed()));
            println!(
                "test steps: {} passed, 1 failed, {} skipped",
                took.len() - 1,
                total - took.len()
            );
            return Err("the test suite failed".into());
        }
        eprintln!("xtask: ok: {name} ({own:.0?})");
    }
    eprintln!("\nxtask: every check passed in {:.0?}", started.elapsed());
    eprint!("{}", times(&took, started.elapsed()));
    println!("test steps: {} passed, 0 failed", took.len());
    Ok(())
}

/// The time each step took, and the whole, as a table: where a run's minutes went. A step that ran
/// alongside the Rust tests shows its own time, marked so: those minutes overlap.
fn times(took: &[(&str, Duration, bool)], whole: Duration) -> String {
    let mut out = String::from("\nxtask: time by step (* ran alongside the Rust tests)\n");
    for (name, d, alongside) in took {
        let mark = if *alongside { "*" } else { " " };
        out.push_str(&format!("  {:>7}{mark} {name}\n", clock(*d)));
    }
    out.push_str(&format!("  {:>7}  in all\n", clock(whole)));
    out
}

/// A duration as minutes and seconds (`12:05`).
fn clock(d: Duration) -> String {
    let s = d.as_secs();
    format!("{}:{:02}", s / 60, s % 60)
}

/// The seed of the API fuzz run in `cargo xtask test`.
const FUZZ_SEED: &str = "20261129";
/// The end-to-end tests of a full disk, run apart from the rest (and skipped by it).
const FULL_DISK: &str = "disk_full::";
/// Its cases per operation and phase: half of what `cargo xtask api-fuzz` tries by default, so
/// that it ends within the Rust tests it runs beside (at 200 it outlasted them by 80 s of a warm
/// run), still about 7,000 requests over every operation.
const FUZZ_EXAMPLES: &str = "100";

/// `python3 tests/http/api_fuzz.py` against `bin` (the debug build `cargo test` made).
fn fuzz_script(root: &Path, bin: &Path, args: &[String]) -> Cmd {
    Cmd::new("python3")
        .arg(root.join("tests/http/api_fuzz.py"))
        .args(args.iter().cloned())
        .dir(root)
        .env("SMSDESK_BIN", bin)
}

/// Builds the debug binary and fuzzes its API (tests/http/api_fuzz.py; ARGS go to it).
pub fn api_fuzz(root: &Path, args: Vec<String>) -> Result<(), String> {
    setup::system_packages(setup::FUZZ_PACKAGES)?;
    let bin = build_app(root, false)?;
    run(fuzz_script(root, &bin, &args))
}

/// Builds the release binary and measures HTTP intake (tests/http/bench_http.py, which installs its
/// load generator; ARGS go to it).
pub fn bench_http(root: &Path, args: Vec<String>) -> Result<(), String> {
    let bin = build_app(root, true)?;
    run(Cmd::new("python3")
        .arg(root.join("tests/http/bench_http.py"))
        .arg("--bin")
        .arg(&bin)
        .args(args)
        .dir(root))
}

pub fn bindings(root: &Path) -> Result<(), String> {
    run(Cmd::new("cargo")
        .args(["run", "--quiet", "-p", "smsdesk-http", "--example", "write_bindings"])
        .dir(root))
}

pub fn icons(root: &Path) -> Result<(), String> {
    setup::all(root, Purpose::Run)?;
    run(Cmd::new("npx")
        .args(["tauri", "icon", "../icons/icon.svg", "-o", "../icons"])
        .dir(root.join("ui")))?;
    for platform in ["android", "ios"] {
        let _ = std::fs::remove_dir_all(root.join("icons").join(platform));
    }
    Ok(())
}
