//! The sender: one task that looks for due deliveries and POSTs them, a few at once.
//!
//! It looks when a change was committed (any change may have enqueued deliveries; bursts are
//! coalesced), when a send finishes (the message's next notification may now go), when the next
//! retry falls due, and at least every `poll_every`. The writer is used only to record a try's
//! outcome, never held while a POST is under way.

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;
use std::time::{Duration, Instant};

use reqwest::header::{HeaderValue, CONTENT_TYPE, LOCATION};
use reqwest::StatusCode;
use tokio::sync::{broadcast, watch};
use tokio::task::{JoinError, JoinSet};

use super::deliveries::{self, Due, Settled, Target, Tried};
use super::payload::{rfc3339, InboundPayload, WebhookPayload};
use super::{sign, target, WebhookConfig, WebhookError};
use crate::clock::jitter;
use crate::domain::{DeliveryState, WebhookField};
use crate::sealed::Sealer;
use crate::store::{Change, Store};
use smsdesk_core::redact::redact_url;

/// POSTs under way at most (to different messages).
const MAX_IN_FLIGHT: usize = 4;
/// How long to let a burst of committed changes settle before looking once for all of them.
const DEBOUNCE: Duration = Duration::from_millis(25);
/// Characters of a failed answer's body kept in the try's error, to help whoever runs the receiver.
const DETAIL_CHARS: usize = 200;

/// The running webhook sender. Stop it before shutting the store down.
pub struct Webhooks {
    stop: watch::Sender<bool>,
    task: tokio::task::JoinHandle<()>,
    grace: Duration,
}

impl Webhooks {
    /// Starts sending: deliveries left pending by a previous run are due at once. `sealer` opens
    /// the stored webhook secrets (and URLs with credentials).
    pub async fn start(store: Arc<Store>, config: WebhookConfig, sealer: Sealer) -> Webhooks {
        let (stop, stopped) = watch::channel(false);
        // Subscribed before the first look, so nothing committed in between goes unnoticed.
        let changes = store.subscribe();
        let grace = config.timeout + Duration::from_secs(5);
        let task = tokio::spawn(async move {
            match client(&config) {
                Ok(client) => {
                    let posting = Posting {
                        store,
                        config: Arc::new(config),
                        client,
                        sealer: Arc::new(sealer),
                    };
                    run(posting, changes, stopped).await
                }
                Err(e) => tracing::error!(error = %e, "status webhooks will not be sent"),
            }
        });
        Webhooks { stop, task, grace }
    }

    /// Stops looking for deliveries; POSTs under way finish (or time out) and are recorded. One
    /// still unfinished after the timeout is abandoned unrecorded, so it is sent again next start.
    pub async fn stop(self) {
        let _ = self.stop.send(true);
        let mut task = self.task;
        if tokio::time::timeout(self.grace, &mut task).await.is_err() {
            task.abort();
            tracing::warn!("webhook sends still under way at stop were abandoned; they go again at next start");
        }
    }
}

fn client(config: &WebhookConfig) -> Result<reqwest::Client, WebhookError> {
    reqwest::Client::builder()
        .user_agent(format!("smsdesk/{}", crate::VERSION))
        .timeout(config.timeout)
        // A redirect is a failed try: following it would send signed data somewhere unconfigured.
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .map_err(WebhookError::Client)
}

/// What every send needs.
#[derive(Clone)]
struct Posting {
    store: Arc<Store>,
    config: Arc<WebhookConfig>,
    client: reqwest::Client,
    sealer: Arc<Sealer>,
}

async fn run(posting: Posting, changes: broadcast::Receiver<Change>, mut stopped: watch::Receiver<bool>) {
    let (store, config) = (posting.store.clone(), posting.config.clone());
    let mut changes = Some(changes);
    let mut in_flight = JoinSet::new();
    // Task id -> delivery id, for the deliveries being sent (still pending in the table).
    let mut busy: HashMap<tokio::task::Id, i64> = HashMap::new();
    loop {
        if *stopped.borrow() {
            break;
        }
        let mut wait = config.poll_every;
        let free = MAX_IN_FLIGHT.saturating_sub(in_flight.len());
        if free > 0 {
            let now = store.clock().now_ms();
            // Those being sent are still pending and may come back: ask for enough to fill up.
            let limit = (busy.len() + free) as u32;
            match store.reader().read(move |c| deliveries::due(c, now, limit)).await {
                Ok(round) => {
                    let mut unusable = BTreeSet::new();
                    let mut started = 0;
                    for d in round.due {
                        if busy.values().any(|&id| id == d.id) {
                            continue;
                        }
                        match &d.target {
                            Target::Unusable => {
                                unusable.insert(d.api_key_id);
                            }
                            Target::Url { .. } if started < free => {
                                started += 1;
                                let id = d.id;
                                let task = in_flight.spawn(deliver(posting.clone(), d));
                                busy.insert(task.id(), id);
                            }
                            Target::Url { .. } => {}
                        }
                    }
                    if !unusable.is_empty() {
                        if abandon(&store, unusable).await {
                            // Their messages' later notifications are failed too; look again.
                            continue;
                        }
                    } else if let Some(at) = round.next_at {
                        wait = wait.min(Duration::from_millis(at.saturating_sub(now).max(0) as u64));
                    }
                }
                Err(e) => tracing::error!(error = %e, "cannot look for due webhook deliveries"),
            }
        }
        tokio::select! {
            _ = stopped.changed() => break,
            Some(done) = in_flight.join_next_with_id(), if !in_flight.is_empty() => forget(&mut busy, done),
            _ = tokio::time::sleep(wait) => {}
            _ = committed(&mut changes) => {
                tokio::time::sleep(DEBOUNCE).await;
                if let Some(rx) = changes.as_mut() {
                    while !matches!(rx.try_recv(), Err(broadcast::error::TryRecvError::Empty | broadcast::error::TryRecvError::Closed)) {}
                }
            }
        }
        while let Some(done) = in_flight.try_join_next_with_id() {
            forget(&mut busy, done);
        }
    }
    while in_flight.join_next().await.is_some() {}
}

fn forget(busy: &mut HashMap<tokio::task::Id, i64>, done: Result<(tokio::task::Id, ()), JoinError>) {
    let id = match done {
        Ok((id, ())) => id,
        Err(e) => {
            // Its delivery stays pending and is tried again: at least once still holds.
            tracing::error!(error = %e, "a webhook send task failed");
            e.id()
        }
    };
    busy.remove(&id);
}

/// Resolves when a change was committed (or some were missed); never once the store is gone.
async fn committed(changes: &mut Option<broadcast::Receiver<Change>>) {
    if let Some(rx) = changes {
        match rx.recv().await {
            Ok(_) | Err(broadcast::error::RecvError::Lagged(_)) => return,
            Err(broadcast::error::RecvError::Closed) => *changes = None,
        }
    }
    std::future::pending::<()>().await
}

/// Fails the pending deliveries of keys revoked or left without a webhook URL. Returns whether
/// that was recorded.
async fn abandon(store: &Store, keys: BTreeSet<i64>) -> bool {
    let result = store
        .writer()
        .write(move |tx| {
            let mut done = Vec::new();
            for key in keys {
                let (n, why) = deliveries::abandon_for_key(tx, key)?;
                done.push((key, n, why));
            }
            Ok::<_, WebhookError>(done)
        })
        .await;
    match result {
        Ok(done) => {
            for (key, n, why) in done.into_iter().filter(|(_, n, _)| *n > 0) {
                tracing::info!(
                    api_key = key,
                    deliveries = n,
                    reason = why,
                    "webhook deliveries given up"
                );
            }
            true
        }
        Err(e) => {
            tracing::error!(error = %e, "cannot give up the webhook deliveries of an unusable key");
            false
        }
    }
}

/// Why a try failed.
#[derive(Debug, thiserror::Error)]
enum TryFailure {
    #[error("the webhook URL cannot be used: {0}")]
    BadUrl(String),
    #[error("the webhook's secret cannot be opened: {0}; create the key again")]
    Sealed(String),
    #[error("no answer within {0} s")]
    Timeout(u64),
    #[error("cannot reach the receiver: {0}")]
    Unreachable(String),
    #[error("answered {status} redirecting to {location}; redirects are not followed: set the webhook URL to the final address")]
    Redirect { status: StatusCode, location: String },
    #[error("answered {status}{detail}")]
    Status { status: StatusCode, detail: String },
}

impl TryFailure {
    fn http_status(&self) -> Option<u16> {
        match self {
            TryFailure::Redirect { status, .. } | TryFailure::Status { status, .. } => Some(status.as_u16()),
            _ => None,
        }
    }
}

async fn deliver(posting: Posting, d: Due) {
    let Posting {
        store,
        config,
        client,
        sealer,
    } = posting;
    let Target::Url {
        url: shown,
        secret: sealed,
    } = &d.target
    else {
        return;
    };
    let attempt = d.attempts.saturating_add(1);
    let at = store.clock().now_ms();
    let (url, secret) = match target::open(&sealer, shown, sealed) {
        Ok(opened) => opened,
        Err(e) => {
            // Without its secret nothing can be signed: the delivery fails, saying why.
            let failure = TryFailure::Sealed(e.to_string());
            tracing::error!(delivery = d.id, api_key = d.api_key_id, error = %failure, "webhook not sent");
            return settle(&store, &config, &d, at, shown, Err(failure), 0).await;
        }
    };
    let body = match body_of(&store, &d, attempt).await {
        Ok(body) => body,
        Err(e) => {
            // Unread, it stays pending and goes again on the next look.
            tracing::error!(delivery = d.id, error = %e, "cannot read what a webhook announces");
            return;
        }
    };
    let signature = sign(&secret, at.div_euclid(1_000), &body);
    let clock = Instant::now();
    let outcome = post(&client, &url, d.id, &signature, body, config.timeout).await;
    let duration_ms = clock.elapsed().as_millis() as i64;
    settle(&store, &config, &d, at, &url, outcome, duration_ms).await;
}

/// The JSON body of delivery `d`'s POST: a message's change, or a reply from a handset.
async fn body_of(store: &Store, d: &Due, attempt: u32) -> Result<Vec<u8>, String> {
    let json = match (d.field, d.inbox_message_id, d.message_id) {
        (WebhookField::Inbound, Some(inbox_id), _) => {
            let reply = store
                .reader()
                .read(move |c| crate::views::inbox_message(c, inbox_id))
                .await
                .map_err(|e| e.to_string())?
                .ok_or_else(|| format!("inbox message {inbox_id} is gone"))?;
            serde_json::to_vec(&InboundPayload::new(d.id, &reply, attempt))
        }
        (_, _, message_id) => serde_json::to_vec(&WebhookPayload {
            delivery_id: d.id,
            message_id: message_id.unwrap_or_default(),
            client_ref: d.client_ref.clone(),
            field: d.field,
            value: d.value.clone(),
            status: d.status,
            state: d.state.unwrap_or(DeliveryState::Pending),
            rule: d.rule,
            changed_at: rfc3339(d.created_at),
            attempt,
        }),
    };
    Ok(json.expect("a payload of texts and numbers always serializes"))
}

/// Logs and records a try, and settles its delivery.
async fn settle(
    store: &Store,
    config: &Arc<WebhookConfig>,
    d: &Due,
    at: i64,
    url: &str,
    outcome: Result<u16, TryFailure>,
    duration_ms: i64,
) {
    let shown = redact_url(url).into_owned();
    tracing::debug!(
        delivery = d.id,
        message = d.message_id,
        attempt = d.attempts.saturating_add(1),
        url = %shown,
        duration_ms,
        outcome = %outcome.as_ref().map_or_else(|e| e.to_string(), |s| s.to_string()),
        "webhook try"
    );
    let tried = Tried {
        delivery_id: d.id,
        at,
        url: shown,
        http_status: match &outcome {
            Ok(status) => Some(*status),
            Err(e) => e.http_status(),
        },
        permanent: matches!(outcome, Err(TryFailure::BadUrl(_) | TryFailure::Sealed(_))),
        error: outcome.err().map(|e| e.to_string()),
        duration_ms,
    };
    let j = jitter();
    let config = config.clone();
    let recorded = store
        .writer()
        .write(move |tx| deliveries::record(tx, &tried, config.max_attempts, |tries| config.backoff(tries, j)))
        .await;
    match recorded {
        Ok(Settled::GaveUp { tries }) => tracing::info!(
            delivery = d.id,
            message = d.message_id,
            tries,
            "webhook delivery given up"
        ),
        Ok(_) => {}
        // Unrecorded, it stays pending and goes again: the receiver de-duplicates.
        Err(e) => tracing::error!(error = %e, delivery = d.id, "cannot record a webhook try"),
    }
}

/// One POST; a 2xx status, or why it is a failure.
async fn post(
    client: &reqwest::Client,
    url: &str,
    delivery_id: i64,
    signature: &str,
    body: Vec<u8>,
    timeout: Duration,
) -> Result<u16, TryFailure> {
    let sent = client
        .post(url)
        .header(CONTENT_TYPE, HeaderValue::from_static("application/json"))
        .header("Smsdesk-Delivery", delivery_id.to_string())
        .header("Smsdesk-Signature", signature)
        .body(body)
        .send()
        .await;
    let mut response = match sent {
        Ok(r) => r,
        Err(e) if e.is_builder() => return Err(TryFailure::BadUrl(chain(&e.without_url()))),
        Err(e) if e.is_timeout() => return Err(TryFailure::Timeout(timeout.as_secs())),
        Err(e) => return Err(TryFailure::Unreachable(chain(&e.without_url()))),
    };
    let status = response.status();
    if status.is_success() {
        return Ok(status.as_u16());
    }
    if status.is_redirection() {
        let location = response
            .headers()
            .get(LOCATION)
            .and_then(|v| v.to_str().ok())
            .map_or_else(|| "nowhere".to_owned(), |l| redact_url(l).into_owned());
        return Err(TryFailure::Redirect { status, location });
    }
    let first = response.chunk().await.ok().flatten().unwrap_or_default();
    let text: String = String::from_utf8_lossy(&first)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .chars()
        .take(DETAIL_CHARS)
        .collect();
    let detail = if text.is_empty() {
        String::new()
    } else {
        format!(": {text}")
    };
    Err(TryFailure::Status { status, detail })
}

/// An error with its causes, on one line.
fn chain(e: &(dyn std::error::Error + 'static)) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        let next = s.to_string();
        if !text.contains(&next) {
            text.push_str(": ");
            text.push_str(&next);
        }
        source = s.source();
    }
    text
}
