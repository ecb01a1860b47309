//! `smsdesk store`: the store itself, apart from what it holds. `migrate` brings a database to
//! this build's schema and stops: on PostgreSQL, run by the database's owner before the nodes,
//! whose roles may not change the schema, start. `copy` moves an office between SQLite and
//! PostgreSQL.

use std::process::ExitCode;

use clap::Subcommand;

use super::EXIT_REFUSED;
use crate::EXIT_CONFIG;
use crate::{prepare, Cli};

#[derive(Debug, Subcommand)]
pub enum StoreCommand {
    /// Bring the database [store] names to this build's schema (creating it in an empty one),
    /// then stop. Run it as the database's owner before the nodes start on a new PostgreSQL
    /// database, and after an upgrade
    Migrate,
    /// Copy every row of the store [store] names (stopped) into a new database of the other kind:
    /// a PostgreSQL database (empty; as its owner) or a SQLite file (that does not exist). Check
    /// the copy with `smsdesk rebuild --check` on it
    Copy {
        /// postgres://owner@host:port/database (no password in it), or the path of a new file
        #[arg(long)]
        to: String,
        /// A file holding the PostgreSQL owner's password (its first line), readable by you only
        #[arg(long)]
        password_file: Option<std::path::PathBuf>,
    },
}

pub fn store(cli: &Cli, cmd: StoreCommand) -> ExitCode {
    match cmd {
        StoreCommand::Migrate => migrate(cli),
        StoreCommand::Copy { to, password_file } => copy(cli, &to, password_file.as_deref()),
    }
}

fn copy(cli: &Cli, to: &str, password_file: Option<&std::path::Path>) -> ExitCode {
    let (prepared, _log) = match prepare(cli) {
        Ok(p) => p,
        Err(code) => return code,
    };
    let fail = |msg: String, code: u8| {
        eprintln!("smsdesk store copy: {msg}");
        ExitCode::from(code)
    };
    let to = match smsdesk_engine::engine::StoreAt::copy_to(to, password_file) {
        Ok(to) => to,
        Err(e) => return fail(e.to_string(), EXIT_REFUSED),
    };
    let started = std::time::Instant::now();
    let copied = prepared.copy_store(&to, |table, rows| {
        if rows > 0 {
            eprintln!("{table}: {rows} rows");
        }
    });
    match copied {
        Ok(copied) => {
            let rows: u64 = copied.tables.iter().map(|(_, n)| n).sum();
            let messages = copied
                .tables
                .iter()
                .find(|(t, _)| t == "message")
                .map_or(0, |(_, n)| *n);
            println!(
                "Copied {rows} rows of {} tables ({messages} messages) in {:.1} s. Check the copy with `smsdesk rebuild --check` on it.",
                copied.tables.len(),
                started.elapsed().as_secs_f64()
            );
            ExitCode::SUCCESS
        }
        Err(e) => fail(e.to_string(), EXIT_CONFIG),
    }
}

fn migrate(cli: &Cli) -> ExitCode {
    let (prepared, _log) = match prepare(cli) {
        Ok(p) => p,
        Err(code) => return code,
    };
    let fail = |msg: String, code: u8| {
        eprintln!("smsdesk store migrate: {msg}");
        ExitCode::from(code)
    };
    let at = match prepared.store_at() {
        Ok(at) => at,
        Err(e) => return fail(e.to_string(), EXIT_CONFIG),
    };
    // Nothing else of this data directory (nor, on SQLite, on the file) runs meanwhile.
    let _lock = match prepared.lock_for(&at) {
        Ok(lock) => lock,
        Err(e) => return fail(e.to_string(), EXIT_REFUSED),
    };
    let store = match at.open(&prepared.backup_plan().dir) {
        Ok(store) => store,
        Err(e) => return fail(e.to_string(), EXIT_CONFIG),
    };
    let report = store.migration().clone();
    let shown = store.path().display().to_string();
    store.shutdown();
    if report.applied.is_empty() {
        println!("{shown} is at schema {}: nothing to do.", report.to_version);
    } else {
        println!(
            "{shown} migrated from schema {} to {} ({} migrations).",
            report.from_version,
            report.to_version,
            report.applied.len()
        );
    }
    ExitCode::SUCCESS
}
