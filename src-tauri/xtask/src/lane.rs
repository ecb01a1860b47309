//! A lane: commands run one after another on a thread of their own, while the test command's
//! own steps go on. Each command's output goes to a file of its own, printed when the test
//! command comes to that step and asks for its result; the first failure ends the lane.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{channel, Receiver};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::cmd::Cmd;

/// What one command of a lane came to.
struct Done {
    name: String,
    took: Duration,
    result: Result<(), String>,
    log: PathBuf,
}

pub struct Lane {
    done: Receiver<Done>,
    thread: Option<JoinHandle<()>>,
    /// The process the lane is running now, so that a run that stops early stops it too.
    running: Arc<Mutex<Option<u32>>>,
    stop: Arc<AtomicBool>,
}

impl Lane {
    /// Starts `steps` (a name, for the log file and the report, and a command), in order, each
    /// writing to `<logs>/<name>.log`.
    pub fn start(steps: Vec<(&'static str, Cmd)>, logs: &Path) -> Result<Lane, String> {
        std::fs::create_dir_all(logs).map_err(|e| format!("cannot create {}: {e}", logs.display()))?;
        let (tx, done) = channel();
        let running = Arc::new(Mutex::new(None));
        let stop = Arc::new(AtomicBool::new(false));
        let (running2, stop2, logs) = (running.clone(), stop.clone(), logs.to_owned());
        let names: Vec<&str> = steps.iter().map(|(n, _)| *n).collect();
        eprintln!(
            "xtask: alongside, in this order: {} (output in {})",
            names.join(", "),
            logs.display()
        );
        let thread = std::thread::spawn(move || {
            for (name, cmd) in steps {
                if stop2.load(Ordering::SeqCst) {
                    return;
                }
                let log = logs.join(format!("{name}.log"));
                let started = Instant::now();
                let result = run_logged(cmd, &log, &running2);
                let failed = result.is_err();
                let sent = tx.send(Done {
                    name: name.to_owned(),
                    took: started.elapsed(),
                    result,
                    log,
                });
                if failed || sent.is_err() {
                    return;
                }
            }
        });
        Ok(Lane {
            done,
            thread: Some(thread),
            running,
            stop,
        })
    }

    /// Waits for the lane's next command, which must be `name`, prints its output, and answers how
    /// long it ran; its failure, or a lane that ended before it, is an error.
    pub fn next(&self, name: &str) -> Result<Duration, String> {
        let done = self
            .done
            .recv()
            .map_err(|_| format!("`{name}` did not run: the lane alongside ended before it"))?;
        if done.name != name {
            return Err(format!(
                "the lane alongside ran `{}` where `{name}` was expected",
                done.name
            ));
        }
        eprintln!(
            "xtask: ran {:.0?} alongside the steps before this one; its output:",
            done.took
        );
        if let Ok(text) = std::fs::read_to_string(&done.log) {
            eprint!("{text}");
        }
        done.result.map(|_| done.took)
    }
}

/// A run that stops early stops the lane: no further command starts, and the one running gets
/// SIGTERM, which the project's scripts turn into an orderly stop of the servers they started.
impl Drop for Lane {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(pid) = *self.running.lock().unwrap_or_else(|e| e.into_inner()) {
            let _ = std::process::Command::new("kill")
                .arg("-TERM")
                .arg(pid.to_string())
                .status();
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn run_logged(cmd: Cmd, log: &Path, running: &Mutex<Option<u32>>) -> Result<(), String> {
    let what = cmd.describe();
    let file = std::fs::File::create(log).map_err(|e| format!("cannot create {}: {e}", log.display()))?;
    let err = file
        .try_clone()
        .map_err(|e| format!("cannot use {}: {e}", log.display()))?;
    let mut child = cmd
        .into_command()
        .stdout(file)
        .stderr(err)
        .spawn()
        .map_err(|e| format!("cannot run `{what}`: {e}"))?;
    *running.lock().unwrap_or_else(|e| e.into_inner()) = Some(child.id());
    let status = child.wait().map_err(|e| format!("cannot wait for `{what}`: {e}"));
    *running.lock().unwrap_or_else(|e| e.into_inner()) = None;
    match status? {
        s if s.success() => Ok(()),
        s => Err(format!("`{what}` failed ({s})")),
    }
}
