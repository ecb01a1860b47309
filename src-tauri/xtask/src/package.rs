//! The Linux packages (`cargo xtask bundle`: a .deb and an .rpm from Tauri's bundler), with the
//! man pages and shell completions generated from the command line's own definitions.
//!
//! The bundler packs `<target>/<profile>/smsdesk` and patches it in place, so it is pointed at a
//! staging target folder holding a stripped copy: cargo's own build is never touched. AppImage is
//! left out: its bundler downloads tools from the internet while it builds.

use std::path::{Path, PathBuf};

use crate::app::build_app;
use crate::cmd::{linted_cargo, run, target_dir, Cmd};
use crate::json::json_string;
use crate::setup;

/// The package formats `cargo xtask bundle` makes.
const FORMATS: &[&str] = &["deb", "rpm"];

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Profile {
    Release,
    /// The debug build the test command already made (same program, unoptimised): the package
    /// test installs it without a second, release, build.
    Debug,
}

impl Profile {
    fn dir(self) -> &'static str {
        match self {
            Profile::Release => "release",
            Profile::Debug => "debug",
        }
    }
}

/// `cargo xtask bundle`: the release build, then its packages.
pub fn bundle_release(root: &Path) -> Result<(), String> {
    let bin = build_app(root, true)?;
    let packages = bundle(root, &bin, Profile::Release, FORMATS)?;
    eprintln!("\nxtask: packages:");
    for p in &packages {
        eprintln!("  {}", p.display());
    }
    eprintln!("Install with: sudo apt install ./{}", file_name(&packages[0]));
    Ok(())
}

/// Packs `bin` into the given formats; returns the package files, in the order asked.
pub fn bundle(root: &Path, bin: &Path, profile: Profile, formats: &[&str]) -> Result<Vec<PathBuf>, String> {
    setup::system_packages(&["binutils", "gzip"])?;
    let stage = target_dir(root).join("package");
    let profile_dir = stage.join(profile.dir());
    let out = profile_dir.join("bundle");
    let _ = std::fs::remove_dir_all(&out);
    std::fs::create_dir_all(&profile_dir).map_err(|e| format!("cannot create {}: {e}", profile_dir.display()))?;
    run(Cmd::new("strip").arg("-o").arg(profile_dir.join("smsdesk")).arg(bin))?;

    let manuals = write_manuals(root, &stage.join("manuals"), profile)?;
    let config = stage.join("generated-files.json");
    std::fs::write(&config, files_config(&manuals)).map_err(|e| format!("cannot write {}: {e}", config.display()))?;

    let mut tauri = Cmd::new(root.join("ui/node_modules/.bin/tauri"))
        .args(["bundle", "--ci", "--bundles", &formats.join(",")])
        .arg("--config")
        .arg(&config)
        .dir(root.join("src-tauri"))
        .env("CARGO_TARGET_DIR", &stage);
    if profile == Profile::Debug {
        tauri = tauri.arg("--debug");
    }
    run(tauri)?;
    formats.iter().map(|f| find_package(&out.join(f), f)).collect()
}

fn find_package(dir: &Path, format: &str) -> Result<PathBuf, String> {
    let entries = std::fs::read_dir(dir).map_err(|e| format!("no {format} package in {}: {e}", dir.display()))?;
    entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|x| x == format))
        .ok_or_else(|| format!("the bundler wrote no .{format} into {}", dir.display()))
}

fn file_name(p: &Path) -> String {
    p.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// The generated files a package carries: (where installed, the file here).
struct Manuals {
    files: Vec<(String, PathBuf)>,
}

/// Man pages (gzipped, as Debian wants them) and completions for bash, zsh and fish.
fn write_manuals(root: &Path, dir: &Path, profile: Profile) -> Result<Manuals, String> {
    let _ = std::fs::remove_dir_all(dir);
    let example = match profile {
        // The debug package is the test command's: built as its tests were (linted_cargo, over
        // the whole workspace: `-p smsdesk-cli` alone would resolve other features and build a
        // third of the dependencies again), so that what they built serves here too.
        Profile::Debug => {
            run(linted_cargo(root)?.args([
                "build",
                "--profile",
                "dev",
                "--quiet",
                "--locked",
                "--workspace",
                "--example",
                "write_manuals",
            ]))?;
            Cmd::new(target_dir(root).join("debug/examples/write_manuals"))
        }
        Profile::Release => Cmd::new("cargo").dir(root).args([
            "run",
            "--release",
            "--quiet",
            "--locked",
            "-p",
            "smsdesk-cli",
            "--example",
            "write_manuals",
            "--",
        ]),
    };
    run(example.arg(dir).stdout_to_stderr())?;
    let man = dir.join("man");
    let mut pages: Vec<PathBuf> = std::fs::read_dir(&man)
        .map_err(|e| format!("no man pages in {}: {e}", man.display()))?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "1"))
        .collect();
    pages.sort();
    run(Cmd::new("gzip").args(["-9", "-n", "-f"]).args(pages.iter().cloned()))?;
    let mut files: Vec<(String, PathBuf)> = pages
        .iter()
        .map(|p| {
            let gz = PathBuf::from(format!("{}.gz", p.display()));
            (format!("/usr/share/man/man1/{}", file_name(&gz)), gz)
        })
        .collect();
    let completions = dir.join("completions");
    for (installed, generated) in [
        ("/usr/share/bash-completion/completions/smsdesk", "smsdesk.bash"),
        ("/usr/share/zsh/vendor-completions/_smsdesk", "_smsdesk"),
        ("/usr/share/fish/vendor_completions.d/smsdesk.fish", "smsdesk.fish"),
    ] {
        files.push((installed.to_owned(), completions.join(generated)));
    }
    Ok(Manuals { files })
}

/// The bundler configuration adding the generated files to both packages (merged over
/// src-tauri/tauri.conf.json, which lists the files kept in the repository).
fn files_config(m: &Manuals) -> String {
    let entries: Vec<String> = m
        .files
        .iter()
        .map(|(to, from)| format!("{}: {}", json_string(to), json_string(&from.to_string_lossy())))
        .collect();
    let files = format!("{{{}}}", entries.join(", "));
    format!(r#"{{"bundle": {{"linux": {{"deb": {{"files": {files}}}, "rpm": {{"files": {files}}}}}}}}}"#)
}
