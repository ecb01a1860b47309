//! `smsdesk export`: every message a filter selects, as CSV, read from the database file directly
//! (read-only, so it works while an instance runs).

use std::io::Write;
use std::process::ExitCode;

use clap::Args;

use super::EXIT_REFUSED;
use crate::{prepare, Cli, EXIT_CONFIG};
use smsdesk_engine::views;

#[derive(Debug, Args)]
pub struct ExportArgs {
    /// Write CSV (messages: the only format; with --number: instead of JSON)
    #[arg(long, required_unless_present = "number")]
    pub csv: bool,
    /// Everything held about this number instead (a subject access request: its messages with
    /// their states, its replies and opt-out history), as JSON, or CSV with --csv; audited
    #[arg(long, value_name = "NUMBER", conflicts_with_all = ["status", "state", "kind", "search"])]
    pub number: Option<String>,
    /// Write to this file instead of the standard output
    #[arg(long, short, value_name = "FILE")]
    pub output: Option<std::path::PathBuf>,
    /// Only messages with this queue status (queued, sending, accepted, failed, ...)
    #[arg(long)]
    pub status: Option<String>,
    /// Only messages with this reported state (delivered, undeliverable, ...)
    #[arg(long)]
    pub state: Option<String>,
    /// Only messages of this kind
    #[arg(long)]
    pub kind: Option<String>,
    /// Only messages whose text or reference contains this
    #[arg(long)]
    pub search: Option<String>,
}

pub fn export(cli: &Cli, args: ExportArgs) -> ExitCode {
    if let Some(number) = args.number {
        return super::privacy::subject(cli, number, args.csv, args.output);
    }
    let (prepared, _log) = match prepare(cli) {
        Ok(p) => p,
        Err(code) => return code,
    };
    let fail = |msg: String, code: u8| {
        eprintln!("smsdesk export: {msg}");
        ExitCode::from(code)
    };
    let filter = match export_filter(&args) {
        Ok(f) => f,
        Err(msg) => return fail(msg, EXIT_REFUSED),
    };
    let path = match prepared.database_file("export from the Messages screen, or GET /api/v1/messages/export") {
        Ok(path) => path,
        Err(e) => return fail(e, EXIT_CONFIG),
    };
    if !path.exists() {
        return fail(format!("no database at {}", path.display()), EXIT_CONFIG);
    }
    // Beside a running instance by the same name; refused through another name of a database in
    // use, which would read it without its WAL.
    let _reading = match smsdesk_engine::instance::lock_for_copy(&path) {
        Ok(held) => held,
        Err(e) => return fail(e.to_string(), EXIT_CONFIG),
    };
    let out: Box<dyn Write> = match &args.output {
        Some(p) => match std::fs::File::create(p) {
            Ok(f) => Box::new(std::io::BufWriter::new(f)),
            Err(e) => return fail(format!("cannot create {}: {e}", p.display()), EXIT_CONFIG),
        },
        None => Box::new(std::io::BufWriter::new(std::io::stdout().lock())),
    };
    match write_csv(&path, filter, out) {
        Ok(n) => {
            if let Some(p) = &args.output {
                eprintln!("{n} messages written to {}.", p.display());
            }
            ExitCode::SUCCESS
        }
        Err(e) => fail(e, EXIT_CONFIG),
    }
}

fn export_filter(args: &ExportArgs) -> Result<views::MessageFilter, String> {
    fn parse<T: std::str::FromStr>(v: &Option<String>) -> Result<Option<T>, String>
    where
        T::Err: std::fmt::Display,
    {
        v.as_deref()
            .map(|s| s.parse::<T>().map_err(|e| e.to_string()))
            .transpose()
    }
    Ok(views::MessageFilter {
        status: parse(&args.status)?,
        state: parse(&args.state)?,
        kind: parse(&args.kind)?,
        q: args.search.clone(),
        ..views::MessageFilter::default()
    })
}

/// Writes every message the filter selects (the engine's export, as the API and the window
/// write it), with a progress bar on a terminal.
fn write_csv(database: &std::path::Path, filter: views::MessageFilter, out: Box<dyn Write>) -> Result<u64, String> {
    let mut bar: Option<smsdesk_engine::progress::Progress> = None;
    let done = views::export_file(database, &filter, out, |p| {
        bar.get_or_insert_with(|| smsdesk_engine::progress::Progress::new("exporting", p.total))
            .set(p.done.min(p.total));
        std::ops::ControlFlow::Continue(())
    })
    .map_err(|e| e.to_string())?;
    if let Some(mut bar) = bar {
        bar.finish();
    }
    Ok(done)
}
