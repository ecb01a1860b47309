//! Installs what the project needs and the machine lacks. Every step checks first, so running it
//! again on a ready machine changes nothing.

use std::path::Path;
use std::process::Command;

use crate::steps::{run, Cmd};

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
];

/// What the end-to-end tests add: a virtual display, screenshots, a browser, readable fonts, and
/// Python for the receipt corpus's check script and the API fuzzing run.
const TEST_PACKAGES: &[&str] = &[
    "xvfb",
    "xauth",
    "imagemagick",
    "chromium",
    "fonts-dejavu-core",
    "python3",
    "python3-venv",
];

/// What `cargo xtask api-fuzz` needs: Python, and venv to install Schemathesis apart from the
/// system's packages (scripts/api_fuzz.py installs it).
pub const FUZZ_PACKAGES: &[&str] = &["python3", "python3-venv"];

/// The oldest Node.js the UI's build tools support.
const NODE_MAJOR: u32 = 20;

pub fn all(root: &Path, purpose: Purpose) -> Result<(), String> {
    let mut packages: Vec<&str> = BUILD_PACKAGES.to_vec();
    if purpose == Purpose::Test {
        packages.extend_from_slice(TEST_PACKAGES);
    }
    system_packages(&packages)?;
    check_node()?;
    npm_install(&root.join("ui"))?;
    if purpose == Purpose::Test {
        npm_install(&root.join("tests/browser"))?;
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
