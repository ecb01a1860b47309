//! One running instance per data directory, and one process writing each database file: locks
//! held for the process's lifetime, and files that tell tools (and tests) who holds them and
//! where the running instance listens.
//!
//! The data directory's lock (`smsdesk.lock`, with `instance.json`) keeps two instances off one
//! configuration. The database's lock keeps two processes off one database however they reached
//! it (another data directory whose `[store] database` names it, a symbolic link, a relative
//! path): it is a file beside the database, named after the database's resolved path
//! (`smsdesk.db.lock`), with `smsdesk.db.holder.json` saying who holds it. SQLite's own locks
//! cannot serve: they are held per transaction, not per process lifetime.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::api::RunMode;
use crate::paths::DataDir;

#[derive(Debug, thiserror::Error)]
pub enum InstanceError {
    #[error("another smsdesk is already running with the data directory {dir}{hint}")]
    AlreadyRunning { dir: PathBuf, hint: String },
    #[error("the database {database} is in use by another smsdesk{hint}: stop it first, or give this one another database ([store] database)")]
    DatabaseInUse { database: PathBuf, hint: String },
    #[error("cannot use the data directory {dir}: {source}")]
    Io {
        dir: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot use the database {database}: {source}")]
    Database {
        database: PathBuf,
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

/// What the file beside a database says about the process that holds it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DatabaseHolder {
    pub pid: u32,
    /// The data directory it was started with.
    pub data_dir: String,
    /// Where it listens, once it does (a command-line tool never does).
    pub http_url: Option<String>,
}

/// The held locks. Dropping them removes `instance.json` and the holder file, and releases both.
#[derive(Debug)]
pub struct InstanceLock {
    dir: DataDir,
    _file: File,
    database: DatabaseLock,
}

impl InstanceLock {
    /// Takes the data directory's lock, then the lock of the database at `database` (as the
    /// configuration names it: relative to the working directory, or through links), or says who
    /// holds either.
    pub fn acquire(dir: &DataDir, database: &Path) -> Result<InstanceLock, InstanceError> {
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
            Ok(()) => {}
            Err(std::fs::TryLockError::WouldBlock) => {
                let hint = read_info(dir)
                    .map(|i| match i.http_url {
                        Some(url) => format!(" (process {}, open {url})", i.pid),
                        None => format!(" (process {})", i.pid),
                    })
                    .unwrap_or_default();
                return Err(InstanceError::AlreadyRunning {
                    dir: dir.root().to_owned(),
                    hint,
                });
            }
            Err(std::fs::TryLockError::Error(e)) => return Err(io(e)),
        }
        let database = DatabaseLock::acquire(database, dir)?;
        Ok(InstanceLock {
            dir: dir.clone(),
            _file: file,
            database,
        })
    }

    /// Publishes where this instance listens (written whole, then renamed into place), in the
    /// data directory and beside the database.
    pub fn publish(&self, info: &InstanceInfo) -> Result<(), InstanceError> {
        let io = |source| InstanceError::Io {
            dir: self.dir.root().to_owned(),
            source,
        };
        write_whole(
            &self.dir.instance_file(),
            &serde_json::to_vec_pretty(info).expect("instance info serialises"),
        )
        .map_err(io)?;
        self.database.publish(info.http_url.clone())
    }

    /// The database file this lock holds, resolved (absolute, links followed).
    pub fn database(&self) -> &Path {
        &self.database.resolved
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

/// The lock on one database file, whatever path reached it. Released when dropped (the lock file
/// itself stays: removing it would let a second process lock a file a third no longer sees).
#[derive(Debug)]
struct DatabaseLock {
    resolved: PathBuf,
    holder: DatabaseHolder,
    _file: File,
}

impl DatabaseLock {
    fn acquire(database: &Path, dir: &DataDir) -> Result<DatabaseLock, InstanceError> {
        let io = |source| InstanceError::Database {
            database: database.to_owned(),
            source,
        };
        let resolved = resolve(database).map_err(io)?;
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(beside(&resolved, "lock"))
            .map_err(io)?;
        match file.try_lock() {
            Ok(()) => {}
            Err(std::fs::TryLockError::WouldBlock) => {
                return Err(InstanceError::DatabaseInUse {
                    hint: holder_hint(&resolved),
                    database: resolved,
                })
            }
            Err(std::fs::TryLockError::Error(e)) => return Err(io(e)),
        }
        let lock = DatabaseLock {
            holder: DatabaseHolder {
                pid: std::process::id(),
                data_dir: std::path::absolute(dir.root())
                    .unwrap_or_else(|_| dir.root().to_owned())
                    .display()
                    .to_string(),
                http_url: None,
            },
            resolved,
            _file: file,
        };
        lock.publish(None)?;
        Ok(lock)
    }

    /// Says who holds the database (and, once known, where it listens).
    fn publish(&self, http_url: Option<String>) -> Result<(), InstanceError> {
        let holder = DatabaseHolder {
            http_url,
            ..self.holder.clone()
        };
        let json = serde_json::to_vec_pretty(&holder).expect("holder serialises");
        write_whole(&beside(&self.resolved, "holder.json"), &json).map_err(|source| InstanceError::Database {
            database: self.resolved.clone(),
            source,
        })
    }
}

impl Drop for DatabaseLock {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(beside(&self.resolved, "holder.json"));
    }
}

/// Who holds the database at `resolved`, as its holder file says, for a refusal.
fn holder_hint(resolved: &Path) -> String {
    let holder = std::fs::read(beside(resolved, "holder.json"))
        .ok()
        .and_then(|b| serde_json::from_slice::<DatabaseHolder>(&b).ok());
    match holder {
        Some(DatabaseHolder {
            pid,
            data_dir,
            http_url: Some(url),
        }) => format!(" (process {pid}, open {url}; its data directory is {data_dir})"),
        Some(DatabaseHolder { pid, data_dir, .. }) => format!(" (process {pid}; its data directory is {data_dir})"),
        None => String::new(),
    }
}

/// `database` with `.<suffix>` added to its file name: `smsdesk.db` → `smsdesk.db.lock`.
fn beside(database: &Path, suffix: &str) -> PathBuf {
    let mut name = database.file_name().unwrap_or_default().to_os_string();
    name.push(".");
    name.push(suffix);
    database.with_file_name(name)
}

/// Symbolic links followed before giving up (as the system's own limit does).
const MAX_LINKS: usize = 40;

/// The one name of a database file, however it was reached: absolute, every symbolic link (of the
/// file, or of a folder on the way) resolved. A file not created yet is named by its resolved
/// folder; a link to a file not created yet, by where it points.
pub fn resolve(database: &Path) -> std::io::Result<PathBuf> {
    let mut path = std::path::absolute(database)?;
    for _ in 0..MAX_LINKS {
        let not_found = match std::fs::canonicalize(&path) {
            Ok(resolved) => return Ok(resolved),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => e,
            Err(e) => return Err(e),
        };
        let parent = path.parent().map(Path::to_owned).unwrap_or_default();
        match std::fs::read_link(&path) {
            Ok(target) => path = parent.join(target),
            Err(_) => {
                let name = path.file_name().ok_or(not_found)?;
                return Ok(std::fs::canonicalize(&parent)?.join(name));
            }
        }
    }
    Err(std::io::Error::other("too many symbolic links"))
}

/// Writes `bytes` to a temporary file beside `path`, then renames it into place: a reader sees
/// the old file or the new one, never half of one.
fn write_whole(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut name = std::ffi::OsString::from(".");
    name.push(path.file_name().unwrap_or_default());
    name.push(".tmp");
    let tmp = path.with_file_name(name);
    let mut f = File::create(&tmp)?;
    f.write_all(bytes)?;
    f.sync_all()?;
    std::fs::rename(&tmp, path)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info(pid: u32, url: &str) -> InstanceInfo {
        InstanceInfo {
            pid,
            mode: RunMode::Serve,
            version: "x".into(),
            http_url: Some(url.into()),
            started_at_ms: 0,
        }
    }

    #[test]
    fn a_second_instance_on_the_same_data_directory_is_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = DataDir::new(tmp.path());
        let db = dir.database("smsdesk.db");
        let first = InstanceLock::acquire(&dir, &db).unwrap();
        first.publish(&info(42, "http://127.0.0.1:1")).unwrap();
        let err = InstanceLock::acquire(&dir, &db).unwrap_err().to_string();
        assert!(
            err.contains("already running") && err.contains("http://127.0.0.1:1"),
            "{err}"
        );
        drop(first);
        assert!(!dir.instance_file().exists(), "instance.json must go with the instance");
        InstanceLock::acquire(&dir, &db).expect("the lock must be free once the first instance is gone");
    }

    /// The refusal a second data directory gets for `database` while `first` holds it.
    fn refused(second: &DataDir, database: &Path) -> String {
        match InstanceLock::acquire(second, database) {
            Err(e @ InstanceError::DatabaseInUse { .. }) => e.to_string(),
            other => panic!(
                "{} must be refused while the first holds it: {other:?}",
                database.display()
            ),
        }
    }

    #[test]
    fn a_database_in_use_is_refused_through_another_data_directory_however_its_path_is_spelled() {
        let tmp = tempfile::tempdir().unwrap();
        let a = DataDir::new(tmp.path().join("a"));
        let b = DataDir::new(tmp.path().join("b"));
        std::fs::create_dir_all(b.root()).unwrap();
        let first = InstanceLock::acquire(&a, &a.database("smsdesk.db")).unwrap();
        first.publish(&info(std::process::id(), "http://127.0.0.1:7")).unwrap();

        let mut spellings = vec![
            a.database("smsdesk.db"),
            b.database("../a/smsdesk.db"),
            b.database("../a/./smsdesk.db"),
        ];
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(a.database("smsdesk.db"), b.database("link.db")).unwrap();
            std::os::unix::fs::symlink(a.root(), tmp.path().join("alias")).unwrap();
            spellings.push(b.database("link.db"));
            spellings.push(tmp.path().join("alias").join("smsdesk.db"));
        }
        for database in spellings {
            let err = refused(&b, &database);
            assert!(
                err.contains(&format!("process {}", std::process::id())),
                "names the holder: {err}"
            );
            assert!(err.contains("http://127.0.0.1:7"), "says where it listens: {err}");
            assert!(
                err.contains(&a.root().display().to_string()),
                "names its data directory: {err}"
            );
            assert!(
                !b.instance_file().exists(),
                "a refused start publishes nothing in its own data directory"
            );
        }
        // The first holds the database before the database exists: a new database is one too.
        assert!(!a.database("smsdesk.db").exists());
        drop(first);
        InstanceLock::acquire(&b, &b.database("../a/smsdesk.db"))
            .expect("the database is free once its holder is gone");
    }

    #[test]
    fn a_database_held_by_a_command_line_tool_is_refused_naming_its_process() {
        let tmp = tempfile::tempdir().unwrap();
        let a = DataDir::new(tmp.path().join("a"));
        let b = DataDir::new(tmp.path().join("b"));
        std::fs::create_dir_all(b.root()).unwrap();
        let _tool = InstanceLock::acquire(&a, &a.database("smsdesk.db")).unwrap();
        let err = refused(&b, &b.database("../a/smsdesk.db"));
        assert!(err.contains(&format!("process {}", std::process::id())), "{err}");
        assert!(!err.contains("open http"), "a tool does not listen: {err}");
    }
}
