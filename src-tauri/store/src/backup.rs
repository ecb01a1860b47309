//! Consistent copies of the database, taken while it is in use, and the checks a copy must pass
//! before it is trusted again.
//!
//! A copy is made with SQLite's online backup API in a single step: one read transaction on the
//! source for the whole copy, so the copy is the database as one commit left it. In WAL mode a
//! reader blocks no writer, so the engine keeps writing meanwhile; and since the copy is one step,
//! a write that lands during it cannot make it start over (a backup taken page by page restarts
//! whenever another connection writes the source, and under steady load might never finish).
//!
//! The copy is written to a temporary file beside its destination (readable by its owner only),
//! checked (`PRAGMA quick_check`), flushed to the disk, and only then renamed to its name: a
//! backup file that exists is a whole one. The names smsdesk gives its own backups, and which of
//! them it may delete, are in [`names`].

pub mod names;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use rusqlite::backup::{Backup, StepResult};
use rusqlite::{Connection, OpenFlags};

use crate::migrations;

/// Tries of the one-step copy when SQLite answers busy (a checkpoint resetting the WAL just then).
const BUSY_TRIES: u32 = 50;

/// Why a backup or the check of a copy failed. Each message names the file.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BackupError {
    #[error("there is no database at {0}")]
    NoDatabase(PathBuf),
    #[error("{0} already exists; give a name that is not taken")]
    Exists(PathBuf),
    #[error("cannot read the database {path}: {source}")]
    Source {
        path: PathBuf,
        #[source]
        source: rusqlite::Error,
    },
    #[error("cannot write the copy {path}: {source}")]
    Copy {
        path: PathBuf,
        #[source]
        source: rusqlite::Error,
    },
    #[error("the database stayed busy: no consistent copy could be started after {tries} tries")]
    Busy { tries: u32 },
    #[error("cannot {what} {path}: {source}")]
    Io {
        what: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{path} is not a usable smsdesk database: {why}")]
    Unusable { path: PathBuf, why: String },
    #[error("{path} is at schema version {found}, newer than this smsdesk knows ({known}); use a newer smsdesk")]
    TooNew { path: PathBuf, found: u32, known: u32 },
}

/// A copy that was written and checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Copied {
    pub path: PathBuf,
    pub bytes: u64,
    /// The schema version the copy holds.
    pub schema_version: u32,
    pub took: Duration,
}

/// Copies the database at `source` (with what its WAL holds) to a new file `dest`, while other
/// processes may be writing it; needs no lock of smsdesk's. `dest` must not exist.
pub fn copy_file(source: &Path, dest: &Path) -> Result<Copied, BackupError> {
    if !source.is_file() {
        return Err(BackupError::NoDatabase(source.to_owned()));
    }
    let src =
        Connection::open_with_flags(source, OpenFlags::SQLITE_OPEN_READ_ONLY).map_err(|e| BackupError::Source {
            path: source.to_owned(),
            source: e,
        })?;
    src.busy_timeout(Duration::from_secs(5))
        .map_err(|e| BackupError::Source {
            path: source.to_owned(),
            source: e,
        })?;
    copy_from(&src, dest)
}

/// Copies what the connection `src` reads (its main database) to a new file `dest`.
pub fn copy_from(src: &Connection, dest: &Path) -> Result<Copied, BackupError> {
    let started = Instant::now();
    if dest.exists() {
        return Err(BackupError::Exists(dest.to_owned()));
    }
    let partial = partial_path(dest);
    let result = write_partial(src, &partial).and_then(|schema_version| {
        sync_file(&partial)?;
        // Checked once more just before: a backup never replaces a file that is there.
        if dest.exists() {
            return Err(BackupError::Exists(dest.to_owned()));
        }
        std::fs::rename(&partial, dest).map_err(|e| io("name", dest, e))?;
        Ok(schema_version)
    });
    let _ = std::fs::remove_file(&partial);
    let schema_version = result?;
    sync_dir(dest)?;
    let bytes = std::fs::metadata(dest).map_err(|e| io("read", dest, e))?.len();
    Ok(Copied {
        path: dest.to_owned(),
        bytes,
        schema_version,
        took: started.elapsed(),
    })
}

/// Where a copy is written before it is renamed: beside it, hidden, named by this process.
fn partial_path(dest: &Path) -> PathBuf {
    let name = dest
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    dest.with_file_name(format!(".{name}.partial-{}", std::process::id()))
}

/// Writes the copy to `partial` (a new file, its owner's only) and checks it; the schema version.
fn write_partial(src: &Connection, partial: &Path) -> Result<u32, BackupError> {
    create_private(partial)?;
    let copy_err = |source| BackupError::Copy {
        path: partial.to_owned(),
        source,
    };
    {
        let mut dst = Connection::open(partial).map_err(copy_err)?;
        one_step(src, &mut dst, partial)?;
        // The copy stands alone: a rollback journal, not a WAL that would have to travel with it.
        dst.pragma_update(None, "journal_mode", "DELETE").map_err(copy_err)?;
        release_holder(&dst).map_err(copy_err)?;
        dst.close().map_err(|(_, e)| copy_err(e))?;
    }
    let copy = Connection::open(partial).map_err(copy_err)?;
    crate::trust::quick_check(&copy, partial).map_err(|e| BackupError::Unusable {
        path: partial.to_owned(),
        why: e.to_string(),
    })?;
    schema_version(&copy, partial)
}

/// Whoever holds the database, nobody holds a copy of it: a copy opened elsewhere must not look
/// held by a process that never had it (the holder's row, `tables::instance`, says released).
fn release_holder(copy: &Connection) -> rusqlite::Result<()> {
    let has_row: bool = copy.query_row(
        "SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'instance')",
        [],
        |r| r.get(0),
    )?;
    if has_row {
        copy.execute(
            "UPDATE instance SET released_at = beat_at WHERE id = 1 AND released_at IS NULL",
            [],
        )?;
    }
    Ok(())
}

/// The whole copy in one step (one read transaction on the source), tried again while busy.
fn one_step(src: &Connection, dst: &mut Connection, partial: &Path) -> Result<(), BackupError> {
    let copy_err = |source| BackupError::Copy {
        path: partial.to_owned(),
        source,
    };
    let backup = Backup::new(src, dst).map_err(copy_err)?;
    for _ in 0..BUSY_TRIES {
        match backup.step(-1).map_err(copy_err)? {
            StepResult::Done => return Ok(()),
            // Busy or locked: nothing was copied yet; the next try starts from the first page.
            _ => std::thread::sleep(Duration::from_millis(100)),
        }
    }
    Err(BackupError::Busy { tries: BUSY_TRIES })
}

/// The schema version a database holds (0 when it has no migrations table: not smsdesk's).
pub(crate) fn schema_version(c: &Connection, path: &Path) -> Result<u32, BackupError> {
    let has_table = c
        .query_row(
            "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'schema_migration'",
            [],
            |r| r.get::<_, i64>(0),
        )
        .map_err(|source| BackupError::Source {
            path: path.to_owned(),
            source,
        })?;
    if has_table == 0 {
        return Ok(0);
    }
    migrations::current_version(c).map_err(|e| BackupError::Unusable {
        path: path.to_owned(),
        why: e.to_string(),
    })
}

/// Checks a copy before it may replace the database: it is an SQLite file, `PRAGMA
/// integrity_check` (every page, every index against its table) says "ok", and it holds an
/// smsdesk schema no newer than this build's. Returns its schema version. Opens `path` for
/// writing (SQLite may roll back a journal left beside it): give it a copy to check, and the
/// name of the file it is a copy of (`shown_as`), which the errors give.
pub fn check_copy(path: &Path, shown_as: &Path) -> Result<u32, BackupError> {
    let unusable = |why: String| BackupError::Unusable {
        path: shown_as.to_owned(),
        why,
    };
    if !path.is_file() {
        return Err(BackupError::NoDatabase(shown_as.to_owned()));
    }
    crate::trust::check_header(path).map_err(|e| match e {
        crate::StoreError::Unusable { why, .. } => unusable(why),
        other => unusable(other.to_string()),
    })?;
    let c = Connection::open(path).map_err(|source| BackupError::Source {
        path: shown_as.to_owned(),
        source,
    })?;
    let findings = c
        .prepare("PRAGMA integrity_check")
        .and_then(|mut s| {
            s.query_map([], |r| r.get::<_, String>(0))?
                .collect::<Result<Vec<_>, _>>()
        })
        .map_err(|e| unusable(format!("its integrity check could not read it: {e}")))?;
    if findings != ["ok"] {
        let quoted: Vec<&str> = findings.iter().take(3).map(String::as_str).collect();
        return Err(unusable(format!(
            "its integrity check (PRAGMA integrity_check) found damage: {}",
            quoted.join("; ")
        )));
    }
    let found = schema_version(&c, shown_as)?;
    let known = migrations::latest_version();
    if found == 0 {
        return Err(unusable(
            "it holds no smsdesk schema (no schema_migration table)".into(),
        ));
    }
    if found > known {
        return Err(BackupError::TooNew {
            path: shown_as.to_owned(),
            found,
            known,
        });
    }
    Ok(found)
}

/// Puts the copy `copy` (checked with [`check_copy`]; only read) in place of the database
/// `database`, which nothing may have open (hold the instance lock): the copy is written beside
/// the database under a temporary name (its owner's only) and flushed; the database's WAL, shared
/// memory and clean-stop mark are removed (a WAL left beside the new file would be replayed into
/// it); then the copy is renamed over the database. Keep the database first: it is gone after.
pub fn install(copy: &Path, database: &Path) -> Result<u64, BackupError> {
    let partial = partial_path(database);
    let written = create_private(&partial).and_then(|()| {
        let mut from = std::fs::File::open(copy).map_err(|e| io("read", copy, e))?;
        let mut to = std::fs::OpenOptions::new()
            .write(true)
            .open(&partial)
            .map_err(|e| io("write", &partial, e))?;
        let n = std::io::copy(&mut from, &mut to).map_err(|e| io("write", &partial, e))?;
        to.sync_all().map_err(|e| io("flush", &partial, e))?;
        Ok(n)
    });
    let bytes = match written {
        Ok(n) => n,
        Err(e) => {
            let _ = std::fs::remove_file(&partial);
            return Err(e);
        }
    };
    for beside in ["-wal", "-shm", "-journal"] {
        let mut p = database.as_os_str().to_owned();
        p.push(beside);
        remove_if_there(Path::new(&p))?;
    }
    remove_if_there(&crate::clean_stop::mark_path(database))?;
    std::fs::rename(&partial, database).map_err(|e| io("put in place", database, e))?;
    sync_dir(database)?;
    Ok(bytes)
}

fn remove_if_there(path: &Path) -> Result<(), BackupError> {
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(io("remove", path, e)),
        _ => Ok(()),
    }
}

/// Creates `path` as a new, empty file readable and writable by its owner only.
fn create_private(path: &Path) -> Result<(), BackupError> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    options.open(path).map(drop).map_err(|e| io("create", path, e))
}

/// Creates the directory `dir` (and its parents) where missing; those it creates are their
/// owner's only (0700). An existing directory is left as it is.
pub fn ensure_dir(dir: &Path) -> Result<(), BackupError> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(dir).map_err(|e| io("create the folder", dir, e))
}

/// Flushes a file's content to the disk.
pub fn sync_file(path: &Path) -> Result<(), BackupError> {
    std::fs::File::open(path)
        .and_then(|f| f.sync_all())
        .map_err(|e| io("flush", path, e))
}

/// Flushes the directory holding `path`, so that a rename or a new name in it survives a crash.
pub fn sync_dir(path: &Path) -> Result<(), BackupError> {
    #[cfg(unix)]
    {
        let dir = match path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        std::fs::File::open(dir)
            .and_then(|f| f.sync_all())
            .map_err(|e| io("flush the folder of", path, e))?;
    }
    #[cfg(not(unix))]
    let _ = path;
    Ok(())
}

fn io(what: &'static str, path: &Path, source: std::io::Error) -> BackupError {
    BackupError::Io {
        what,
        path: path.to_owned(),
        source,
    }
}

#[cfg(test)]
mod tests;
