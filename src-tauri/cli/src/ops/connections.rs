//! `smsdesk connection …`: the SMPP connections' links and the operators' holds, changed on this
//! computer (through the running instance, or in the database when none runs, for its next
//! start), as the local admin.

use std::process::ExitCode;

use clap::Subcommand;

use super::{call, run, Refused, Target};
use crate::Cli;
use smsdesk_engine::apikeys::Caller;
use smsdesk_engine::service::{ConnectionAction, ConnectionCommand, ConnectionStatus};

#[derive(Debug, Subcommand)]
pub enum ConnectionsCommand {
    /// List the connections: link, hold, messages queued for each, rate
    List,
    /// Take nothing new on a connection: its routes' messages go to their next connection at
    /// once; what it is sending finishes, and its binds stay open for receipts
    Drain(HoldArgs),
    /// Send nothing on a connection, and unbind it once its sends under way were answered
    Disable(HoldArgs),
    /// Send on a connection by the routes again (binding it again when it was disabled)
    Enable(HoldArgs),
}

#[derive(Debug, clap::Args)]
pub struct HoldArgs {
    /// The connection's name (`[connections.<name>]`; "smpp" or "sandbox" without them)
    pub name: String,
    /// Why, for the audit log
    #[arg(long)]
    pub note: Option<String>,
}

async fn list(target: &Target) -> Result<(), Refused> {
    let all: Vec<ConnectionStatus> = match target {
        Target::Remote { .. } => call(target, reqwest::Method::GET, "/api/v1/connections", None::<&()>, &[]).await?,
        Target::Local { service, .. } => {
            println!("smsdesk is not running: the connections and their holds as its next start will see them.");
            for (name, hold) in service.configured_connections().await? {
                let hold = hold.map_or("sends by the routes".to_owned(), |h| {
                    format!(
                        "{} by {}{}",
                        h.hold,
                        h.actor,
                        h.note.map(|n| format!(" ({n})")).unwrap_or_default()
                    )
                });
                println!("{name:<16} {hold}");
            }
            return Ok(());
        }
    };
    for c in all {
        let link = serde_json::to_value(&c.link)
            .ok()
            .and_then(|v| v["state"].as_str().map(str::to_owned))
            .unwrap_or_default();
        let hold = c
            .hold
            .map(|h| format!("  {} by {}", h.hold, h.actor))
            .unwrap_or_default();
        println!(
            "{:<16} {link:<12} queued {:>8}  {:>8.1}/s of {}/s{hold}",
            c.connection,
            c.queued.unwrap_or(0),
            c.accepted_per_s,
            c.tps_limit
        );
    }
    Ok(())
}

async fn command(target: &Target, command: ConnectionCommand, args: HoldArgs) -> Result<(), Refused> {
    let name = args.name.clone();
    let action = ConnectionAction {
        connection: args.name,
        command,
        note: args.note,
    };
    match target {
        Target::Remote { .. } => {
            call::<()>(
                target,
                reqwest::Method::POST,
                "/api/v1/connections/command",
                Some(&action),
                &[],
            )
            .await?
        }
        Target::Local { service, .. } => service.command_connection(&Caller::command_line(), action).await?,
    }
    let said = match command {
        ConnectionCommand::Drain => "drained: it takes nothing new; its routes' messages go to their next connection",
        ConnectionCommand::Disable => "disabled: it sends nothing, and unbinds once its sends under way are answered",
        ConnectionCommand::Enable => "enabled: it sends by the routes",
    };
    println!("Connection {name} {said}.");
    Ok(())
}

pub fn connection(cli: &Cli, cmd: ConnectionsCommand) -> ExitCode {
    run(cli, "connection", |target| async move {
        let result = match cmd {
            ConnectionsCommand::List => list(&target).await,
            ConnectionsCommand::Drain(a) => command(&target, ConnectionCommand::Drain, a).await,
            ConnectionsCommand::Disable(a) => command(&target, ConnectionCommand::Disable, a).await,
            ConnectionsCommand::Enable(a) => command(&target, ConnectionCommand::Enable, a).await,
        };
        (target, result)
    })
}
