//! Building the app: what it needs installed, the UI it embeds, then the binary.

use std::path::{Path, PathBuf};

use crate::cmd::{run, target_dir, Cmd};
use crate::setup::{self, Purpose};

pub fn npm(root: &Path, dir: &str, script: &str) -> Cmd {
    Cmd::new("npm").args(["run", "--silent", script]).dir(root.join(dir))
}

/// Installs what building needs, builds the UI (embedded in the binary) and the app; returns the
/// binary's path.
pub fn build_app(root: &Path, release: bool) -> Result<PathBuf, String> {
    setup::all(root, Purpose::Run)?;
    run(npm(root, "ui", "build").stdout_to_stderr())?;
    let mut cargo = Cmd::new("cargo").args(["build", "--locked", "-p", "smsdesk"]).dir(root);
    if release {
        cargo = cargo.arg("--release");
    }
    run(cargo)?;
    let profile = if release { "release" } else { "debug" };
    Ok(target_dir(root).join(profile).join("smsdesk"))
}
