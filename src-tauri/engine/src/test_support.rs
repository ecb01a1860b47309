//! What the tests read: a message's report as the API serves it (its detail view), and counts of
//! the evidence tables that must not move when a repeat arrives.

use std::collections::BTreeMap;

use crate::store::Connection;
use serde::Serialize;

use crate::domain::{DeliveryState, ExceptionKind, QueueStatus};
use crate::store::{StoreError, Text};
use crate::views::{self, ViewError};

/// Counts that must not move when a repeat arrives.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Counters {
    pub receipts: i64,
    pub logical_events: i64,
    pub repeats: i64,
    /// Logical events applied to a projection.
    pub applied: i64,
    pub inbound: i64,
    pub open_exceptions: BTreeMap<ExceptionKind, i64>,
    pub states: BTreeMap<DeliveryState, i64>,
}

pub fn counters(conn: &Connection) -> Result<Counters, StoreError> {
    let one = |sql: &str| conn.query_row(sql, [], |r| r.get::<_, i64>(0));
    let mut c = Counters {
        receipts: one("SELECT count(*) FROM receipt")?,
        logical_events: one("SELECT count(*) FROM logical_event")?,
        repeats: one("SELECT count(*) FROM receipt_outcome WHERE is_repeat = 1")?,
        applied: one("SELECT count(*) FROM projection_input WHERE kind = 'event'")?,
        inbound: one("SELECT count(*) FROM inbound_message")?,
        ..Counters::default()
    };
    let mut s = conn.prepare("SELECT kind, count(*) FROM exception WHERE status = 'open' GROUP BY kind")?;
    for row in s.query_map([], |r| Ok((r.get::<_, Text<ExceptionKind>>(0)?.0, r.get::<_, i64>(1)?)))? {
        let (k, n) = row?;
        c.open_exceptions.insert(k, n);
    }
    let mut s = conn.prepare("SELECT state, count(*) FROM projection GROUP BY state")?;
    for row in s.query_map([], |r| Ok((r.get::<_, Text<DeliveryState>>(0)?.0, r.get::<_, i64>(1)?)))? {
        let (k, n) = row?;
        c.states.insert(k, n);
    }
    Ok(c)
}

/// What smsdesk can say about one message, each kind of knowledge apart.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MessageReport {
    pub message_id: i64,
    /// Our queue: did the SMSC accept the submit? (Acceptance is not delivery.)
    pub acceptance: QueueStatus,
    /// What the network reported, by the rules.
    pub reported_state: DeliveryState,
    pub rule: crate::receipts::rules::Rule,
    /// Set when an operator decided the state, with the exception they resolved.
    pub operator_decision: Option<i64>,
    pub flags: Vec<&'static str>,
}

/// A message's report, read from the detail view the API and the UI serve.
pub fn message_report(conn: &Connection, message_id: i64) -> Result<Option<MessageReport>, ViewError> {
    let Some(d) = views::message_detail(conn, message_id)? else {
        return Ok(None);
    };
    let f = &d.state.flags;
    let flags = [
        (f.late, "late"),
        (f.conflict, "conflict"),
        (f.no_receipt, "no_receipt"),
        (f.mismatch, "mismatch"),
        (f.id_disagree, "id_disagree"),
    ]
    .into_iter()
    .filter_map(|(set, name)| set.then_some(name))
    .collect();
    Ok(Some(MessageReport {
        message_id,
        acceptance: d.queue.status,
        reported_state: d.state.state,
        rule: d.state.rule,
        operator_decision: d.state.decided_by_exception_id,
        flags,
    }))
}

/// A service on a new database file in `dir`: the sandbox connection, national numbers read as
/// French, batches of at most 100.
pub fn service(dir: &tempfile::TempDir) -> crate::service::Service {
    let store = std::sync::Arc::new(crate::store::Store::open(&dir.path().join("smsdesk.db")).unwrap());
    let ingestor = crate::receipts::ingest::Ingestor::new(store.writer().clone(), Default::default());
    let rules = crate::intake::IntakeRules::new("sandbox", Some("FR"));
    // A run of its own, as an engine has: one-time codes are sealed with its key.
    crate::privacy::codes::new_run(store.path());
    crate::service::Service::new(store, ingestor, rules, 100)
}

/// A new key named "website" with the default scopes, made as the operator on `s` (whose data
/// directory is `dir`): its id and the key to present.
pub async fn new_key(s: &crate::service::Service, dir: &tempfile::TempDir) -> (i64, String) {
    let sealer = crate::sealed::Sealer::for_data_dir(dir.path()).unwrap();
    let new = crate::apikeys::NewApiKey {
        name: "website".into(),
        ..Default::default()
    };
    let created = s
        .store()
        .writer()
        .write(move |tx| crate::apikeys::create(tx, &new, "operator", &sealer))
        .await
        .unwrap();
    (created.info.id, created.key)
}
