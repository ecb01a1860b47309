//! `smsdesk backup` and `smsdesk restore`.
//!
//! A backup is taken beside a running instance (a read, with SQLite's online backup API) that
//! reached the database by the same name: it reads through the same WAL. With no instance
//! running, it holds the database's locks while it copies; through another name of a database in
//! use (a hard link, a bind mount), which would read the file without its holder's WAL, it is
//! refused, naming the holder ([`instance::lock_for_copy`]). A restore replaces the database, so
//! it refuses while any process holds it, by whatever name, and first checks the copy it is given
//! the way `rebuild --check` checks a data directory, on a temporary copy of it: the file given
//! is only read.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Args;

use super::{prepare, Cli, EXIT_CONFIG, EXIT_REFUSED};
use smsdesk_engine::backups::{self as backup, names, Copied};
use smsdesk_engine::clock::Clock;
use smsdesk_engine::engine::Prepared;
use smsdesk_engine::instance::{self, InstanceLock};
use smsdesk_engine::receipts::policy::ReceiptPolicy;
use smsdesk_engine::Store;

#[derive(Debug, Args)]
pub struct BackupArgs {
    /// The file to write (a new one; never replaced). Without it: the backup folder (`backup.dir`,
    /// by default `backups` in the data directory), as smsdesk-YYYYMMDD-HHMMSSZ.db
    #[arg(value_name = "FILE")]
    pub file: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct RestoreArgs {
    /// The backup to restore (only read; checked before anything is replaced)
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
}

/// A refusal, ready to print: the message and the exit code.
type Refusal = (String, u8);

pub fn backup(cli: &Cli, args: BackupArgs) -> ExitCode {
    let (prepared, _log) = match prepare(cli) {
        Ok(p) => p,
        Err(code) => return code,
    };
    let database = match prepared.database_file("back it up with pg_dump, or the server's own backups") {
        Ok(file) => file,
        Err(e) => {
            eprintln!("smsdesk backup: {e}");
            return ExitCode::from(EXIT_CONFIG);
        }
    };
    let _copying = match instance::lock_for_copy(&database) {
        Ok(held) => held,
        Err(e) => {
            eprintln!("smsdesk backup: {e}");
            return ExitCode::from(EXIT_CONFIG);
        }
    };
    let copied = match args.file {
        Some(file) => backup::copy_file(&database, &file),
        None => prepared.backup_plan().take(&database, Clock::system().now_ms()),
    };
    match copied {
        Ok(c) => {
            tracing::info!(path = %c.path.display(), bytes = c.bytes, took_ms = c.took.as_millis() as u64, "backup taken");
            println!("{}", describe(&c));
            ExitCode::SUCCESS
        }
        Err(e) => {
            tracing::error!(error = %e, "the backup failed");
            eprintln!("smsdesk backup: {e}");
            ExitCode::from(EXIT_CONFIG)
        }
    }
}

fn describe(c: &Copied) -> String {
    format!(
        "Backup written to {} ({}, schema version {}, checked) in {:.1} s.",
        c.path.display(),
        size(c.bytes),
        c.schema_version,
        c.took.as_secs_f64()
    )
}

/// A size in words: "12.3 MiB (12,901,376 bytes)".
fn size(bytes: u64) -> String {
    let digits = bytes.to_string();
    let mut grouped = String::new();
    for (i, ch) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            grouped.push(',');
        }
        grouped.push(ch);
    }
    format!("{:.1} MiB ({grouped} bytes)", bytes as f64 / 1_048_576.0)
}

pub fn restore(cli: &Cli, args: RestoreArgs) -> ExitCode {
    let (prepared, _log) = match prepare(cli) {
        Ok(p) => p,
        Err(code) => return code,
    };
    match restore_checked(&prepared, &args.file) {
        Ok(()) => ExitCode::SUCCESS,
        Err((message, code)) => {
            tracing::error!(file = %args.file.display(), "restore refused: {message}");
            eprintln!("smsdesk restore: {message}");
            ExitCode::from(code)
        }
    }
}

/// Holds the lock, checks the copy, keeps the database aside, then puts the copy in its place.
fn restore_checked(prepared: &Prepared, file: &Path) -> Result<(), Refusal> {
    let database = prepared
        .database_file("restore it with pg_restore or psql, from the server's backups")
        .map_err(|e| (format!("{e}. Nothing was restored."), EXIT_CONFIG))?;
    // No instance may run on this database while it is replaced (nor start meanwhile).
    let _lock = InstanceLock::acquire(&prepared.dir, &database)
        .map_err(|e| (format!("{e}. Nothing was restored."), EXIT_CONFIG))?;
    refuse_the_database_itself(file, &database)?;
    let (schema, messages) = check(prepared, file)?;
    println!(
        "{} checked: integrity ok, schema version {schema}; the states of {messages} messages recomputed from their receipts and decisions, each equal to the stored one.",
        file.display()
    );
    if database.exists() {
        let kept = keep_aside(prepared, &database)?;
        println!(
            "The database it replaces is kept as {} ({}).",
            kept.path.display(),
            size(kept.bytes)
        );
    }
    let bytes = backup::install(file, &database).map_err(|e| {
        (
            format!("{e}. Restore the copy kept aside if the database is gone."),
            EXIT_CONFIG,
        )
    })?;
    tracing::info!(file = %file.display(), database = %database.display(), bytes, "database restored");
    let latest = smsdesk_engine::backups::latest_schema();
    let upgrade = if schema < latest {
        format!(" It is at schema version {schema}: the next start upgrades it to {latest}, after a backup.")
    } else {
        String::new()
    };
    println!("Restored into {} ({}).{upgrade}", database.display(), size(bytes));
    Ok(())
}

/// The database cannot be restored from itself (it is removed before the copy is put in place).
fn refuse_the_database_itself(file: &Path, database: &Path) -> Result<(), Refusal> {
    let canonical = |p: &Path| std::fs::canonicalize(p).ok();
    if let (Some(f), Some(d)) = (canonical(file), canonical(database)) {
        if f == d {
            return Err((
                format!("{} is the database itself, not a backup of it", file.display()),
                EXIT_REFUSED,
            ));
        }
    }
    let mut wal = file.as_os_str().to_owned();
    wal.push("-wal");
    if std::fs::metadata(PathBuf::from(wal)).is_ok_and(|m| m.len() > 0) {
        return Err((
            format!(
                "{} has a WAL beside it: it is a database in use, and the file alone misses what the WAL holds. Make a copy of it with `smsdesk backup` and restore that",
                file.display()
            ),
            EXIT_REFUSED,
        ));
    }
    Ok(())
}

/// `PRAGMA integrity_check`, the schema version and `rebuild --check`, on a temporary copy of
/// `file` in the data directory; (schema version, messages checked).
fn check(prepared: &Prepared, file: &Path) -> Result<(u32, usize), Refusal> {
    let refused = |e: backup::BackupError| {
        let code = match e {
            backup::BackupError::Io { .. } => EXIT_CONFIG,
            _ => EXIT_REFUSED,
        };
        (format!("{e}. Nothing was restored."), code)
    };
    let scratch = Scratch::new(prepared.dir.root()).map_err(|e| (e.to_string(), EXIT_CONFIG))?;
    let copy = scratch.0.join("check.db");
    std::fs::copy(file, &copy).map_err(|e| {
        let code = if e.kind() == std::io::ErrorKind::NotFound {
            EXIT_REFUSED
        } else {
            EXIT_CONFIG
        };
        (
            format!("cannot read {}: {e}. Nothing was restored.", file.display()),
            code,
        )
    })?;
    let schema = backup::check_copy(&copy, file).map_err(refused)?;
    // Opening migrates the scratch copy (the file given keeps its version).
    let store = Store::open(&copy).map_err(|e| {
        (
            format!("{} cannot be opened: {e}. Nothing was restored.", file.display()),
            EXIT_REFUSED,
        )
    })?;
    let policy = ReceiptPolicy::from(&prepared.config.receipts);
    let report = crate::recompute(&store, &policy, false, "checking the backup");
    store.shutdown();
    let report = report.map_err(|e| {
        (
            format!("{} cannot be checked: {e}. Nothing was restored.", file.display()),
            EXIT_REFUSED,
        )
    })?;
    if !report.differing.is_empty() {
        for m in &report.differing {
            tracing::warn!(
                message = m,
                "in the backup, the stored state differs from the recomputed one"
            );
        }
        return Err((
            format!(
                "in {}, {} of {} message states differ from what their receipts and decisions give (see the log for which). Nothing was restored",
                file.display(),
                report.differing.len(),
                report.messages
            ),
            EXIT_REFUSED,
        ));
    }
    Ok((schema, report.messages))
}

/// Copies the database (with what its WAL holds) into the backup folder before it is replaced.
fn keep_aside(prepared: &Prepared, database: &Path) -> Result<Copied, Refusal> {
    let dir = prepared.backup_plan().dir;
    let dest = dir.join(names::file_name(names::Kind::BeforeRestore, Clock::system().now_ms()));
    backup::ensure_dir(&dir)
        .and_then(|()| backup::copy_file(database, &dest))
        .map_err(|e| {
            (
                format!("the database could not be kept aside before it is replaced ({e}); nothing was restored"),
                EXIT_CONFIG,
            )
        })
}

/// A folder of the data directory for the copy being checked, removed with what is in it.
struct Scratch(PathBuf);

impl Scratch {
    fn new(root: &Path) -> Result<Scratch, backup::BackupError> {
        let dir = root.join(format!(".restore-check-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        backup::ensure_dir(&dir)?;
        Ok(Scratch(dir))
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn sizes_are_said_in_mib_and_in_grouped_bytes() {
        assert_eq!(super::size(12_901_376), "12.3 MiB (12,901,376 bytes)");
        assert_eq!(super::size(999), "0.0 MiB (999 bytes)");
        assert_eq!(super::size(1_000), "0.0 MiB (1,000 bytes)");
    }
}
