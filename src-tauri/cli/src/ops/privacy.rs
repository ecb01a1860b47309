//! `smsdesk retention run`, `smsdesk erase --number` and `smsdesk export --number`: personal data
//! by the rules in force, through the running instance when there is one, else on the database.

use std::io::Write;
use std::process::ExitCode;

use clap::{Args, Subcommand};

use super::{call, run, Refused, Target, EXIT_CONFIG};
use crate::Cli;
use smsdesk_engine::apikeys::Caller;
use smsdesk_engine::privacy::{Erased, RetentionRun};
use smsdesk_engine::service::privacy::{EraseNumber, SubjectAccess, SubjectRequest};

#[derive(Debug, Subcommand)]
pub enum RetentionCommand {
    /// Remove now what is past its period in [retention] (texts, numbers, replies), keeping the
    /// facts; audited. smsdesk also runs it every day by itself
    Run {
        /// Print what it did as JSON
        #[arg(long)]
        json: bool,
    },
}

#[derive(Debug, Args)]
pub struct EraseArgs {
    /// The number whose data is erased, international (+33612345678) or national with
    /// [intake] default_region
    #[arg(long)]
    pub number: String,
    /// Why (the request it answers): kept in the audit, which does not keep the number
    #[arg(long)]
    pub note: String,
    /// Print what it did as JSON
    #[arg(long)]
    pub json: bool,
}

pub fn retention(cli: &Cli, cmd: RetentionCommand) -> ExitCode {
    let RetentionCommand::Run { json } = cmd;
    run(cli, "retention run", |target| async move {
        let result = async {
            let done: RetentionRun = match &target {
                Target::Remote { .. } => {
                    call(
                        &target,
                        reqwest::Method::POST,
                        "/api/v1/privacy/retention/run",
                        None::<&()>,
                        &[],
                    )
                    .await?
                }
                Target::Local { service, .. } => service.run_retention(&Caller::command_line()).await?,
            };
            if json {
                println!("{}", serde_json::to_string_pretty(&done).expect("serialises"));
            } else {
                let r = &done.redacted;
                println!(
                    "Retention removed {} texts, {} numbers, {} receipts' content, {} replies and {} audit details, \
                     in {} batches (the longest held the writer {} ms), in {} ms.",
                    r.texts,
                    r.numbers,
                    r.receipts,
                    r.replies,
                    r.audit,
                    done.batches,
                    done.longest_batch_ms,
                    done.took_ms
                );
            }
            Ok(())
        }
        .await;
        (target, result)
    })
}

pub fn erase(cli: &Cli, args: EraseArgs) -> ExitCode {
    let req = EraseNumber {
        number: args.number.clone(),
        note: args.note.clone(),
    };
    run(cli, "erase", |target| async move {
        let result = async {
            let done: Erased = match &target {
                Target::Remote { .. } => {
                    call(&target, reqwest::Method::POST, "/api/v1/privacy/erase", Some(&req), &[]).await?
                }
                Target::Local { service, .. } => service.erase_number(&Caller::command_line(), req).await?,
            };
            if args.json {
                println!("{}", serde_json::to_string_pretty(&done).expect("serialises"));
            } else {
                let r = &done.redacted;
                println!(
                    "Erased: {} messages (texts and numbers), {} receipts, {} replies, {} opt-out entries kept as \
                     the number's hash ({}), {} audit lines and {} waiting messages cancelled.",
                    r.texts, r.receipts, r.replies, r.opt_outs, done.hash, r.audit, r.cancelled
                );
                if done.still_sending > 0 {
                    println!(
                        "{} messages to it are being sent: erase again once they are done.",
                        done.still_sending
                    );
                }
                if !done.wal_emptied {
                    println!(
                        "A reader held the write-ahead log: its old pages are overwritten at the next checkpoint."
                    );
                }
            }
            Ok(())
        }
        .await;
        (target, result)
    })
}

/// `smsdesk export --number`: everything held about the number, as JSON (or CSV), to `output`
/// or the standard output.
pub fn subject(cli: &Cli, number: String, csv: bool, output: Option<std::path::PathBuf>) -> ExitCode {
    let req = SubjectRequest { number };
    run(cli, "export", |target| async move {
        let result = async {
            let got: SubjectAccess = match &target {
                Target::Remote { .. } => {
                    call(
                        &target,
                        reqwest::Method::POST,
                        "/api/v1/privacy/subject",
                        Some(&req),
                        &[],
                    )
                    .await?
                }
                Target::Local { service, .. } => service.subject_access(&Caller::command_line(), req).await?,
            };
            let text = match csv {
                true => got.csv,
                false => serde_json::to_string_pretty(&got.record).expect("serialises") + "\n",
            };
            let written = match &output {
                Some(p) => std::fs::write(p, text.as_bytes()),
                None => std::io::stdout().lock().write_all(text.as_bytes()),
            };
            written.map_err(|e| Refused(format!("cannot write the record: {e}"), EXIT_CONFIG))
        }
        .await;
        (target, result)
    })
}
