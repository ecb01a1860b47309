//! The locks on one database file, whatever path reached it: a lock file beside it named after
//! its resolved path (`smsdesk.db.lock`, with `smsdesk.db.holder.json` saying who holds it),
//! which a process that reaches it by the same name sees, and a lock on the database file itself
//! (`flock` on a descriptor of it), which every process of this computer sees however it reached
//! the file: a hard link, a bind mount, a copy of the folder mounted twice.
//!
//! The lock on the file is taken through one descriptor, opened once and closed only after the
//! store is closed. Closing any descriptor of a file drops every POSIX lock this process holds on
//! it, SQLite's own included (its locks are `fcntl` byte ranges, which `flock` does not touch
//! while the descriptor stays open): so nothing else of smsdesk's opens the database file while
//! the store has it open.

use std::fs::{File, OpenOptions};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::holder::{self, Looked, Me};
use super::{resolve, write_whole, DatabaseHolder, InstanceError};
use crate::paths::DataDir;

/// How long a refusal waits for the holder's row to say where it listens (it writes it once it
/// listens; a command-line tool never does).
const NAME_WAIT: Duration = Duration::from_secs(1);

/// The locks on one database file. Released when dropped (the lock file itself stays: removing
/// it would let a second process lock a file a third no longer sees).
#[derive(Debug)]
pub(super) struct DatabaseLock {
    pub(super) resolved: PathBuf,
    holder: DatabaseHolder,
    _by_name: File,
    /// The database file itself, once it exists; closed last.
    by_identity: Option<File>,
}

impl DatabaseLock {
    /// Takes both locks on the database at `database` (the lock on the file once the file
    /// exists), or says who holds it.
    pub(super) fn acquire(database: &Path, dir: &DataDir) -> Result<DatabaseLock, InstanceError> {
        let resolved = resolve(database).map_err(|e| io(database, e))?;
        let by_name = match lock_by_name(&resolved)? {
            Some(file) => file,
            None => {
                return Err(InstanceError::DatabaseInUse {
                    hint: holder_hint(&resolved),
                    database: resolved,
                })
            }
        };
        let mut lock = DatabaseLock {
            holder: DatabaseHolder {
                pid: std::process::id(),
                data_dir: std::path::absolute(dir.root())
                    .unwrap_or_else(|_| dir.root().to_owned())
                    .display()
                    .to_string(),
                http_url: None,
            },
            resolved,
            _by_name: by_name,
            by_identity: None,
        };
        lock.lock_identity()?;
        lock.publish(None)?;
        Ok(lock)
    }

    /// Takes the lock on the database file itself, when it exists and is not taken yet (a new
    /// database is locked once the store has made it).
    pub(super) fn lock_identity(&mut self) -> Result<(), InstanceError> {
        if self.by_identity.is_some() {
            return Ok(());
        }
        match lock_identity(&self.resolved)? {
            Identity::Held(file) => self.by_identity = Some(file),
            Identity::Missing => {}
            Identity::Busy => {
                return Err(InstanceError::DatabaseInUse {
                    hint: row_hint(&self.resolved),
                    database: self.resolved.clone(),
                })
            }
        }
        Ok(())
    }

    /// Before the store opens it: whether the row inside the database names a live holder that
    /// this computer's lock cannot see (see [`holder::look`]).
    pub(super) fn look(&self, me: &Me) -> Result<Looked, InstanceError> {
        if self.by_identity.is_none() {
            return Ok(Looked::default());
        }
        holder::look(|| crate::store::tables::instance::read_file(&self.resolved), me).map_err(|h| {
            InstanceError::DatabaseInUse {
                hint: holder::hint(&h, "; its heartbeat moves: it runs on another computer"),
                database: self.resolved.clone(),
            }
        })
    }

    /// Says who holds the database (and, once known, where it listens), beside it.
    pub(super) fn publish(&self, http_url: Option<String>) -> Result<(), InstanceError> {
        let holder = DatabaseHolder {
            http_url,
            ..self.holder.clone()
        };
        let json = serde_json::to_vec_pretty(&holder).expect("holder serialises");
        write_whole(&beside(&self.resolved, "holder.json"), &json).map_err(|e| io(&self.resolved, e))
    }
}

impl Drop for DatabaseLock {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(beside(&self.resolved, "holder.json"));
    }
}

/// The locks a copy holds while it reads the database (see [`lock_for_copy`]); released when
/// dropped.
#[derive(Debug)]
pub struct CopyLock {
    _by_name: File,
    _by_identity: Option<File>,
}

/// The database locked for a copy (`smsdesk backup`, `smsdesk export`): nothing to hold when
/// the process that holds it reached it by this very name (the copy reads beside it, through the
/// same WAL), else both locks, so that nothing starts on it meanwhile. Through another name of a
/// database in use (a hard link, a bind mount) the copy would read the file without the WAL its
/// holder writes, and is refused, naming the holder.
pub fn lock_for_copy(database: &Path) -> Result<Option<CopyLock>, InstanceError> {
    let resolved = resolve(database).map_err(|e| io(database, e))?;
    let Some(by_name) = lock_by_name(&resolved)? else {
        return Ok(None);
    };
    let by_identity = match lock_identity(&resolved)? {
        Identity::Busy => {
            return Err(InstanceError::DatabaseInUse {
                hint: format!(
                "{} under another name (a hard link, a bind mount): copy it through the data directory that runs it",
                row_hint(&resolved)
            ),
                database: resolved,
            })
        }
        Identity::Held(file) => Some(file),
        Identity::Missing => None,
    };
    Ok(Some(CopyLock {
        _by_name: by_name,
        _by_identity: by_identity,
    }))
}

/// The lock file beside the database at `resolved`, locked; `None` when another holds it.
fn lock_by_name(resolved: &Path) -> Result<Option<File>, InstanceError> {
    let file = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(beside(resolved, "lock"))
        .map_err(|e| io(resolved, e))?;
    match file.try_lock() {
        Ok(()) => Ok(Some(file)),
        Err(std::fs::TryLockError::WouldBlock) => Ok(None),
        Err(std::fs::TryLockError::Error(e)) => Err(io(resolved, e)),
    }
}

/// The lock on the database file itself.
enum Identity {
    Held(File),
    /// No file yet: a new database.
    Missing,
    /// Another process holds it, by whatever name.
    Busy,
}

fn lock_identity(resolved: &Path) -> Result<Identity, InstanceError> {
    let file = match File::open(resolved) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Identity::Missing),
        Err(e) => return Err(io(resolved, e)),
    };
    match file.try_lock() {
        Ok(()) => Ok(Identity::Held(file)),
        Err(std::fs::TryLockError::WouldBlock) => Ok(Identity::Busy),
        Err(std::fs::TryLockError::Error(e)) => Err(io(resolved, e)),
    }
}

fn io(database: &Path, source: std::io::Error) -> InstanceError {
    InstanceError::Database {
        database: database.to_owned(),
        source,
    }
}

/// Who holds the database at `resolved` by this name, as its holder file says, for a refusal.
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
        None => row_hint(resolved),
    }
}

/// Who holds the database at `resolved`, as the row inside it says (read from the file alone):
/// what a process that reached it by another name can know. The holder writes where it listens
/// a moment after it starts to: that is waited for, briefly.
fn row_hint(resolved: &Path) -> String {
    let started = Instant::now();
    let mut seen = None;
    loop {
        if let Ok(Some(h)) = crate::store::tables::instance::read_file(resolved) {
            let listening = h.http_url.is_some();
            seen = Some(h);
            if listening {
                break;
            }
        }
        if started.elapsed() >= NAME_WAIT {
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    seen.filter(|h| h.released_at_ms.is_none())
        .map(|h| holder::hint(&h, ""))
        .unwrap_or_default()
}

/// `database` with `.<suffix>` added to its file name: `smsdesk.db` → `smsdesk.db.lock`.
fn beside(database: &Path, suffix: &str) -> PathBuf {
    let mut name = database.file_name().unwrap_or_default().to_os_string();
    name.push(".");
    name.push(suffix);
    database.with_file_name(name)
}
