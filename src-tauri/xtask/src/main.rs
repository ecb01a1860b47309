//! Project automation, run as `cargo xtask <command>` from anywhere in the repository.
//!
//! - `start`: install what is missing (system packages, npm packages, Rust crates), build the UI and
//!   the app, and run it: the desktop window where a display exists, `smsdesk serve` otherwise.
//! - `test`: every check the project has, in the order that fails fastest.
//! - `bundle`: the .deb and .rpm packages of a release build.
//! - `api-fuzz`: malformed and valid requests against the API from its OpenAPI description
//!   (tests/http/api_fuzz.py), then the database checked for anything half-written.
//! - `bench`: every benchmark on release builds, several runs each, one table (docs/benchmarks.md).
//! - `bench-http`: the HTTP intake benchmark with ApacheBench (tests/http/bench_http.py) on a release
//!   build, over several client counts and sending modes.
//! - `postgres`: run a command beside a private PostgreSQL, its URL in SMSDESK_TEST_PG_URL.
//! - `setup`: only the installation part, for both running and testing.
//! - `house`: check the crate graph and where SQL is written (`--write` redraws the manual's graph).
//! - `manual`: build the manual (docs/, mdBook) and check its links and pages.
//! - `screenshots`: take every picture the manual shows, from the end-to-end stories.
//! - `bindings`: regenerate the UI's TypeScript types from the Rust types.
//! - `icons`: regenerate every icon size from icons/icon.svg.
//!
//! Plain std on purpose: this has to build in seconds on a machine that has nothing else yet.

mod app;
mod bench;
mod circles;
mod cmd;
mod drawing;
mod house;
mod json;
mod lane;
mod layout;
mod lengths;
mod manual;
mod package;
mod package_test;
mod postgres;
mod screenshots;
mod service_test;
mod setup;
mod steps;
mod tree;

use std::path::PathBuf;
use std::process::ExitCode;

const USAGE: &str =
    "usage: cargo xtask <start|test|bundle|package-test|service-test|api-fuzz|bench|bench-http|postgres|setup|house|manual|screenshots|bindings|icons> [args]

  start [-- ARGS]   set up what is missing, build (release) and run smsdesk
                    (window if a display exists, else `serve`); ARGS go to smsdesk
  test              run the whole test suite (formatting, lints, Rust tests, UI type check and
                    tests, API fuzzing, end-to-end tests in a browser and in the desktop window)
  bundle            build (release) the Debian and RPM packages, with the man pages, shell
                    completions and the systemd unit (target/package/release/bundle/)
  package-test      the test command's package test alone: a .deb of the debug build installed
                    on this machine (root or sudo), its service run, then removed
  service-test      the .deb on a fresh Debian 12 booted with systemd in a container
                    (systemd-nspawn; downloads a base system once): smsdesk.service started,
                    reloaded and stopped as systemd runs it, hardening included
  api-fuzz [-- ARGS]
                    fuzz the HTTP API from its OpenAPI description (Schemathesis) on a debug
                    build, then check the database; ARGS go to tests/http/api_fuzz.py
{BENCH}
  bench-http [-- ARGS]
                    post 100,000 messages over HTTP to a release build and report committed/s
                    and latency; ARGS go to tests/http/bench_http.py
  postgres -- COMMAND [ARGS]
                    run COMMAND beside a private PostgreSQL made for it (stopped after), its
                    URL in SMSDESK_TEST_PG_URL: the store's tests on PostgreSQL, alone
  setup             install system packages, npm packages and Rust crates, nothing else
  house [--write]   check the house rules: which crate may depend on which, SQL only in the
                    store, the manual's crate graph drawn from the code (--write redraws it)
  manual            build the manual (docs/, mdBook) into target/manual, check its links,
                    pictures and pages, and print where its HTML is
  screenshots       take every picture of the manual again (the stories in Chromium and in the
                    desktop window) and replace docs/screenshots with them
  bindings          regenerate ui/src/bindings from the Rust types, and the manual's API
                    reference from the OpenAPI description
  icons             regenerate icons/ from icons/icon.svg";

fn main() -> ExitCode {
    let usage = USAGE.replace("{BENCH}", bench::USAGE);
    let args: Vec<String> = std::env::args().skip(1).collect();
    let root = repo_root();
    let result = match args.first().map(String::as_str) {
        Some("start") => steps::start(&root, passthrough(&args[1..])),
        Some("test") => steps::test(&root),
        Some("api-fuzz") => steps::api_fuzz(&root, passthrough(&args[1..])),
        Some("bench") => bench::run(&root, passthrough(&args[1..])),
        Some("bundle") => package::bundle_release(&root),
        Some("service-test") => service_test::run_test(&root),
        Some("package-test") => app::build_app(&root, false).and_then(|bin| package_test::run_test(&root, &bin)),
        Some("bench-http") => steps::bench_http(&root, passthrough(&args[1..])),
        Some("postgres") => postgres::run_with(&root, passthrough(&args[1..])),
        Some("setup") => setup::all(&root, setup::Purpose::Test),
        Some("house") => house::run(&root, args.get(1).map(String::as_str) == Some("--write")),
        Some("manual") => manual::run_all(&root),
        Some("screenshots") => screenshots::run_all(&root),
        Some("bindings") => steps::bindings(&root),
        Some("icons") => steps::icons(&root),
        _ => {
            eprintln!("{usage}");
            return ExitCode::from(2);
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("xtask: {e}");
            ExitCode::FAILURE
        }
    }
}

fn passthrough(args: &[String]) -> Vec<String> {
    match args.first().map(String::as_str) {
        Some("--") => args[1..].to_vec(),
        _ => args.to_vec(),
    }
}

/// The repository root: this crate lives in src-tauri/xtask.
fn repo_root() -> PathBuf {
    // `cargo xtask` (cargo run) says where the package is at run time; the path compiled in may be
    // another checkout's when several share one target directory.
    let manifest_dir =
        std::env::var_os("CARGO_MANIFEST_DIR").map_or_else(|| env!("CARGO_MANIFEST_DIR").into(), PathBuf::from);
    manifest_dir
        .join("../..")
        .canonicalize()
        .expect("the repository root exists")
}
