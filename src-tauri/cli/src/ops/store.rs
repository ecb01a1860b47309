//! `smsdesk store`: the store itself, apart from what it holds. `migrate` brings a database to
//! this build's schema and stops: on PostgreSQL, run by the database's owner before the nodes,
//! whose roles may not change the schema, start.

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
}

pub fn store(cli: &Cli, cmd: StoreCommand) -> ExitCode {
    let StoreCommand::Migrate = cmd;
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
