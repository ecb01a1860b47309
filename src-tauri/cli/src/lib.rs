//! The command line: `smsdesk` (the window, handled by the desktop shell) and the headless
//! subcommands, which run here without any GUI library.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use clap::{Args, Parser, Subcommand};

use smsdesk_engine::api::RunMode;
use smsdesk_engine::engine::{Engine, EngineOptions, Prepared};
use smsdesk_engine::logging::{self, LogGuard};
use smsdesk_engine::paths;
use smsdesk_http::{HttpDoor, UiAssets};

mod ops;

pub use ops::show_running_window;

/// Exit code for a refused configuration or a failed start.
pub const EXIT_CONFIG: u8 = 2;

#[derive(Debug, Parser)]
#[command(
    name = "smsdesk",
    version,
    about = "Send SMS notifications over SMPP and see, with evidence, what became of each one.",
    long_about = "Send SMS notifications over SMPP and see, with evidence, what became of each one.\n\n\
                  Without a subcommand, smsdesk opens its desktop window."
)]
pub struct Cli {
    /// Where smsdesk keeps its database, config file and logs
    /// [default: the platform's application data folder, e.g. ~/.local/share/smsdesk]
    #[arg(long, global = true, env = paths::DATA_DIR_ENV, value_name = "DIR")]
    pub data_dir: Option<PathBuf>,

    /// The config file, when it is not the data directory's smsdesk.toml (the packaged service
    /// uses /etc/smsdesk/smsdesk.toml); created with every setting commented out when missing
    #[arg(long, global = true, env = paths::CONFIG_ENV, value_name = "FILE")]
    pub config: Option<PathBuf>,

    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run the engine headless (no window) until Ctrl+C or SIGTERM; the UI is served to browsers
    Serve(ServeArgs),
    /// Show how receipts are read: JSON lines in (one report each), what the parser extracted out.
    /// Touches no data directory.
    ParseReceipts,
    /// Recompute every message's state from the stored receipts and decisions, and the delivery
    /// report's sums from the messages, and compare them with the stored ones. Stop smsdesk first.
    Rebuild(RebuildArgs),
    /// Run the sandbox SMSC alone: an SMPP server on 127.0.0.1 that sends no real SMS
    ///
    /// Replies from handsets are typed on standard input, one a line: `mo FROM TEXT...`,
    /// `mo-ticket FROM TICKET TEXT...` (with a receipted_message_id TLV), `mo-sar FROM TEXT...`
    /// (a long text joined by SAR TLVs)
    SandboxSmsc(SandboxArgs),
    /// Queue one message (through the running instance, or into the database when none runs)
    Send(ops::SendArgs),
    /// Show what became of a message: its status, the state receipts reported, and why
    Status(ops::StatusArgs),
    /// Write messages (filtered) as CSV, with a progress bar; reads the database directly
    Export(ops::ExportArgs),
    /// Create, list and revoke the API keys integrations use
    #[command(subcommand)]
    ApiKey(ops::ApiKeyCommand),
    /// Create, list and give new passwords to the accounts the office's systems bind to smsdesk's
    /// SMPP server with ([smpp_server])
    #[command(subcommand)]
    SmppUser(ops::smpp_users::SmppUserCommand),
    /// List the SMPP connections; drain, disable or enable one
    #[command(subcommand)]
    Connection(ops::ConnectionsCommand),
    /// Add, list and change the accounts people sign in with from a browser
    #[command(subcommand)]
    User(ops::users::UserCommand),
    /// Write a consistent, checked copy of the database, also while smsdesk runs
    Backup(ops::backup::BackupArgs),
    /// Remove personal content past its period ([retention]) now
    #[command(subcommand)]
    Retention(ops::RetentionCommand),
    /// Erase everything held about one number (a data subject's request): its messages' texts and
    /// number, its replies, receipts; its opt-out stays in force as the number's hash
    Erase(ops::EraseArgs),
    /// Keep the SMTP account's password (alert e-mails, [smtp]) in the OS keyring, or encrypted in
    /// the data directory: read from standard input (--stdin) or asked for; --clear removes it
    SmtpPassword(ops::smtp::SmtpPasswordArgs),
    /// Keep the PostgreSQL store's password ([store] backend = "postgres") in the OS keyring, or
    /// encrypted in the data directory: read from standard input (--stdin) or asked for; --clear
    /// removes it
    StorePassword(ops::smtp::SmtpPasswordArgs),
    /// The store itself: `migrate` brings the database to this build's schema and stops
    #[command(subcommand)]
    Store(ops::store::StoreCommand),
    /// List the nodes that share the database (several on PostgreSQL): each alive, stopped or
    /// silent by its heartbeat, where it listens, and what it runs of each connection
    Nodes(ops::nodes::NodesArgs),
    /// Replace the database with a backup, once the backup passes its checks (integrity, schema
    /// version, the comparison `rebuild --check` makes). Stop smsdesk first; the database it
    /// replaces is kept in the backup folder
    Restore(ops::backup::RestoreArgs),
}

#[derive(Debug, Args)]
pub struct SandboxArgs {
    /// TCP port on 127.0.0.1; 0 picks a free one
    #[arg(long, default_value_t = 2775)]
    pub port: u16,
    /// Milliseconds between acceptance and the receipt
    #[arg(long, default_value_t = 500)]
    pub receipt_delay_ms: u64,
    /// Milliseconds the sandbox takes to answer each submit (a slow SMSC)
    #[arg(long, default_value_t = 0)]
    pub response_delay_ms: u64,
    /// Keep the submit and acceptance counters in this JSON file (for tests on another process)
    #[arg(long, value_name = "FILE")]
    pub counts_file: Option<PathBuf>,
    /// Refuse binds with any other password (ESME_RINVPASWD), as a provider would a wrong one;
    /// without it, any password binds
    #[arg(long, value_name = "PASSWORD")]
    pub password: Option<String>,
    /// The message id of the first submit accepted, then counting up (in hex in the answers)
    #[arg(long, value_name = "N", default_value_t = smsdesk_engine::sandbox::FIRST_ID)]
    pub first_id: u64,
}

#[derive(Debug, Args)]
pub struct RebuildArgs {
    /// Only compare; change nothing. Exits 1 when a stored state differs from the recomputed one
    #[arg(long)]
    pub check: bool,
}

#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Port of the HTTP server (API and browser UI); 0 picks a free port. Overrides [http] port
    #[arg(long, value_name = "PORT")]
    pub http_port: Option<u16>,
}

impl Cli {
    /// The data directory: the flag, else SMSDESK_DATA_DIR, else the platform default.
    pub fn data_dir(&self) -> Result<PathBuf, String> {
        self.data_dir
            .clone()
            .or_else(paths::default_data_dir)
            .ok_or_else(|| "cannot find a home folder for the data directory; pass --data-dir".into())
    }
}

/// Loads the config and starts logging: the steps every mode shares. On error, prints it and
/// returns the exit code to use.
pub fn prepare(cli: &Cli) -> Result<(Prepared, LogGuard), ExitCode> {
    let fail = |msg: String| {
        eprintln!("smsdesk: {msg}");
        ExitCode::from(EXIT_CONFIG)
    };
    let dir = paths::DataDir::new(cli.data_dir().map_err(fail)?).with_config_file(cli.config.clone());
    let mut prepared = Prepared::load_dir(dir, std::env::vars()).map_err(|e| fail(e.to_string()))?;
    let guard = logging::init(&prepared.dir.logs(), &prepared.config.log).map_err(fail)?;
    // Every command says what it closed to other users, the first time it is closed.
    smsdesk_engine::permissions::report(&std::mem::take(&mut prepared.permissions));
    Ok((prepared, guard))
}

/// Runs a headless subcommand.
pub fn run(cli: Cli, command: Command, ui: Option<Arc<dyn UiAssets>>) -> ExitCode {
    match command {
        Command::Serve(args) => serve(&cli, args, ui),
        Command::ParseReceipts => parse_receipts(),
        Command::Rebuild(args) => rebuild(&cli, args),
        Command::SandboxSmsc(args) => sandbox_smsc(args),
        Command::Send(args) => ops::send(&cli, args),
        Command::Status(args) => ops::status(&cli, args),
        Command::Export(args) => ops::export(&cli, args),
        Command::Retention(cmd) => ops::retention(&cli, cmd),
        Command::Erase(args) => ops::erase(&cli, args),
        Command::ApiKey(args) => ops::api_key(&cli, args),
        Command::SmppUser(args) => ops::smpp_users::smpp_user(&cli, args),
        Command::User(args) => ops::users::user(&cli, args),
        Command::Connection(args) => ops::connection(&cli, args),
        Command::Backup(args) => ops::backup::backup(&cli, args),
        Command::Restore(args) => ops::backup::restore(&cli, args),
        Command::SmtpPassword(args) => ops::smtp::smtp_password(&cli, args),
        Command::StorePassword(args) => ops::smtp::store_password(&cli, args),
        Command::Store(cmd) => ops::store::store(&cli, cmd),
        Command::Nodes(args) => ops::nodes::nodes(&cli, args),
    }
}

fn parse_receipts() -> ExitCode {
    logging::init_stderr_only();
    let stdin = std::io::stdin().lock();
    let stdout = std::io::BufWriter::new(std::io::stdout().lock());
    match smsdesk_engine::receipts::parse::jsonl::run(stdin, stdout) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("smsdesk parse-receipts: {e}");
            ExitCode::FAILURE
        }
    }
}

fn sandbox_smsc(args: SandboxArgs) -> ExitCode {
    logging::init_stderr_only();
    let config = smsdesk_engine::sandbox::SandboxConfig {
        port: args.port,
        receipt_delay: std::time::Duration::from_millis(args.receipt_delay_ms),
        response_delay: std::time::Duration::from_millis(args.response_delay_ms),
        password: args.password,
        first_id: args.first_id,
        ..Default::default()
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(r) => r,
        Err(e) => {
            eprintln!("smsdesk sandbox-smsc: cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    // Caught from before the sandbox says where it listens, as `serve` does.
    let stop = {
        let _inside = runtime.enter();
        stop_signals()
    };
    // Read on a thread of its own: its end (a closed or null stdin) does not stop the sandbox.
    let commands = std::io::BufReader::new(std::io::stdin());
    match runtime.block_on(smsdesk_engine::sandbox::run_standalone(
        config,
        args.counts_file,
        commands,
        async {
            stop.await;
        },
    )) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("smsdesk sandbox-smsc: cannot listen on 127.0.0.1:{}: {e}", args.port);
            ExitCode::from(EXIT_CONFIG)
        }
    }
}

fn rebuild(cli: &Cli, args: RebuildArgs) -> ExitCode {
    use smsdesk_engine::receipts::policy::ReceiptPolicy;
    let (prepared, _log) = match prepare(cli) {
        Ok(p) => p,
        Err(code) => return code,
    };
    let fail = |msg: String| {
        eprintln!("smsdesk rebuild: {msg}");
        ExitCode::from(EXIT_CONFIG)
    };
    // A running instance (through this data directory or another) would keep applying receipts
    // underneath us.
    let at = match prepared.store_at() {
        Ok(at) => at,
        Err(e) => return fail(e.to_string()),
    };
    let mut lock = match prepared.lock_for(&at) {
        Ok(l) => l,
        Err(e) => return fail(e.to_string()),
    };
    let store = match prepared.open_held(&at, &mut lock) {
        Ok(s) => s,
        Err(e) => return fail(e.to_string()),
    };
    let policy = ReceiptPolicy::from(&prepared.config.receipts);
    let label = if args.check { "checking" } else { "rebuilding" };
    let report = match recompute(&store, &policy, !args.check, label) {
        Ok(r) => r,
        Err(e) => return fail(e.to_string()),
    };
    for m in &report.differing {
        tracing::warn!(message = m, "stored state differs from the recomputed one");
    }
    // The delivery report's sums follow the states just recomputed: checked (or put right) after.
    let report_rows = match smsdesk_engine::receipts::rebuild::report_sums(&store, !args.check) {
        Ok(n) => n,
        Err(e) => return fail(e.to_string()),
    };
    lock.release();
    store.shutdown();
    drop(store);
    drop(lock);
    let done = report.messages;
    let projections_agree = match (report.differing.len(), args.check) {
        (0, _) => {
            println!("{done} projections recomputed from the logs: every one equals the stored state.");
            true
        }
        (n, true) => {
            println!("{done} projections recomputed: {n} differ from the stored state (see the log for which).");
            false
        }
        (n, false) => {
            println!("{done} projections recomputed: {n} differed and were replaced (see the log for which).");
            true
        }
    };
    let report_agrees = match (report_rows, args.check) {
        (0, _) => {
            println!("The delivery report's sums equal a recount from the messages.");
            true
        }
        (n, true) => {
            println!("The delivery report's sums differ from a recount from the messages in {n} rows by hour.");
            false
        }
        (n, false) => {
            println!("The delivery report's sums differed from a recount in {n} rows by hour and were replaced.");
            true
        }
    };
    if projections_agree && report_agrees {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// Recomputes every message's state from its receipts and decisions with a progress bar, and
/// compares it with the stored one (with `write`, replaces those that differ).
fn recompute(
    store: &smsdesk_engine::Store,
    policy: &smsdesk_engine::receipts::policy::ReceiptPolicy,
    write: bool,
    label: &'static str,
) -> Result<smsdesk_engine::receipts::rebuild::RebuildReport, smsdesk_engine::StoreError> {
    let mut bar: Option<smsdesk_engine::progress::Progress> = None;
    let report = smsdesk_engine::receipts::rebuild::run(store, policy, write, |done, total| {
        bar.get_or_insert_with(|| smsdesk_engine::progress::Progress::new(label, total as u64))
            .set(done as u64)
    });
    if let Some(bar) = bar.as_mut() {
        bar.finish();
    }
    report
}

fn serve(cli: &Cli, args: ServeArgs, ui: Option<Arc<dyn UiAssets>>) -> ExitCode {
    let (prepared, _log) = match prepare(cli) {
        Ok(p) => p,
        Err(code) => return code,
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_name("smsdesk")
        .build();
    let runtime = match runtime {
        Ok(r) => r,
        Err(e) => {
            eprintln!("smsdesk: cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    runtime.block_on(async move {
        let stop = stop_signals();
        let hangups = Hangups::catch();
        let options = EngineOptions {
            mode: RunMode::Serve,
            http_port: args.http_port,
            door: Some(HttpDoor::new(ui)),
        };
        let engine = match Engine::start(prepared, options).await {
            Ok(e) => e,
            Err(e) => {
                tracing::error!("{e}");
                eprintln!("smsdesk: {e}");
                return ExitCode::from(EXIT_CONFIG);
            }
        };
        let info = engine.info();
        let connection = match engine.connection().as_str() {
            "sandbox" => "the sandbox SMSC (Sandbox: no real SMS is sent; set [smpp] in the config for a provider)",
            _ => "the SMPP provider in [smpp]",
        };
        eprintln!(
            "smsdesk {} serve: running headless (no window).\n  Open {} in a browser.\n  Sending through {connection}.\n  Data: {}\n  Stop with Ctrl+C.",
            info.version,
            info.http_url.as_deref().unwrap_or("(no HTTP server)"),
            info.data_dir,
        );
        if logging::to_journal() {
            // The journal keeps what is printed, for everyone who may read it: no token there.
            eprintln!(
                "  If no account exists yet, create the first admin on this computer with\n    sudo -u {} smsdesk --data-dir {} --config {} user add NAME --role admin",
                whoami(),
                info.data_dir,
                info.config_path
            );
        } else if let (Some(url), Ok(Some(token))) =
            (info.http_url.as_deref(), engine.service().issue_setup_token().await)
        {
            // Printed, never logged: whoever reads this terminal may make the first admin.
            eprintln!(
                "  No account exists yet. Create the first admin within 30 minutes at\n    {url}/setup#{token}\n  (or run `smsdesk user add NAME --role admin` on this computer)."
            );
        }
        let reloads = tokio::spawn(reload_on_hangup(engine.service().clone(), hangups));
        let signal = stop.await;
        reloads.abort();
        tracing::info!(signal, "stopping");
        engine.shutdown().await;
        ExitCode::SUCCESS
    })
}

/// The name of the user this process runs as (for a command to copy), `smsdesk` when unknown.
fn whoami() -> String {
    std::env::var("USER")
        .ok()
        .filter(|u| !u.is_empty())
        .unwrap_or_else(|| "smsdesk".into())
}

/// SIGHUP (`systemctl reload`), caught from the moment this is made.
struct Hangups {
    #[cfg(unix)]
    signal: Option<tokio::signal::unix::Signal>,
}

impl Hangups {
    /// Catches SIGHUP from now on. Taken with the stop signals, before the process says where it
    /// listens: a reload sent as soon as it is ready (`systemctl reload` just after a start) is
    /// re-read once the engine runs, where an uncaught SIGHUP would end the process.
    fn catch() -> Hangups {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{signal, SignalKind};
            let signal = signal(SignalKind::hangup()).ok();
            if signal.is_none() {
                tracing::warn!("cannot catch SIGHUP: the config is re-read only at the next start");
            }
            Hangups { signal }
        }
        #[cfg(not(unix))]
        Hangups {}
    }
}

/// Re-reads the config file at each SIGHUP (`systemctl reload`) caught in `hangups`, for as long
/// as the engine runs.
async fn reload_on_hangup(service: smsdesk_engine::service::Service, hangups: Hangups) {
    #[cfg(unix)]
    {
        let Some(mut hangup) = hangups.signal else {
            return;
        };
        while hangup.recv().await.is_some() {
            match service.reload_settings().await {
                Ok(r) if !r.changed && !r.at_next_start => tracing::info!("SIGHUP: config re-read, nothing changed"),
                Ok(r) => tracing::info!(
                    reconnected = r.reconnected,
                    "SIGHUP: config re-read; what applies while running is in effect{}",
                    if r.at_next_start {
                        " (other changes, to [http], [webhooks], [log] or [store], apply at the next start)"
                    } else {
                        ""
                    }
                ),
                Err(e) => tracing::error!("SIGHUP: the config was not re-read, nothing changed: {e}"),
            }
        }
    }
    #[cfg(not(unix))]
    let _ = (service, hangups);
}

/// Catches SIGINT and SIGTERM (Ctrl+C on other platforms) from now on; the future resolves with
/// the signal's name once one comes. Take it before the process says where it listens, so that a
/// signal sent as soon as it is ready is caught rather than killing it.
pub fn stop_signals() -> impl std::future::Future<Output = &'static str> {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        let mut term = signal(SignalKind::terminate()).expect("SIGTERM handler");
        let mut int = signal(SignalKind::interrupt()).expect("SIGINT handler");
        async move {
            tokio::select! {
                _ = term.recv() => "SIGTERM",
                _ = int.recv() => "SIGINT",
            }
        }
    }
    #[cfg(not(unix))]
    {
        async {
            let _ = tokio::signal::ctrl_c().await;
            "Ctrl+C"
        }
    }
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    use super::*;

    #[test]
    fn the_command_line_is_well_formed() {
        Cli::command().debug_assert();
    }

    #[test]
    fn help_lists_the_subcommands() {
        let help = Cli::command().render_long_help().to_string();
        assert!(help.contains("serve"), "{help}");
        assert!(help.contains("--data-dir"), "{help}");
    }

    #[test]
    fn serve_takes_a_port_and_a_data_dir() {
        let cli = Cli::try_parse_from(["smsdesk", "serve", "--http-port", "0", "--data-dir", "/d"]).unwrap();
        assert_eq!(cli.data_dir.as_deref(), Some(std::path::Path::new("/d")));
        match cli.command {
            Some(Command::Serve(a)) => assert_eq!(a.http_port, Some(0)),
            other => panic!("expected serve, got {other:?}"),
        }
    }
}
