//! Whether a database was left by a clean stop and not touched since: then opening it need not
//! read every page again (`PRAGMA quick_check`, a full pass over the file: most of the start of
//! a million-message database).
//!
//! A clean stop copies the whole WAL into the database, leaves the WAL empty, and then writes a
//! mark beside the database (`<database>.clean-stop`) with what the file looked like at that
//! moment: its size, its modification time and its inode. Opening reads the mark and removes
//! it before anything can write, so a crash later leaves no mark. The quick check is skipped only
//! when the mark says exactly what the file says now and no WAL or rollback journal is beside
//! it; a file changed since (another program, a restored copy, a damaged sector rewritten)
//! differs in one of them and is checked in full, as is a database left by a crash.

use std::path::{Path, PathBuf};

/// The mark's name beside the database file.
pub(crate) fn mark_path(db: &Path) -> PathBuf {
    let mut name = db.as_os_str().to_owned();
    name.push(".clean-stop");
    PathBuf::from(name)
}

/// What the file looks like now, as a line; `None` when it cannot be read.
fn fingerprint(db: &Path) -> Option<String> {
    let m = std::fs::metadata(db).ok()?;
    let modified = m
        .modified()
        .ok()?
        .duration_since(std::time::UNIX_EPOCH)
        .ok()?
        .as_nanos();
    #[cfg(unix)]
    let inode = std::os::unix::fs::MetadataExt::ino(&m);
    #[cfg(not(unix))]
    let inode = 0u64;
    Some(format!(
        "smsdesk clean stop v1: {} bytes, modified {modified} ns, inode {inode}\n",
        m.len()
    ))
}

/// Nothing but the database file holds its data: no WAL with frames, no rollback journal.
fn self_contained(db: &Path) -> bool {
    let beside = |suffix: &str| {
        let mut p = db.as_os_str().to_owned();
        p.push(suffix);
        std::fs::metadata(PathBuf::from(p)).map_or(0, |m| m.len())
    };
    beside("-wal") == 0 && beside("-journal") == 0
}

/// After a clean stop whose last checkpoint emptied the WAL: records what the file looks like.
/// Not being able to write the mark only means the next start checks the file in full.
pub(crate) fn mark(db: &Path) {
    let Some(line) = fingerprint(db).filter(|_| self_contained(db)) else {
        return;
    };
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let written = options
        .open(mark_path(db))
        .and_then(|mut f| std::io::Write::write_all(&mut f, line.as_bytes()));
    if let Err(e) = written {
        tracing::warn!(error = %e, "cannot note the clean stop; the next start checks the whole database");
    }
}

/// At opening, before anything writes: whether the file is as the last clean stop left it. The
/// mark is removed either way (when it cannot be, the file is checked in full).
pub(crate) fn take(db: &Path) -> bool {
    let path = mark_path(db);
    let Ok(noted) = std::fs::read_to_string(&path) else {
        return false;
    };
    let removed = std::fs::remove_file(&path).is_ok();
    removed && self_contained(db) && fingerprint(db).is_some_and(|now| now == noted)
}
