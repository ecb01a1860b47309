//! `smsdesk api-key …`: the keys integrations present, managed on this computer (through the
//! running instance, or in the database when none runs), as the local admin.

use std::process::ExitCode;

use clap::Subcommand;

use super::{call, run, users, Refused, Target};
use crate::Cli;
use smsdesk_engine::access::{KeyLimits, Scope};
use smsdesk_engine::apikeys::{ApiKeyInfo, Caller, CreatedApiKey, NewApiKey};

#[derive(Debug, Subcommand)]
pub enum ApiKeyCommand {
    /// Create a key; it is printed once and never again
    Create {
        /// Who it is for ("website", "crm")
        #[arg(long)]
        name: String,
        /// Where to POST status changes of the messages sent with this key
        #[arg(long)]
        webhook_url: Option<String>,
        /// What it may do, repeated or comma-separated: send, read:own, read:all, act, export, alerts,
        /// metrics
        /// (default: send,read:own — enough for a website that sends and follows its messages)
        #[arg(long = "scope", value_delimiter = ',')]
        scopes: Vec<String>,
        /// At most this many messages in any 60 seconds
        #[arg(long)]
        per_minute: Option<u32>,
        /// At most this many messages in any 24 hours
        #[arg(long)]
        per_day: Option<u32>,
        /// Destinations must start with one of these international prefixes (+33, +4420),
        /// repeated or comma-separated
        #[arg(long = "destination-prefix", value_delimiter = ',')]
        destination_prefixes: Vec<String>,
        /// Countries its messages may go to (two letters, within the office's
        /// guardrails.countries), repeated or comma-separated
        #[arg(long = "country", value_delimiter = ',')]
        countries: Vec<String>,
        /// Countries its one-time codes may go to (within guardrails.otp_countries)
        #[arg(long = "otp-country", value_delimiter = ',')]
        otp_countries: Vec<String>,
        /// The most its messages may cost in a day, in guardrails.currency (such as 5.00)
        #[arg(long)]
        spend_day: Option<String>,
        /// The most its messages may cost in a calendar month
        #[arg(long)]
        spend_month: Option<String>,
    },
    /// List keys (never the keys themselves)
    List,
    /// Revoke a key at once
    Revoke {
        /// The key's id, from `api-key list`
        id: i64,
    },
}

async fn create(target: &Target, new: NewApiKey) -> Result<(), Refused> {
    let created: CreatedApiKey = match target {
        Target::Remote { .. } => call(target, reqwest::Method::POST, "/api/v1/keys", Some(&new), &[]).await?,
        Target::Local { service, .. } => service.create_key(&Caller::command_line(), new).await?,
    };
    println!(
        "API key {} created for {} (scopes: {}):",
        created.info.id,
        created.info.name,
        Scope::join(&created.info.scopes)
    );
    println!("  {}", created.key);
    match &created.webhook_secret {
        Some(secret) => {
            println!("Webhook signing secret:");
            println!("  {secret}");
            println!(
                "Copy both now: the key is not stored, the secret is stored encrypted, and neither can be shown again."
            );
        }
        None => println!("Copy it now: it is not stored and cannot be shown again."),
    }
    Ok(())
}

async fn list(target: &Target) -> Result<(), Refused> {
    let keys: Vec<ApiKeyInfo> = match target {
        Target::Remote { .. } => call(target, reqwest::Method::GET, "/api/v1/keys", None::<&()>, &[]).await?,
        Target::Local { service, .. } => service.list_keys().await?,
    };
    if keys.is_empty() {
        println!("No API keys yet: create one with `smsdesk api-key create --name <who>`.");
    }
    for k in keys {
        let state = if k.revoked_at_ms.is_some() { "revoked" } else { "active" };
        let hook = k.webhook_url.map(|u| format!("  webhook {u}")).unwrap_or_default();
        let scopes = Scope::join(&k.scopes);
        println!(
            "{:>4}  {}…  {:<8} {:<28} {}{hook}",
            k.id, k.prefix, state, scopes, k.name
        );
    }
    Ok(())
}

async fn revoke(target: &Target, id: i64) -> Result<(), Refused> {
    match target {
        Target::Remote { .. } => {
            let path = format!("/api/v1/keys/{id}/revoke");
            call::<()>(target, reqwest::Method::POST, &path, None::<&()>, &[]).await?
        }
        Target::Local { service, .. } => service.revoke_key(&Caller::command_line(), id).await?,
    }
    println!("API key {id} revoked: requests with it are refused from now on.");
    Ok(())
}

async fn execute(target: &Target, cmd: ApiKeyCommand) -> Result<(), Refused> {
    match cmd {
        ApiKeyCommand::Create {
            name,
            webhook_url,
            scopes,
            per_minute,
            per_day,
            destination_prefixes,
            countries,
            otp_countries,
            spend_day,
            spend_month,
        } => {
            let new = NewApiKey {
                name,
                webhook_url,
                scopes: users::scopes(&scopes)?,
                limits: KeyLimits {
                    per_minute,
                    per_day,
                    destination_prefixes,
                    countries,
                    otp_countries,
                    spend_day,
                    spend_month,
                },
            };
            create(target, new).await
        }
        ApiKeyCommand::List => list(target).await,
        ApiKeyCommand::Revoke { id } => revoke(target, id).await,
    }
}

pub fn api_key(cli: &Cli, cmd: ApiKeyCommand) -> ExitCode {
    run(cli, "api-key", |target| async move {
        let result = execute(&target, cmd).await;
        (target, result)
    })
}
