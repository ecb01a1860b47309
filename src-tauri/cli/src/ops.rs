//! Scripting subcommands: `send`, `status`, `export`, `api-key`, `user`, `backup` and `restore`.
//!
//! `send`, `status` and `api-key` talk to the running instance when there is one (over its HTTP
//! API, as the operator, with the token it wrote in the data directory), and otherwise open the
//! database themselves, holding the instance lock so no instance starts underneath. A database
//! an instance of another data directory holds is refused, naming that instance. Either way
//! they call the same engine functions as the API and the window. `export` only reads, so it
//! reads the database file directly, even while an instance runs.

use std::process::ExitCode;
use std::sync::Arc;

use clap::{Args, ValueEnum};
use serde::de::DeserializeOwned;
use serde::Serialize;

use super::{prepare, Cli, EXIT_CONFIG};
use smsdesk_engine::apikeys::Caller;
use smsdesk_engine::domain::{DeliveryState, IntakeChannel, MessageKind, QueueStatus};
use smsdesk_engine::door::OPERATOR_TOKEN_FILE;
use smsdesk_engine::engine::{intake_rules, Prepared};
use smsdesk_engine::instance::{self, InstanceError, InstanceLock};
use smsdesk_engine::intake::{SubmitMessage, SubmittedMessage};
use smsdesk_engine::receipts::ingest::Ingestor;
use smsdesk_engine::receipts::policy::ReceiptPolicy;
use smsdesk_engine::sealed::Sealer;
use smsdesk_engine::service::{Service, ServiceError};
use smsdesk_engine::views;
use smsdesk_engine::Store;

/// Exit code when the request was refused (bad input, not found).
const EXIT_REFUSED: u8 = 1;

pub mod backup;
mod connections;
mod export;
mod keys;
pub mod nodes;
mod privacy;
pub mod smpp_users;
pub mod smtp;
pub mod store;
pub mod users;

pub use connections::{connection, ConnectionsCommand};
pub use export::{export, ExportArgs};
pub use keys::{api_key, ApiKeyCommand};
pub use privacy::{erase, retention, EraseArgs, RetentionCommand};

#[derive(Debug, Args)]
pub struct SendArgs {
    /// Destination number, international (+33612345678) or national with [intake] default_region
    #[arg(long)]
    pub to: String,
    /// The message text
    #[arg(long)]
    pub text: String,
    /// otp, transactional or bulk
    #[arg(long, value_enum, default_value_t = KindArg::Transactional)]
    pub kind: KindArg,
    /// 0 (first) to 9 within its kind
    #[arg(long)]
    pub priority: Option<u8>,
    /// Your own reference, kept with the message
    #[arg(long)]
    pub client_ref: Option<String>,
    /// Messages sharing this key are sent in the order given
    #[arg(long)]
    pub ordering_key: Option<String>,
    /// Seconds the message stays worth sending
    #[arg(long)]
    pub validity_seconds: Option<u32>,
    /// Running the same command again with the same key queues nothing new
    #[arg(long)]
    pub idempotency_key: Option<String>,
    /// Print the answer as JSON
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum KindArg {
    Otp,
    Transactional,
    Bulk,
}

impl From<KindArg> for MessageKind {
    fn from(k: KindArg) -> Self {
        match k {
            KindArg::Otp => MessageKind::Otp,
            KindArg::Transactional => MessageKind::Transactional,
            KindArg::Bulk => MessageKind::Bulk,
        }
    }
}

#[derive(Debug, Args)]
pub struct StatusArgs {
    /// The message id
    pub id: i64,
    /// Print the whole record (attempts, receipts, timeline) as JSON
    #[arg(long)]
    pub json: bool,
}

/// Where a command's requests go.
enum Target {
    /// The running instance's API.
    Remote { url: String, token: String },
    /// The database, opened here (no instance runs). The lock is let go last, once the store is
    /// closed.
    Local {
        service: Service,
        store: Arc<Store>,
        lock: Box<InstanceLock>,
    },
}

/// A refusal, ready to print.
struct Refused(String, u8);

impl From<ServiceError> for Refused {
    fn from(e: ServiceError) -> Self {
        match e {
            ServiceError::Invalid(errors) => Refused(
                errors
                    .iter()
                    .map(|e| format!("{}: {}", e.field, e.message))
                    .collect::<Vec<_>>()
                    .join("\n"),
                EXIT_REFUSED,
            ),
            ServiceError::Store(s) => Refused(s.to_string(), EXIT_CONFIG),
            other => Refused(other.to_string(), EXIT_REFUSED),
        }
    }
}

impl Target {
    fn open(prepared: &Prepared) -> Result<Target, Refused> {
        let at = prepared.store_at().map_err(|e| Refused(e.to_string(), EXIT_CONFIG))?;
        match prepared.lock_for(&at) {
            Ok(mut lock) => {
                let store = prepared
                    .open_held(&at, &mut lock)
                    .map_err(|e| Refused(e.to_string(), EXIT_CONFIG))?;
                let policy = ReceiptPolicy::from(&prepared.config.receipts);
                let ingestor = Ingestor::new(store.writer().clone(), policy);
                let sealer =
                    Sealer::for_data_dir(prepared.dir.root()).map_err(|e| Refused(e.to_string(), EXIT_CONFIG))?;
                let service = Service::new(
                    store.clone(),
                    ingestor,
                    intake_rules(&prepared.config),
                    prepared.config.intake.max_batch.0 as usize,
                )
                .with_sealer(Arc::new(sealer))
                .with_retention(prepared.config.retention.clone())
                .with_connections(
                    prepared
                        .config
                        .connection_list()
                        .into_iter()
                        .filter(|c| c.enabled)
                        .map(|c| c.name)
                        .collect(),
                );
                Ok(Target::Local {
                    service,
                    store,
                    lock: Box::new(lock),
                })
            }
            Err(InstanceError::AlreadyRunning { .. }) => {
                let info = instance::read_info(&prepared.dir);
                let url = info.and_then(|i| i.http_url).ok_or_else(|| {
                    Refused(
                        "smsdesk is running on this data directory but has not published its address yet; try again"
                            .into(),
                        EXIT_CONFIG,
                    )
                })?;
                let token = std::fs::read_to_string(prepared.dir.root().join(OPERATOR_TOKEN_FILE)).map_err(|e| {
                    Refused(
                        format!("cannot read the running instance's operator token: {e}"),
                        EXIT_CONFIG,
                    )
                })?;
                Ok(Target::Remote {
                    url,
                    token: token.trim().to_owned(),
                })
            }
            Err(e) => Err(Refused(e.to_string(), EXIT_CONFIG)),
        }
    }

    fn close(self) {
        if let Target::Local {
            service,
            store,
            mut lock,
        } = self
        {
            lock.release();
            store.shutdown();
            drop((service, store));
            drop(lock);
        }
    }
}

/// Asks the instance running on the data directory `root` to bring its window to the front, as
/// its operator (the token it wrote there). What a second start of the desktop app does.
pub async fn show_running_window(root: &std::path::Path) -> Result<(), String> {
    let dir = smsdesk_engine::paths::DataDir::new(root.to_owned());
    let url = instance::read_info(&dir)
        .and_then(|i| i.http_url)
        .ok_or("the running instance has not published its address yet")?;
    let token = std::fs::read_to_string(root.join(OPERATOR_TOKEN_FILE))
        .map_err(|e| format!("cannot read the running instance's operator token: {e}"))?;
    let target = Target::Remote {
        url,
        token: token.trim().to_owned(),
    };
    call::<()>(&target, reqwest::Method::POST, "/api/v1/window/show", None::<&()>, &[])
        .await
        .map_err(|Refused(message, _)| message)
}

async fn call<T: DeserializeOwned>(
    target: &Target,
    method: reqwest::Method,
    path: &str,
    body: Option<&impl Serialize>,
    headers: &[(&str, String)],
) -> Result<T, Refused> {
    let Target::Remote { url, token } = target else {
        unreachable!("only remote targets are called over HTTP")
    };
    let client = reqwest::Client::new();
    let mut req = client.request(method, format!("{url}{path}")).bearer_auth(token);
    for (k, v) in headers {
        req = req.header(*k, v);
    }
    if let Some(b) = body {
        req = req.json(b);
    }
    let resp = req
        .send()
        .await
        .map_err(|e| Refused(format!("cannot reach the running instance at {url}: {e}"), EXIT_CONFIG))?;
    let status = resp.status();
    let text = resp
        .text()
        .await
        .map_err(|e| Refused(format!("the running instance's answer was cut short: {e}"), EXIT_CONFIG))?;
    if !status.is_success() {
        let err: Result<smsdesk_engine::api::ApiError, _> = serde_json::from_str(&text);
        return Err(match err {
            Ok(e) if !e.errors.is_empty() => Refused(
                e.errors
                    .iter()
                    .map(|f| format!("{}: {}", f.field, f.message))
                    .collect::<Vec<_>>()
                    .join("\n"),
                EXIT_REFUSED,
            ),
            Ok(e) => Refused(e.message, EXIT_REFUSED),
            Err(_) => Refused(format!("{status}: {text}"), EXIT_REFUSED),
        });
    }
    let text = if text.is_empty() { "null".to_owned() } else { text };
    serde_json::from_str(&text).map_err(|e| Refused(format!("unexpected answer from the instance: {e}"), EXIT_CONFIG))
}

/// Runs `f` on a runtime with the target open, and prints a refusal the common way.
fn run<F, Fut>(cli: &Cli, what: &str, f: F) -> ExitCode
where
    F: FnOnce(Target) -> Fut,
    Fut: std::future::Future<Output = (Target, Result<(), Refused>)>,
{
    let (prepared, _log) = match prepare(cli) {
        Ok(p) => p,
        Err(code) => return code,
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(r) => r,
        Err(e) => {
            eprintln!("smsdesk {what}: cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    let target = match Target::open(&prepared) {
        Ok(t) => t,
        Err(Refused(msg, code)) => {
            eprintln!("smsdesk {what}: {msg}");
            return ExitCode::from(code);
        }
    };
    let (target, result) = runtime.block_on(f(target));
    target.close();
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(Refused(msg, code)) => {
            eprintln!("smsdesk {what}: {msg}");
            ExitCode::from(code)
        }
    }
}

pub fn send(cli: &Cli, args: SendArgs) -> ExitCode {
    let req = SubmitMessage {
        destination: args.to.clone(),
        text: args.text.clone(),
        kind: Some(args.kind.into()),
        priority: args.priority,
        validity_seconds: args.validity_seconds,
        ordering_key: args.ordering_key.clone(),
        client_ref: args.client_ref.clone(),
        ..SubmitMessage::default()
    };
    run(cli, "send", |target| async move {
        let result = async {
            let (submitted, local): (SubmittedMessage, bool) = match &target {
                Target::Remote { .. } => {
                    let headers: Vec<(&str, String)> = args
                        .idempotency_key
                        .iter()
                        .map(|k| ("Idempotency-Key", k.clone()))
                        .collect();
                    (
                        call(&target, reqwest::Method::POST, "/api/v1/messages", Some(&req), &headers).await?,
                        false,
                    )
                }
                Target::Local { .. } if matches!(args.kind, KindArg::Otp) => {
                    return Err(Refused(
                        "a one-time code is sealed with a key only a running smsdesk holds in memory, so it is \
                         never stored in clear: start smsdesk (`smsdesk serve` or the app) and send it again"
                            .into(),
                        EXIT_REFUSED,
                    ));
                }
                Target::Local { service, .. } => {
                    let answer = service
                        .submit(
                            &Caller::command_line(),
                            IntakeChannel::Cli,
                            req,
                            args.idempotency_key.clone(),
                        )
                        .await?;
                    (
                        serde_json::from_str(&answer.body).map_err(|e| Refused(e.to_string(), EXIT_CONFIG))?,
                        true,
                    )
                }
            };
            if args.json {
                println!("{}", serde_json::to_string_pretty(&submitted).expect("serialises"));
            } else {
                let parts = if submitted.segments == 1 { "part" } else { "parts" };
                println!(
                    "Message {} to {} queued ({} {parts}, {}).",
                    submitted.id, submitted.destination, submitted.segments, submitted.encoding
                );
                if local {
                    println!("smsdesk is not running: it will be sent when smsdesk starts.");
                }
            }
            Ok(())
        }
        .await;
        (target, result)
    })
}

pub fn status(cli: &Cli, args: StatusArgs) -> ExitCode {
    run(cli, "status", |target| async move {
        let result = async {
            let d: views::MessageDetail = match &target {
                Target::Remote { .. } => {
                    call(
                        &target,
                        reqwest::Method::GET,
                        &format!("/api/v1/messages/{}", args.id),
                        None::<&()>,
                        &[],
                    )
                    .await?
                }
                Target::Local { service, .. } => service.message(&Caller::command_line(), args.id).await?,
            };
            if args.json {
                println!("{}", serde_json::to_string_pretty(&d).expect("serialises"));
            } else {
                print!("{}", describe(&d));
            }
            Ok(())
        }
        .await;
        (target, result)
    })
}

/// A message's status in plain words.
fn describe(d: &views::MessageDetail) -> String {
    let s = &d.summary;
    let mut out = format!("Message {} to {} ({}, {})\n", s.id, s.destination, s.kind, s.channel);
    out.push_str(&format!("  Queue:    {}\n", queue_words(s.status)));
    out.push_str(&format!("  Network:  {} (rule {})\n", state_words(s.state), s.rule));
    if !s.flags.is_empty() {
        out.push_str(&format!(
            "  Flags:    {}\n",
            s.flags.iter().map(|f| f.as_str()).collect::<Vec<_>>().join(", ")
        ));
    }
    out.push_str(&format!(
        "  Evidence: {} attempt(s), {} receipt(s)\n",
        d.attempts.len(),
        d.receipts.len()
    ));
    out
}

fn queue_words(s: QueueStatus) -> &'static str {
    match s {
        QueueStatus::Queued => "queued, waiting to be sent",
        QueueStatus::Sending => "being sent",
        QueueStatus::Accepted => "accepted by the SMSC (not yet proof of delivery)",
        QueueStatus::Failed => "failed: the SMSC refused it",
        QueueStatus::OutcomeUnknown => "outcome unknown: sent, but no answer came (not resent on its own)",
        QueueStatus::Cancelled => "cancelled",
        QueueStatus::Expired => "expired before it could be sent",
        QueueStatus::Held => "held for a person: its number opted out after it was queued (not sent)",
    }
}

fn state_words(s: DeliveryState) -> String {
    match s {
        DeliveryState::Pending => "no report yet".into(),
        other => format!("reported {other}"),
    }
}
