//! The data directory is its user's alone: it holds one-time codes, webhook signing secrets, the
//! callback secrets the Settings screen writes into smsdesk.toml, and the key that seals the
//! others. Other users of the computer must not read any of it.
//!
//! Two halves: every file the process creates from the start on is born readable by its owner
//! only ([`restrict_new_files`]: the database, and so its -wal and -shm, which SQLite gives the
//! database's mode; logs; exports; key files), and what an earlier version (or a copy, or an
//! archive tool) left open is closed at start ([`tighten`]), each change named so it can be
//! logged. On systems without Unix permissions both do nothing.

use std::path::{Path, PathBuf};

/// One file or folder whose permissions were tightened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tightened {
    pub path: PathBuf,
    /// Its permission bits before (`0o644`) and after (`0o600`).
    pub was: u32,
    pub now: u32,
}

/// What [`tighten`] did, and what it could not do.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Tightening {
    pub tightened: Vec<Tightened>,
    /// Paths whose permissions could not be read or changed (owned by another user, say), and why.
    pub failed: Vec<(PathBuf, String)>,
}

impl Tightening {
    /// Both passes' changes, in order.
    pub fn and(mut self, later: Tightening) -> Tightening {
        self.tightened.extend(later.tightened);
        self.failed.extend(later.failed);
        self
    }
}

/// Makes every file and folder this process creates from now on readable by its owner only
/// (umask 077). Call it before the first file is written; calling it again changes nothing.
pub fn restrict_new_files() {
    #[cfg(unix)]
    // SAFETY: umask(2) only swaps the process's file creation mask; it cannot fail and touches
    // no memory of ours.
    unsafe {
        libc::umask(0o077);
    }
}

/// Takes the group's and others' permissions from `root` and from everything under it (symbolic
/// links are left alone: what they point to is not the data directory's), then from `extra`
/// files that live elsewhere (a database configured outside the data directory, with its -wal
/// and -shm). Missing paths are skipped.
pub fn tighten(root: &Path, extra: &[PathBuf]) -> Tightening {
    let mut done = Tightening::default();
    walk(root, &mut done);
    for path in extra {
        if !path.starts_with(root) {
            tighten_one(path, &mut done);
        }
    }
    done
}

/// The database file and the files SQLite keeps beside it.
pub fn database_files(db: &Path) -> Vec<PathBuf> {
    let mut files = vec![db.to_owned()];
    for suffix in ["-wal", "-shm", "-journal"] {
        let mut name = db.as_os_str().to_owned();
        name.push(suffix);
        files.push(PathBuf::from(name));
    }
    files
}

/// Logs what was tightened (a warning naming each path: others could read them until now) and
/// what could not be.
pub fn report(t: &Tightening) {
    if !t.tightened.is_empty() {
        tracing::warn!(
            "other users of this computer could read smsdesk's files; they are now yours alone: {}",
            describe(&t.tightened)
        );
    }
    for (path, e) in &t.failed {
        tracing::warn!(
            path = %path.display(),
            error = %e,
            "cannot make this file readable by you only; check who owns it"
        );
    }
}

/// `path (644 → 600), …`
pub fn describe(tightened: &[Tightened]) -> String {
    tightened
        .iter()
        .map(|t| format!("{} ({:o} → {:o})", t.path.display(), t.was, t.now))
        .collect::<Vec<_>>()
        .join(", ")
}

fn walk(dir: &Path, done: &mut Tightening) {
    if !tighten_one(dir, done) {
        return;
    }
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) => {
            done.failed.push((dir.to_owned(), e.to_string()));
            return;
        }
    };
    for entry in entries.flatten() {
        let path = entry.path();
        match entry.file_type() {
            Ok(t) if t.is_dir() => walk(&path, done),
            Ok(t) if t.is_file() => {
                tighten_one(&path, done);
            }
            _ => {}
        }
    }
}

/// Takes the group's and others' bits from one path; false when it is not there (or not a file
/// or folder of its own).
#[cfg(unix)]
fn tighten_one(path: &Path, done: &mut Tightening) -> bool {
    use std::os::unix::fs::PermissionsExt;
    let meta = match std::fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => return false,
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return false,
        Err(e) => {
            done.failed.push((path.to_owned(), e.to_string()));
            return false;
        }
    };
    let was = meta.permissions().mode() & 0o7777;
    let now = was & !0o077;
    if now != was {
        match std::fs::set_permissions(path, std::fs::Permissions::from_mode(now)) {
            Ok(()) => done.tightened.push(Tightened {
                path: path.to_owned(),
                was,
                now,
            }),
            Err(e) => done.failed.push((path.to_owned(), e.to_string())),
        }
    }
    true
}

#[cfg(not(unix))]
fn tighten_one(path: &Path, _done: &mut Tightening) -> bool {
    path.exists()
}

#[cfg(all(test, unix))]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    fn set(path: &Path, mode: u32) {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
    }

    fn mode(path: &Path) -> u32 {
        std::fs::symlink_metadata(path).unwrap().permissions().mode() & 0o7777
    }

    #[test]
    fn group_and_other_bits_are_taken_from_everything_below_and_each_change_is_named() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("data");
        std::fs::create_dir_all(root.join("logs/old")).unwrap();
        for (f, m) in [
            ("smsdesk.db", 0o644),
            ("logs/a.log", 0o664),
            ("logs/old/b.log", 0o604),
            ("secret.key", 0o400),
            ("fine", 0o600),
        ] {
            std::fs::write(root.join(f), "x").unwrap();
            set(&root.join(f), m);
        }
        set(&root.join("logs/old"), 0o775);
        set(&root.join("logs"), 0o700);
        set(&root, 0o755);
        let outside = tmp.path().join("elsewhere.db");
        std::fs::write(&outside, "x").unwrap();
        set(&outside, 0o666);
        let elsewhere = tmp.path().join("untouched");
        std::fs::write(&elsewhere, "x").unwrap();
        set(&elsewhere, 0o644);
        std::os::unix::fs::symlink(&elsewhere, root.join("link")).unwrap();

        let t = tighten(&root, &database_files(&outside));
        assert!(t.failed.is_empty(), "{:?}", t.failed);
        let mut named: Vec<(String, u32, u32)> = t
            .tightened
            .iter()
            .map(|x| {
                (
                    x.path.strip_prefix(tmp.path()).unwrap().display().to_string(),
                    x.was,
                    x.now,
                )
            })
            .collect();
        named.sort();
        assert_eq!(
            named,
            vec![
                ("data".into(), 0o755, 0o700),
                ("data/logs/a.log".into(), 0o664, 0o600),
                ("data/logs/old".into(), 0o775, 0o700),
                ("data/logs/old/b.log".into(), 0o604, 0o600),
                ("data/smsdesk.db".into(), 0o644, 0o600),
                ("elsewhere.db".into(), 0o666, 0o600),
            ],
            "what was open to others, and only that, is changed and named"
        );
        assert_eq!(mode(&root.join("secret.key")), 0o400, "the owner's own bits are kept");
        assert_eq!(mode(&elsewhere), 0o644, "a symbolic link is not followed");
        assert!(describe(&t.tightened).contains("smsdesk.db (644 → 600)"));
        assert!(
            tighten(&root, &[]).tightened.is_empty(),
            "a second pass changes nothing"
        );
    }
}
