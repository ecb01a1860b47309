//! Webhooks against a real store and a real HTTP receiver on 127.0.0.1.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::time::Instant;

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use proptest::prelude::*;
use rusqlite::params;

use super::payload::rfc3339;
use super::target;
use super::{
    deliveries_for_message, sign, verify, DeliveryView, WebhookConfig, WebhookField, WebhookPayload, WebhookStatus,
    Webhooks,
};
use crate::domain::{DeliveryState, IntakeChannel, MessageKind, QueueStatus};
use crate::messages::{self, NewMessage};
use crate::queue;
use crate::receipts::project;
use crate::receipts::rules::{Projection, Rule};
use crate::sealed::Sealer;
use crate::store::{Store, StoreError};

const SECRET: &str = "whsec_test";

#[path = "at_rest_tests.rs"]
mod at_rest;

// ---- the receiver -------------------------------------------------------------------------------

#[derive(Debug, Clone, Copy)]
enum Answer {
    Status(u16),
    Redirect,
}

#[derive(Debug, Clone)]
struct Seen {
    headers: HeaderMap,
    query: Option<String>,
    body: Vec<u8>,
    delivery: i64,
    answered: u16,
}

#[derive(Default)]
struct Shared {
    seen: Mutex<Vec<Seen>>,
    /// Answers per delivery id, used up in order; then `fallback`.
    script: Mutex<HashMap<i64, VecDeque<Answer>>>,
    fallback: Mutex<Option<Answer>>,
}

struct Receiver {
    url: String,
    shared: Arc<Shared>,
}

impl Receiver {
    async fn start() -> Receiver {
        let shared = Arc::new(Shared::default());
        let app = axum::Router::new()
            .route("/hook", axum::routing::post(hook))
            .with_state(shared.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/hook", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await });
        Receiver { url, shared }
    }

    fn script(&self, delivery: i64, answers: &[Answer]) {
        self.shared
            .script
            .lock()
            .unwrap()
            .insert(delivery, answers.iter().copied().collect());
    }

    fn always(&self, answer: Answer) {
        *self.shared.fallback.lock().unwrap() = Some(answer);
    }

    fn seen(&self) -> Vec<Seen> {
        self.shared.seen.lock().unwrap().clone()
    }
}

async fn hook(State(shared): State<Arc<Shared>>, uri: axum::http::Uri, headers: HeaderMap, body: Bytes) -> Response {
    let delivery = headers
        .get("smsdesk-delivery")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse().ok())
        .unwrap_or(-1);
    let scripted = shared
        .script
        .lock()
        .unwrap()
        .get_mut(&delivery)
        .and_then(|q| q.pop_front());
    let answer = scripted
        .or(*shared.fallback.lock().unwrap())
        .unwrap_or(Answer::Status(200));
    let (code, response) = match answer {
        Answer::Status(code) => (
            code,
            (StatusCode::from_u16(code).unwrap(), "receiver says\nno").into_response(),
        ),
        Answer::Redirect => (
            302,
            (StatusCode::FOUND, [("location", "http://127.0.0.1:1/elsewhere")], "").into_response(),
        ),
    };
    shared.seen.lock().unwrap().push(Seen {
        headers,
        query: uri.query().map(str::to_owned),
        body: body.to_vec(),
        delivery,
        answered: code,
    });
    response
}

// ---- the store ----------------------------------------------------------------------------------

struct Env {
    dir: tempfile::TempDir,
    store: Arc<Store>,
    rx: Receiver,
    sealer: Sealer,
}

fn config() -> WebhookConfig {
    WebhookConfig {
        max_attempts: 5,
        timeout: Duration::from_secs(2),
        base_delay: Duration::from_millis(100),
        max_delay: Duration::from_secs(1),
        poll_every: Duration::from_millis(100),
    }
}

async fn env() -> Env {
    let dir = tempfile::tempdir().unwrap();
    // tokio's clock: the tests that pause time reach backoffs of minutes without waiting.
    let clock = crate::clock::following_tokio();
    let store = Arc::new(Store::open_with_clock(&dir.path().join("w.db"), clock).unwrap());
    let sealer = Sealer::for_data_dir(dir.path()).unwrap();
    Env {
        dir,
        store,
        rx: Receiver::start().await,
        sealer,
    }
}

impl Env {
    async fn sql(&self, sql: &'static str, values: Vec<rusqlite::types::Value>) {
        self.store
            .writer()
            .write(move |tx| {
                tx.sql_for_tests().execute(sql, rusqlite::params_from_iter(values))?;
                Ok::<_, StoreError>(())
            })
            .await
            .unwrap();
    }

    /// An API key; with the receiver as its webhook unless `webhook` is false.
    async fn key(&self, webhook: bool) -> i64 {
        let stored = webhook.then(|| target::seal(&self.sealer, &self.rx.url, SECRET));
        let url = stored.as_ref().map(|s| s.shown_url.clone());
        let secret = stored.map(|s| s.sealed);
        self.store
            .writer()
            .write(move |tx| {
                tx.sql_for_tests().execute(
                    "INSERT INTO api_key (name, prefix, hash, created_at, created_by, webhook_url, webhook_secret)
                     VALUES ('crm', 'sk_test', hex(randomblob(16)), ?1, 'test', ?2, ?3)",
                    params![tx.now_ms(), url, secret],
                )?;
                Ok::<_, StoreError>(tx.sql_for_tests().last_insert_rowid())
            })
            .await
            .unwrap()
    }

    async fn message(&self, key: Option<i64>) -> i64 {
        self.store
            .writer()
            .write(move |tx| {
                messages::insert(
                    tx,
                    &NewMessage {
                        api_key_id: key,
                        client_ref: Some("order-42".into()),
                        ..NewMessage::text(
                            IntakeChannel::Api,
                            "+33612345678",
                            "hi",
                            MessageKind::Transactional,
                            "sandbox",
                        )
                    },
                )
            })
            .await
            .unwrap()
    }

    /// Stores the message's projection with this state, as the receipt rules would.
    async fn project(&self, message: i64, state: DeliveryState, rule: Rule) {
        self.store
            .writer()
            .write(move |tx| {
                let before = project::stored(tx.sql_for_tests(), message)?;
                let p = Projection {
                    state,
                    rule,
                    ..Projection::default()
                };
                project::save(tx, message, before.as_ref(), &p)
            })
            .await
            .unwrap();
    }

    async fn cancel(&self, message: i64) {
        self.store
            .writer()
            .write(move |tx| queue::cancel(tx, message, "operator", "test"))
            .await
            .unwrap();
    }

    async fn set_status(&self, message: i64, status: &'static str) {
        self.store
            .writer()
            .write(move |tx| {
                tx.sql_for_tests().execute(
                    "UPDATE queue SET status = ?2, updated_at = ?3 WHERE message_id = ?1",
                    params![message, status, tx.now_ms()],
                )?;
                Ok::<_, StoreError>(())
            })
            .await
            .unwrap();
    }

    async fn deliveries(&self, message: i64) -> Vec<DeliveryView> {
        self.store
            .reader()
            .read(move |c| deliveries_for_message(c, message))
            .await
            .unwrap()
    }

    /// Waits (at most 5 s) until the message's deliveries satisfy `done`.
    async fn wait_for(&self, message: i64, what: &str, done: impl Fn(&[DeliveryView]) -> bool) -> Vec<DeliveryView> {
        self.wait_within(message, Duration::from_secs(5), what, done).await
    }

    /// As `wait_for`, for up to `limit` of tokio's time (paused or not), looking every
    /// thousandth of it (at least every 20 ms).
    async fn wait_within(
        &self,
        message: i64,
        limit: Duration,
        what: &str,
        done: impl Fn(&[DeliveryView]) -> bool,
    ) -> Vec<DeliveryView> {
        let deadline = Instant::now() + limit;
        let every = (limit / 1_000).max(Duration::from_millis(20));
        loop {
            let d = self.deliveries(message).await;
            if done(&d) {
                return d;
            }
            assert!(
                Instant::now() < deadline,
                "timed out waiting until {what}; deliveries: {d:#?}"
            );
            tokio::time::sleep(every).await;
        }
    }

    async fn start(&self, config: WebhookConfig) -> Webhooks {
        Webhooks::start(self.store.clone(), config, self.sealer.clone()).await
    }
}

fn all(status: WebhookStatus) -> impl Fn(&[DeliveryView]) -> bool {
    move |d| !d.is_empty() && d.iter().all(|d| d.status == status)
}

fn payload(seen: &Seen) -> WebhookPayload {
    serde_json::from_slice(&seen.body).unwrap()
}

fn now_s() -> i64 {
    crate::clock::Clock::system().now_ms() / 1_000
}

// ---- sending ------------------------------------------------------------------------------------

#[tokio::test]
async fn a_status_change_is_posted_once_signed_with_the_documented_body() {
    let e = env().await;
    let key = e.key(true).await;
    let m = e.message(Some(key)).await;
    let w = e.start(config()).await;
    e.cancel(m).await;

    let d = e
        .wait_for(m, "the notification is delivered", all(WebhookStatus::Delivered))
        .await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    w.stop().await;

    assert_eq!(d.len(), 1, "one status change makes one notification");
    let d = &d[0];
    assert_eq!(
        (d.field, d.value.as_str(), d.attempts),
        (WebhookField::Status, "cancelled", 1)
    );
    assert_eq!(d.tries.len(), 1, "every try is recorded");
    assert_eq!((d.tries[0].http_status, d.tries[0].error.as_deref()), (Some(200), None));
    assert_eq!(d.tries[0].url, e.rx.url);
    assert!(d.delivered_at.is_some());

    let seen = e.rx.seen();
    assert_eq!(seen.len(), 1, "a delivered notification must not be posted again");
    let s = &seen[0];
    let header = |name: &str| {
        s.headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_owned()
    };
    assert_eq!(header("content-type"), "application/json");
    assert_eq!(header("user-agent"), format!("smsdesk/{}", crate::VERSION));
    assert_eq!(header("smsdesk-delivery"), d.id.to_string());
    assert!(
        verify(SECRET, &header("smsdesk-signature"), &s.body, now_s(), 300),
        "the signature must verify with the key's webhook secret over the raw body"
    );
    assert!(!verify("other", &header("smsdesk-signature"), &s.body, now_s(), 300));

    let p = payload(s);
    let expected = WebhookPayload {
        delivery_id: d.id,
        message_id: m,
        client_ref: Some("order-42".into()),
        field: WebhookField::Status,
        value: "cancelled".into(),
        status: Some(QueueStatus::Cancelled),
        state: DeliveryState::Pending,
        rule: None,
        changed_at: rfc3339(d.created_at),
        attempt: 1,
    };
    assert_eq!(p, expected);
    let raw: serde_json::Value = serde_json::from_slice(&s.body).unwrap();
    let mut keys: Vec<_> = raw.as_object().unwrap().keys().cloned().collect();
    keys.sort();
    assert_eq!(
        keys,
        [
            "attempt",
            "changed_at",
            "client_ref",
            "delivery_id",
            "field",
            "message_id",
            "rule",
            "state",
            "status",
            "value"
        ],
        "the body's fields are the documented ones"
    );
}

#[tokio::test]
async fn a_state_change_carries_the_state_and_its_rule() {
    let e = env().await;
    let key = e.key(true).await;
    let m = e.message(Some(key)).await;
    let w = e.start(config()).await;
    e.project(m, DeliveryState::Delivered, Rule::FirstFinal).await;
    let d = e
        .wait_for(m, "the notification is delivered", all(WebhookStatus::Delivered))
        .await;
    w.stop().await;

    let p = payload(&e.rx.seen()[0]);
    assert_eq!(
        (
            p.field.as_str(),
            p.value.as_str(),
            p.state.as_str(),
            p.rule.map(Rule::as_str),
            p.status.map(QueueStatus::as_str)
        ),
        ("state", "delivered", "delivered", Some("first_final"), Some("queued"))
    );
    let updated_at: i64 = e
        .store
        .reader()
        .read(move |c| {
            Ok::<_, StoreError>(
                c.query_row("SELECT updated_at FROM projection WHERE message_id = ?1", [m], |r| {
                    r.get(0)
                })?,
            )
        })
        .await
        .unwrap();
    assert_eq!(
        d[0].created_at, updated_at,
        "the change is dated when the projection was written"
    );
    assert_eq!(p.changed_at, rfc3339(updated_at));
}

#[tokio::test]
async fn a_state_notification_is_queued_for_a_new_projection_and_each_change_of_state_only() {
    let e = env().await;
    let hooked = e.key(true).await;
    let plain = e.key(false).await;
    let revoked = e.key(true).await;
    e.sql(
        "UPDATE api_key SET revoked_at = 1, revoked_by = 'test' WHERE id = ?1",
        vec![revoked.into()],
    )
    .await;
    let m = e.message(Some(hooked)).await;
    let others = [
        e.message(None).await,
        e.message(Some(plain)).await,
        e.message(Some(revoked)).await,
    ];
    for id in [m].into_iter().chain(others) {
        e.project(id, DeliveryState::Enroute, Rule::Intermediate).await;
        // The same state again (a later intermediate, a flag) is no change to announce.
        e.project(id, DeliveryState::Enroute, Rule::Intermediate).await;
        e.project(id, DeliveryState::Delivered, Rule::FirstFinal).await;
        e.project(id, DeliveryState::Delivered, Rule::FirstFinal).await;
    }
    let values: Vec<(WebhookField, String, i64)> = e
        .deliveries(m)
        .await
        .into_iter()
        .map(|d| (d.field, d.value, d.api_key_id))
        .collect();
    assert_eq!(
        values,
        [
            (WebhookField::State, "enroute".to_owned(), hooked),
            (WebhookField::State, "delivered".to_owned(), hooked)
        ]
    );
    for id in others {
        assert!(
            e.deliveries(id).await.is_empty(),
            "no key, a key without a URL and a revoked key are not notified (message {id})"
        );
    }
}

#[tokio::test(start_paused = true)]
async fn a_failed_try_is_retried_after_a_backoff_and_every_try_is_recorded() {
    let e = env().await;
    let key = e.key(true).await;
    let m = e.message(Some(key)).await;
    e.cancel(m).await;
    let id = e.deliveries(m).await[0].id;
    e.rx.script(id, &[Answer::Status(500)]);

    // The product's kind of backoff, half a minute to ten, in paused time.
    let w = e
        .start(WebhookConfig {
            base_delay: Duration::from_secs(30),
            max_delay: Duration::from_secs(600),
            poll_every: Duration::from_secs(1),
            ..config()
        })
        .await;
    let d = e
        .wait_within(
            m,
            Duration::from_secs(3600),
            "the notification is delivered",
            all(WebhookStatus::Delivered),
        )
        .await;
    w.stop().await;

    let d = &d[0];
    assert_eq!(d.attempts, 2);
    let statuses: Vec<_> = d.tries.iter().map(|t| t.http_status).collect();
    assert_eq!(statuses, [Some(500), Some(200)], "both tries are recorded, in order");
    let error = d.tries[0].error.as_deref().unwrap();
    assert!(error.contains("500") && error.contains("receiver says no"), "{error}");
    assert_eq!(d.last_error, None, "a delivered notification carries no error");
    let gap = d.tries[1].at - d.tries[0].at;
    assert!(
        (24_000..=36_000 + 1_000).contains(&gap),
        "the retry waits base_delay give or take 20 % (and a poll); it came after {gap} ms"
    );

    let seen = e.rx.seen();
    assert_eq!(seen.len(), 2);
    assert!(
        seen.iter().all(|s| s.delivery == id),
        "every try carries the same Smsdesk-Delivery"
    );
    assert_eq!((payload(&seen[0]).attempt, payload(&seen[1]).attempt), (1, 2));
}

#[tokio::test(start_paused = true)]
async fn a_delivery_is_given_up_after_max_attempts() {
    let e = env().await;
    let key = e.key(true).await;
    let m = e.message(Some(key)).await;
    e.rx.always(Answer::Status(503));
    let w = e
        .start(WebhookConfig {
            max_attempts: 3,
            base_delay: Duration::from_secs(30),
            max_delay: Duration::from_secs(600),
            poll_every: Duration::from_secs(1),
            ..config()
        })
        .await;
    e.cancel(m).await;
    let d = e
        .wait_within(
            m,
            Duration::from_secs(3600),
            "the notification is given up",
            all(WebhookStatus::Failed),
        )
        .await;
    // Two hours of silence after it (paused time).
    tokio::time::sleep(Duration::from_secs(2 * 3600)).await;
    w.stop().await;

    let d = &d[0];
    assert_eq!((d.attempts, d.tries.len()), (3, 3), "max_attempts tries, each recorded");
    assert!(d.last_error.as_deref().unwrap().contains("503"), "{:?}", d.last_error);
    assert_eq!(e.rx.seen().len(), 3, "nothing is posted after giving up");
}

#[tokio::test]
async fn a_redirect_is_a_failed_try_and_is_not_followed() {
    let e = env().await;
    let key = e.key(true).await;
    let m = e.message(Some(key)).await;
    e.rx.always(Answer::Redirect);
    let w = e
        .start(WebhookConfig {
            max_attempts: 1,
            ..config()
        })
        .await;
    e.cancel(m).await;
    let d = e
        .wait_for(m, "the notification is given up", all(WebhookStatus::Failed))
        .await;
    w.stop().await;

    let t = &d[0].tries[0];
    assert_eq!(t.http_status, Some(302));
    assert!(
        t.error.as_deref().unwrap().contains("redirects are not followed"),
        "{:?}",
        t.error
    );
    assert_eq!(e.rx.seen().len(), 1);
}

#[tokio::test]
async fn an_unreachable_receiver_is_a_failed_try_with_the_cause() {
    let e = env().await;
    let key = e.key(true).await;
    e.sql(
        "UPDATE api_key SET webhook_url = 'http://127.0.0.1:1/nothing-listens' WHERE id = ?1",
        vec![key.into()],
    )
    .await;
    let m = e.message(Some(key)).await;
    let w = e
        .start(WebhookConfig {
            max_attempts: 1,
            ..config()
        })
        .await;
    e.cancel(m).await;
    let d = e
        .wait_for(m, "the notification is given up", all(WebhookStatus::Failed))
        .await;
    w.stop().await;

    let t = &d[0].tries[0];
    assert_eq!(t.http_status, None);
    assert!(t.error.as_deref().unwrap().contains("cannot reach"), "{:?}", t.error);
}

#[tokio::test]
async fn a_message_s_notifications_go_out_in_order_while_an_earlier_one_fails() {
    let e = env().await;
    let key = e.key(true).await;
    let a = e.message(Some(key)).await;
    let b = e.message(Some(key)).await;
    e.set_status(a, "accepted").await;
    e.set_status(a, "failed").await;
    e.cancel(b).await;
    let a_ids: Vec<_> = e.deliveries(a).await.iter().map(|d| d.id).collect();
    let b_id = e.deliveries(b).await[0].id;
    assert_eq!(a_ids.len(), 2);
    e.rx.script(a_ids[0], &[Answer::Status(500), Answer::Status(500)]);

    let w = e.start(config()).await;
    e.wait_for(a, "both notifications are delivered", all(WebhookStatus::Delivered))
        .await;
    e.wait_for(
        b,
        "the other message's notification is delivered",
        all(WebhookStatus::Delivered),
    )
    .await;
    w.stop().await;

    let seen = e.rx.seen();
    let order: Vec<_> = seen.iter().map(|s| (s.delivery, s.answered)).collect();
    let first_done = seen
        .iter()
        .position(|s| s.delivery == a_ids[0] && s.answered == 200)
        .unwrap();
    let second = seen.iter().position(|s| s.delivery == a_ids[1]).unwrap();
    let other = seen.iter().position(|s| s.delivery == b_id).unwrap();
    assert!(
        second > first_done,
        "a message's second notification must wait until its first was delivered: {order:?}"
    );
    assert!(
        other < first_done,
        "another message's notification must not wait for a failing one: {order:?}"
    );
    let values: Vec<_> = seen
        .iter()
        .filter(|s| s.answered == 200 && payload(s).message_id == a)
        .map(|s| payload(s).value)
        .collect();
    assert_eq!(values, ["accepted", "failed"]);
}

#[tokio::test]
async fn a_revoked_key_or_a_removed_url_fails_the_deliveries_without_a_post() {
    let e = env().await;
    let revoked = e.key(true).await;
    let unhooked = e.key(true).await;
    let m1 = e.message(Some(revoked)).await;
    let m2 = e.message(Some(unhooked)).await;
    e.set_status(m1, "accepted").await;
    e.set_status(m1, "failed").await;
    e.cancel(m2).await;
    e.sql(
        "UPDATE api_key SET revoked_at = 1, revoked_by = 'test' WHERE id = ?1",
        vec![revoked.into()],
    )
    .await;
    e.sql(
        "UPDATE api_key SET webhook_url = NULL, webhook_secret = NULL WHERE id = ?1",
        vec![unhooked.into()],
    )
    .await;

    let w = e.start(config()).await;
    let d1 = e
        .wait_for(m1, "the revoked key's notifications fail", all(WebhookStatus::Failed))
        .await;
    let d2 = e
        .wait_for(m2, "the unhooked key's notification fails", all(WebhookStatus::Failed))
        .await;
    w.stop().await;

    assert_eq!(d1.len(), 2);
    for d in &d1 {
        assert!(
            d.last_error.as_deref().unwrap().contains("revoked"),
            "{:?}",
            d.last_error
        );
        assert!(d.tries.is_empty() && d.attempts == 0, "nothing was tried");
    }
    assert!(d2[0].last_error.as_deref().unwrap().contains("webhook URL was removed"));
    assert!(
        e.rx.seen().is_empty(),
        "nothing is posted for a revoked key or a removed URL"
    );
}

#[tokio::test]
async fn nothing_is_enqueued_without_a_key_or_a_webhook() {
    let e = env().await;
    let plain = e.key(false).await;
    let m1 = e.message(None).await;
    let m2 = e.message(Some(plain)).await;
    e.cancel(m1).await;
    e.cancel(m2).await;
    assert!(
        e.deliveries(m1).await.is_empty(),
        "a message without an API key notifies nobody"
    );
    assert!(
        e.deliveries(m2).await.is_empty(),
        "a key without a webhook URL notifies nobody"
    );
}

#[tokio::test]
async fn stop_and_start_resume_pending_deliveries() {
    let e = env().await;
    let key = e.key(true).await;
    let m = e.message(Some(key)).await;
    e.cancel(m).await;
    let id = e.deliveries(m).await[0].id;
    e.rx.script(id, &[Answer::Status(500)]);
    let slow = WebhookConfig {
        base_delay: Duration::from_millis(400),
        ..config()
    };

    let w = e.start(slow.clone()).await;
    let d = e
        .wait_for(m, "the first try is recorded", |d| d[0].tries.len() == 1)
        .await;
    w.stop().await;
    assert_eq!(
        d[0].status,
        WebhookStatus::Pending,
        "a failed try leaves the delivery pending"
    );

    // Changes committed while stopped are delivered once started again.
    let other = e.message(Some(key)).await;
    e.cancel(other).await;

    let w = e.start(slow).await;
    let d = e
        .wait_for(m, "the delivery is resumed", all(WebhookStatus::Delivered))
        .await;
    e.wait_for(
        other,
        "the change made while stopped is delivered",
        all(WebhookStatus::Delivered),
    )
    .await;
    w.stop().await;
    assert_eq!(d[0].tries.len(), 2);
    let tries: Vec<_> =
        e.rx.seen()
            .iter()
            .filter(|s| s.delivery == id)
            .map(|s| payload(s).attempt)
            .collect();
    assert_eq!(tries, [1, 2]);
}

// ---- signatures and schedule --------------------------------------------------------------------

#[test]
fn a_signature_verifies_within_the_tolerance_only() {
    let body = br#"{"delivery_id":1}"#;
    let header = sign("s", 1_700_000_000, body);
    assert!(header.starts_with("t=1700000000,v1="));
    assert_eq!(header.len(), "t=1700000000,v1=".len() + 64, "v1 is a hex SHA-256 HMAC");
    assert!(verify("s", &header, body, 1_700_000_000, 300));
    assert!(verify("s", &header, body, 1_700_000_300, 300));
    assert!(!verify("s", &header, body, 1_700_000_301, 300), "too old: a replay");
    assert!(!verify("s", &header, body, 1_699_999_699, 300), "too far ahead");
    assert!(!verify("other", &header, body, 1_700_000_000, 300), "another secret");
    let rotated = format!("{header},v1={}", "00".repeat(32));
    assert!(
        verify("s", &rotated, body, 1_700_000_000, 300),
        "one matching v1 of several is enough"
    );
    for bad in ["", "t=1700000000", "v1=abc", "t=x,v1=00", "t=1700000000,v1=zz"] {
        assert!(!verify("s", bad, body, 1_700_000_000, 300), "{bad:?} must not verify");
    }
    let twice = header.replacen("t=1700000000", "t=1700000000,t=1700000001", 1);
    assert!(
        !verify("s", &twice, body, 1_700_000_000, 300),
        "two timestamps are refused"
    );
}

proptest! {
    #[test]
    fn a_tampered_body_or_timestamp_never_verifies(
        body in proptest::collection::vec(any::<u8>(), 1..256),
        index in any::<prop::sample::Index>(),
        flip in 1u8..=255,
        shift in 1i64..1_000,
    ) {
        let t = 1_700_000_000;
        let header = sign("secret", t, &body);
        prop_assert!(verify("secret", &header, &body, t, 300));
        let mut tampered = body.clone();
        tampered[index.index(body.len())] ^= flip;
        prop_assert!(!verify("secret", &header, &tampered, t, 300), "a changed body must not verify");
        let moved = header.replacen(&format!("t={t}"), &format!("t={}", t + shift), 1);
        prop_assert!(!verify("secret", &moved, &body, t + shift, 300_000), "a changed timestamp must not verify");
    }
}

#[test]
fn backoff_doubles_up_to_the_maximum_with_twenty_percent_jitter() {
    let c = WebhookConfig::default();
    let ms = |failed, j| c.backoff(failed, j).as_millis();
    assert_eq!((ms(1, 0.5), ms(2, 0.5), ms(3, 0.5)), (10_000, 20_000, 40_000));
    assert_eq!((ms(1, 0.0), ms(1, 0.999_999)), (8_000, 11_999));
    assert_eq!((ms(9, 0.5), ms(10, 0.5)), (2_560_000, 3_600_000), "capped at max_delay");
    assert_eq!(ms(200, 0.5), 3_600_000, "no overflow however many failures");
}

#[test]
fn settings_and_times_convert() {
    let c = WebhookConfig::from(&crate::config::WebhookSettings::default());
    assert_eq!((c.max_attempts, c.timeout), (12, Duration::from_secs(10)));
    assert_eq!(rfc3339(1_795_979_115_800), "2026-11-29T19:05:15.800Z");
    assert_eq!(rfc3339(0), "1970-01-01T00:00:00.000Z");
}

#[test]
fn timeline_types_render_for_the_ui() {
    use ts_rs::TS;
    let view = DeliveryView::export_to_string().unwrap();
    assert!(
        view.contains("apiKeyId: number") && view.contains("deliveredAt: number | null"),
        "{view}"
    );
    assert!(view.contains("tries: Array<DeliveryAttemptView>"), "{view}");
    let status = super::WebhookStatus::export_to_string().unwrap();
    assert!(status.contains(r#""pending" | "delivered" | "failed""#), "{status}");
}

// ---- replies from handsets ------------------------------------------------------------------------

/// A reply from a handset is announced, signed as any notification, to the keys with a webhook
/// that may read everything; a key that may read only its own messages hears nothing of it.
#[tokio::test]
async fn a_reply_from_a_handset_is_posted_signed_to_the_keys_that_may_read_everything() {
    let e = env().await;
    let everything = e.key(true).await;
    let own_only = e.key(true).await;
    e.sql(
        "UPDATE api_key SET scopes = 'read:all send' WHERE id = ?1",
        vec![everything.into()],
    )
    .await;
    let w = e.start(config()).await;
    let ingest = crate::receipts::ingest::Ingestor::new(e.store.writer().clone(), Default::default());
    let got = ingest
        .smpp(crate::receipts::ingest::SmppReceived {
            connection: "sandbox".into(),
            esm_class: Some(0),
            data_coding: Some(0),
            source_addr: Some("33612345678".into()),
            source_addr_ton: Some(1),
            destination_addr: Some("smsdesk".into()),
            short_message: b"STOP".to_vec(),
            received_at: crate::clock::Clock::system().now_ms(),
            ..Default::default()
        })
        .await
        .unwrap();
    let crate::receipts::ingest::Outcome::Inbound { .. } = got.outcome else {
        panic!("a message from a handset, not a report: {got:?}");
    };
    let deadline = Instant::now() + Duration::from_secs(5);
    while e.rx.seen().is_empty() {
        assert!(Instant::now() < deadline, "no inbound webhook came");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    w.stop().await;
    let seen = e.rx.seen();
    assert_eq!(seen.len(), 1, "one key may read everything: one POST");
    let s = &seen[0];
    let signature = s.headers.get("smsdesk-signature").unwrap().to_str().unwrap();
    assert!(verify(SECRET, signature, &s.body, now_s(), 300));
    let p: super::InboundPayload = serde_json::from_slice(&s.body).unwrap();
    assert_eq!(p.event, "inbound");
    assert_eq!(p.from.as_deref(), Some("+33612345678"));
    assert_eq!(p.from_address, "33612345678");
    assert_eq!(p.to.as_deref(), Some("smsdesk"));
    assert_eq!(p.text, "STOP");
    assert_eq!(p.intent.as_deref(), Some("opt_out"));
    assert_eq!((p.parts, p.parts_received, p.attempt), (1, 1, 1));
    let to_own_only: i64 = e
        .store
        .reader()
        .read(move |c| {
            c.query_row(
                "SELECT count(*) FROM webhook_delivery WHERE api_key_id = ?1",
                [own_only],
                |r| r.get(0),
            )
            .map_err(StoreError::from)
        })
        .await
        .unwrap();
    assert_eq!(to_own_only, 0);
}
