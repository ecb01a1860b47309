//! The names smsdesk gives the backups it writes into its backup folder, and the only files there
//! it ever deletes.
//!
//! - `smsdesk-20250314-021500Z.db`: a backup, taken daily or by `smsdesk backup` without a file
//!   name (UTC time). Deleted once older than the days kept.
//! - `smsdesk-before-v14-20250314-021500Z.db`: taken before the database was migrated to schema
//!   version 14 (it holds the older schema). Never deleted by smsdesk.
//! - `smsdesk-before-restore-20250314-021500Z.db`: the database a restore replaced. Never deleted
//!   by smsdesk.
//!
//! Anything else in the folder is not smsdesk's and is left alone.

use std::path::{Path, PathBuf};

use smsdesk_core::time::{civil, from_civil};

use super::BackupError;

const DAY_MS: i64 = 86_400_000;

/// What a backup was taken for, as its name says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Daily, or `smsdesk backup` without a file name: deleted after the days kept.
    Regular,
    /// Before a migration to this schema version.
    BeforeMigration(u32),
    /// The database a restore replaced.
    BeforeRestore,
}

/// One of smsdesk's backups in a folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    pub path: PathBuf,
    pub kind: Kind,
    /// When it was taken (ms since the epoch), as its name says.
    pub at_ms: i64,
}

/// The file name of a backup of `kind` taken at `at_ms`.
pub fn file_name(kind: Kind, at_ms: i64) -> String {
    let (y, mo, d, h, mi, s) = civil(at_ms);
    let stamp = format!("{y:04}{mo:02}{d:02}-{h:02}{mi:02}{s:02}Z");
    match kind {
        Kind::Regular => format!("smsdesk-{stamp}.db"),
        Kind::BeforeMigration(v) => format!("smsdesk-before-v{v}-{stamp}.db"),
        Kind::BeforeRestore => format!("smsdesk-before-restore-{stamp}.db"),
    }
}

/// What a file name says, if smsdesk gave it.
pub fn parse(name: &str) -> Option<(Kind, i64)> {
    let rest = name.strip_prefix("smsdesk-")?.strip_suffix(".db")?;
    let (kind, stamp) = if let Some(r) = rest.strip_prefix("before-restore-") {
        (Kind::BeforeRestore, r)
    } else if let Some(r) = rest.strip_prefix("before-v") {
        let (v, stamp) = r.split_once('-')?;
        if v.is_empty() || !v.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        (Kind::BeforeMigration(v.parse().ok()?), stamp)
    } else {
        (Kind::Regular, rest)
    };
    Some((kind, parse_stamp(stamp)?))
}

/// `YYYYMMDD-HHMMSSZ` as ms since the epoch.
fn parse_stamp(stamp: &str) -> Option<i64> {
    let b = stamp.as_bytes();
    if b.len() != 16 || b[8] != b'-' || b[15] != b'Z' {
        return None;
    }
    let digits = |r: std::ops::Range<usize>| -> Option<i64> {
        let s = stamp.get(r)?;
        s.bytes().all(|c| c.is_ascii_digit()).then(|| s.parse().ok())?
    };
    let (y, mo, d) = (digits(0..4)?, digits(4..6)?, digits(6..8)?);
    let (h, mi, s) = (digits(9..11)?, digits(11..13)?, digits(13..15)?);
    if !(1..=12).contains(&mo) || !(1..=31).contains(&d) || h > 23 || mi > 59 || s > 59 {
        return None;
    }
    let ms = from_civil(y, mo, d, h, mi, s);
    // A date that does not exist (February 30th) would not name itself again.
    (civil(ms) == (y, mo, d, h, mi, s)).then_some(ms)
}

/// smsdesk's backups in `dir`, oldest first (none when the folder does not exist).
pub fn list(dir: &Path) -> Result<Vec<Found>, BackupError> {
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(super::io("read the folder", dir, e)),
    };
    let mut found = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| super::io("read the folder", dir, e))?;
        let Some((kind, at_ms)) = entry.file_name().to_str().and_then(parse) else {
            continue;
        };
        if entry.file_type().is_ok_and(|t| t.is_file()) {
            found.push(Found {
                path: entry.path(),
                kind,
                at_ms,
            });
        }
    }
    found.sort_by(|a, b| (a.at_ms, &a.path).cmp(&(b.at_ms, &b.path)));
    Ok(found)
}

/// The newest of smsdesk's backups in `dir`, of any kind.
pub fn newest(dir: &Path) -> Result<Option<Found>, BackupError> {
    Ok(list(dir)?.pop())
}

/// Deletes the regular backups in `dir` taken more than `keep_days` days before `now_ms`; the
/// ones taken before a migration or a restore, and every file smsdesk did not name, stay.
/// Returns what it deleted.
pub fn prune(dir: &Path, keep_days: u32, now_ms: i64) -> Result<Vec<PathBuf>, BackupError> {
    let cutoff = now_ms - i64::from(keep_days) * DAY_MS;
    let mut deleted = Vec::new();
    for f in list(dir)? {
        if f.kind == Kind::Regular && f.at_ms < cutoff {
            std::fs::remove_file(&f.path).map_err(|e| super::io("delete", &f.path, e))?;
            deleted.push(f.path);
        }
    }
    Ok(deleted)
}

#[cfg(test)]
mod tests {
    use super::*;

    const T: i64 = 1_741_918_500_000; // 2025-03-14 02:15:00 UTC

    #[test]
    fn each_kind_of_name_reads_back_as_what_and_when_it_was() {
        assert_eq!(file_name(Kind::Regular, T), "smsdesk-20250314-021500Z.db");
        assert_eq!(
            file_name(Kind::BeforeMigration(14), T),
            "smsdesk-before-v14-20250314-021500Z.db"
        );
        assert_eq!(
            file_name(Kind::BeforeRestore, T),
            "smsdesk-before-restore-20250314-021500Z.db"
        );
        for kind in [Kind::Regular, Kind::BeforeMigration(14), Kind::BeforeRestore] {
            assert_eq!(parse(&file_name(kind, T)), Some((kind, T)));
        }
    }

    #[test]
    fn names_smsdesk_did_not_give_are_not_its_own() {
        for name in [
            "smsdesk.db",
            "smsdesk-20250314-021500Z.db-wal",
            "smsdesk-20250314-021500.db",
            "smsdesk-20250230-021500Z.db",
            "smsdesk-before-v-20250314-021500Z.db",
            "smsdesk-before-vx-20250314-021500Z.db",
            ".smsdesk-20250314-021500Z.db.partial-12",
            "my-smsdesk-20250314-021500Z.db",
            "smsdesk-2025031-4021500Z.db",
        ] {
            assert_eq!(parse(name), None, "{name}");
        }
    }

    #[test]
    fn pruning_deletes_only_regular_backups_older_than_the_days_kept() {
        let dir = tempfile::tempdir().unwrap();
        let now = T + 30 * DAY_MS;
        let touch = |name: &str| std::fs::write(dir.path().join(name), b"x").unwrap();
        let old = file_name(Kind::Regular, now - 15 * DAY_MS);
        let recent = file_name(Kind::Regular, now - 13 * DAY_MS);
        let before = file_name(Kind::BeforeMigration(14), now - 20 * DAY_MS);
        let restore = file_name(Kind::BeforeRestore, now - 20 * DAY_MS);
        for name in [
            &old,
            &recent,
            &before,
            &restore,
            "notes.txt",
            "smsdesk-20000101-000000.db",
        ] {
            touch(name);
        }
        let deleted = prune(dir.path(), 14, now).unwrap();
        assert_eq!(deleted, vec![dir.path().join(&old)]);
        let mut left: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        left.sort();
        let mut expected = vec![
            recent.clone(),
            before.clone(),
            restore.clone(),
            "notes.txt".into(),
            "smsdesk-20000101-000000.db".into(),
        ];
        expected.sort();
        assert_eq!(left, expected);
        assert_eq!(
            newest(dir.path()).unwrap().map(|f| f.path),
            Some(dir.path().join(&recent))
        );
    }
}
