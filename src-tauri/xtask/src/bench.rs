//! `cargo xtask bench`: every benchmark on release builds, several runs each, one table.
//!
//! The engine's benchmarks (receipt parsing, ingestion, reads at a million messages) run through
//! `cargo bench`; the rest through `smsdesk-bench` (src-tauri/bench), which drives the release
//! `smsdesk` binary over HTTP with the sandbox SMSC in a process of its own, and measures the
//! baselines of the same run (a bare SMPP client, raw SQLite inserts). The table (median, min,
//! max per figure; each figure's ratio to its baseline) is printed, written at the head of
//! docs/benchmarks.md after a complete full run, and every figure of every run is kept as JSON in
//! the target directory.

mod context;
pub(crate) mod json;
mod legend;
mod nodes;
mod outputs;
mod report;
mod rows;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::app::build_app;
use crate::cmd::{self, target_dir, Cmd};
use context::Context;
use outputs::Figure;
use report::Samples;

pub const USAGE: &str = "  bench [-- OPTIONS]
                    every benchmark on release builds, 3 runs each, one table (median, min, max;
                    each figure beside its baseline of the same run): printed, written at the head
                    of docs/benchmarks.md (full runs only), all figures kept as JSON under
                    target/bench/. OPTIONS:
                      --runs N        runs of each benchmark (default 3)
                      --quick         small sizes, to check the harness (docs left alone)
                      --only A,B      only these: parse, ingest, sqlite, smpp-raw, kannel, kannel-intake,
                                      dispatch-batch, smpp-in, dispatch-single, intake, views, start, nodes
                                      (docs left alone)
                      --messages N    messages per end-to-end and intake run (default 20000)
                      --no-docs       leave docs/benchmarks.md alone
                      --keep          keep every run's data directory under target/bench/work";

/// What `cargo xtask bench` was asked.
#[derive(Debug, Clone)]
struct Options {
    runs: usize,
    quick: bool,
    only: Option<Vec<String>>,
    messages: Option<usize>,
    docs: bool,
    keep: bool,
}

fn parse_options(args: &[String]) -> Result<Options, String> {
    let mut o = Options {
        runs: 3,
        quick: false,
        only: None,
        messages: None,
        docs: true,
        keep: false,
    };
    let mut args = args.iter();
    while let Some(a) = args.next() {
        let mut value = |what: &str| args.next().cloned().ok_or(format!("{a} needs {what}"));
        match a.as_str() {
            "--runs" => o.runs = value("a number")?.parse().map_err(|_| "--runs needs a number")?,
            "--quick" => o.quick = true,
            "--only" => o.only = Some(value("names")?.split(',').map(str::to_owned).collect()),
            "--messages" => o.messages = Some(value("a number")?.parse().map_err(|_| "--messages needs a number")?),
            "--no-docs" => o.docs = false,
            "--keep" => o.keep = true,
            _ => return Err(format!("unknown option {a}\n{USAGE}")),
        }
    }
    if o.runs == 0 {
        return Err("--runs must be at least 1".into());
    }
    if let Some(unknown) = o
        .only
        .iter()
        .flatten()
        .find(|n| !BENCHES.iter().any(|b| b.name == n.as_str()))
    {
        return Err(format!("no benchmark named {unknown}\n{USAGE}"));
    }
    Ok(o)
}

/// How much each benchmark does.
#[derive(Debug, Clone, Copy)]
struct Sizes {
    parse: usize,
    ingest: usize,
    messages: usize,
    sqlite_500: usize,
    sqlite_16: usize,
    views: usize,
}

impl Sizes {
    fn of(o: &Options) -> Sizes {
        let mut s = if o.quick {
            Sizes {
                parse: 200_000,
                ingest: 200_000,
                messages: 2_000,
                sqlite_500: 20_000,
                sqlite_16: 2_000,
                views: 100_000,
            }
        } else {
            Sizes {
                parse: 2_000_000,
                ingest: 1_000_000,
                messages: 20_000,
                sqlite_500: 200_000,
                sqlite_16: 20_000,
                views: 1_000_000,
            }
        };
        if let Some(n) = o.messages {
            s.messages = n;
        }
        s
    }

    fn describe(&self) -> String {
        format!(
            "receipt parse {} SMPP reports ({} HTTP); ingest {} receipts against as many messages, 2,048 in flight; \
             end to end and intake {} messages, 16 clients, batches of 500, SMPP window 64, sandbox receipt delay 5 ms; \
             raw SQLite {} rows (500 a transaction) and {} (16 a transaction); reads and start on {} messages",
            self.parse,
            self.parse / 10,
            self.ingest,
            self.messages,
            self.sqlite_500,
            self.sqlite_16,
            self.views
        )
    }
}

/// What every benchmark needs: where things are.
struct Env {
    root: PathBuf,
    smsdesk: PathBuf,
    bench_bin: PathBuf,
    /// target/bench: the JSON, the cached database.
    dir: PathBuf,
    /// target/bench/work: the runs' data directories.
    work: PathBuf,
    sizes: Sizes,
    /// The database the start benchmark starts on, made by the views benchmark's fixture.
    fixture: PathBuf,
    /// Keep every run's data directory.
    keep: bool,
}

/// One benchmark: its name (for --only), the start of its figures' keys, and how it runs.
struct Bench {
    name: &'static str,
    keys: &'static str,
    run: fn(&Env) -> Result<Vec<Figure>, String>,
}

/// In the order each run goes through them: the start benchmark needs the views benchmark's
/// database.
const BENCHES: &[Bench] = &[
    bench("parse", "parse.", parse),
    bench("sqlite", "sqlite.", sqlite),
    bench("smpp-raw", "smpp_raw.", smpp_raw),
    bench("kannel", "kannel.", kannel),
    bench("kannel-intake", "kannel_intake.", kannel_intake),
    bench("dispatch-batch", "dispatch.batch.", dispatch_batch),
    bench("dispatch-single", "dispatch.single.", dispatch_single),
    bench("smpp-in", "smpp_in.", smpp_in),
    bench("intake", "intake.", intake),
    bench("ingest", "ingest.", ingest),
    bench("views", "views.", views),
    bench("start", "start.", start),
    bench("nodes", "nodes.", nodes::nodes),
];

const fn bench(name: &'static str, keys: &'static str, run: fn(&Env) -> Result<Vec<Figure>, String>) -> Bench {
    Bench { name, keys, run }
}

pub fn run(root: &Path, args: Vec<String>) -> Result<(), String> {
    if args.iter().any(|a| a == "--help" || a == "-h") {
        eprintln!("usage: cargo xtask bench [-- OPTIONS]\n\n{USAGE}");
        return Ok(());
    }
    let options = parse_options(&args)?;
    let plan: Vec<&Bench> = BENCHES
        .iter()
        .filter(|b| options.only.as_ref().is_none_or(|o| o.iter().any(|n| n == b.name)))
        .collect();
    let env = prepare(root, &options, &plan)?;
    let mut ctx = Context::now(root);
    let mut samples = Samples::new(options.runs);
    let started = Instant::now();
    for run in 0..options.runs {
        for bench in &plan {
            eprintln!("\nxtask: ── bench, run {} of {}: {}", run + 1, options.runs, bench.name);
            let t = Instant::now();
            match (bench.run)(&env) {
                Ok(figures) if figures.is_empty() => {
                    samples
                        .failures
                        .push((run + 1, bench.name.into(), "it printed no figure".into()));
                }
                Ok(figures) => figures.iter().for_each(|(k, v)| samples.add(run, k, *v)),
                Err(e) => {
                    eprintln!("xtask: bench {} FAILED: {e}", bench.name);
                    samples.failures.push((run + 1, bench.name.into(), e));
                }
            }
            eprintln!("xtask: {} took {:.0?}", bench.name, t.elapsed());
        }
    }
    ctx.load_end = context::load_average();
    eprintln!("\nxtask: benchmarks done in {:.0?}\n", started.elapsed());
    if !options.keep {
        let _ = std::fs::remove_dir_all(&env.work);
    }
    let planned: Vec<&str> = plan.iter().map(|b| b.keys).collect();
    publish(root, &env, &options, &ctx, &samples, &planned)
}

/// Builds what the plan runs and makes the directories; returns where everything is.
fn prepare(root: &Path, options: &Options, plan: &[&Bench]) -> Result<Env, String> {
    let runs = |names: &[&str]| plan.iter().any(|b| names.contains(&b.name));
    if runs(&["kannel", "kannel-intake"]) {
        crate::setup::system_packages(crate::setup::BENCH_PACKAGES)?;
    }
    let smsdesk = build_app(root, true)?;
    let cargo = || Cmd::new("cargo").dir(root);
    cmd::run(cargo().args(["build", "--release", "--locked", "-p", "smsdesk-bench"]))?;
    if runs(&["parse", "ingest", "views"]) {
        cmd::run(
            cargo()
                .args(["bench", "--locked", "--no-run", "-p", "smsdesk-engine"])
                .args(["--bench", "parse", "--bench", "ingest", "--bench", "views"]),
        )?;
    }
    if runs(&["sqlite"]) {
        cmd::run(cargo().args(["bench", "--locked", "--no-run", "-p", "smsdesk-bench"]))?;
    }
    let target = target_dir(root);
    let dir = target.join("bench");
    let work = dir.join("work");
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work).map_err(|e| format!("cannot create {}: {e}", work.display()))?;
    let sizes = Sizes::of(options);
    let fixture = dir.join(format!(
        "views-fixture-schema{}-{}.db",
        schema_version(root),
        sizes.views
    ));
    Ok(Env {
        root: root.to_owned(),
        smsdesk,
        bench_bin: target.join("release").join("smsdesk-bench"),
        dir,
        work,
        sizes,
        fixture,
        keep: options.keep,
    })
}

/// The highest migration number in the store: a database made at another version is made again.
fn schema_version(root: &Path) -> u32 {
    std::fs::read_dir(root.join("src-tauri/store/src/migrations"))
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| e.file_name().to_string_lossy().split('_').next()?.parse().ok())
        .max()
        .unwrap_or(0)
}

/// Prints the table, keeps the JSON, and writes the docs' head table when this was a complete run
/// of everything at full size.
fn publish(
    root: &Path,
    env: &Env,
    options: &Options,
    ctx: &Context,
    samples: &Samples,
    planned: &[&str],
) -> Result<(), String> {
    let sizes = env.sizes.describe();
    let table = report::table(samples, ctx, &sizes, |key| planned.iter().any(|p| key.starts_with(p)));
    println!("{table}");
    let stamp = ctx.date.replace([' ', ':'], "-");
    let json_path = env.dir.join(format!("bench-{stamp}-{}.json", ctx.commit));
    let json = json::document(samples, ctx, &format!("{options:?}"), &sizes);
    std::fs::write(&json_path, json).map_err(|e| format!("cannot write {}: {e}", json_path.display()))?;
    eprintln!("xtask: every figure of every run: {}", json_path.display());
    let complete = !options.quick && options.only.is_none() && samples.failures.is_empty();
    if options.docs && complete {
        let path = root.join("docs/benchmarks.md");
        let doc = std::fs::read_to_string(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let block = format!("## Latest run: `cargo xtask bench`\n\n{table}\n{}", legend::LEGEND);
        std::fs::write(&path, report::with_head_block(&doc, &block))
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        eprintln!("xtask: docs/benchmarks.md: head table written");
    } else if options.docs {
        eprintln!(
            "xtask: docs/benchmarks.md left alone (written only by a complete run of everything, without --quick)"
        );
    }
    match samples.failures.len() {
        0 => Ok(()),
        n => Err(format!("{n} benchmark run(s) failed (see above)")),
    }
}

/// Runs a command, its standard error shown as it comes, and returns its standard output.
fn capture(mut cmd: Command, what: &str) -> Result<String, String> {
    eprintln!("xtask: $ {what}");
    let out = cmd
        .stderr(Stdio::inherit())
        .output()
        .map_err(|e| format!("cannot run {what}: {e}"))?;
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    if !out.status.success() {
        return Err(format!("{what} failed ({}); its output:\n{stdout}", out.status));
    }
    Ok(stdout)
}

/// `cargo bench -p PACKAGE --bench NAME -- ARGS`, built already.
fn cargo_bench(env: &Env, package: &str, name: &str, args: &[String]) -> Command {
    let mut c = Command::new("cargo");
    c.args(["bench", "--locked", "--quiet", "-p", package, "--bench", name, "--"])
        .args(args)
        .current_dir(&env.root);
    c
}

fn engine_bench(env: &Env, name: &str, args: &[String]) -> Result<String, String> {
    capture(
        cargo_bench(env, "smsdesk-engine", name, args),
        &format!("cargo bench -p smsdesk-engine --bench {name} -- {}", args.join(" ")),
    )
}

/// `smsdesk-bench COMMAND --smsdesk BIN --work DIR ARGS`: its figure lines.
fn bench_tool(env: &Env, command: &str, args: &[String]) -> Result<Vec<Figure>, String> {
    let mut c = Command::new(&env.bench_bin);
    c.arg(command)
        .arg("--smsdesk")
        .arg(&env.smsdesk)
        .arg("--work")
        .arg(&env.work)
        .args(env.keep.then_some("--keep"))
        .args(args);
    let out = capture(c, &format!("smsdesk-bench {command} {}", args.join(" ")))?;
    Ok(outputs::figure_lines(&out))
}

fn parse(env: &Env) -> Result<Vec<Figure>, String> {
    Ok(outputs::parse_bench(&engine_bench(
        env,
        "parse",
        &[env.sizes.parse.to_string()],
    )?))
}

fn ingest(env: &Env) -> Result<Vec<Figure>, String> {
    let args = [env.sizes.ingest.to_string(), "2048".into()];
    Ok(outputs::ingest(&engine_bench(env, "ingest", &args)?))
}

fn sqlite(env: &Env) -> Result<Vec<Figure>, String> {
    let mut figures = Vec::new();
    for (n, batch) in [(env.sizes.sqlite_500, 500), (env.sizes.sqlite_16, 16)] {
        let args = [n.to_string(), batch.to_string(), env.work.display().to_string()];
        let what = format!(
            "cargo bench -p smsdesk-bench --bench sqlite_inserts -- {}",
            args.join(" ")
        );
        figures.extend(outputs::figure_lines(&capture(
            cargo_bench(env, "smsdesk-bench", "sqlite_inserts", &args),
            &what,
        )?));
    }
    Ok(figures)
}

fn smpp_raw(env: &Env) -> Result<Vec<Figure>, String> {
    bench_tool(env, "smpp-raw", &["-n".into(), env.sizes.messages.to_string()])
}

fn kannel(env: &Env) -> Result<Vec<Figure>, String> {
    bench_tool(env, "kannel", &["-n".into(), env.sizes.messages.to_string()])
}

fn kannel_intake(env: &Env) -> Result<Vec<Figure>, String> {
    let args = ["-n".into(), env.sizes.messages.to_string(), "--held-off".into()];
    bench_tool(env, "kannel", &args)
}

fn dispatch(env: &Env, intake: &str) -> Result<Vec<Figure>, String> {
    let args = [
        "--intake".into(),
        intake.into(),
        "-n".into(),
        env.sizes.messages.to_string(),
    ];
    bench_tool(env, "dispatch", &args)
}

fn dispatch_batch(env: &Env) -> Result<Vec<Figure>, String> {
    dispatch(env, "batch")
}

fn dispatch_single(env: &Env) -> Result<Vec<Figure>, String> {
    dispatch(env, "single")
}

fn smpp_in(env: &Env) -> Result<Vec<Figure>, String> {
    bench_tool(env, "smpp-in", &["-n".into(), env.sizes.messages.to_string()])
}

fn intake(env: &Env) -> Result<Vec<Figure>, String> {
    bench_tool(env, "intake", &["-n".into(), env.sizes.messages.to_string()])
}

fn start(env: &Env) -> Result<Vec<Figure>, String> {
    if !env.fixture.is_file() {
        return Err(format!(
            "no database at {} (the views benchmark leaves it)",
            env.fixture.display()
        ));
    }
    bench_tool(env, "start", &["--fixture".into(), env.fixture.display().to_string()])
}

/// The views benchmark. Its fixture (built in a temporary directory it removes at the end) is
/// the database the start benchmark needs: while it runs, its file is linked under target/bench
/// (a second name for the same file, which outlives the directory), unless one of this schema
/// version and size is there already.
fn views(env: &Env) -> Result<Vec<Figure>, String> {
    let tmp = env.dir.join("views-tmp");
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(&tmp).map_err(|e| format!("cannot create {}: {e}", tmp.display()))?;
    let n = env.sizes.views.to_string();
    eprintln!("xtask: $ cargo bench -p smsdesk-engine --bench views -- {n}");
    let mut cmd = cargo_bench(env, "smsdesk-engine", "views", std::slice::from_ref(&n));
    let mut child = cmd
        .env("TMPDIR", &tmp)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .map_err(|e| format!("cannot run the views benchmark: {e}"))?;
    let mut stdout = child.stdout.take().expect("piped");
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = std::io::Read::read_to_string(&mut stdout, &mut s);
        s
    });
    let partial = env.fixture.with_extension("partial");
    let _ = std::fs::remove_file(&partial);
    let mut linked = env.fixture.is_file();
    let status = loop {
        if !linked {
            linked = fixture_file(&tmp).is_some_and(|db| std::fs::hard_link(db, &partial).is_ok());
        }
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) => std::thread::sleep(Duration::from_millis(100)),
            Err(e) => return Err(format!("waiting for the views benchmark: {e}")),
        }
    };
    let out = reader.join().unwrap_or_default();
    let _ = std::fs::remove_dir_all(&tmp);
    if !status.success() {
        let _ = std::fs::remove_file(&partial);
        return Err(format!("the views benchmark failed ({status}); its output:\n{out}"));
    }
    if partial.is_file() {
        std::fs::rename(&partial, &env.fixture).map_err(|e| format!("cannot keep the fixture: {e}"))?;
        eprintln!("xtask: kept the views fixture as {}", env.fixture.display());
    }
    Ok(outputs::views(&out))
}

/// The views benchmark's database in its temporary directory, once it is there.
fn fixture_file(tmp: &Path) -> Option<PathBuf> {
    std::fs::read_dir(tmp)
        .ok()?
        .flatten()
        .map(|e| e.path().join("bench.db"))
        .find(|p| p.is_file())
}
