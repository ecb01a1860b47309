//! `smsdesk user …`: the accounts people sign in with from a browser, managed on this computer
//! (through the running instance, or in the database when none runs). The command line acts as
//! the local admin. Passwords are read without echo, or from standard input with
//! `--password-stdin`; never from the command line, where other users could read them.

use std::io::{BufRead, IsTerminal};
use std::process::ExitCode;

use clap::{Subcommand, ValueEnum};

use super::{call, run, Refused, Target, EXIT_REFUSED};
use crate::Cli;
use smsdesk_engine::access::{AccountInfo, Caller, Role, Scope};
use smsdesk_engine::accounts::{AccountChange, NewAccount};

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum RoleArg {
    /// Everything: settings, connections, accounts, API keys
    Admin,
    /// Send, retry, cancel, resolve exceptions, export; read everything
    Operator,
    /// Read everything, change nothing
    Viewer,
}

impl From<RoleArg> for Role {
    fn from(r: RoleArg) -> Role {
        match r {
            RoleArg::Admin => Role::Admin,
            RoleArg::Operator => Role::Operator,
            RoleArg::Viewer => Role::Viewer,
        }
    }
}

#[derive(Debug, Subcommand)]
pub enum UserCommand {
    /// Add an account; asks for its first password
    Add {
        /// How the person signs in and how the audit log names them
        name: String,
        #[arg(long, value_enum)]
        role: RoleArg,
        /// Read the password from the first line of standard input instead of asking
        #[arg(long)]
        password_stdin: bool,
    },
    /// List accounts (never their passwords)
    List,
    /// Change an account: its role, whether it may sign in, or its password (its sessions end)
    Set {
        name: String,
        #[arg(long, value_enum)]
        role: Option<RoleArg>,
        /// Stop it from signing in
        #[arg(long, conflicts_with = "enable")]
        disable: bool,
        /// Let it sign in again
        #[arg(long)]
        enable: bool,
        /// Set a new password (asked for, or read with --password-stdin)
        #[arg(long)]
        password: bool,
        #[arg(long, requires = "password")]
        password_stdin: bool,
    },
}

/// The scopes named on the command line (the default ones when none).
pub(super) fn scopes(words: &[String]) -> Result<Option<Vec<Scope>>, Refused> {
    if words.is_empty() {
        return Ok(None);
    }
    words
        .iter()
        .map(|w| {
            Scope::parse(w.trim()).ok_or_else(|| {
                Refused(
                    format!("`{w}` is not a scope: send, read:own, read:all, act, export, alerts or metrics"),
                    EXIT_REFUSED,
                )
            })
        })
        .collect::<Result<Vec<_>, _>>()
        .map(Some)
}

/// A password: the first line of standard input, or asked twice without echo.
fn password(from_stdin: bool) -> Result<String, Refused> {
    let refused = |e: std::io::Error| Refused(format!("cannot read the password: {e}"), EXIT_REFUSED);
    if from_stdin || !std::io::stdin().is_terminal() {
        let mut line = String::new();
        std::io::stdin().lock().read_line(&mut line).map_err(refused)?;
        return Ok(line.trim_end_matches(['\r', '\n']).to_owned());
    }
    let first = rpassword::prompt_password("Password (at least 10 characters): ").map_err(refused)?;
    let again = rpassword::prompt_password("Same password again: ").map_err(refused)?;
    if first != again {
        return Err(Refused(
            "the two passwords differ; nothing was changed".into(),
            EXIT_REFUSED,
        ));
    }
    Ok(first)
}

async fn accounts(target: &Target) -> Result<Vec<AccountInfo>, Refused> {
    Ok(match target {
        Target::Remote { .. } => call(target, reqwest::Method::GET, "/api/v1/accounts", None::<&()>, &[]).await?,
        Target::Local { service, .. } => service.list_accounts().await?,
    })
}

async fn find(target: &Target, name: &str) -> Result<AccountInfo, Refused> {
    accounts(target)
        .await?
        .into_iter()
        .find(|a| a.name.eq_ignore_ascii_case(name.trim()))
        .ok_or_else(|| {
            Refused(
                format!("no account is named `{name}` (see `smsdesk user list`)"),
                EXIT_REFUSED,
            )
        })
}

async fn add(target: &Target, new: NewAccount) -> Result<AccountInfo, Refused> {
    Ok(match target {
        Target::Remote { .. } => call(target, reqwest::Method::POST, "/api/v1/accounts", Some(&new), &[]).await?,
        Target::Local { service, .. } => service.create_account(&Caller::command_line(), new).await?,
    })
}

async fn change(target: &Target, id: i64, change: AccountChange) -> Result<AccountInfo, Refused> {
    Ok(match target {
        Target::Remote { .. } => {
            call(
                target,
                reqwest::Method::PATCH,
                &format!("/api/v1/accounts/{id}"),
                Some(&change),
                &[],
            )
            .await?
        }
        Target::Local { service, .. } => service.update_account(&Caller::command_line(), id, change).await?,
    })
}

fn print(a: &AccountInfo) {
    let state = if a.disabled_at_ms.is_some() {
        "disabled"
    } else {
        "active"
    };
    println!("{:>4}  {:<9} {:<8} {}", a.id, a.role.as_str(), state, a.name);
}

async fn execute(target: &Target, cmd: UserCommand) -> Result<(), Refused> {
    match cmd {
        UserCommand::Add {
            name,
            role,
            password_stdin,
        } => {
            let password = password(password_stdin)?;
            let created = add(
                target,
                NewAccount {
                    name,
                    role: role.into(),
                    password,
                },
            )
            .await?;
            println!(
                "Account {} added as {}: it may sign in from a browser now.",
                created.name,
                created.role.as_str()
            );
        }
        UserCommand::List => {
            let all = accounts(target).await?;
            if all.is_empty() {
                println!("No accounts yet: add one with `smsdesk user add NAME --role admin`.");
            }
            all.iter().for_each(print);
        }
        UserCommand::Set {
            name,
            role,
            disable,
            enable,
            password: new_password,
            password_stdin,
        } => {
            let account = find(target, &name).await?;
            let update = AccountChange {
                role: role.map(Into::into),
                disabled: (disable || enable).then_some(disable),
                password: if new_password {
                    Some(password(password_stdin)?)
                } else {
                    None
                },
            };
            print(&change(target, account.id, update).await?);
        }
    }
    Ok(())
}

pub fn user(cli: &Cli, cmd: UserCommand) -> ExitCode {
    run(cli, "user", |target| async move {
        let result = execute(&target, cmd).await;
        (target, result)
    })
}
