//! `cargo xtask screenshots`: every picture the manual and the README show, taken again by the
//! end-to-end stories, so that none is made by hand and none outlives the screen it shows.
//!
//! The stories write a picture where `SCREENSHOT_DIR` says (tests/browser: the operator's story in
//! Chromium, and in the desktop window with `window-` names; tests/window.rs: the window on a
//! virtual display, `window.png`). They all write into one fresh folder, which then replaces
//! docs/screenshots/ whole: a picture no story takes any more disappears.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::app::build_app;
use crate::cmd::{run, Cmd};
use crate::setup::{self, Purpose};

/// Where the pictures live, from the repository's root.
pub const DIR: &str = "docs/screenshots";

pub fn run_all(root: &Path) -> Result<(), String> {
    setup::all(root, Purpose::Test)?;
    let bin = build_app(root, false)?;
    let shots = std::env::temp_dir().join(format!("smsdesk-screenshots-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&shots);
    std::fs::create_dir_all(&shots).map_err(|e| format!("cannot create {}: {e}", shots.display()))?;
    let result = take(root, &bin, &shots).and_then(|()| replace(root, &shots));
    let _ = std::fs::remove_dir_all(&shots);
    let taken = result?;
    let missing: Vec<String> = crate::manual::pictures_shown(root, DIR)?
        .difference(&taken)
        .cloned()
        .collect();
    if !missing.is_empty() {
        return Err(format!(
            "the manual or the README shows pictures no story takes: {} (take them in a story under \
             tests/, or stop showing them)",
            missing.join(", ")
        ));
    }
    eprintln!("xtask: {} pictures taken into {DIR}/", taken.len());
    Ok(())
}

/// Plays the stories with their pictures going to `shots`.
fn take(root: &Path, bin: &Path, shots: &Path) -> Result<(), String> {
    let browser = root.join("tests/browser");
    run(Cmd::new("npm")
        .args(["run", "test:chromium"])
        .dir(&browser)
        .env("SMSDESK_BIN", bin)
        .env("SCREENSHOT_DIR", shots))?;
    run(Cmd::new("npm")
        .args(["run", "test:window"])
        .dir(&browser)
        .env("SMSDESK_BIN", bin)
        .env("TAURI_DRIVER", setup::cargo_bin("tauri-driver"))
        .env("SCREENSHOT_DIR", shots))?;
    run(Cmd::new("cargo")
        .args(["test", "--locked", "-p", "smsdesk", "--test", "e2e_window"])
        .dir(root)
        .env("SMSDESK_SCREENSHOT_DIR", shots))
}

/// Empties docs/screenshots/ and moves the pictures taken into it; returns their names.
fn replace(root: &Path, shots: &Path) -> Result<BTreeSet<String>, String> {
    let taken = pictures(shots)?;
    if taken.is_empty() {
        return Err(format!("the stories took no picture into {}", shots.display()));
    }
    let dir = root.join(DIR);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {DIR}: {e}"))?;
    for name in &taken {
        std::fs::copy(shots.join(name), dir.join(name)).map_err(|e| format!("cannot copy {name} into {DIR}: {e}"))?;
    }
    Ok(taken)
}

/// The names of the PNG files in `dir`.
fn pictures(dir: &Path) -> Result<BTreeSet<String>, String> {
    let entries = std::fs::read_dir(dir).map_err(|e| format!("cannot list {}: {e}", dir.display()))?;
    Ok(entries
        .flatten()
        .map(|e| PathBuf::from(e.file_name()))
        .filter(|p| p.extension().and_then(|x| x.to_str()) == Some("png"))
        .map(|p| p.display().to_string())
        .collect())
}
