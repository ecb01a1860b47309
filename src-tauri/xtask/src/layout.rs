//! The repository's top level holds what the product is made of and nothing else: the manifest,
//! the app (src-tauri), the UI, the tests, the icons, the docs and the README, plus dotfiles.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

/// What may sit at the top level (besides names starting with a dot).
const TOP_LEVEL: &[&str] = &[
    "Cargo.toml",
    "Cargo.lock",
    "README.md",
    "src-tauri",
    "ui",
    "tests",
    "icons",
    "docs",
];

/// Tracked top-level entries that are not in [`TOP_LEVEL`]; none outside a git checkout.
pub fn strangers(root: &Path) -> Vec<String> {
    let Ok(out) = Command::new("git").args(["ls-files", "-z"]).current_dir(root).output() else {
        return Vec::new();
    };
    if !out.status.success() {
        return Vec::new();
    }
    let tops: BTreeSet<String> = out
        .stdout
        .split(|b| *b == 0)
        .filter(|p| !p.is_empty())
        .filter_map(|p| String::from_utf8_lossy(p).split('/').next().map(str::to_owned))
        .collect();
    tops.into_iter()
        .filter(|t| !t.starts_with('.') && !TOP_LEVEL.contains(&t.as_str()))
        .map(|t| {
            format!(
                "{t} sits at the repository's top level, which holds only {} and dotfiles: move it where it belongs",
                TOP_LEVEL.join(", ")
            )
        })
        .collect()
}
