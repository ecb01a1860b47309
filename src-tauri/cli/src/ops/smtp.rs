//! `smsdesk smtp-password` and `smsdesk store-password`: keep the SMTP account's password (alert
//! e-mails) and the PostgreSQL store's in the OS keyring, or encrypted in the data directory where
//! there is none, as the SMPP password set from the Settings screen is; never in the config file
//! or a log.

use std::io::{BufRead, IsTerminal};
use std::process::ExitCode;

use clap::Args;
use smsdesk_engine::settings::{SecretBackend, SecretStore};

use crate::Cli;

#[derive(Debug, Args)]
pub struct SmtpPasswordArgs {
    /// Read the password from the first line of standard input instead of asking for it
    #[arg(long)]
    pub stdin: bool,
    /// Remove the stored password
    #[arg(long, conflicts_with = "stdin")]
    pub clear: bool,
}

/// Stores (or clears) the SMTP password; smsdesk reads it at its next start.
pub fn smtp_password(cli: &Cli, args: SmtpPasswordArgs) -> ExitCode {
    keep(cli, &args, "SMTP", SecretStore::for_smtp)
}

/// Stores (or clears) the PostgreSQL store's password; smsdesk reads it at its next start.
pub fn store_password(cli: &Cli, args: SmtpPasswordArgs) -> ExitCode {
    keep(cli, &args, "PostgreSQL", SecretStore::for_store)
}

/// Stores (or clears) the password named `what`, kept where `place` says.
fn keep(cli: &Cli, args: &SmtpPasswordArgs, what: &str, place: fn(&SecretStore) -> SecretStore) -> ExitCode {
    match store(cli, args, what, place) {
        Ok(said) => {
            println!("{said}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("smsdesk: {e}");
            ExitCode::from(super::EXIT_REFUSED)
        }
    }
}

fn store(
    cli: &Cli,
    args: &SmtpPasswordArgs,
    what: &str,
    place: fn(&SecretStore) -> SecretStore,
) -> Result<String, String> {
    let dir = cli.data_dir()?;
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let secrets = place(&SecretStore::open(&dir));
    let password = if args.clear {
        String::new()
    } else if args.stdin || !std::io::stdin().is_terminal() {
        let mut line = String::new();
        std::io::stdin()
            .lock()
            .read_line(&mut line)
            .map_err(|e| format!("cannot read the password: {e}"))?;
        line.trim_end_matches(['\r', '\n']).to_owned()
    } else {
        rpassword::prompt_password(format!("{what} password: "))
            .map_err(|e| format!("cannot read the password: {e}"))?
    };
    if !args.clear && password.is_empty() {
        return Err("the password is empty; nothing was changed (use --clear to remove it)".into());
    }
    secrets.set_password(&password).map_err(|e| e.to_string())?;
    let kept = match secrets.backend() {
        SecretBackend::Keyring => "in the OS keyring",
        SecretBackend::EncryptedFile => "encrypted in the data directory",
    };
    Ok(if args.clear {
        format!("The {what} password is removed ({kept}). smsdesk reads it at its next start.")
    } else {
        format!("The {what} password is kept {kept}. smsdesk reads it at its next start.")
    })
}
