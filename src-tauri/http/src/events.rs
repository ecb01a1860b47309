//! `GET /api/v1/events`: a server-sent-events stream of committed changes, for a browser showing
//! live views. Each event is sent only after the transaction that made the change committed, so
//! a client that reloads on an event always finds what the event announced.
//!
//! Events: `change` with `{"entity": "message", "id": 12}`; `inbound` when a reply from a handset
//! arrives (or a long one gains its missing part), with the reply as `InboxMessage` JSON, for
//! callers that may read everything; `resync` when this client fell behind
//! and missed events (it should reload what it shows); `revoked` just before the stream ends
//! because its API key was revoked or its session ended (checked every few seconds); `replaced`
//! just before the stream ends because the same caller opened more streams than
//! `http.max_streams_per_caller` (the oldest ends; reconnecting would end another). The stream
//! needs a caller that may read messages (`read:own` or more); a key that may read only its own
//! messages hears only of changes to them. A comment is sent every 15 seconds to keep the
//! connection open through proxies.

use std::convert::Infallible;
use std::time::Duration;

use axum::extract::State;
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use futures::Stream;
use serde::Serialize;
use tokio::sync::broadcast::error::RecvError;

use super::auth::{check, still_valid, Credential};
use super::AppState;
use smsdesk_engine::access::Access;
use smsdesk_engine::changes::{Change, Entity};

/// How often an open stream checks that its key was not revoked.
const RECHECK_EVERY: Duration = Duration::from_secs(5);

/// One change as the stream carries it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS, utoipa::ToSchema)]
pub struct ChangeEvent {
    /// Which kind of row changed.
    pub entity: Entity,
    #[ts(type = "number")]
    pub id: i64,
}

impl From<Change> for ChangeEvent {
    fn from(c: Change) -> Self {
        ChangeEvent {
            entity: c.entity,
            id: c.id,
        }
    }
}

/// The stream of committed changes.
#[utoipa::path(get, path = "/api/v1/events", tag = "overview",
    responses((status = 200, description = "A text/event-stream: `change` events whose data is a ChangeEvent as JSON, \
        `inbound` events whose data is an InboxMessage (a reply from a handset, to callers that may read everything), `resync` events whose data is how many changes were missed, `revoked` before the stream ends because the credential ended, and `replaced` before it ends because the same caller opened more streams than `http.max_streams_per_caller`"),
        (status = 401, body = smsdesk_engine::api::ApiError),
        (status = 403, description = "`forbidden`: the caller may not read messages (a key without `read:own` or `read:all`)", body = smsdesk_engine::api::ApiError)))]
pub async fn stream(credential: Credential, State(s): State<AppState>) -> Response {
    if let Err(refused) = check(Access::ReadMessages, "events", &credential.caller) {
        return refused.into_response();
    }
    let registered = s.ctx.streams.open(&credential.caller);
    follow(credential, s, registered).into_response()
}

/// The stream of one caller, until it goes away, the server stops, its credential ends, or a
/// newer stream of the same caller takes its place.
fn follow(
    credential: Credential,
    s: AppState,
    registered: crate::streams::Registered,
) -> Sse<impl Stream<Item = Result<Event, Infallible>>> {
    let only_key = credential.caller.only_own();
    let mut changes = s.ctx.service.subscribe();
    let mut stopping = s.ctx.stopping.clone();
    let mut recheck = tokio::time::interval_at(tokio::time::Instant::now() + RECHECK_EVERY, RECHECK_EVERY);
    let events = async_stream(move |tx| async move {
        if *stopping.borrow() {
            return;
        }
        loop {
            let got = tokio::select! {
                _ = stopping.changed() => break,
                // The client went away: the stream stops counting at once, not at the next event.
                _ = tx.closed() => break,
                _ = registered.replaced() => {
                    let _ = tx.send(Ok(Event::default().event("replaced").data("a newer stream of the same caller took this one's place"))).await;
                    break;
                }
                _ = recheck.tick() => {
                    if still_valid(&s, &credential).await {
                        continue;
                    }
                    // A revoked key hears no more: the stream ends, and reconnecting gets 401.
                    let _ = tx.send(Ok(Event::default().event("revoked").data("the API key was revoked"))).await;
                    break;
                }
                got = changes.recv() => got,
            };
            if let (Some(key), Ok(c)) = (only_key, &got) {
                if !owned_by(&s, *c, key).await {
                    continue;
                }
            }
            if let (Ok(c), None) = (&got, only_key) {
                if let Some(reply) = unread_reply(&s, *c).await {
                    let event = Event::default()
                        .event("inbound")
                        .json_data(reply)
                        .expect("a reply serialises");
                    if tx.send(Ok(event)).await.is_err() {
                        break;
                    }
                }
            }
            let event = match got {
                Ok(c) => Event::default()
                    .event("change")
                    .json_data(ChangeEvent::from(c))
                    .expect("a change serialises"),
                Err(RecvError::Lagged(n)) => Event::default().event("resync").data(n.to_string()),
                Err(RecvError::Closed) => break,
            };
            if tx.send(Ok(event)).await.is_err() {
                break;
            }
        }
    });
    Sse::new(events).keep_alive(KeepAlive::new().interval(Duration::from_secs(15)))
}

/// Whether `c` is about a message API key `key` handed in: what a key that may read only its own
/// messages hears of (changes to exceptions, receipts not yet correlated and the audit log are
/// not for it).
async fn owned_by(s: &AppState, c: Change, key: i64) -> bool {
    s.ctx.service.change_owner(c).await == Some(key)
}

/// The reply a change announces, when it is a reply from a handset nobody has read yet.
async fn unread_reply(s: &AppState, c: Change) -> Option<smsdesk_engine::views::InboxMessage> {
    s.ctx.service.unread_reply(c).await
}

/// A stream fed by a task through a small channel (the task ends when the client goes away).
fn async_stream<T, F, Fut>(f: F) -> impl Stream<Item = T>
where
    T: Send + 'static,
    F: FnOnce(tokio::sync::mpsc::Sender<T>) -> Fut,
    Fut: std::future::Future<Output = ()> + Send + 'static,
{
    let (tx, mut rx) = tokio::sync::mpsc::channel(256);
    tokio::spawn(f(tx));
    futures::stream::poll_fn(move |cx| rx.poll_recv(cx))
}
