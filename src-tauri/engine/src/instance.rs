//! One running instance per data directory: a lock held for the process's lifetime, and an
//! `instance.json` that tells tools (and tests) where the running instance listens.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::api::RunMode;
use crate::paths::DataDir;

#[derive(Debug, thiserror::Error)]
pub enum InstanceError {
    #[error("another smsdesk is already running with the data directory {dir}{hint}")]
    AlreadyRunning { dir: PathBuf, hint: String },
    #[error("cannot use the data directory {dir}: {source}")]
    Io {
        dir: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

/// What `instance.json` holds while an instance runs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InstanceInfo {
    pub pid: u32,
    pub mode: RunMode,
    pub version: String,
    pub http_url: Option<String>,
    pub started_at_ms: i64,
}

/// The held lock. Dropping it removes `instance.json` and releases the lock.
#[derive(Debug)]
pub struct InstanceLock {
    dir: DataDir,
    _file: File,
}

impl InstanceLock {
    /// Takes the data directory's lock, or says who holds it.
    pub fn acquire(dir: &DataDir) -> Result<InstanceLock, InstanceError> {
        let io = |source| InstanceError::Io {
            dir: dir.root().to_owned(),
            source,
        };
        std::fs::create_dir_all(dir.root()).map_err(io)?;
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(dir.lock_file())
            .map_err(io)?;
        match file.try_lock() {
            Ok(()) => Ok(InstanceLock {
                dir: dir.clone(),
                _file: file,
            }),
            Err(std::fs::TryLockError::WouldBlock) => {
                let hint = read_info(dir)
                    .map(|i| match i.http_url {
                        Some(url) => format!(" (process {}, open {url})", i.pid),
                        None => format!(" (process {})", i.pid),
                    })
                    .unwrap_or_default();
                Err(InstanceError::AlreadyRunning {
                    dir: dir.root().to_owned(),
                    hint,
                })
            }
            Err(std::fs::TryLockError::Error(e)) => Err(io(e)),
        }
    }

    /// Publishes where this instance listens (written whole, then renamed into place).
    pub fn publish(&self, info: &InstanceInfo) -> Result<(), InstanceError> {
        let io = |source| InstanceError::Io {
            dir: self.dir.root().to_owned(),
            source,
        };
        let tmp = self.dir.root().join(".instance.json.tmp");
        let mut f = File::create(&tmp).map_err(io)?;
        f.write_all(&serde_json::to_vec_pretty(info).expect("instance info serialises"))
            .map_err(io)?;
        f.sync_all().map_err(io)?;
        std::fs::rename(&tmp, self.dir.instance_file()).map_err(io)
    }
}

impl Drop for InstanceLock {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(self.dir.instance_file());
    }
}

/// Reads the running instance's `instance.json`, if there is one.
pub fn read_info(dir: &DataDir) -> Option<InstanceInfo> {
    serde_json::from_slice(&std::fs::read(dir.instance_file()).ok()?).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_instance_on_the_same_data_directory_is_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = DataDir::new(tmp.path());
        let first = InstanceLock::acquire(&dir).unwrap();
        first
            .publish(&InstanceInfo {
                pid: 42,
                mode: RunMode::Serve,
                version: "x".into(),
                http_url: Some("http://127.0.0.1:1".into()),
                started_at_ms: 0,
            })
            .unwrap();
        let err = InstanceLock::acquire(&dir).unwrap_err().to_string();
        assert!(
            err.contains("already running") && err.contains("http://127.0.0.1:1"),
            "{err}"
        );
        drop(first);
        assert!(!dir.instance_file().exists(), "instance.json must go with the instance");
        InstanceLock::acquire(&dir).expect("the lock must be free once the first instance is gone");
    }
}
