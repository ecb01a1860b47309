//! Installs what the project needs and the machine lacks. Every step checks first, so running it
//! again on a ready machine changes nothing.

use std::path::Path;
use std::process::Command;

use crate::cmd::{run, Cmd};

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Purpose {
    /// Build and run the app.
    Run,
    /// Also run every test.
    Test,
}

/// Debian packages Tauri 2 builds and runs with.
const BUILD_PACKAGES: &[&str] = &[
    "build-essential",
    "pkg-config",
    "curl",
    "wget",
    "file",
    "libwebkit2gtk-4.1-dev",
    "libxdo-dev",
    "libssl-dev",
    "libayatana-appindicator3-dev",
    "librsvg2-dev",
    // The session bus, for the keyring and desktop notifications.
    "libdbus-1-dev",
];

/// What the end-to-end tests add: a virtual display, screenshots, a browser, WebKitGTK's WebDriver
/// (the desktop window is driven through tauri-driver), readable fonts, and Python for the receipt
/// corpus's check script and the API fuzzing run.
const TEST_PACKAGES: &[&str] = &[
    "xvfb",
    "xauth",
    "imagemagick",
    "chromium",
    "webkit2gtk-driver",
    "fonts-dejavu-core",
    "python3",
    "python3-venv",
    // The alert tests' real peers: an SMTP server, and promtool to check the metrics' format.
    "python3-aiosmtpd",
    "prometheus",
    // A private session bus, where the desktop notification test plays the notification service.
    "dbus-daemon",
    // The second store: the tests start a private PostgreSQL server (initdb, pg_ctl).
    "postgresql",
];

/// What the package test needs beyond the build: lintian, desktop-file-validate,
/// systemd-analyze (which checks the unit without running systemd).
pub const PACKAGE_TEST_PACKAGES: &[&str] = &["lintian", "desktop-file-utils", "systemd"];

/// What `cargo xtask bench` adds: Kannel (bearerbox and smsbox), the gateway of the field whose
/// figures smsdesk's are compared with in the same run.
pub const BENCH_PACKAGES: &[&str] = &["kannel"];

/// What `cargo xtask api-fuzz` needs: Python, and venv to install Schemathesis apart from the
/// system's packages (tests/http/api_fuzz.py installs it).
pub const FUZZ_PACKAGES: &[&str] = &["python3", "python3-venv"];

/// The oldest Node.js the UI's build tools support.
const NODE_MAJOR: u32 = 20;

pub fn all(root: &Path, purpose: Purpose) -> Result<(), String> {
    let mut packages: Vec<&str> = BUILD_PACKAGES.to_vec();
    if purpose == Purpose::Test {
        packages.extend_from_slice(TEST_PACKAGES);
        packages.extend_from_slice(PACKAGE_TEST_PACKAGES);
    }
    system_packages(&packages)?;
    check_node()?;
    npm_install(&root.join("ui"))?;
    if purpose == Purpose::Test {
        npm_install(&root.join("tests/browser"))?;
        tauri_driver()?;
        mdbook()?;
    }
    run(Cmd::new("cargo").args(["fetch", "--locked"]).dir(root))
}

pub fn system_packages(packages: &[&str]) -> Result<(), String> {
    if Command::new("dpkg-query").arg("--version").output().is_err() {
        eprintln!(
            "xtask: this is not a Debian-based system, so system packages are not installed automatically.\n\
             xtask: make sure the equivalents of these are installed: {}",
            packages.join(" ")
        );
        return Ok(());
    }
    let missing: Vec<&str> = packages.iter().copied().filter(|p| !installed(p)).collect();
    if missing.is_empty() {
        eprintln!("xtask: system packages: all {} present", packages.len());
        return Ok(());
    }
    eprintln!("xtask: installing system packages: {}", missing.join(" "));
    let as_root = Command::new("id")
        .arg("-u")
        .output()
        .map(|o| o.stdout.starts_with(b"0"))
        .unwrap_or(false);
    let apt = |args: &[&str]| {
        let mut c = if as_root {
            Cmd::new("apt-get")
        } else {
            Cmd::new("sudo").arg("apt-get")
        };
        c = c.args(args.iter().copied()).env("DEBIAN_FRONTEND", "noninteractive");
        run(c)
    };
    apt(&["update"])?;
    let mut args = vec!["install", "-y", "--no-install-recommends"];
    args.extend(&missing);
    apt(&args)
}

fn installed(package: &str) -> bool {
    Command::new("dpkg-query")
        .args(["-W", "-f=${Status}", package])
        .output()
        .map(|o| o.status.success() && String::from_utf8_lossy(&o.stdout).contains("install ok installed"))
        .unwrap_or(false)
}

fn check_node() -> Result<(), String> {
    let out = Command::new("node").arg("--version").output().map_err(|_| {
        format!("Node.js is not installed; install Node.js {NODE_MAJOR} or newer (with npm) and run this again")
    })?;
    let version = String::from_utf8_lossy(&out.stdout).trim().to_owned();
    let major: u32 = version
        .trim_start_matches('v')
        .split('.')
        .next()
        .and_then(|m| m.parse().ok())
        .unwrap_or(0);
    if major < NODE_MAJOR {
        return Err(format!(
            "Node.js {version} is too old; install Node.js {NODE_MAJOR} or newer"
        ));
    }
    Ok(())
}

/// The tauri-driver major version the window tests speak to (the registry's newest are alphas of
/// the next major).
const TAURI_DRIVER: &str = "^2";

/// Where `cargo install` puts programs.
pub fn cargo_bin(program: &str) -> std::path::PathBuf {
    let home = std::env::var_os("CARGO_HOME")
        .map(std::path::PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cargo")))
        .unwrap_or_else(|| ".cargo".into());
    home.join("bin").join(program)
}

/// `cargo install tauri-driver` unless a 2.x is already there.
fn tauri_driver() -> Result<(), String> {
    cargo_install("tauri-driver", TAURI_DRIVER, &[])
}

/// The mdBook version the manual (docs/book.toml) is written for.
const MDBOOK: &str = "^0.4";

/// `cargo install mdbook` unless a 0.4 is already there. Only the `search` feature: the manual is
/// built, never served or watched, so `serve` (an HTTP server) and `watch` are not compiled; the
/// install took 2 min 40 s cold on 2 cores.
pub fn mdbook() -> Result<(), String> {
    cargo_install("mdbook", MDBOOK, &["--no-default-features", "--features", "search"])
}

/// `cargo install program` at `version` (a `^MAJOR[.MINOR]` requirement) with `extra` arguments,
/// unless a matching version is already installed where cargo puts programs.
fn cargo_install(program: &str, version: &str, extra: &[&str]) -> Result<(), String> {
    let listed = format!("{program} v{}.", version.trim_start_matches('^'));
    let installed = Command::new("cargo")
        .args(["install", "--list"])
        .output()
        .map(|o| {
            String::from_utf8_lossy(&o.stdout)
                .lines()
                .any(|l| l.starts_with(&listed))
        })
        .unwrap_or(false);
    if installed && cargo_bin(program).exists() {
        eprintln!("xtask: {program} {}: present", version.trim_start_matches('^'));
        return Ok(());
    }
    run(Cmd::new("cargo")
        .args(["install", program, "--version", version, "--locked"])
        .args(extra.iter().copied()))
}

/// `npm ci` unless node_modules already matches package-lock.json (npm records the installed
/// tree in node_modules/.package-lock.json, newer than the lock file after an install).
fn npm_install(dir: &Path) -> Result<(), String> {
    let lock = dir.join("package-lock.json");
    let installed = dir.join("node_modules/.package-lock.json");
    let modified = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    if let (Some(lock_time), Some(installed_time)) = (modified(&lock), modified(&installed)) {
        if installed_time >= lock_time {
            eprintln!("xtask: npm packages in {}: up to date", dir.display());
            return Ok(());
        }
    }
    run(Cmd::new("npm").args(["ci", "--no-audit", "--no-fund"]).dir(dir))
}
