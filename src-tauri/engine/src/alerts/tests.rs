//! The rules on a real database, on paused time: what the product writes (a queued message, tries
//! answered, a receipt, a backup file) makes an alert fire once, and its end closes it, audited.

use std::sync::Arc;
use std::time::Duration;

use super::facts::Memory;
use super::{look, AlertRule, Alerting};
use crate::access::Caller;
use crate::backups::BackupPlan;
use crate::config::Config;
use crate::domain::{AttemptOutcome, IntakeChannel};
use crate::intake::{IntakeRules, SubmitMessage};
use crate::receipts::ingest::Ingestor;
use crate::service::{MessageAction, Service};
use crate::store::tables::{alert, attempt};
use crate::store::Store;

const MINUTE: Duration = Duration::from_secs(60);

struct Office1 {
    _dir: tempfile::TempDir,
    service: Service,
    alerting: Alerting,
    memory: Memory,
    started: i64,
}

impl Office1 {
    fn new() -> Office1 {
        let dir = tempfile::tempdir().unwrap();
        let store =
            Arc::new(Store::open_with_clock(&dir.path().join("smsdesk.db"), crate::clock::following_tokio()).unwrap());
        let ingestor = Ingestor::new(store.writer().clone(), Default::default());
        crate::privacy::codes::new_run(store.path());
        let service = Service::new(store, ingestor, IntakeRules::new("sandbox", Some("FR")), 100);
        let started = service.store().clock().now_ms();
        Office1 {
            _dir: dir,
            service,
            alerting: Alerting::default(),
            memory: Memory::default(),
            started,
        }
    }

    fn with_backups(mut self, plan: BackupPlan) -> Office1 {
        self.service = self.service.with_backups(plan);
        self
    }

    async fn look(&mut self) {
        look(&self.service, &self.alerting, &mut self.memory, self.started)
            .await
            .unwrap();
    }

    /// The alerts open now.
    async fn open(&self) -> Vec<AlertRule> {
        let rows = self
            .service
            .store()
            .reader()
            .read(|c| alert::recent(c, i64::MAX))
            .await
            .unwrap();
        rows.into_iter()
            .filter(|r| r.resolved_at_ms.is_none())
            .map(|r| r.rule)
            .collect()
    }

    /// Every alert ever opened: (rule, closed).
    async fn all(&self) -> Vec<(AlertRule, bool)> {
        let rows = self
            .service
            .store()
            .reader()
            .read(|c| alert::list(c, 100))
            .await
            .unwrap();
        rows.into_iter().map(|a| (a.rule, a.resolved_at_ms.is_some())).collect()
    }

    async fn audited(&self) -> Vec<String> {
        let page = self.service.audit_log(None, Some(100)).await.unwrap();
        page.items
            .iter()
            .map(|e| e.action.to_string())
            .filter(|a| a.starts_with("alert."))
            .collect()
    }

    async fn submit(&self, to: &str) -> i64 {
        let m = SubmitMessage {
            destination: to.into(),
            text: "Rappel : rendez-vous demain 9h".into(),
            ..SubmitMessage::default()
        };
        self.service
            .submit(&Caller::command_line(), IntakeChannel::Api, m, None)
            .await
            .unwrap()
            .value
            .id
    }

    /// Writes a try of `message` and its answer (`accepted`, or refused with `status`), as the
    /// dispatcher does, asking for a receipt when `registered_delivery` is 1.
    async fn tried(&self, message: i64, refused: Option<AttemptOutcome>, registered_delivery: u8) {
        self.service
            .store()
            .writer()
            .write(move |tx| {
                let t = attempt::begin_attempt(tx, message, 1, attempt::Wire::sandbox(), registered_delivery)?;
                match refused {
                    None => {
                        let id = format!("{message:08x}");
                        attempt::record_accepted(tx, t.id, None, &id, &id)?;
                    }
                    Some(outcome) => attempt::finish_attempt(tx, t.id, outcome, Some(0x58), None, None)?,
                }
                Ok::<_, crate::store::StoreError>(())
            })
            .await
            .unwrap();
    }
}

#[tokio::test(start_paused = true)]
async fn a_queue_stuck_past_its_minutes_fires_once_and_resolves_when_the_message_goes() {
    let mut o = Office1::new();
    let id = o.submit("+33612345600").await;
    tokio::time::sleep(9 * MINUTE).await;
    o.look().await;
    assert!(o.open().await.is_empty(), "9 minutes: under the 10 of the default");
    tokio::time::sleep(MINUTE).await;
    o.look().await;
    assert_eq!(o.open().await, [AlertRule::QueueStuck]);
    tokio::time::sleep(MINUTE).await;
    o.look().await;
    assert_eq!(
        o.all().await,
        [(AlertRule::QueueStuck, false)],
        "it holds: still one alert"
    );
    let note = MessageAction {
        note: "sent by hand".into(),
        ..MessageAction::default()
    };
    o.service.cancel(&Caller::command_line(), id, note).await.unwrap();
    o.look().await;
    assert!(o.open().await.is_empty());
    assert_eq!(o.all().await, [(AlertRule::QueueStuck, true)]);
    assert_eq!(o.audited().await, ["alert.resolved", "alert.fired"], "newest first");
}

#[tokio::test(start_paused = true)]
async fn refusals_over_a_fifth_of_at_least_twenty_submits_fire_and_the_window_passing_resolves() {
    let mut o = Office1::new();
    for i in 0..20 {
        let id = o.submit(&format!("+336123456{i:02}")).await;
        let refused = (i >= 16).then_some(AttemptOutcome::Temporary);
        o.tried(id, refused, 0).await;
    }
    o.look().await;
    assert!(o.open().await.is_empty(), "4 of 20 is 20 %: not over it");
    let id = o.submit("+33612345699").await;
    o.tried(id, Some(AttemptOutcome::Permanent), 0).await;
    // 5 of 21: 24 %.
    o.look().await;
    assert!(o.open().await.contains(&AlertRule::FailureRate));
    tokio::time::sleep(16 * MINUTE).await;
    o.look().await;
    assert!(
        !o.open().await.contains(&AlertRule::FailureRate),
        "the window moved past them"
    );
}

#[tokio::test(start_paused = true)]
async fn no_receipt_half_an_hour_after_an_accepted_submit_that_asked_for_one_fires_and_a_receipt_ends_it() {
    let mut o = Office1::new();
    let quiet = o.submit("+33612345601").await;
    o.tried(quiet, None, 0).await;
    tokio::time::sleep(31 * MINUTE).await;
    o.look().await;
    assert!(
        o.open().await.is_empty(),
        "a submit that asked for no receipt waits for none"
    );
    let id = o.submit("+33612345600").await;
    o.tried(id, None, 1).await;
    tokio::time::sleep(29 * MINUTE).await;
    o.look().await;
    assert!(o.open().await.is_empty(), "29 minutes: under the 30 of the default");
    tokio::time::sleep(MINUTE).await;
    o.look().await;
    assert_eq!(o.open().await, [AlertRule::ReceiptsSilent]);
    o.service
        .store()
        .writer()
        .write(|tx| {
            let now = tx.now_ms();
            tx.sql_for_tests().execute(
                "INSERT INTO receipt (received_at, source, connection, raw, kind, parser_version, stat)
                 VALUES (?1, 'smpp_deliver_sm', 'sandbox', x'00', 'receipt', 1, 'DELIVRD')",
                [now],
            )?;
            Ok::<_, crate::store::StoreError>(())
        })
        .await
        .unwrap();
    o.look().await;
    assert!(o.open().await.is_empty(), "a receipt came");
}

#[tokio::test(start_paused = true)]
async fn a_daily_backup_older_than_26_hours_fires_and_a_new_one_resolves() {
    let dir = tempfile::tempdir().unwrap();
    let mut config = Config::default();
    config.backup.keep_days = 14;
    let plan = BackupPlan::new(dir.path(), &config);
    let mut o = Office1::new().with_backups(plan.clone());
    let db = o.service.store().path().to_owned();
    let now = o.service.store().clock().now_ms();
    plan.take(&db, now - 25 * 3_600_000).unwrap();
    o.look().await;
    assert!(o.open().await.is_empty(), "25 hours old: not late");
    tokio::time::sleep(60 * MINUTE).await;
    o.look().await;
    assert_eq!(o.open().await, [AlertRule::BackupLate]);
    let now = o.service.store().clock().now_ms();
    plan.take(&db, now).unwrap();
    o.look().await;
    assert!(o.open().await.is_empty());
    assert_eq!(o.all().await, [(AlertRule::BackupLate, true)]);
}

#[tokio::test(start_paused = true)]
async fn an_acknowledged_alert_records_who_and_why_and_a_second_acknowledgement_is_refused() {
    let mut o = Office1::new();
    o.submit("+33612345600").await;
    tokio::time::sleep(11 * MINUTE).await;
    o.look().await;
    let id = o.service.alerts_overview().await.unwrap().alerts[0].id;
    let ack = |note: &str| crate::alerts::overview::AcknowledgeAlert { note: note.into() };
    let blank = o
        .service
        .acknowledge_alert(&Caller::command_line(), id, ack("  "))
        .await;
    assert!(blank.is_err(), "a note is needed");
    o.service
        .acknowledge_alert(&Caller::command_line(), id, ack("the provider is on it"))
        .await
        .unwrap();
    let again = o
        .service
        .acknowledge_alert(&Caller::command_line(), id, ack("twice"))
        .await;
    // Refused for the alert's state (HTTP 409), not as a malformed request.
    assert!(
        matches!(again, Err(crate::service::ServiceError::NotNow(_))),
        "{again:?}"
    );
    let a = &o.service.alerts_overview().await.unwrap().alerts[0];
    assert_eq!(a.acknowledgement_note.as_deref(), Some("the provider is on it"));
    assert!(a.acknowledged_by.is_some() && a.acknowledged_at_ms.is_some());
    assert_eq!(o.audited().await, ["alert.acknowledge", "alert.fired"]);
}
