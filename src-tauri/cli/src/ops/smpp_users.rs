//! `smsdesk smpp-user …`: the accounts the office's own systems bind to smsdesk's SMPP server with
//! (API keys with an SMPP password), through the running instance or in the database when none
//! runs, as the local admin.

use std::process::ExitCode;

use clap::Subcommand;

use super::{call, run, users, Refused, Target};
use crate::Cli;
use smsdesk_engine::access::{KeyLimits, Scope};
use smsdesk_engine::apikeys::Caller;
use smsdesk_engine::domain::MessageKind;
use smsdesk_engine::smpp_server::{CreatedSmppAccount, NewSmppAccount, SmppAccountInfo};

#[derive(Debug, Subcommand)]
pub enum SmppUserCommand {
    /// Create an account; its password (8 characters) is printed once and never again
    Add {
        /// The system_id it binds with: 1 to 15 letters, digits, -, _ or .
        name: String,
        /// Submits per second at most, on each of its sessions (default 10)
        #[arg(long)]
        tps: Option<u32>,
        /// Submits awaiting their answer at most, on each of its sessions (default 10)
        #[arg(long)]
        window: Option<u32>,
        /// The kinds it may send, repeated or comma-separated: otp, transactional, bulk; the
        /// first is what a submit without a service_type is sent as (default: transactional)
        #[arg(long = "kind", value_delimiter = ',')]
        kinds: Vec<String>,
        /// What it may do, as an API key's scopes (default: send,read:own)
        #[arg(long = "scope", value_delimiter = ',')]
        scopes: Vec<String>,
        /// Countries its messages may go to (two letters, within guardrails.countries)
        #[arg(long = "country", value_delimiter = ',')]
        countries: Vec<String>,
        /// Countries its one-time codes may go to (within guardrails.otp_countries)
        #[arg(long = "otp-country", value_delimiter = ',')]
        otp_countries: Vec<String>,
        /// At most this many messages in any 60 seconds
        #[arg(long)]
        per_minute: Option<u32>,
        /// At most this many messages in any 24 hours
        #[arg(long)]
        per_day: Option<u32>,
        /// The most its messages may cost in a day, in guardrails.currency (such as 5.00)
        #[arg(long)]
        spend_day: Option<String>,
        /// The most its messages may cost in a calendar month
        #[arg(long)]
        spend_month: Option<String>,
    },
    /// List the accounts (never their passwords)
    List,
    /// Give an account a new password, printed once; the old one binds no more
    Password {
        /// The account's id, from `smpp-user list`
        id: i64,
    },
}

fn print_created(c: &CreatedSmppAccount, what: &str) {
    println!(
        "SMPP account {} ({}) {what}; it binds as system_id \"{}\" with the password:",
        c.info.id, c.info.name, c.info.name
    );
    println!("  {}", c.password);
    println!(
        "Copy it now: it is not stored and cannot be shown again. Revoke with `smsdesk api-key revoke {}`.",
        c.info.id
    );
}

async fn add(target: &Target, new: NewSmppAccount) -> Result<(), Refused> {
    let created: CreatedSmppAccount = match target {
        Target::Remote { .. } => call(target, reqwest::Method::POST, "/api/v1/smpp-accounts", Some(&new), &[]).await?,
        Target::Local { service, .. } => service.create_smpp_account(&Caller::command_line(), new).await?,
    };
    print_created(&created, "created");
    Ok(())
}

async fn list(target: &Target) -> Result<(), Refused> {
    let accounts: Vec<SmppAccountInfo> = match target {
        Target::Remote { .. } => call(target, reqwest::Method::GET, "/api/v1/smpp-accounts", None::<&()>, &[]).await?,
        Target::Local { service, .. } => service.smpp_accounts().await?,
    };
    if accounts.is_empty() {
        println!("No SMPP accounts yet: create one with `smsdesk smpp-user add <name>`.");
    }
    for a in accounts {
        let state = if a.revoked_at_ms.is_some() { "revoked" } else { "active" };
        let kinds: Vec<&str> = a.kinds.iter().map(|k| k.as_str()).collect();
        println!(
            "{:>4}  {:<15} {:<8} tps {:<5} window {:<4} {:<26} {}",
            a.id,
            a.name,
            state,
            a.tps,
            a.window,
            kinds.join(","),
            Scope::join(&a.scopes)
        );
    }
    Ok(())
}

async fn password(target: &Target, id: i64) -> Result<(), Refused> {
    let created: CreatedSmppAccount = match target {
        Target::Remote { .. } => {
            let path = format!("/api/v1/smpp-accounts/{id}/password");
            call(target, reqwest::Method::POST, &path, None::<&()>, &[]).await?
        }
        Target::Local { service, .. } => service.reset_smpp_password(&Caller::command_line(), id).await?,
    };
    print_created(&created, "has a new password");
    Ok(())
}

fn kinds(words: &[String]) -> Result<Option<Vec<MessageKind>>, Refused> {
    if words.is_empty() {
        return Ok(None);
    }
    words
        .iter()
        .map(|w| {
            w.trim().to_ascii_lowercase().parse().map_err(|_| {
                Refused(
                    format!("`{w}` is not a kind: otp, transactional or bulk"),
                    super::EXIT_REFUSED,
                )
            })
        })
        .collect::<Result<Vec<_>, _>>()
        .map(Some)
}

async fn execute(target: &Target, cmd: SmppUserCommand) -> Result<(), Refused> {
    match cmd {
        SmppUserCommand::Add {
            name,
            tps,
            window,
            kinds: kind_words,
            scopes,
            countries,
            otp_countries,
            per_minute,
            per_day,
            spend_day,
            spend_month,
        } => {
            let scopes = users::scopes(&scopes)?;
            let new = NewSmppAccount {
                name,
                tps,
                window,
                kinds: kinds(&kind_words)?,
                scopes,
                limits: KeyLimits {
                    per_minute,
                    per_day,
                    countries,
                    otp_countries,
                    spend_day,
                    spend_month,
                    ..KeyLimits::default()
                },
            };
            add(target, new).await
        }
        SmppUserCommand::List => list(target).await,
        SmppUserCommand::Password { id } => password(target, id).await,
    }
}

pub fn smpp_user(cli: &Cli, cmd: SmppUserCommand) -> ExitCode {
    run(cli, "smpp-user", |target| async move {
        let result = execute(&target, cmd).await;
        (target, result)
    })
}
