//! Handing messages in: one, or a batch that is accepted whole or not at all. With an
//! idempotency key, a repeat of the same request gets the first answer again, byte for byte.

use std::sync::Arc;

use crate::said::FieldCode;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::{limits, Live, Service, ServiceError};
use crate::apikeys::Caller;
use crate::domain::{IntakeChannel, MessageKind};
use crate::guardrails;
use crate::idempotency::{self, Recorded};
use crate::intake::{self, FieldError, IntakeRules, SubmitMessage, SubmittedMessage, Templates};
use crate::messages::{self, Idempotency, NewMessage};
use crate::sealed::Sealer;
use crate::store::tables::template as template_table;
use crate::store::{StoreError, WriteTx};

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

impl Service {
    /// Hands in one message. With an idempotency key, a repeat of the same request gets the first
    /// answer again. The answer comes only once the message is committed.
    pub async fn submit(
        &self,
        caller: &Caller,
        channel: IntakeChannel,
        req: SubmitMessage,
        key: Option<String>,
    ) -> Result<Answer<SubmittedMessage>, ServiceError> {
        let rules = self.live().rules;
        let templates = self.templates_for(std::slice::from_ref(&req)).await?;
        let new = intake::validate_with(&req, &templates, channel, &rules, self.clock().now_ms())
            .map_err(ServiceError::Invalid)?;
        let read = intake::normalise(&req, &new);
        let keyed = Keyed::of(key, "messages", req, &read)?;
        self.create(caller, "messages", vec![new], keyed, |mut done| done.remove(0))
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
            return Err(ServiceError::Invalid(vec![FieldError::new(
                "messages",
                FieldCode::Required,
                "a batch needs at least one message",
            )]));
        }
        let Live { rules, max_batch, .. } = self.live();
        check_batch_size("a batch", req.messages.len(), max_batch)?;
        let templates = self.templates_for(&req.messages).await?;
        let now = self.clock().now_ms();
        let mut news = Vec::with_capacity(req.messages.len());
        let mut errors = Vec::new();
        for (i, m) in req.messages.iter().enumerate() {
            match intake::validate_with(m, &templates, channel, &rules, now) {
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
        let read: Vec<_> = req
            .messages
            .iter()
            .zip(&news)
            .map(|(m, n)| intake::normalise(m, n))
            .collect();
        let keyed = Keyed::of(key, "messages/batch", req, &serde_json::json!({ "messages": read }))?;
        self.create(caller, "messages/batch", news, keyed, |done| SubmittedBatch {
            messages: done,
        })
        .await
    }

    /// The office's templates when one of `messages` names one (read then only).
    pub(super) async fn templates_for(&self, messages: &[SubmitMessage]) -> Result<Templates, ServiceError> {
        if !messages.iter().any(intake::names_template) {
            return Ok(Templates::default());
        }
        let all = self.store.reader().read(template_table::list).await?;
        Ok(Templates::new(all))
    }

    /// Writes the messages and the answer for their key in one transaction, or finds the answer
    /// stored for that key (read back into its type: only a replay is parsed).
    pub(super) async fn create<T: Serialize + serde::de::DeserializeOwned + Send + 'static>(
        &self,
        caller: &Caller,
        route: &'static str,
        mut news: Vec<NewMessage>,
        keyed: Option<Keyed>,
        answer: impl Fn(Vec<SubmittedMessage>) -> T + Send + 'static,
    ) -> Result<Answer<T>, ServiceError> {
        let scope = caller.scope();
        // Held until the answer is committed: a repeat arriving meanwhile is told to wait.
        let _guard = match &keyed {
            Some(k) => Some(self.in_flight.enter(&scope, &k.key).ok_or(ServiceError::InFlight)?),
            None => None,
        };
        limits::check_destinations(caller, &news)?;
        stamp(&mut news, caller, keyed.as_ref(), &scope);
        let rules = self.live().rules;
        route_each(&mut news, caller, &rules, route)?;
        let sender = news.first().map(guardrails::sender_of).unwrap_or_default();
        if let Err(r) = guardrails::countries::check(&rules.guardrails, caller, &news) {
            return Err(self.refused(caller, sender, r).await);
        }
        guardrails::pricing::price_each(&mut news, &rules);
        let codes = self.code_sealer(&news)?;
        let who = caller.clone();
        let baselines = self.baselines.clone();
        let written = self
            .store
            .writer()
            .write_replayable(move |tx| -> Result<Stored<T>, ServiceError> {
                if let Some(k) = &keyed {
                    if let Some(earlier) = earlier_answer(tx, &scope, k)? {
                        return Ok(earlier);
                    }
                }
                limits::check_rate(tx, &who, news.len())?;
                check_opt_outs(tx, &news, route == "messages/batch")?;
                guardrails::velocity::check(tx, &rules.guardrails, &news)?.map_err(ServiceError::Refused)?;
                let key = who.api_key_id().zip(guardrails::countries::key_limits(&who));
                guardrails::spend::check(tx, &rules.guardrails, key, &news)?.map_err(ServiceError::Refused)?;
                let surges = guardrails::anomaly::surges(tx, &rules.guardrails, &baselines, &news)?;
                let (value, body) = insert_all(tx, &news, &surges, codes.as_deref(), &answer)?;
                if let Some(k) = &keyed {
                    idempotency::record(tx, &scope, &k.key, &k.read, route, 201, &body)?;
                }
                Ok(Stored::New { value, body })
            })
            .await;
        match written {
            Ok(stored) => stored.into_answer(),
            Err(ServiceError::Refused(r)) => Err(self.refused(caller, sender, r).await),
            Err(e) => Err(e),
        }
    }

    /// Records a refusal (counted and audited, in a transaction of its own) and gives the error
    /// to answer with. A failure to record it is logged: the refusal stands.
    async fn refused(&self, caller: &Caller, sender: String, r: guardrails::Refusal) -> ServiceError {
        let (who, rec) = (caller.clone(), r.clone());
        let recorded = self
            .store
            .writer()
            .write(move |tx| guardrails::record::refusal(tx, &rec, &who, &sender))
            .await;
        if let Err(e) = recorded {
            tracing::error!(error = %e, "a guardrail's refusal could not be recorded");
        }
        ServiceError::Refused(r)
    }
}

/// Refuses messages to numbers on the opt-out list for their kind: each one is named (by its index
/// in a batch), and nothing is stored.
fn check_opt_outs(tx: &WriteTx<'_>, news: &[NewMessage], batch: bool) -> Result<(), ServiceError> {
    let mut errors = Vec::new();
    for (i, n) in news.iter().enumerate() {
        if crate::optouts::blocks(tx, &n.destination, n.kind)?.is_some() {
            let field = if batch {
                format!("messages[{i}].destination")
            } else {
                "destination".into()
            };
            errors.push(opted_out_error(&field, &n.destination, n.kind));
        }
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(ServiceError::OptedOut(errors))
    }
}

/// Why a message to `phone` is refused: it opted out of `kind` messages.
pub(super) fn opted_out_error(field: &str, phone: &str, kind: crate::domain::MessageKind) -> FieldError {
    FieldError::new(
        field,
        FieldCode::DestinationOptedOut,
        format!(
            "{phone} opted out of {} messages: it is on the opt-out list, and nothing is sent to it",
            kind.as_str()
        ),
    )
    .with("phone", phone)
    .with("kind", kind.as_str())
}

/// A batch (or a preview, `what`) holds at most `intake.max_batch` messages.
pub(super) fn check_batch_size(what: &str, len: usize, max_batch: usize) -> Result<(), ServiceError> {
    if len <= max_batch {
        return Ok(());
    }
    let message = format!("{what} holds at most {max_batch} messages (intake.max_batch); this one has {len}");
    let e = FieldError::new("messages", FieldCode::TooMany, message);
    Err(ServiceError::Invalid(vec![e.with("max", max_batch).with("count", len)]))
}

/// Gives each message its route (a batch's errors name the message's index).
fn route_each(news: &mut [NewMessage], caller: &Caller, rules: &IntakeRules, scope: &str) -> Result<(), ServiceError> {
    let key = caller.key_name();
    let batch = scope.ends_with("/batch");
    let mut errors = Vec::new();
    for (i, n) in news.iter_mut().enumerate() {
        if let Err(e) = intake::route(n, &rules.routes, key) {
            errors.push(match batch {
                true => FieldError {
                    field: format!("messages[{i}].{}", e.field),
                    ..e
                },
                false => e,
            });
        }
    }
    match errors.is_empty() {
        true => Ok(()),
        false => Err(ServiceError::Invalid(errors)),
    }
}

/// An idempotency key is 1 to [`idempotency::MAX_KEY_LEN`] printable characters.
fn check_key(k: &str) -> Result<(), ServiceError> {
    match k.is_empty() || k.len() > idempotency::MAX_KEY_LEN || k.chars().any(char::is_control) {
        true => Err(ServiceError::BadRequest(format!(
            "Idempotency-Key must be 1 to {} printable characters",
            idempotency::MAX_KEY_LEN
        ))),
        false => Ok(()),
    }
}

impl Service {
    /// The key one-time codes among `news` are sealed with: the running engine's. Refused where
    /// none runs (the command line on a stopped instance): a code is never stored in clear.
    fn code_sealer(&self, news: &[NewMessage]) -> Result<Option<Arc<Sealer>>, ServiceError> {
        if !news.iter().any(|n| n.kind == MessageKind::Otp) {
            return Ok(None);
        }
        match crate::privacy::codes::sealer_for(self.store.path()) {
            Some(k) => Ok(Some(k)),
            None => Err(ServiceError::BadRequest(
                "a one-time code is sealed with a key only a running smsdesk holds in memory, so it is never \
                 stored in clear: start smsdesk and send it again"
                    .into(),
            )),
        }
    }
}

/// Marks the messages as the caller's (by key, and by name), and a single one with its request's key
/// and fingerprint.
fn stamp(news: &mut [NewMessage], caller: &Caller, keyed: Option<&Keyed>, scope: &str) {
    let submitter = caller.submitter();
    for n in news.iter_mut() {
        n.api_key_id = caller.api_key_id();
        n.submitted_by = Some(submitter.clone());
        n.idempotency = None;
    }
    // A single message carries its key, so its row says which request made it.
    if let (Some(k), [only]) = (keyed, news) {
        only.idempotency = Some(Idempotency {
            scope: scope.to_owned(),
            key: k.key.clone(),
            request_hash: k.read.clone(),
        });
    }
}

/// The answer stored for an earlier request with this key, if there was one; the same key with
/// a different request is refused.
fn earlier_answer<T>(tx: &WriteTx<'_>, scope: &str, keyed: &Keyed) -> Result<Option<Stored<T>>, ServiceError> {
    let key = &keyed.key;
    let found = match idempotency::lookup(tx, scope, key, &[&keyed.read])? {
        // Recorded before requests were compared as read, or another request: the hash of the
        // body as sent tells which (worked out only now, on this rare path).
        Recorded::Mismatch => idempotency::lookup(tx, scope, key, &[&(keyed.as_sent)()?])?,
        found => found,
    };
    match found {
        Recorded::New => Ok(None),
        Recorded::Replay { body, .. } => Ok(Some(Stored::Replayed { body })),
        Recorded::Mismatch => Err(ServiceError::KeyReused),
    }
}

/// Inserts the messages (holding those a surge holds, `surges` in the same order), and renders
/// the answer to them as JSON (as it is stored and sent).
fn insert_all<T: Serialize>(
    tx: &mut WriteTx<'_>,
    news: &[NewMessage],
    surges: &[Option<guardrails::anomaly::Surge>],
    codes: Option<&Sealer>,
    answer: impl Fn(Vec<SubmittedMessage>) -> T,
) -> Result<(T, String), ServiceError> {
    let created_at = tx.now_ms();
    let mut done = Vec::with_capacity(news.len());
    for (n, surge) in news.iter().zip(surges) {
        let id = match (n.kind, codes) {
            // A one-time code is never at rest: sealed, and masked where a text is shown.
            (MessageKind::Otp, Some(codes)) => {
                let sealed = codes.seal(&n.body);
                let masked = NewMessage {
                    body: crate::privacy::codes::mask(&n.body),
                    ..n.clone()
                };
                messages::insert_sealed(tx, &masked, Some(&sealed))?
            }
            _ => messages::insert(tx, n)?,
        };
        let mut submitted = SubmittedMessage::new(id, n, created_at);
        if let Some(s) = surge {
            guardrails::anomaly::hold(tx, id, n, s, &guardrails::sender_of(n))?;
            submitted.status = crate::domain::QueueStatus::Held;
        }
        done.push(submitted);
    }
    let value = answer(done);
    let body = serde_json::to_string(&value).map_err(|e| StoreError::Corrupt(format!("answer: {e}")))?;
    Ok((value, body))
}

impl<T: serde::de::DeserializeOwned> Stored<T> {
    /// The caller's answer: a new one as it is, a replay read back from its stored JSON.
    fn into_answer(self) -> Result<Answer<T>, ServiceError> {
        match self {
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
}

/// A request's idempotency key, with the fingerprints that tell a repeat from a different
/// request with the same key.
pub(super) struct Keyed {
    key: String,
    /// Of the request as intake reads it: what a key is recorded with, and compared by.
    read: String,
    /// Of the body as sent: what keys were recorded with before, still recognised. Worked out
    /// only when a key's record does not match `read` (the two fingerprints, each serialising
    /// and hashing the request, took 14 % of intake's time on the request threads).
    as_sent: Box<dyn Fn() -> Result<String, ServiceError> + Send>,
}

impl Keyed {
    /// None without a key: no fingerprint is compared or recorded then. A key that is not 1 to
    /// [`idempotency::MAX_KEY_LEN`] printable characters is refused.
    fn of<T: Serialize + Send + 'static, R: Serialize>(
        key: Option<String>,
        route: &'static str,
        req: T,
        read: &R,
    ) -> Result<Option<Keyed>, ServiceError> {
        let Some(key) = key else {
            return Ok(None);
        };
        check_key(&key)?;
        Ok(Some(Keyed {
            key,
            read: idempotency::normalised_hash(route, &json(read)?),
            as_sent: Box::new(move || Ok(idempotency::request_hash(route, &json(&req)?))),
        }))
    }
}

fn json<V: Serialize>(v: &V) -> Result<serde_json::Value, ServiceError> {
    serde_json::to_value(v).map_err(|e| ServiceError::BadRequest(e.to_string()))
}
