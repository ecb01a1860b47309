//! The house rules that no compiler error states by itself: which crate may depend on which, where
//! SQL may be written, how long a function or a file may grow, and the manual's crate graph
//! (docs/architecture.md), drawn from the code so it cannot drift.
//!
//! `cargo xtask house` checks them (it is a step of `cargo xtask test`); `cargo xtask house --write`
//! redraws the manual's graph after a change of the crates.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::drawing::GRAPH_PAGE;
use crate::lengths::{braces, MAX_FILE_LINES, MAX_FN_LINES, TOO_LONG_TODAY};

/// A crate that must never depend, directly or through others, on any of `on`.
struct Never {
    krate: &'static str,
    on: &'static [&'static str],
    why: &'static str,
}

const NEVER: &[Never] = &[
    Never {
        krate: "smsdesk-core",
        on: &[
            "tokio",
            "rusqlite",
            "postgres",
            "axum",
            "hyper",
            "reqwest",
            "rusmpp",
            "smsdesk-store",
            "smsdesk-engine",
        ],
        why: "core is the domain as pure functions: no I/O, no async runtime, no database",
    },
    Never {
        krate: "smsdesk-store",
        on: &[
            "axum",
            "hyper",
            "reqwest",
            "rusmpp",
            "smsdesk-smpp",
            "smsdesk-sandbox",
            "smsdesk-engine",
        ],
        why: "the store knows its databases and the domain, nothing of the network or of what drives it",
    },
    Never {
        krate: "smsdesk-smpp",
        on: &[
            "rusqlite",
            "postgres",
            "axum",
            "smsdesk-store",
            "smsdesk-engine",
            "smsdesk-sandbox",
        ],
        why: "the session knows PDUs and the link; what becomes of a report is the engine's business",
    },
    Never {
        krate: "smsdesk-sandbox",
        on: &[
            "rusqlite",
            "postgres",
            "axum",
            "reqwest",
            "smsdesk-store",
            "smsdesk-smpp",
            "smsdesk-engine",
        ],
        why: "the sandbox is a stand-in SMSC: it must not share the client's code, or it would share its bugs",
    },
    Never {
        krate: "smsdesk-engine",
        on: &["axum", "tauri", "clap", "smsdesk-http", "smsdesk-cli"],
        why: "the engine is reached through doors above it (HTTP, the command line, the window), never the reverse",
    },
    Never {
        krate: "smsdesk-http",
        on: &["tauri", "clap", "smsdesk-cli"],
        why: "the HTTP API serves browsers and integrations; the window and the command line sit above it",
    },
];

/// The doors (HTTP, the command line, the window) reach the database only through the engine: none
/// names the store as a dependency of its own (their tests may, to set a scene or check one), and
/// the engine does not hand the whole store or its tables on (by any name, see `hands_on_the_store`).
const THROUGH_THE_ENGINE: &[&str] = &["smsdesk-http", "smsdesk-cli", "smsdesk"];

/// The only crate that may depend on a database's client (tests aside), and the only one that runs
/// SQL.
const SQL_CRATE: &str = "smsdesk-store";

/// The databases' clients: SQLite's and PostgreSQL's.
const DATABASE_CLIENTS: &[&str] = &["rusqlite", "postgres"];

/// What runs SQL on a connection.
const SQL_CALLS: &[&str] = &[
    ".prepare(",
    ".prepare_cached(",
    ".execute(",
    ".execute_batch(",
    ".query_row(",
    ".pragma_update(",
];

/// External crates worth drawing: the ones the rules above are about.
const DRAWN_EXTERNALS: &[&str] = &["rusqlite", "postgres", "rusmpp", "tokio", "axum", "tauri"];

const GRAPH_START: &str = "<!-- crate graph: drawn by `cargo xtask house --write` from the Cargo manifests -->";
const GRAPH_END: &str = "<!-- end of crate graph -->";
/// The same page's picture of the engine's modules, between these two markers.
const MODULES_START: &str = "<!-- engine modules: drawn by `cargo xtask house --write` from the engine's use lines -->";
const MODULES_END: &str = "<!-- end of engine modules -->";

/// Checks every rule; with `write`, first redraws the manual's crate graph.
pub fn run(root: &Path, write: bool) -> Result<(), String> {
    let members = members(root)?;
    // Each crate's own dependencies: what it is built from, and with its tests' too.
    let (mut built_from, mut with_tests) = (BTreeMap::new(), BTreeMap::new());
    for m in &members {
        built_from.insert(m.clone(), deps(root, m, "normal", true)?);
        with_tests.insert(m.clone(), deps(root, m, "normal,dev", true)?);
    }
    let mut problems = Vec::new();
    for rule in NEVER {
        if !members.iter().any(|m| m == rule.krate) {
            continue;
        }
        let all = deps(root, rule.krate, "normal", false)?;
        for bad in rule.on.iter().filter(|d| all.contains(**d)) {
            problems.push(format!("{} depends on {bad}: {}", rule.krate, rule.why));
        }
    }
    problems.extend(doors_on_the_store(&built_from));
    problems.extend(store_handed_on(root)?);
    // Tests may open the database themselves (a dev-dependency) to set a scene or check one.
    for (krate, ds) in &built_from {
        for client in DATABASE_CLIENTS
            .iter()
            .filter(|c| ds.contains(**c) && krate != SQL_CRATE)
        {
            problems.push(format!(
                "{krate} depends on {client}: only {SQL_CRATE} talks to the database"
            ));
        }
    }
    if let Some(cycle) = cycle(&members, &with_tests) {
        problems.push(format!(
            "the crates depend on each other in a circle: {}",
            cycle.join(" -> ")
        ));
    }
    problems.extend(sql_outside_the_store(root)?);
    problems.extend(wall_clock_outside_the_clock(root)?);
    problems.extend(crate::lengths::too_long(&product_code(root)?));
    problems.extend(module_circles(root)?);
    problems.extend(crate::layout::strangers(root));

    let graph = crate::drawing::mermaid(&members, &built_from, DRAWN_EXTERNALS);
    let modules = crate::drawing::engine_modules(&crate_sources(root, &root.join("src-tauri/engine/src"))?);
    let page_path = root.join(GRAPH_PAGE);
    let page = std::fs::read_to_string(&page_path).map_err(|e| format!("cannot read {GRAPH_PAGE}: {e}"))?;
    let redrawn = crate::drawing::between(&page, (GRAPH_START, GRAPH_END), &graph)
        .and_then(|p| crate::drawing::between(&p, (MODULES_START, MODULES_END), &modules))?;
    if write && redrawn != page {
        std::fs::write(&page_path, &redrawn).map_err(|e| format!("cannot write {GRAPH_PAGE}: {e}"))?;
        eprintln!("xtask: {GRAPH_PAGE}: crate graph and engine modules redrawn");
    } else if redrawn != page {
        problems.push(format!(
            "{GRAPH_PAGE}'s pictures of the crates and the engine's modules are not the code's: run `cargo xtask house --write`"
        ));
    }

    eprintln!(
        "xtask: house: {} crates checked; no module circle in any; SQL only in {SQL_CRATE}; the wall clock only in {CLOCK_FILE}; functions within {MAX_FN_LINES} lines and files within {MAX_FILE_LINES} ({} allowed over)",
        members.len(),
        TOO_LONG_TODAY.len()
    );
    if problems.is_empty() {
        Ok(())
    } else {
        for p in &problems {
            eprintln!("xtask: house rule broken: {p}");
        }
        Err(format!("{} house rule(s) broken", problems.len()))
    }
}

/// The workspace's crates, by package name.
fn members(root: &Path) -> Result<Vec<String>, String> {
    let out = cargo(
        root,
        &[
            "tree",
            "--workspace",
            "--depth",
            "0",
            "-e",
            "normal",
            "--prefix",
            "none",
            "-f",
            "{p}",
        ],
    )?;
    let mut names: Vec<String> = out
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .map(str::to_owned)
        .collect();
    names.sort();
    names.dedup();
    if names.is_empty() {
        return Err("cargo tree listed no crates".into());
    }
    Ok(names)
}

/// The packages `krate` depends on through the given kinds of edges: only its own (`direct`), or
/// everything it pulls in.
fn deps(root: &Path, krate: &str, edges: &str, direct: bool) -> Result<BTreeSet<String>, String> {
    let mut args = vec!["tree", "-p", krate, "-e", edges, "--prefix", "none", "-f", "{p}"];
    if direct {
        args.extend(["--depth", "1"]);
    }
    let out = cargo(root, &args)?;
    Ok(out
        .lines()
        .filter(|l| !l.starts_with('['))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|name| *name != krate)
        .map(str::to_owned)
        .collect())
}

fn cargo(root: &Path, args: &[&str]) -> Result<String, String> {
    let out = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .args(args)
        .arg("--quiet")
        .current_dir(root)
        .output()
        .map_err(|e| format!("cannot run cargo {}: {e}", args.join(" ")))?;
    if !out.status.success() {
        return Err(format!(
            "cargo {} failed: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    String::from_utf8(out.stdout).map_err(|e| format!("cargo {} wrote non-UTF-8: {e}", args.join(" ")))
}

/// A circle of workspace crates, if their edges (normal and dev) make one.
fn cycle(members: &[String], direct: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        at: &str,
        direct: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(i) = path.iter().position(|p| p == at) {
            let mut circle = path[i..].to_vec();
            circle.push(at.to_owned());
            return Some(circle);
        }
        if done.contains(at) {
            return None;
        }
        path.push(at.to_owned());
        for next in direct.get(at).into_iter().flatten().filter(|d| direct.contains_key(*d)) {
            if let Some(c) = visit(next, direct, path, done) {
                return Some(c);
            }
        }
        path.pop();
        done.insert(at.to_owned());
        None
    }
    let mut done = BTreeSet::new();
    members
        .iter()
        .find_map(|m| visit(m, direct, &mut Vec::new(), &mut done))
}

/// Every file outside the store that runs SQL.
fn sql_outside_the_store(root: &Path) -> Result<Vec<String>, String> {
    Ok(product_code(root)?
        .into_iter()
        .filter(|(rel, _)| !rel.starts_with("src-tauri/store/"))
        .filter_map(|(rel, code)| {
            let call = SQL_CALLS.iter().find(|c| code.contains(**c))?;
            Some(format!(
                "{rel} runs SQL (`{call}`): queries belong in {SQL_CRATE}'s table modules"
            ))
        })
        .collect())
}

/// Each door that names the store among what it is built from (its tests' dependencies aside).
fn doors_on_the_store(built_from: &BTreeMap<String, BTreeSet<String>>) -> Vec<String> {
    THROUGH_THE_ENGINE
        .iter()
        .filter(|krate| built_from.get(**krate).is_some_and(|ds| ds.contains(SQL_CRATE)))
        .map(|krate| format!("{krate} depends on {SQL_CRATE}: the doors ask the engine, which owns the database"))
        .collect()
}

/// Every engine file that hands the whole store on to the engine's users.
fn store_handed_on(root: &Path) -> Result<Vec<String>, String> {
    Ok(product_code(root)?
        .into_iter()
        .filter(|(rel, _)| rel.starts_with("src-tauri/engine/"))
        .filter_map(|(rel, code)| {
            let line = hands_on_the_store(&code)?;
            Some(format!(
                "{rel} re-exports the store (`{line}`): offer what the doors need from an engine module instead"
            ))
        })
        .collect())
}

/// The first `pub use` that hands on the store's crate or its tables whole (by its name or the
/// engine's alias, renamed or as a glob); a read model or a named item is the engine's choice.
fn hands_on_the_store(code: &str) -> Option<&str> {
    code.lines().map(str::trim).find(|line| {
        let Some(path) = line.strip_prefix("pub use ") else {
            return false;
        };
        let path = path.trim_end_matches(';').split(" as ").next().unwrap_or("").trim();
        let path = path.strip_prefix("crate::").unwrap_or(path).trim_end_matches("::*");
        let path = path
            .strip_prefix("smsdesk_store")
            .or_else(|| path.strip_prefix("store"));
        matches!(path, Some("" | "::tables" | "::{self}" | "::tables::{self}"))
    })
}

/// The one file that reads the wall clock: every other part reads the `Clock` it is handed.
const CLOCK_FILE: &str = "src-tauri/core/src/time.rs";

/// Every product file but the clock's that reads the wall clock itself.
fn wall_clock_outside_the_clock(root: &Path) -> Result<Vec<String>, String> {
    Ok(product_code(root)?
        .into_iter()
        .filter(|(rel, code)| rel != CLOCK_FILE && code.contains("SystemTime::now("))
        .map(|(rel, _)| {
            format!("{rel} reads the wall clock (`SystemTime::now`): read the `Clock` it is handed instead")
        })
        .collect())
}

/// The product's Rust sources (the project commands, tests, benchmarks and fuzz targets aside),
/// each as its path from the repository root and its text up to its test module.
fn product_code(root: &Path) -> Result<Vec<(String, String)>, String> {
    let mut out = Vec::new();
    for file in rust_sources(&root.join("src-tauri"))? {
        let rel = file
            .strip_prefix(root)
            .unwrap_or(&file)
            .to_string_lossy()
            .replace('\\', "/");
        if rel.starts_with("src-tauri/xtask/") || is_test_or_bench(&rel) {
            continue;
        }
        let text = std::fs::read_to_string(&file).map_err(|e| format!("cannot read {rel}: {e}"))?;
        out.push((rel, without_test_modules(&text, false)));
    }
    Ok(out)
}

/// A file's text without its test modules: each `#[cfg(test)] mod name { … }` and `#[cfg(test)]
/// mod name;` (the file it names is a test file). Any other `#[cfg(test)]` item is code like any
/// other and is kept. With `blank`, each line taken out is left empty, so lines keep their numbers.
fn without_test_modules(text: &str, blank: bool) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < lines.len() {
        let next = lines[i + 1..]
            .iter()
            .position(|l| !l.trim().is_empty())
            .map(|p| i + 1 + p);
        let test_module = lines[i].trim() == "#[cfg(test)]" && next.is_some_and(|n| is_mod_item(lines[n]));
        if !test_module {
            out.push_str(lines[i]);
            out.push('\n');
            i += 1;
            continue;
        }
        let start = next.unwrap_or(i);
        let mut end = start;
        if !lines[start].trim_end().ends_with(';') {
            let mut depth = 0;
            while end < lines.len() {
                let (opens, closes) = braces(lines[end]);
                depth += opens - closes;
                if depth <= 0 && (opens > 0 || closes > 0) {
                    break;
                }
                end += 1;
            }
        }
        if blank {
            out.push_str(&"\n".repeat(end.min(lines.len() - 1) + 1 - i));
        }
        i = end + 1;
    }
    out
}

/// Whether a line starts a module item (`mod name;` or `mod name {`), of any visibility.
fn is_mod_item(line: &str) -> bool {
    let mut rest = line.trim_start();
    for prefix in ["pub(crate) ", "pub(super) ", "pub "] {
        rest = rest.strip_prefix(prefix).unwrap_or(rest);
    }
    rest.strip_prefix("mod ").is_some_and(|r| {
        let name: String = r.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
        !name.is_empty() && matches!(r[name.len()..].trim_start().chars().next(), Some(';' | '{'))
    })
}

/// The product sources of the crate whose `src/` is `src`, each with its module and its code
/// without test modules (lines kept, for the messages).
fn crate_sources(root: &Path, src: &Path) -> Result<Vec<crate::circles::Source>, String> {
    let mut sources = Vec::new();
    for file in rust_sources(src)? {
        let rel = file
            .strip_prefix(src)
            .unwrap_or(&file)
            .to_string_lossy()
            .replace('\\', "/");
        let from_root = file
            .strip_prefix(root)
            .unwrap_or(&file)
            .to_string_lossy()
            .replace('\\', "/");
        if is_test_or_bench(&from_root) {
            continue;
        }
        let text = std::fs::read_to_string(&file).map_err(|e| format!("cannot read {from_root}: {e}"))?;
        sources.push(crate::circles::Source {
            module: crate::circles::module_of(&rel),
            path: from_root,
            code: without_test_modules(&text, true),
        });
    }
    Ok(sources)
}

/// Every circle among the modules of one level inside each crate (see `circles.rs`).
fn module_circles(root: &Path) -> Result<Vec<String>, String> {
    let mut problems = Vec::new();
    let crates = std::fs::read_dir(root.join("src-tauri")).map_err(|e| format!("cannot list src-tauri: {e}"))?;
    let mut dirs: Vec<PathBuf> = crates
        .filter_map(|e| e.ok().map(|e| e.path().join("src")))
        .filter(|p| p.is_dir())
        .collect();
    dirs.push(root.join("src-tauri/src"));
    dirs.sort();
    dirs.dedup();
    for src in dirs {
        let sources = crate_sources(root, &src)?;
        for circle in crate::circles::circles(&sources) {
            let name = |m: &Vec<String>| m.join("::");
            let mut route: Vec<String> = circle.iter().map(|e| name(&e.from)).collect();
            route.push(circle.last().map(|e| name(&e.to)).unwrap_or_default());
            let because: Vec<String> = circle.iter().map(|e| e.because.clone()).collect();
            problems.push(format!(
                "modules of {} use each other in a circle: {} ({}): move what they share down into a module both use",
                src.strip_prefix(root).unwrap_or(&src).display(),
                route.join(" -> "),
                because.join("; ")
            ));
        }
    }
    Ok(problems)
}

/// Tests, benchmarks and fuzz targets may open the database themselves to set a scene or check one.
fn is_test_or_bench(rel: &str) -> bool {
    rel.ends_with("/tests.rs")
        || rel.ends_with("_tests.rs")
        || rel.ends_with("/test_support.rs")
        || rel.contains("/tests/")
        || rel.contains("/benches/")
        || rel.contains("/fuzz/")
}

fn rust_sources(dir: &Path) -> Result<Vec<PathBuf>, String> {
    crate::tree::files_under(dir, "rs", &["target", "gen", "node_modules"])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::drawing::between;
    use crate::lengths::functions;

    fn graph(edges: &[(&str, &str)]) -> (Vec<String>, BTreeMap<String, BTreeSet<String>>) {
        let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for (a, b) in edges {
            g.entry(a.to_string()).or_default().insert(b.to_string());
            g.entry(b.to_string()).or_default();
        }
        (g.keys().cloned().collect(), g)
    }

    #[test]
    fn a_circle_of_crates_is_found_and_named_and_a_tree_has_none() {
        let (members, g) = graph(&[("engine", "store"), ("store", "core"), ("engine", "core")]);
        assert_eq!(cycle(&members, &g), None, "a layered graph has no circle");
        let (members, g) = graph(&[("engine", "store"), ("store", "core"), ("core", "engine")]);
        let circle = cycle(&members, &g).expect("engine -> store -> core -> engine is a circle");
        assert_eq!(
            circle.first(),
            circle.last(),
            "a circle ends where it starts: {circle:?}"
        );
        assert_eq!(circle.len(), 4, "{circle:?}");
    }

    #[test]
    fn only_the_text_between_the_markers_is_redrawn() {
        let readme = format!("# x\nbefore\n{GRAPH_START}\nold picture\n{GRAPH_END}\nafter\n");
        let redrawn = crate::drawing::between(&readme, (GRAPH_START, GRAPH_END), "new picture\n").unwrap();
        assert_eq!(
            redrawn,
            format!("# x\nbefore\n{GRAPH_START}\nnew picture\n{GRAPH_END}\nafter\n")
        );
        assert_eq!(
            between(&redrawn, (GRAPH_START, GRAPH_END), "new picture\n").unwrap(),
            redrawn,
            "redrawing is idempotent"
        );
        assert!(
            between("# no markers\n", (GRAPH_START, GRAPH_END), "x").is_err(),
            "a README without markers is an error"
        );
    }

    #[test]
    fn only_test_modules_are_left_out_and_a_long_function_after_a_test_item_is_measured() {
        let long_body = "    step();\n".repeat(85);
        let text = format!(
            "fn short() {{\n}}\n#[cfg(test)]\nfn helper_for_tests() {{\n}}\nimpl S {{\n    #[cfg(test)]\n    fn method_for_tests(&self) {{}}\n}}\n\npub fn long() {{\n{long_body}}}\n#[cfg(test)]\nmod tests {{\n    fn in_test() {{\n        {{ }}\n    }}\n}}\n#[cfg(test)]\nmod more_tests;\nfn after() {{\n}}\n"
        );
        let code = without_test_modules(&text, false);
        assert!(
            code.contains("fn helper_for_tests"),
            "a #[cfg(test)] function is code like any other"
        );
        assert!(
            !code.contains("in_test") && !code.contains("more_tests"),
            "test modules are left out"
        );
        assert!(code.contains("fn after"), "what follows a test module is read");
        let long: Vec<_> = functions(&code)
            .into_iter()
            .filter(|(_, n)| *n > MAX_FN_LINES)
            .collect();
        assert_eq!(
            long,
            vec![("long".to_owned(), 87)],
            "the function after a #[cfg(test)] item is measured"
        );
        let blanked = without_test_modules(&text, true);
        assert_eq!(
            blanked.lines().count(),
            text.lines().count(),
            "blanking keeps every line's number"
        );
    }

    #[test]
    fn a_door_built_on_the_store_is_named_and_its_tests_may_use_it() {
        let mut built_from = BTreeMap::new();
        let on = |ds: &[&str]| ds.iter().map(|d| d.to_string()).collect::<BTreeSet<_>>();
        built_from.insert("smsdesk-http".to_owned(), on(&["smsdesk-engine", "axum"]));
        built_from.insert("smsdesk-cli".to_owned(), on(&["smsdesk-engine"]));
        assert!(doors_on_the_store(&built_from).is_empty(), "through the engine");
        built_from.insert("smsdesk-cli".to_owned(), on(&["smsdesk-engine", "smsdesk-store"]));
        let found = doors_on_the_store(&built_from);
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(
            found[0].starts_with("smsdesk-cli depends on smsdesk-store"),
            "{found:?}"
        );
    }

    #[test]
    fn handing_on_the_whole_store_or_its_tables_is_found_by_any_name_and_a_read_model_is_not() {
        for whole in [
            "pub use smsdesk_store;",
            "pub use smsdesk_store as store;",
            "pub use smsdesk_store::*;",
            "pub use store;",
            "  pub use crate::store as db;",
            "pub use crate::store::*;",
            "pub use crate::store::tables;",
            "pub use store::tables::*;",
            "pub use smsdesk_store::tables as t;",
        ] {
            let code = format!("use std::fmt;\n{whole}\nfn f() {{}}\n");
            assert_eq!(hands_on_the_store(&code), Some(whole.trim()), "{whole}");
        }
        for named in [
            "use smsdesk_store as store;",
            "pub use store::{Store, StoreError};",
            "pub use crate::store::views::*;",
            "pub use crate::store::tables::message::insert;",
            "pub use crate::storefront;",
        ] {
            assert_eq!(hands_on_the_store(named), None, "{named}");
        }
    }

    #[test]
    fn tests_benches_and_fuzz_targets_may_run_sql_and_product_code_may_not() {
        assert!(is_test_or_bench("src-tauri/engine/src/receipts/tests.rs"));
        assert!(is_test_or_bench("src-tauri/engine/src/dispatch/sandbox_tests.rs"));
        assert!(is_test_or_bench("src-tauri/engine/tests/http_api.rs"));
        assert!(is_test_or_bench("src-tauri/engine/benches/views.rs"));
        assert!(!is_test_or_bench("src-tauri/engine/src/receipts/ingest.rs"));
        assert!(!is_test_or_bench("src-tauri/engine/src/testsuite.rs"));
    }
}
