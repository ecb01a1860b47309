//! Running the commands the project commands are made of, each printed before it runs.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A command to run, printed before it runs.
pub struct Cmd {
    program: OsString,
    args: Vec<OsString>,
    dir: Option<PathBuf>,
    env: Vec<(OsString, OsString)>,
    stdout_to_stderr: bool,
}

impl Cmd {
    pub fn new(program: impl Into<OsString>) -> Cmd {
        Cmd {
            program: program.into(),
            args: Vec::new(),
            dir: None,
            env: Vec::new(),
            stdout_to_stderr: false,
        }
    }
    pub fn arg(mut self, a: impl Into<OsString>) -> Cmd {
        self.args.push(a.into());
        self
    }
    pub fn args<I: IntoIterator<Item = S>, S: Into<OsString>>(mut self, args: I) -> Cmd {
        self.args.extend(args.into_iter().map(Into::into));
        self
    }
    pub fn dir(mut self, d: impl Into<PathBuf>) -> Cmd {
        self.dir = Some(d.into());
        self
    }
    pub fn env(mut self, k: impl Into<OsString>, v: impl Into<OsString>) -> Cmd {
        self.env.push((k.into(), v.into()));
        self
    }
    /// Sends what it prints to our standard error: a build step's chatter stays off the standard
    /// output of a command whose output is its result (`cargo xtask bench`'s table).
    pub fn stdout_to_stderr(mut self) -> Cmd {
        self.stdout_to_stderr = true;
        self
    }
    pub fn describe(&self) -> String {
        let mut s = self.program.to_string_lossy().into_owned();
        for a in &self.args {
            s.push(' ');
            s.push_str(&a.to_string_lossy());
        }
        if let Some(d) = &self.dir {
            s.push_str(&format!("   (in {})", d.display()));
        }
        s
    }
    /// The command, to run with its output captured.
    pub fn into_command(self) -> Command {
        self.command()
    }
    fn command(&self) -> Command {
        let mut c = Command::new(&self.program);
        c.args(&self.args);
        if let Some(d) = &self.dir {
            c.current_dir(d);
        }
        for (k, v) in &self.env {
            c.env(k, v);
        }
        if self.stdout_to_stderr {
            c.stdout(std::io::stderr());
        }
        c
    }
}

/// Runs a command to completion; a non-zero exit is an error naming the command.
pub fn run(cmd: Cmd) -> Result<(), String> {
    eprintln!("xtask: $ {}", cmd.describe());
    let status = cmd
        .command()
        .status()
        .map_err(|e| format!("cannot run `{}`: {e}", cmd.describe()))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("`{}` failed ({status})", cmd.describe()))
    }
}

/// Where cargo puts what it builds: CARGO_TARGET_DIR when set, else target/ in the repository.
pub fn target_dir(root: &Path) -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target"))
}

/// `cargo` as the test command builds with: the dev profile for every build (so what the tests
/// built serves the package step's `cargo run` too, instead of a second build of every
/// dependency under the `test` profile's name), and clippy's lints, warnings denied, applied to
/// the workspace's crates while they are compiled (cargo clippy's own way in: clippy-driver as the
/// workspace's compiler wrapper, its arguments in CLIPPY_ARGS). One build, where a `cargo clippy`
/// check and a `cargo test` build compiled every dependency twice. Pass `--profile dev` to the
/// commands that take it.
pub fn linted_cargo(root: &Path) -> Result<Cmd, String> {
    let out = Command::new("rustc")
        .args(["--print", "sysroot"])
        .output()
        .map_err(|e| format!("cannot run rustc: {e}"))?;
    let sysroot = String::from_utf8_lossy(&out.stdout).trim().to_owned();
    let driver = Path::new(&sysroot).join("bin").join("clippy-driver");
    if !driver.exists() {
        return Err(format!(
            "{} is missing: install clippy (`rustup component add clippy`)",
            driver.display()
        ));
    }
    Ok(Cmd::new("cargo").dir(root).env("RUSTC_WORKSPACE_WRAPPER", driver).env(
        "CLIPPY_ARGS",
        ["-D", "warnings"].join("__CLIPPY_HACKERY__") + "__CLIPPY_HACKERY__",
    ))
}
