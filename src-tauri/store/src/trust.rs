//! What a database file must show before it is trusted: that it is one (SQLite's header), and that
//! its pages hold together (`PRAGMA quick_check`). A file that fails is refused, naming the file
//! and what to do, before anything writes to it: an empty or damaged database started silently
//! would hide (and soon overwrite) what it held.
//!
//! A file that does not exist is a new database. A file that exists but is empty (0 bytes) is not
//! one: it is what is left when a database was truncated or copied wrongly, so it is refused too.

use std::io::Read;
use std::path::Path;
use std::time::Instant;

use rusqlite::Connection;

use super::StoreError;

/// The first 16 bytes of every SQLite database file.
pub const HEADER: &[u8; 16] = b"SQLite format 3\0";

/// At most this many of quick_check's findings are quoted in the refusal.
const FINDINGS_QUOTED: usize = 3;

/// Before opening: whether `path` is a new database (`true`: no file yet), an SQLite database
/// (`false`), or something to refuse.
///
/// The file is read through a descriptor of its own, which is safe only while this process holds
/// no SQLite lock on it (closing any descriptor of a file drops the process's POSIX locks on it):
/// call it before the store's connections open the file.
pub fn check_header(path: &Path) -> Result<bool, StoreError> {
    let unusable = |why: String| StoreError::Unusable {
        path: path.to_owned(),
        why,
    };
    let mut file = match std::fs::File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(true),
        Err(e) => return Err(unusable(format!("it cannot be read ({e})"))),
    };
    let len = file
        .metadata()
        .map_err(|e| unusable(format!("it cannot be read ({e})")))?
        .len();
    if len == 0 {
        return Err(unusable(
            "the file is empty (0 bytes): it holds no database, not even an empty one".into(),
        ));
    }
    let mut head = Vec::with_capacity(HEADER.len());
    file.by_ref()
        .take(HEADER.len() as u64)
        .read_to_end(&mut head)
        .map_err(|e| unusable(format!("it cannot be read ({e})")))?;
    if head != HEADER {
        return Err(unusable(format!(
            "it is not an SQLite database ({len} bytes that do not start with \"SQLite format 3\")"
        )));
    }
    Ok(false)
}

/// After opening, before anything is written: SQLite's `quick_check` (every page, every record's
/// format, without comparing indexes with their tables) must answer "ok".
pub fn quick_check(conn: &Connection, path: &Path) -> Result<(), StoreError> {
    let started = Instant::now();
    let unusable = |why: String| StoreError::Unusable {
        path: path.to_owned(),
        why,
    };
    let findings = conn.prepare("PRAGMA quick_check").and_then(|mut s| {
        s.query_map([], |r| r.get::<_, String>(0))?
            .collect::<Result<Vec<_>, _>>()
    });
    let findings = match findings {
        Ok(f) => f,
        Err(e) => {
            return Err(unusable(format!(
                "its integrity check (PRAGMA quick_check) could not read it: {e}"
            )))
        }
    };
    if findings.len() == 1 && findings[0] == "ok" {
        tracing::debug!(
            took_ms = started.elapsed().as_millis() as u64,
            "database quick_check passed"
        );
        return Ok(());
    }
    let quoted: Vec<&str> = findings.iter().take(FINDINGS_QUOTED).map(String::as_str).collect();
    let more = findings.len().saturating_sub(FINDINGS_QUOTED);
    let more = if more > 0 {
        format!(" (and {more} more)")
    } else {
        String::new()
    };
    Err(unusable(format!(
        "its integrity check (PRAGMA quick_check) found damage: {}{more}",
        quoted.join("; ")
    )))
}
