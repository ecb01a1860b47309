//! One running instance per data directory, and one process writing each database file: locks
//! held for the process's lifetime, and files (and a row) that tell tools (and tests) who holds
//! them and where the running instance listens.
//!
//! - The data directory's lock (`smsdesk.lock`, with `instance.json`) keeps two instances off
//!   one configuration.
//! - The database's locks keep two processes off one database however they reached it
//!   (`database`): a lock file beside it named after its resolved path (another data directory
//!   whose `[store] database` names it, a symbolic link, a relative path), and a lock on the
//!   database file itself, which a hard link, a bind mount or any other second name of the same
//!   file meets too. SQLite's own locks cannot serve: they are held per transaction, not per
//!   process lifetime.
//! - The holder's row inside the database, with a heartbeat (`holder`), for a second computer
//!   that reaches the file over a network file system, where the lock on the file may not reach.
//!
//! A refusal names the holder: its process, computer, data directory, since when, and where it
//! listens.

mod database;
mod holder;
mod node;
#[cfg(test)]
mod tests;

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use tokio::sync::watch;

use crate::api::RunMode;
use crate::paths::DataDir;
use crate::store::tables::instance as row;
use crate::store::Store;

pub use database::{lock_for_copy, CopyLock};
pub use holder::{HEARTBEAT, STALE};
pub use node::{name_of as node_name, stale_ms, Seat};

#[derive(Debug, thiserror::Error)]
pub enum InstanceError {
    #[error("another smsdesk is already running with the data directory {dir}{hint}")]
    AlreadyRunning { dir: PathBuf, hint: String },
    #[error("the database {database} is in use by another smsdesk{hint}: stop it first, or give this one another database ([store] database)")]
    DatabaseInUse { database: PathBuf, hint: String },
    #[error("another smsdesk node runs under the name {name}{hint}: give each node a name of its own ([store] node)")]
    NodeNameInUse { name: String, hint: String },
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

/// The held locks. Dropping them removes `instance.json` and the holder file, and releases both
/// (call [`InstanceLock::release`] first, before the store closes, to release the row).
#[derive(Debug)]
pub struct InstanceLock {
    dir: DataDir,
    _file: File,
    me: holder::Me,
    /// What the look at the row before opening found, until the row is claimed.
    looked: Option<holder::Looked>,
    heartbeat: Option<holder::Heartbeat>,
    /// This process as one of the nodes sharing the database (`smsdesk serve` only).
    node: Option<node::Membership>,
    lost: watch::Sender<bool>,
    /// Dropped last: the lock on the database file is let go only after everything else. None
    /// for a PostgreSQL store, which is no file of this computer's.
    database: Option<database::DatabaseLock>,
}

impl InstanceLock {
    /// Takes the data directory's lock, then the database's locks (`database` as the
    /// configuration names it: relative to the working directory, or through links), and looks
    /// at the row inside the database, or says who holds either. Blocking: where another
    /// computer's row may be alive, it watches its heartbeat for up to [`STALE`].
    pub fn acquire(dir: &DataDir, database: &Path) -> Result<InstanceLock, InstanceError> {
        let mut lock = InstanceLock::lock_dir(dir, true)?;
        let database = database::DatabaseLock::acquire(database, dir)?;
        lock.looked = Some(database.look(&lock.me)?);
        lock.database = Some(database);
        Ok(lock)
    }

    /// The data directory's lock only, for a store on PostgreSQL: its row is looked at once the
    /// store is open (see [`InstanceLock::hold`]).
    pub fn acquire_dir(dir: &DataDir) -> Result<InstanceLock, InstanceError> {
        InstanceLock::lock_dir(dir, false)
    }

    /// The data directory's lock, for a process that will (`file_locked`) or will not hold a
    /// database file's lock too.
    fn lock_dir(dir: &DataDir, file_locked: bool) -> Result<InstanceLock, InstanceError> {
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
        Ok(InstanceLock {
            dir: dir.clone(),
            _file: file,
            me: holder::Me::new(dir.root(), file_locked),
            looked: None,
            heartbeat: None,
            node: None,
            lost: watch::channel(false).0,
            database: None,
        })
    }

    /// Once the store has the database open: locks the file itself (a new database exists only
    /// now), records this process in the row inside it, and keeps its heartbeat until
    /// [`InstanceLock::release`]. Refused when a live holder claimed the row meanwhile. Blocking.
    pub fn hold(&mut self, store: &Arc<Store>) -> Result<(), InstanceError> {
        if self.heartbeat.is_some() {
            return Ok(());
        }
        let looked = match &mut self.database {
            Some(database) => {
                database.lock_identity()?;
                self.looked.take().unwrap_or_default()
            }
            // PostgreSQL: the row, read through the store, with the same rules as the file's;
            // and no node may be running (a tool works on a database nobody sends from).
            None => {
                let looked = self.look_at_row(store)?;
                if let Some(running) = live_nodes(store)?.into_iter().next() {
                    return Err(InstanceError::DatabaseInUse {
                        hint: format!(
                            " (the node {} runs on {}, process {}): stop every node first",
                            running.name, running.host, running.pid
                        ),
                        database: store.path().to_owned(),
                    });
                }
                looked
            }
        };
        let pending = holder::claim(store, &self.me, looked).map_err(|h| InstanceError::DatabaseInUse {
            hint: holder::hint(&h, self.me.elsewhere(&h)),
            database: store.path().to_owned(),
        })?;
        self.heartbeat = Some(holder::Heartbeat::start(
            store.clone(),
            &self.me,
            pending,
            self.lost.clone(),
        ));
        Ok(())
    }

    /// For `smsdesk serve`: joins the nodes that share the database as `name` and keeps its
    /// heartbeat until [`InstanceLock::release`]. On SQLite the process holds the database too,
    /// as [`InstanceLock::hold`] does; on PostgreSQL, where any number of nodes run, it only
    /// checks that no command-line tool holds it. Refused when a live node has the name.
    /// Blocking.
    pub fn hold_as_node(&mut self, store: &Arc<Store>, name: &str) -> Result<(), InstanceError> {
        if self.node.is_some() {
            return Ok(());
        }
        match &self.database {
            Some(_) => self.hold(store)?,
            None => {
                let _ = self.look_at_row(store)?;
            }
        }
        let io = |e: crate::store::StoreError| InstanceError::Database {
            database: store.path().to_owned(),
            source: std::io::Error::other(e.to_string()),
        };
        if let Err(n) = node::join(store, &self.me, name).map_err(io)? {
            return Err(InstanceError::NodeNameInUse {
                name: name.to_owned(),
                hint: format!(" (on {}, process {}, data directory {})", n.host, n.pid, n.data_dir),
            });
        }
        self.node = Some(node::Membership::start(
            store.clone(),
            name,
            self.me.0.token.clone(),
            self.lost.clone(),
        ));
        Ok(())
    }

    /// On PostgreSQL: the holder's row read through the store, refused while a live command-line
    /// tool holds it.
    fn look_at_row(&self, store: &Arc<Store>) -> Result<holder::Looked, InstanceError> {
        holder::look(|| store.reader().read_blocking(row::current), &self.me).map_err(|h| {
            InstanceError::DatabaseInUse {
                hint: holder::hint(&h, "; its heartbeat moves: it runs"),
                database: store.path().to_owned(),
            }
        })
    }

    /// This node's seat among the nodes, once it joined ([`InstanceLock::hold_as_node`]).
    pub fn seat(&self) -> Option<Seat> {
        self.node.as_ref().map(node::Membership::seat)
    }

    /// Turns true if another process takes the database over while this one holds it (it could
    /// not write its heartbeat for longer than [`STALE`], and another computer took it).
    pub fn lost(&self) -> watch::Receiver<bool> {
        self.lost.subscribe()
    }

    /// Says, in the row, that nobody holds the database any more (a clean stop), and stops the
    /// heartbeat: before the store closes. Blocking.
    pub fn release(&mut self) {
        if let Some(mut node) = self.node.take() {
            node.release();
        }
        if let Some(mut heartbeat) = self.heartbeat.take() {
            heartbeat.release();
        }
    }

    /// Publishes where this instance listens: in the data directory and beside the database
    /// (written whole, then renamed into place), and in the row inside the database. Blocking.
    pub fn publish(&self, info: &InstanceInfo) -> Result<(), InstanceError> {
        let io = |source| InstanceError::Io {
            dir: self.dir.root().to_owned(),
            source,
        };
        if let Some(heartbeat) = &self.heartbeat {
            heartbeat.publish(info.http_url.clone());
        }
        if let Some(node) = &self.node {
            node.publish(info.http_url.clone());
        }
        if let Some(database) = &self.database {
            database.publish(info.http_url.clone())?;
        }
        write_whole(
            &self.dir.instance_file(),
            &serde_json::to_vec_pretty(info).expect("instance info serialises"),
        )
        .map_err(io)
    }

    /// The database file this lock holds, resolved (absolute, links followed); none on
    /// PostgreSQL.
    pub fn database(&self) -> Option<&Path> {
        self.database.as_ref().map(|d| d.resolved.as_path())
    }
}

impl Drop for InstanceLock {
    fn drop(&mut self) {
        self.release();
        let _ = std::fs::remove_file(self.dir.instance_file());
    }
}

/// The nodes alive now, by the database's clock. Blocking.
fn live_nodes(store: &Store) -> Result<Vec<crate::store::tables::node::Node>, InstanceError> {
    let now = store.clock().now_ms();
    let nodes = store
        .reader()
        .read_blocking(move |c| crate::store::tables::node::all(c, now, stale_ms()))
        .map_err(|e| InstanceError::Database {
            database: store.path().to_owned(),
            source: std::io::Error::other(e.to_string()),
        })?;
    Ok(nodes.into_iter().filter(|n| n.alive).collect())
}

/// Reads the running instance's `instance.json`, if there is one.
pub fn read_info(dir: &DataDir) -> Option<InstanceInfo> {
    serde_json::from_slice(&std::fs::read(dir.instance_file()).ok()?).ok()
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
