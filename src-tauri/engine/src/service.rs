//! What people and programs can ask of a running engine, in one place: the HTTP routes, the
//! desktop window's commands and the command line all call these functions, so each behaves the
//! same whichever door it came through.

use std::sync::{Arc, RwLock};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use tokio::sync::{broadcast, watch};
use ts_rs::TS;

use crate::api::{AppInfo, Health, HealthStatus, WriterHealth};
use crate::apikeys::{self, ApiKeyInfo, Caller, CreatedApiKey, KeyError, NewApiKey};
use crate::clock::Clock;
use crate::config::CallbackProviders;
use crate::dispatch::queue::{self, ActionError};
use crate::domain::{DeliveryState, IntakeChannel};
use crate::idempotency::{self, InFlight, Recorded};
use crate::intake::{self, FieldError, IntakeRules, SubmitMessage, SubmittedMessage};
use crate::messages::{self, Idempotency};
use crate::receipts::exceptions::{self, Action, Resolution, ResolveError};
use crate::receipts::ingest::{HttpReceived, Ingested, Ingestor};
use crate::receipts::policy::ReceiptPolicy;
use crate::settings::{
    ConnectionTest, ConnectionTestResult, Settings, SettingsError, SettingsSaved, SettingsUpdate, SettingsView,
};
use crate::smpp::session::LinkState;
use crate::store::tables::NewAudit;
use crate::store::{Store, StoreError};
use crate::views::{self, ViewError};

/// Why a request was refused. The edges (HTTP, IPC, CLI) turn each into their own answer; the
/// message is for people.
#[derive(Debug, thiserror::Error)]
pub enum ServiceError {
    #[error("the request has invalid fields")]
    Invalid(Vec<FieldError>),
    #[error("{0}")]
    BadRequest(String),
    #[error("{0} not found")]
    NotFound(String),
    #[error("a request with this Idempotency-Key is still being processed; try again in a moment")]
    InFlight,
    #[error("this Idempotency-Key was used with a different request; use a new key for a new request")]
    KeyReused,
    #[error("{0}")]
    Forbidden(String),
    #[error("this instance runs headless (smsdesk serve): it has no window to show")]
    NoWindow,
    #[error(transparent)]
    Settings(SettingsError),
    #[error(transparent)]
    Action(#[from] ActionError),
    #[error(transparent)]
    Resolve(#[from] ResolveError),
    #[error(transparent)]
    Key(#[from] KeyError),
    #[error(transparent)]
    View(#[from] ViewError),
    #[error(transparent)]
    Export(#[from] views::ExportError),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// An answer that may be a replay of an earlier one: the answer, and the JSON it was stored as
/// (which HTTP sends as is, so that a replay is byte for byte the first answer).
#[derive(Debug, Clone, PartialEq)]
pub struct Answer<T> {
    pub value: T,
    /// The JSON body.
    pub body: String,
    /// True when this is the stored answer to an earlier request with the same key.
    pub replayed: bool,
}

/// What the writer gives back: a new answer, or the JSON stored for an earlier request.
enum Stored<T> {
    New { value: T, body: String },
    Replayed { body: String },
}

/// Several messages in one request: all are accepted, or none.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, TS, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SubmitBatch {
    pub messages: Vec<SubmitMessage>,
}

/// The answer to a batch: the messages in the order given.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
pub struct SubmittedBatch {
    pub messages: Vec<SubmittedMessage>,
}

/// A note with an action on a message.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct MessageAction {
    /// Why (kept in the audit log).
    #[serde(default)]
    pub note: String,
    /// Retry only: the last try was accepted or its outcome is unknown, so the message may arrive
    /// twice; set true to go on anyway.
    #[serde(default)]
    pub confirm_duplicate: bool,
}

/// The operator's decision on an exception.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
#[serde(tag = "action", rename_all = "snake_case")]
pub enum ResolveRequest {
    /// Decide the message's state (a conflict, no receipt by the deadline).
    ChooseState { state: DeliveryState, note: String },
    /// Attach an uncorrelated receipt to a message; `mismatches_seen` after reviewing every
    /// mismatch the preview showed.
    Attach {
        #[ts(type = "number")]
        message_id: i64,
        #[serde(default)]
        mismatches_seen: bool,
        note: String,
    },
    /// Send again what was not accepted (outcome unknown, or partly sent). When evidence says
    /// the network had the message (an accepted try or a receipt), `confirm_duplicate: true` is
    /// needed as well.
    Resend {
        note: String,
        #[serde(default)]
        confirm_duplicate: bool,
    },
    /// Settle the message as failed (outcome unknown).
    MarkFailed { note: String },
    /// Close it without changing anything.
    Dismiss { note: String },
}

impl ResolveRequest {
    fn into_parts(self) -> (Action, String) {
        match self {
            ResolveRequest::ChooseState { state, note } => (Action::ChooseState(state), note),
            ResolveRequest::Attach {
                message_id,
                mismatches_seen,
                note,
            } => (
                Action::Attach {
                    message_id,
                    mismatches_seen,
                },
                note,
            ),
            ResolveRequest::Resend {
                note,
                confirm_duplicate,
            } => (Action::Resend { confirm_duplicate }, note),
            ResolveRequest::MarkFailed { note } => (Action::MarkFailed, note),
            ResolveRequest::Dismiss { note } => (Action::Dismiss, note),
        }
    }
}

/// What one message of a preview would be, or why it would be refused; nothing is written.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
pub struct PreviewRow {
    /// Its place in the request, from 0.
    #[ts(type = "number")]
    pub index: usize,
    /// The number as it would be sent (E.164), when it is valid.
    pub destination: Option<String>,
    /// The text's encoding, size and parts, whenever there is a text (even if other fields are
    /// invalid): what a live counter shows.
    pub plan: Option<crate::sms::encoding::Plan>,
    /// Every invalid field; empty when the message would be accepted.
    pub errors: Vec<FieldError>,
}

/// The answer to a preview, one row per message in the order given.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
pub struct Preview {
    pub rows: Vec<PreviewRow>,
}

/// What an HTTP provider's callback became.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
pub struct CallbackAnswer {
    /// How many reports the request carried (each is stored).
    pub received: usize,
}

/// The SMPP connection messages go out on, as the dashboard shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
pub struct ConnectionStatus {
    /// "sandbox" or "smpp".
    pub connection: String,
    /// True while the embedded sandbox SMSC is the connection: no real SMS is sent.
    pub sandbox: bool,
    /// The session's state now: connecting, bound (since when), down (with the last error and
    /// since when), bind refused, or stopped.
    pub link: LinkState,
}

/// The engine's operations, for every caller.
#[derive(Clone)]
pub struct Service {
    store: Arc<Store>,
    live: Arc<RwLock<Live>>,
    in_flight: Arc<InFlight>,
    settings: Option<Arc<Settings>>,
    /// Where "show the window" requests go, when this instance has one.
    window: Option<broadcast::Sender<()>>,
}

/// What settings may change while the engine runs: replaced whole, read per request.
#[derive(Clone)]
struct Live {
    ingestor: Ingestor,
    rules: Arc<IntakeRules>,
    max_batch: usize,
    link: Option<(String, bool, watch::Receiver<LinkState>)>,
    callbacks: Arc<CallbackProviders>,
}

impl Service {
    pub fn new(store: Arc<Store>, ingestor: Ingestor, rules: IntakeRules, max_batch: usize) -> Service {
        Service {
            store,
            live: Arc::new(RwLock::new(Live {
                ingestor,
                rules: Arc::new(rules),
                max_batch,
                link: None,
                callbacks: Arc::default(),
            })),
            in_flight: Arc::default(),
            settings: None,
            window: None,
        }
    }

    /// This instance has a desktop window, which [`Service::show_window`] brings to the front.
    pub fn with_window(mut self, requests: broadcast::Sender<()>) -> Service {
        self.window = Some(requests);
        self
    }

    /// Asks the desktop window to come to the front: what a second start of the app does instead
    /// of opening a second window on the same data.
    pub fn show_window(&self) -> Result<(), ServiceError> {
        match &self.window {
            Some(requests) if requests.send(()).is_ok() => Ok(()),
            _ => Err(ServiceError::NoWindow),
        }
    }

    /// The HTTP providers allowed to post receipts.
    pub fn with_callbacks(self, providers: CallbackProviders) -> Service {
        self.set_callbacks(providers);
        self
    }

    /// Lets the operator read and change the settings.
    pub fn with_settings(mut self, settings: Arc<Settings>) -> Service {
        self.settings = Some(settings);
        self
    }

    fn live(&self) -> Live {
        self.live.read().unwrap_or_else(|p| p.into_inner()).clone()
    }

    fn change(&self, f: impl FnOnce(&mut Live)) {
        f(&mut self.live.write().unwrap_or_else(|p| p.into_inner()));
    }

    /// A new session (after the connection settings changed) reports from now on.
    pub fn set_link(&self, connection: &str, sandbox: bool, link: watch::Receiver<LinkState>) {
        self.change(|l| l.link = Some((connection.to_owned(), sandbox, link)));
    }

    pub fn set_callbacks(&self, providers: CallbackProviders) {
        self.change(|l| l.callbacks = Arc::new(providers));
    }

    /// New intake rules (region, connection, batch size) for the next request.
    pub fn set_intake(&self, rules: IntakeRules, max_batch: usize) {
        self.change(|l| {
            l.rules = Arc::new(rules);
            l.max_batch = max_batch;
        });
    }

    /// A new receipt policy (id rules, deadline) for every receipt from now on.
    pub fn set_ingestor(&self, ingestor: Ingestor) {
        self.change(|l| l.ingestor = ingestor);
    }

    /// Where receipts go now.
    pub fn ingestor(&self) -> Ingestor {
        self.live().ingestor
    }

    /// The HTTP providers allowed to post receipts now.
    pub fn callbacks(&self) -> Arc<CallbackProviders> {
        self.live().callbacks
    }

    /// The name of the connection messages go out on now ("sandbox" or "smpp"; "" before one).
    pub fn connection_name(&self) -> String {
        self.live().link.map(|(c, _, _)| c).unwrap_or_default()
    }

    /// The connection and its link state now.
    pub fn connection_status(&self) -> Result<ConnectionStatus, ServiceError> {
        let (connection, sandbox, link) = self
            .live()
            .link
            .ok_or_else(|| ServiceError::NotFound("an SMPP connection".into()))?;
        let link = link.borrow().clone();
        Ok(ConnectionStatus {
            connection,
            sandbox,
            link,
        })
    }

    /// How this instance is: whether the database writer answers (a probe it must run within
    /// [`WriterHealth::PROBE_TIMEOUT_MS`]), the SMPP link, the last WAL checkpoint.
    pub async fn health(&self, info: &AppInfo) -> Health {
        let started = std::time::Instant::now();
        let probe = tokio::time::timeout(
            Duration::from_millis(WriterHealth::PROBE_TIMEOUT_MS),
            self.store.writer().probe(),
        )
        .await;
        let writer = match probe {
            Ok(Ok(())) => WriterHealth {
                answered: true,
                answered_in_ms: Some(started.elapsed().as_millis() as u64),
                error: None,
            },
            Ok(Err(e)) => WriterHealth {
                answered: false,
                answered_in_ms: None,
                error: Some(e.to_string()),
            },
            Err(_) => WriterHealth {
                answered: false,
                answered_in_ms: None,
                error: Some(format!(
                    "no answer within {} ms: it is busy with an operation that does not end, or stuck",
                    WriterHealth::PROBE_TIMEOUT_MS
                )),
            },
        };
        let connection = self.connection_status().ok();
        let bound = connection
            .as_ref()
            .is_some_and(|c| matches!(c.link, LinkState::Bound { .. }));
        let status = match (writer.answered, bound) {
            (false, _) => HealthStatus::Unavailable,
            (true, false) => HealthStatus::Degraded,
            (true, true) => HealthStatus::Ok,
        };
        Health {
            status,
            version: info.version.clone(),
            schema_version: info.schema_version,
            writer,
            connection,
            last_checkpoint_ms: self.store.last_checkpoint_ms(),
        }
    }

    /// Requests with an idempotency key being committed right now (a repeat of one gets 409).
    pub fn idempotent_requests_in_flight(&self) -> usize {
        self.in_flight.len()
    }

    pub fn store(&self) -> &Arc<Store> {
        &self.store
    }

    /// The clock every part of the engine reads the time from (the store's).
    pub fn clock(&self) -> &Clock {
        self.store.clock()
    }

    pub fn policy(&self) -> ReceiptPolicy {
        self.live().ingestor.policy().clone()
    }

    fn settings_door(&self, caller: &Caller) -> Result<&Arc<Settings>, ServiceError> {
        if !matches!(caller, Caller::Operator) {
            return Err(ServiceError::Forbidden(
                "settings are the operator's (the desktop app), not an API key's".into(),
            ));
        }
        self.settings
            .as_ref()
            .ok_or_else(|| ServiceError::NotFound("settings (no running engine)".into()))
    }

    /// Every setting, where it comes from and when a change applies (operator only).
    pub fn settings(&self, caller: &Caller) -> Result<SettingsView, ServiceError> {
        self.settings_door(caller)?.view().map_err(ServiceError::from)
    }

    /// Saves changed settings and applies what may change while running (operator only,
    /// audited without any secret).
    pub async fn update_settings(&self, caller: &Caller, req: SettingsUpdate) -> Result<SettingsSaved, ServiceError> {
        let saved = self.settings_door(caller)?.update(req).await?;
        if !saved.changes.is_empty() {
            let details = serde_json::json!({ "changes": saved.changes, "reconnected": saved.reconnected }).to_string();
            let keys: Vec<&str> = saved.changes.iter().map(|c| c.key.as_str()).collect();
            let audit = NewAudit {
                actor: caller.actor(),
                action: "settings.update".into(),
                subject_type: Some("settings".into()),
                subject_id: None,
                note: Some(format!("changed {}", keys.join(", "))),
                details_json: Some(details),
            };
            self.store
                .writer()
                .write(move |tx| tx.audit().append(&audit).map(|_| ()))
                .await?;
        }
        Ok(saved)
    }

    /// A trial bind with unsaved connection settings (operator only).
    pub async fn test_connection(
        &self,
        caller: &Caller,
        test: ConnectionTest,
    ) -> Result<ConnectionTestResult, ServiceError> {
        Ok(self.settings_door(caller)?.test_connection(test).await?)
    }

    /// Hands in one message. With an idempotency key, a repeat of the same request gets the first
    /// answer again. The answer comes only once the message is committed.
    pub async fn submit(
        &self,
        caller: &Caller,
        channel: IntakeChannel,
        req: SubmitMessage,
        key: Option<String>,
    ) -> Result<Answer<SubmittedMessage>, ServiceError> {
        let hash = request_hash("messages", &req)?;
        let rules = self.live().rules;
        let new = intake::validate(&req, channel, &rules, self.clock().now_ms()).map_err(ServiceError::Invalid)?;
        self.create(caller, "messages", vec![new], hash, key, |mut done| done.remove(0))
            .await
    }

    /// Hands in several messages at once: all or none. Field errors name the message's index
    /// (`messages[3].destination`).
    pub async fn submit_batch(
        &self,
        caller: &Caller,
        channel: IntakeChannel,
        req: SubmitBatch,
        key: Option<String>,
    ) -> Result<Answer<SubmittedBatch>, ServiceError> {
        if req.messages.is_empty() {
            return Err(ServiceError::Invalid(vec![FieldError {
                field: "messages".into(),
                code: "required".into(),
                message: "a batch needs at least one message".into(),
            }]));
        }
        let Live { rules, max_batch, .. } = self.live();
        if req.messages.len() > max_batch {
            return Err(ServiceError::Invalid(vec![FieldError {
                field: "messages".into(),
                code: "too_many".into(),
                message: format!(
                    "a batch holds at most {} messages (intake.max_batch); this one has {}",
                    max_batch,
                    req.messages.len()
                ),
            }]));
        }
        let hash = request_hash("messages/batch", &req)?;
        let now = self.clock().now_ms();
        let mut news = Vec::with_capacity(req.messages.len());
        let mut errors = Vec::new();
        for (i, m) in req.messages.iter().enumerate() {
            match intake::validate(m, channel, &rules, now) {
                Ok(n) => news.push(n),
                Err(es) => errors.extend(es.into_iter().map(|e| FieldError {
                    field: format!("messages[{i}].{}", e.field),
                    ..e
                })),
            }
        }
        if !errors.is_empty() {
            return Err(ServiceError::Invalid(errors));
        }
        self.create(caller, "messages/batch", news, hash, key, |done| SubmittedBatch {
            messages: done,
        })
        .await
    }

    /// Checks messages as a submit would, writing nothing: for the compose form's live counter
    /// and a CSV import's preview. At most `intake.max_batch` at once.
    pub fn preview(&self, req: &SubmitBatch) -> Result<Preview, ServiceError> {
        let Live { rules, max_batch, .. } = self.live();
        if req.messages.len() > max_batch {
            return Err(ServiceError::Invalid(vec![FieldError {
                field: "messages".into(),
                code: "too_many".into(),
                message: format!(
                    "a preview holds at most {} messages (intake.max_batch); this one has {}",
                    max_batch,
                    req.messages.len()
                ),
            }]));
        }
        let now = self.clock().now_ms();
        let rows = req
            .messages
            .iter()
            .enumerate()
            .map(|(index, m)| {
                let plan = (!m.text.is_empty()).then(|| crate::sms::encoding::plan(&m.text));
                match intake::validate(m, IntakeChannel::Compose, &rules, now) {
                    Ok(n) => PreviewRow {
                        index,
                        destination: Some(n.destination),
                        plan,
                        errors: Vec::new(),
                    },
                    Err(errors) => PreviewRow {
                        index,
                        destination: intake::normalize_destination(&m.destination, rules.default_region.as_deref())
                            .ok(),
                        plan,
                        errors,
                    },
                }
            })
            .collect();
        Ok(Preview { rows })
    }

    /// Writes the messages and the answer for their key in one transaction, or finds the answer
    /// stored for that key (read back into its type: only a replay is parsed).
    async fn create<T: Serialize + serde::de::DeserializeOwned + Send + 'static>(
        &self,
        caller: &Caller,
        route: &'static str,
        mut news: Vec<messages::NewMessage>,
        hash: String,
        key: Option<String>,
        answer: impl FnOnce(Vec<SubmittedMessage>) -> T + Send + 'static,
    ) -> Result<Answer<T>, ServiceError> {
        let scope = caller.scope();
        if let Some(k) = &key {
            if k.is_empty() || k.len() > idempotency::MAX_KEY_LEN || k.chars().any(char::is_control) {
                return Err(ServiceError::BadRequest(format!(
                    "Idempotency-Key must be 1 to {} printable characters",
                    idempotency::MAX_KEY_LEN
                )));
            }
        }
        let _guard = match &key {
            Some(k) => Some(self.in_flight.enter(&scope, k).ok_or(ServiceError::InFlight)?),
            None => None,
        };
        for n in &mut news {
            n.api_key_id = caller.api_key_id();
            n.idempotency = None;
        }
        // A single message carries its key, so its row says which request made it.
        if let (Some(k), [only]) = (&key, news.as_mut_slice()) {
            only.idempotency = Some(Idempotency {
                scope: scope.clone(),
                key: k.clone(),
                request_hash: hash.clone(),
            });
        }
        let stored = self
            .store
            .writer()
            .write(move |tx| {
                if let Some(k) = &key {
                    match idempotency::lookup(&*tx, &scope, k, &hash)? {
                        Recorded::New => {}
                        Recorded::Replay { body, .. } => return Ok(Stored::Replayed { body }),
                        Recorded::Mismatch => return Err(ServiceError::KeyReused),
                    }
                }
                let created_at = tx.now_ms();
                let mut done = Vec::with_capacity(news.len());
                for n in &news {
                    let id = messages::insert(tx, n)?;
                    done.push(SubmittedMessage::new(id, n, created_at));
                }
                let value = answer(done);
                let body = serde_json::to_string(&value).map_err(|e| StoreError::Corrupt(format!("answer: {e}")))?;
                if let Some(k) = &key {
                    idempotency::record(tx, &scope, k, &hash, route, 201, &body)?;
                }
                Ok(Stored::New { value, body })
            })
            .await?;
        match stored {
            Stored::New { value, body } => Ok(Answer {
                value,
                body,
                replayed: false,
            }),
            Stored::Replayed { body } => Ok(Answer {
                value: serde_json::from_str(&body)
                    .map_err(|e| StoreError::Corrupt(format!("the answer stored for this request: {e}")))?,
                body,
                replayed: true,
            }),
        }
    }

    pub async fn list_messages(&self, f: views::MessageFilter) -> Result<views::MessagePage, ServiceError> {
        Ok(self.store.reader().read(move |c| views::list_messages(c, &f)).await?)
    }

    pub async fn message(&self, id: i64) -> Result<views::MessageDetail, ServiceError> {
        self.store
            .reader()
            .read(move |c| views::message_detail(c, id))
            .await?
            .ok_or_else(|| ServiceError::NotFound(format!("message {id}")))
    }

    /// Sends a message again now (audited).
    pub async fn retry(&self, caller: &Caller, id: i64, a: MessageAction) -> Result<(), ServiceError> {
        check_note(&a.note)?;
        let actor = caller.actor();
        Ok(self
            .store
            .writer()
            .write(move |tx| queue::retry(tx, id, a.confirm_duplicate, &actor, &a.note))
            .await?)
    }

    /// Takes a message that has not been sent out of the queue (audited).
    pub async fn cancel(&self, caller: &Caller, id: i64, a: MessageAction) -> Result<(), ServiceError> {
        check_note(&a.note)?;
        let actor = caller.actor();
        Ok(self
            .store
            .writer()
            .write(move |tx| queue::cancel(tx, id, &actor, &a.note))
            .await?)
    }

    pub async fn list_exceptions(&self, f: views::ExceptionFilter) -> Result<views::ExceptionPage, ServiceError> {
        Ok(self.store.reader().read(move |c| views::list_exceptions(c, &f)).await?)
    }

    pub async fn exception(&self, id: i64) -> Result<views::ExceptionDetail, ServiceError> {
        let timezone = self.policy().timezone_minutes;
        self.store
            .reader()
            .read(move |c| views::exception_detail(c, id, timezone))
            .await?
            .ok_or_else(|| ServiceError::NotFound(format!("exception {id}")))
    }

    /// Applies an operator's decision to an exception (audited; the evidence is never changed).
    pub async fn resolve(&self, caller: &Caller, id: i64, req: ResolveRequest) -> Result<(), ServiceError> {
        let (action, note) = req.into_parts();
        check_note(&note)?;
        let resolution = Resolution {
            exception_id: id,
            action,
            note,
            actor: caller.actor(),
        };
        let policy = self.policy();
        Ok(self
            .store
            .writer()
            .write(move |tx| exceptions::resolve(tx, &resolution, &policy))
            .await?)
    }

    pub async fn dashboard(&self) -> Result<views::Dashboard, ServiceError> {
        let now = self.clock().now_ms();
        Ok(self
            .store
            .reader()
            .read(move |c| views::dashboard_at(c, now, 0))
            .await?)
    }

    /// The dashboard's charts over the last hour, day or month, and outcomes by day.
    pub async fn activity(&self, window: views::ActivityWindow) -> Result<views::Activity, ServiceError> {
        let now = self.clock().now_ms();
        Ok(self
            .store
            .reader()
            .read(move |c| views::activity_at(c, window, now))
            .await?)
    }

    /// Writes every message `filter` selects as CSV to `out` ([`views::write_csv`], as the command
    /// line does), on a blocking thread; `progress` hears the total first, then after each page, and
    /// may stop the export. Returns the rows written.
    pub async fn export_csv<W: std::io::Write + Send + 'static>(
        &self,
        filter: views::MessageFilter,
        out: W,
        progress: impl FnMut(views::ExportProgress) -> std::ops::ControlFlow<()> + Send + 'static,
    ) -> Result<u64, ServiceError> {
        Ok(self
            .store
            .reader()
            .read(move |c| views::write_csv(c, &filter, out, progress))
            .await?)
    }

    /// [`Service::export_csv`] into a new file at `path` (replaced if it exists); a failed or
    /// cancelled export removes what it had written rather than leave half a file.
    pub async fn export_csv_file(
        &self,
        filter: views::MessageFilter,
        path: std::path::PathBuf,
        progress: impl FnMut(views::ExportProgress) -> std::ops::ControlFlow<()> + Send + 'static,
    ) -> Result<u64, ServiceError> {
        let file = std::fs::File::create(&path).map_err(|e| {
            views::ExportError::Write(std::io::Error::new(e.kind(), format!("{}: {e}", path.display())))
        })?;
        let result = self.export_csv(filter, std::io::BufWriter::new(file), progress).await;
        if result.is_err() {
            let _ = std::fs::remove_file(&path);
        }
        result
    }

    pub async fn audit_log(
        &self,
        cursor: Option<String>,
        limit: Option<u32>,
    ) -> Result<views::AuditPage, ServiceError> {
        Ok(self
            .store
            .reader()
            .read(move |c| views::audit_log(c, cursor.as_deref(), limit))
            .await?)
    }

    pub async fn create_key(&self, caller: &Caller, new: NewApiKey) -> Result<CreatedApiKey, ServiceError> {
        let actor = caller.actor();
        Ok(self
            .store
            .writer()
            .write(move |tx| apikeys::create(tx, &new, &actor))
            .await?)
    }

    pub async fn list_keys(&self) -> Result<Vec<ApiKeyInfo>, ServiceError> {
        Ok(self.store.reader().read(apikeys::list).await?)
    }

    pub async fn revoke_key(&self, caller: &Caller, id: i64) -> Result<(), ServiceError> {
        let actor = caller.actor();
        Ok(self
            .store
            .writer()
            .write(move |tx| apikeys::revoke(tx, id, &actor))
            .await?)
    }

    /// The caller an API key stands for, if it is valid.
    pub async fn authenticate(&self, key: String) -> Result<Option<Caller>, ServiceError> {
        Ok(self.store.reader().read(move |c| apikeys::verify(c, &key)).await?)
    }

    /// Stores an HTTP provider's delivery report (every report it carries), then applies it;
    /// returns once committed, so the provider's 2xx means the evidence is on disk.
    pub async fn callback(&self, r: HttpReceived) -> Result<Vec<Ingested>, ServiceError> {
        Ok(self.ingestor().http(r).await?)
    }
}

impl From<SettingsError> for ServiceError {
    fn from(e: SettingsError) -> ServiceError {
        match e {
            SettingsError::Invalid(errors) => ServiceError::Invalid(errors),
            other => ServiceError::Settings(other),
        }
    }
}

/// SMPP sessions hand their reports to the service, which passes them to whichever ingestor the
/// settings put in place last (receipt rules change without a restart).
impl crate::smpp::session::InboundHandler for Service {
    fn deliver(
        &self,
        reports: Vec<crate::receipts::ingest::SmppReceived>,
    ) -> std::pin::Pin<Box<dyn std::future::Future<Output = Vec<bool>> + Send + '_>> {
        let ingestor = self.ingestor();
        Box::pin(async move { crate::smpp::session::InboundHandler::deliver(&ingestor, reports).await })
    }
}

/// A note is kept in the audit log as written: line breaks and tabs are fine, other control
/// characters (a NUL would cut it short in the database) are refused.
fn check_note(note: &str) -> Result<(), ServiceError> {
    match note
        .chars()
        .position(|c| c.is_control() && !matches!(c, '\n' | '\r' | '\t'))
    {
        None => Ok(()),
        Some(at) => Err(ServiceError::Invalid(vec![FieldError {
            field: "note".into(),
            code: "invalid_character".into(),
            message: format!("the note holds a control character at position {at}; write it in plain text"),
        }])),
    }
}

fn request_hash<T: Serialize>(route: &str, req: &T) -> Result<String, ServiceError> {
    let value = serde_json::to_value(req).map_err(|e| ServiceError::BadRequest(e.to_string()))?;
    Ok(idempotency::request_hash(route, &value))
}
