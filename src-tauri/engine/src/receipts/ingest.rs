//! Receipt ingestion: evidence first, then effects.
//!
//! 1. The report is parsed (outside the writer) and appended to the receipt log as received.
//! 2. In the same transaction, its effects are applied: de-duplication into a logical event,
//!    correlation by the provider's message id, the projection, exceptions.
//! 3. The caller (who then answers deliver_sm_resp or HTTP 2xx) hears back only after the commit.
//!
//! If step 2 fails, the receipt is still committed without a `receipt_outcome` row, listed as
//! deferred, and [`process_pending`] applies it at the next start: evidence is never lost because
//! an effect failed, and a start reads the list, not every receipt.
//!
//! Reports that arrive while the writer is busy wait together and go to it as one operation:
//! every receipt of the group is appended, then each is applied, under one savepoint. Should any
//! step fail, the group is rolled back and recorded again one report at a time, each receipt's
//! effects in a savepoint of their own, which is what one report alone would have got. (A
//! savepoint per receipt copies every page it touches aside; that was a tenth of ingestion.)

use crate::said::{self, Summary, SummaryCode};
use std::sync::{Arc, Mutex};

use crate::store::Reads;
use serde::Serialize;
use tokio::sync::oneshot;

use super::dedup;
use super::exceptions::{self, NewException};
use super::fields::ReceiptFields;
use super::mismatch;
use super::parse::{self, HttpReport, Parsed, SmppPdu, SmppReport, Stat, Tlv};
use super::policy::ReceiptPolicy;
use super::project;
use super::rules::{state_from_stat, EventFacts, Input};
use super::uncorrelated;
use crate::domain::{Correlation, DeliveryState, EvidenceRole, ExceptionKind, IdSource, ReceiptKind, ReceiptSource};
use crate::inbox::Filed;
use crate::store::tables::{attempt, logical_event, receipt, NewReceipt};
use crate::store::{Guard, StoreError, WriteTx, Writer};
pub use smsdesk_smpp::SmppReceived;

/// An HTTP callback as it came in: delivery reports, or messages from handsets.
#[derive(Debug, Clone, Default)]
pub struct HttpReceived {
    /// The provider preset or mapping that reads it (vonage, twilio, kannel, ...).
    pub provider: String,
    /// Whether it came to the provider's inbound webhook: it carries messages from handsets, read
    /// with the provider's inbound mapping, not reports.
    pub inbound: bool,
    /// The connection whose messages its ids refer to.
    pub connection: String,
    pub method: String,
    pub content_type: Option<String>,
    pub query: String,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
    pub received_at: i64,
}

/// What became of one report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum Outcome {
    /// Applied to a message's projection.
    Applied { message_id: i64, state: DeliveryState },
    /// The same logical event again: recorded, linked, and nothing else.
    Repeat { logical_event_id: i64 },
    /// No message carries its id (yet): an exception, nothing applied.
    Uncorrelated { exception_id: i64 },
    /// Several messages carry its id: an exception, nothing applied.
    Ambiguous { exception_id: i64 },
    /// No message carries its id yet: it waits (a submit's answer may still bring the id) before
    /// an exception opens.
    Waiting { logical_event_id: i64 },
    /// Its status word names no status: kept as evidence for its message, with an exception;
    /// nothing applied.
    StatusUnreadable { message_id: i64, exception_id: i64 },
    /// Nothing usable in it: kept with its parse error, and an exception.
    Unparseable { exception_id: i64 },
    /// Not a report: an incoming message.
    Inbound { inbound_id: i64 },
    /// An incoming message its provider posted before (the same message id): recorded, flagged
    /// as a repeat, and not filed again.
    InboundRepeat { inbound_id: i64 },
    /// An SME acknowledgement: kept as evidence; it says nothing about delivery.
    Acknowledgement,
    /// The evidence is committed but applying it failed; it will be applied again later.
    Deferred,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Ingested {
    pub receipt_id: i64,
    #[serde(flatten)]
    pub outcome: Outcome,
}

/// Ingests reports for the engine. Cheap to clone.
#[derive(Clone)]
pub struct Ingestor {
    writer: Writer,
    policy: Arc<ReceiptPolicy>,
    waiting: Arc<Mutex<Waiting>>,
}

type Reply = oneshot::Sender<Result<Vec<Ingested>, StoreError>>;

/// One report as handed in: its receipt rows (several for a callback carrying several reports)
/// and where its caller waits.
struct Report {
    rows: Vec<NewReceipt>,
    reply: Reply,
}

/// Reports waiting for the writer.
#[derive(Default)]
struct Waiting {
    reports: Vec<Report>,
    /// Whether an operation that will take them is in the writer's queue.
    scheduled: bool,
}

impl Ingestor {
    pub fn new(writer: Writer, policy: ReceiptPolicy) -> Ingestor {
        Ingestor {
            writer,
            policy: Arc::new(policy),
            waiting: Arc::default(),
        }
    }

    pub fn policy(&self) -> &ReceiptPolicy {
        &self.policy
    }

    /// Stores and applies one SMPP report; returns once it is committed.
    pub async fn smpp(&self, r: SmppReceived) -> Result<Ingested, StoreError> {
        one(self.ingest(vec![smpp_row(&r)]).await?)
    }

    /// Stores and applies SMPP reports in the order given (the order they arrived on their
    /// session): each is applied after the ones before it, whatever else the writer does
    /// meanwhile. Returns, for each, once it is committed.
    pub async fn smpp_in_order(&self, reports: Vec<SmppReceived>) -> Vec<Result<Ingested, StoreError>> {
        let rows = reports.iter().map(|r| vec![smpp_row(r)]).collect();
        self.ingest_all(rows)
            .await
            .into_iter()
            .map(|r| r.and_then(one))
            .collect()
    }

    /// Like [`Ingestor::smpp`], for tests that drive ingestion from a plain thread.
    #[cfg(test)]
    pub(crate) fn smpp_blocking(&self, r: SmppReceived) -> Result<Ingested, StoreError> {
        one(self.ingest_blocking(vec![smpp_row(&r)])?)
    }

    /// Stores and applies an HTTP callback (one receipt row per report it carries); returns once
    /// every part is committed.
    pub async fn http(&self, r: HttpReceived) -> Result<Vec<Ingested>, StoreError> {
        self.ingest(http_rows(&r)).await
    }

    /// Like [`Ingestor::http`], for tests that drive ingestion from a plain thread.
    #[cfg(test)]
    pub(crate) fn http_blocking(&self, r: HttpReceived) -> Result<Vec<Ingested>, StoreError> {
        self.ingest_blocking(http_rows(&r))
    }

    async fn ingest(&self, rows: Vec<NewReceipt>) -> Result<Vec<Ingested>, StoreError> {
        self.ingest_all(vec![rows])
            .await
            .pop()
            .unwrap_or(Err(StoreError::Aborted))
    }

    /// Hands every report to the writer in the order given, then waits for each one's answer.
    async fn ingest_all(&self, reports: Vec<Vec<NewReceipt>>) -> Vec<Result<Vec<Ingested>, StoreError>> {
        // Room in the writer's queue first: from here on nothing awaits until every report is
        // waiting, so a cancelled caller cannot leave its reports waiting with no operation to take
        // them, and no other report can come between them.
        let Ok(slot) = self.writer.reserve().await else {
            return reports.iter().map(|_| Err(StoreError::Closed)).collect();
        };
        let mut answers = Vec::with_capacity(reports.len());
        let reports = reports
            .into_iter()
            .map(|rows| {
                let (reply, answer) = oneshot::channel();
                answers.push(answer);
                Report { rows, reply }
            })
            .collect();
        if let Some(mut drain) = self.enqueue(reports) {
            slot.submit(move |tx, guard| drain.run(tx, guard), answer_all);
        }
        let mut results = Vec::with_capacity(answers.len());
        for answer in answers {
            results.push(answer.await.unwrap_or(Err(StoreError::Aborted)));
        }
        results
    }

    #[cfg(test)]
    fn ingest_blocking(&self, rows: Vec<NewReceipt>) -> Result<Vec<Ingested>, StoreError> {
        let (reply, answer) = oneshot::channel();
        if let Some(mut drain) = self.enqueue(vec![Report { rows, reply }]) {
            // If the writer is gone, the operation is dropped unrun and answers every waiting
            // report (this one included) that the store is closed.
            let _ = self
                .writer
                .submit_blocking(move |tx, guard| drain.run(tx, guard), answer_all);
        }
        answer.blocking_recv().map_err(|_| StoreError::Aborted)?
    }

    /// Adds reports to those waiting, in order; returns the operation to queue when none is queued
    /// yet.
    fn enqueue(&self, reports: Vec<Report>) -> Option<Drain> {
        let mut w = lock(&self.waiting);
        w.reports.extend(reports);
        (!std::mem::replace(&mut w.scheduled, true)).then(|| Drain {
            waiting: self.waiting.clone(),
            policy: self.policy.clone(),
            ran: false,
            reports: None,
        })
    }
}

fn lock(w: &Mutex<Waiting>) -> std::sync::MutexGuard<'_, Waiting> {
    // A panic while holding the lock cannot leave the list half-changed: push and take only.
    w.lock().unwrap_or_else(|p| p.into_inner())
}

fn one(mut v: Vec<Ingested>) -> Result<Ingested, StoreError> {
    v.pop().ok_or(StoreError::Aborted)
}

type Answers = Vec<(Reply, Result<Vec<Ingested>, StoreError>)>;

/// The writer operation that takes every waiting report.
struct Drain {
    waiting: Arc<Mutex<Waiting>>,
    policy: Arc<ReceiptPolicy>,
    /// Whether the writer ran it (else the reports still wait, and no other operation is queued).
    ran: bool,
    /// The reports it took and has not answered yet.
    reports: Option<Vec<Report>>,
}

impl Drain {
    /// First in its transaction: every report together, or `None` to be undone and called again
    /// in a savepoint, where each report is recorded on its own.
    fn run(&mut self, tx: &mut WriteTx<'_>, guard: Guard) -> Option<Answers> {
        if !self.ran {
            self.ran = true;
            let mut w = lock(&self.waiting);
            w.scheduled = false;
            self.reports = Some(std::mem::take(&mut w.reports));
        }
        let reports = self.reports.as_ref()?;
        if guard == Guard::First {
            match record_together(tx, reports, &self.policy) {
                Ok(results) => {
                    let reports = self.reports.take().unwrap_or_default();
                    return Some(
                        reports
                            .into_iter()
                            .zip(results)
                            .map(|(r, result)| (r.reply, Ok(result)))
                            .collect(),
                    );
                }
                Err(e) => {
                    tracing::warn!(error = %e, reports = reports.len(), "recording receipts together failed; recording them one by one");
                    return None;
                }
            }
        }
        let reports = self.reports.take().unwrap_or_default();
        Some(
            reports
                .into_iter()
                .map(|r| {
                    let result = tx.nested(|tx| r.rows.iter().map(|row| record(tx, row, &self.policy)).collect());
                    (r.reply, result)
                })
                .collect(),
        )
    }
}

impl Drop for Drain {
    fn drop(&mut self) {
        if self.ran {
            // Answered, or taken and unanswered because the operation panicked: then dropping
            // the replies tells each caller that nothing was stored.
            return;
        }
        // The writer stopped before running it: the reports still wait, and none was stored.
        let mut w = lock(&self.waiting);
        w.scheduled = false;
        for r in std::mem::take(&mut w.reports) {
            let _ = r.reply.send(Err(StoreError::Closed));
        }
    }
}

/// Answers each report once its transaction's fate is known: nobody hears "stored" before the
/// commit.
fn answer_all(answers: Answers, commit: Result<(), StoreError>) {
    for (reply, result) in answers {
        let answer = match &commit {
            Ok(()) => result,
            Err(e) => Err(e.for_another_caller()),
        };
        // A caller that stopped waiting is fine: its receipt is stored all the same.
        let _ = reply.send(answer);
    }
}

/// Appends every receipt of the group, then applies each in turn; fails as a whole.
fn record_together(
    tx: &mut WriteTx<'_>,
    reports: &[Report],
    policy: &ReceiptPolicy,
) -> Result<Vec<Vec<Ingested>>, StoreError> {
    let mut ids = Vec::with_capacity(reports.len());
    for row in reports.iter().flat_map(|r| &r.rows) {
        ids.push(tx.receipts().append(row)?);
    }
    let mut ids = ids.into_iter();
    reports
        .iter()
        .map(|r| {
            r.rows
                .iter()
                .zip(ids.by_ref())
                .map(|(row, receipt_id)| {
                    let view = ReceiptView::from_row(receipt_id, row);
                    let outcome = process(tx, &view, policy)?;
                    Ok(Ingested { receipt_id, outcome })
                })
                .collect()
        })
        .collect()
}

fn opt(s: &str) -> Option<String> {
    (!s.is_empty()).then(|| s.to_owned())
}

fn parsed_fields(mut row: NewReceipt, p: &Parsed) -> NewReceipt {
    row.kind = Some(p.kind);
    row.parser_version = parse::PARSER_VERSION;
    row.parse_error = p.parse_error.clone();
    row.fields = p.fields();
    row
}

fn tlvs_json(tlvs: &[Tlv]) -> Option<String> {
    if tlvs.is_empty() {
        return None;
    }
    let list: Vec<_> = tlvs
        .iter()
        .map(|t| serde_json::json!({ "tag": format!("0x{:04x}", t.tag), "hex": hex(&t.value) }))
        .collect();
    Some(serde_json::Value::Array(list).to_string())
}

pub(crate) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn smpp_row(r: &SmppReceived) -> NewReceipt {
    let report = SmppReport {
        pdu: if r.data_sm { SmppPdu::DataSm } else { SmppPdu::DeliverSm },
        esm_class: r.esm_class,
        data_coding: r.data_coding,
        short_message: &r.short_message,
        tlvs: &r.tlvs,
    };
    let parsed = parse::parse_smpp(&report);
    let row = NewReceipt {
        received_at: r.received_at,
        source: Some(if r.data_sm {
            ReceiptSource::SmppDataSm
        } else {
            ReceiptSource::SmppDeliverSm
        }),
        connection: r.connection.clone(),
        session_id: r.session_id.clone(),
        sequence_number: r.sequence_number,
        arrival_no: r.arrival_no,
        source_addr: r.source_addr.clone(),
        source_ton: r.source_addr_ton,
        destination_addr: r.destination_addr.clone(),
        pdu: r.pdu.clone(),
        part: 0,
        parts: 1,
        raw: r.short_message.clone(),
        raw_text: Some(parsed.raw.clone()),
        tlvs_json: tlvs_json(&r.tlvs),
        esm_class: r.esm_class,
        data_coding: r.data_coding,
        ..NewReceipt::default()
    };
    parsed_fields(row, &parsed)
}

/// The receipt rows of an HTTP callback: one per report, or per message from a handset (with its
/// sender and recipient), each keeping the whole request.
fn http_rows(r: &HttpReceived) -> Vec<NewReceipt> {
    let report = HttpReport {
        provider: &r.provider,
        method: &r.method,
        content_type: r.content_type.as_deref(),
        query: &r.query,
        body: &r.body,
    };
    let parsed: Vec<(Parsed, Option<String>, Option<String>)> = if r.inbound {
        parse::parse_inbound(&report)
            .into_iter()
            .map(|m| (m.parsed, m.from, m.to))
            .collect()
    } else {
        parse::parse_http(&report)
            .into_iter()
            .map(|p| (p, None, None))
            .collect()
    };
    let parts = parsed.len() as u32;
    let mut headers = serde_json::json!({
        "method": r.method,
        "content_type": r.content_type,
        "query": r.query,
        "headers": r.headers,
    });
    if r.inbound {
        headers["route"] = "inbound".into();
    }
    let headers = headers.to_string();
    parsed
        .into_iter()
        .enumerate()
        .map(|(i, (p, from, to))| {
            let row = NewReceipt {
                received_at: r.received_at,
                source: Some(ReceiptSource::Http),
                connection: r.connection.clone(),
                provider: opt(&r.provider),
                part: i as u32,
                parts,
                raw: r.body.clone(),
                raw_text: Some(String::from_utf8_lossy(&r.body).into_owned()),
                headers_json: Some(headers.clone()),
                source_addr: from,
                destination_addr: to,
                ..NewReceipt::default()
            };
            parsed_fields(row, &p)
        })
        .collect()
}

/// Appends the evidence, then applies it in a nested savepoint; if that fails, lists it as
/// deferred (for [`process_pending`]) in the same transaction.
fn record(tx: &mut WriteTx<'_>, row: &NewReceipt, policy: &ReceiptPolicy) -> Result<Ingested, StoreError> {
    let receipt_id = tx.receipts().append(row)?;
    let view = ReceiptView::from_row(receipt_id, row);
    let outcome = match tx.nested(|tx| process(tx, &view, policy)) {
        Ok(o) => o,
        Err(e) => {
            tracing::error!(receipt_id, error = %e, "receipt stored; applying it failed and will be retried");
            receipt::defer(tx, receipt_id)?;
            Outcome::Deferred
        }
    };
    Ok(Ingested { receipt_id, outcome })
}

/// The facts of a receipt that processing needs, borrowed from its row (the one just appended,
/// or one read back by [`process_pending`]).
#[derive(Debug, Clone, Copy)]
struct ReceiptView<'a> {
    id: i64,
    connection: &'a str,
    kind: ReceiptKind,
    parse_error: Option<&'a str>,
    /// What the report says.
    fields: &'a ReceiptFields,
    source_addr: Option<&'a str>,
    raw_text: Option<&'a str>,
    received_at: i64,
}

impl<'a> ReceiptView<'a> {
    fn from_row(id: i64, r: &'a NewReceipt) -> ReceiptView<'a> {
        ReceiptView {
            id,
            connection: &r.connection,
            kind: r.kind.unwrap_or(ReceiptKind::Unparseable),
            parse_error: r.parse_error.as_deref(),
            fields: &r.fields,
            source_addr: r.source_addr.as_deref(),
            raw_text: r.raw_text.as_deref(),
            received_at: r.received_at,
        }
    }

    fn receipt_facts(&self) -> mismatch::ReceiptFacts {
        mismatch::ReceiptFacts {
            connection: self.connection.to_owned(),
            handset: self.source_addr.map(str::to_owned),
            text: self.raw_text.and_then(crate::receipts::mismatch::receipt_text_field),
            done_ts: self.fields.done_ts.clone(),
        }
    }

    /// The key its message id is matched on, under the connection's rules for the place the id
    /// was read (a receipt stored before ids had a place was read as a receipt text's).
    fn id_key(&self, policy: &ReceiptPolicy) -> Option<String> {
        self.fields
            .message_id_raw
            .as_deref()
            .filter(|s| !s.is_empty())
            .map(|m| policy.receipt_key(m, self.fields.id_source.unwrap_or(IdSource::Text)))
    }
}

/// Applies one stored receipt: de-duplicate, correlate, project, raise exceptions.
fn process(tx: &mut WriteTx<'_>, r: &ReceiptView<'_>, policy: &ReceiptPolicy) -> Result<Outcome, StoreError> {
    // Its ids are read by the rules of the connection it arrived on.
    let policy = policy.on(r.connection);
    match r.kind {
        ReceiptKind::Mo => {
            return Ok(match crate::inbox::receive(tx, r.id, &policy.inbox)? {
                Filed::New(inbound_id) => {
                    receipt::record_outcome(tx, r.id, None, false, None)?;
                    Outcome::Inbound { inbound_id }
                }
                Filed::Repeat(inbound_id) => {
                    receipt::record_outcome(tx, r.id, None, true, None)?;
                    Outcome::InboundRepeat { inbound_id }
                }
            });
        }
        ReceiptKind::Acknowledgement => {
            receipt::record_outcome(tx, r.id, None, false, None)?;
            return Ok(Outcome::Acknowledgement);
        }
        ReceiptKind::Unparseable => return unparseable(tx, r, r.parse_error.unwrap_or("nothing usable")),
        ReceiptKind::Receipt | ReceiptKind::Intermediate => {}
    }
    // A status word nobody can read says nothing: it is kept, never applied as UNKNOWN.
    let state = r
        .fields
        .stat
        .filter(|_| !r.fields.status_unreadable)
        .map(state_from_stat);
    if state.is_none() && !r.fields.status_unreadable {
        return unparseable(tx, r, "the report carries no delivery status");
    }
    let id_key = r.id_key(policy);
    let key = dedup::key(
        r.fields.event_id.as_deref(),
        id_key.as_deref(),
        r.fields.stat.map(Stat::as_str),
        r.fields.err.as_deref(),
        r.fields.done_date.as_deref(),
        r.fields.message_state,
        r.kind,
    );
    // The usual answer, one message, comes with everything applying the receipt needs to know of
    // it; none or several are told apart by `candidates`.
    let (found, candidates) = match &id_key {
        Some(k) => match project::read_message_by_provider_id(&*tx, r.connection, k)? {
            Some(m) => {
                let id = m.id;
                (Some(m), vec![id])
            }
            None => (None, attempt::messages_with_provider_key(&*tx, r.connection, k)?),
        },
        None => (None, Vec::new()),
    };
    let message_id = match candidates.as_slice() {
        [one] => Some(*one),
        _ => None,
    };
    let correlation = match candidates.len() {
        0 => Correlation::None,
        1 => Correlation::Matched,
        _ => Correlation::Ambiguous,
    };
    let Some(event) = new_logical_event(tx, r, &key, correlation, message_id)? else {
        // The same logical event again: link it, flag it, and do nothing else.
        let event = logical_event::by_dedup_key(&*tx, r.connection, &key.key)?;
        receipt::record_outcome(tx, r.id, Some(event), true, None)?;
        return Ok(Outcome::Repeat {
            logical_event_id: event,
        });
    };

    match (message_id, state) {
        (Some(m), Some(state)) => {
            let message = match found {
                Some(row) => row,
                None => project::read_message(&*tx, m)?
                    .ok_or_else(|| StoreError::Corrupt(format!("message {m} carries an attempt but does not exist")))?,
            };
            let parts = parts_reported(&*tx, m, message.facts.segments, r.connection, id_key.as_deref())?;
            let facts = facts(
                event,
                state,
                &r.receipt_facts(),
                r.fields.message_id_raw.as_deref(),
                r.fields.text_id.as_deref(),
                Some(&message.facts),
                parts,
                policy,
            );
            let flags = flags_json(&facts);
            let arrived = project::Arrived {
                event,
                at: r.received_at,
            };
            project::apply_known(tx, message, &Input::Event(facts), policy.rules(), Some(arrived))?;
            receipt::record_outcome(tx, r.id, Some(event), false, flags)?;
            Ok(Outcome::Applied { message_id: m, state })
        }
        (Some(m), None) => {
            let ex = exceptions::open_status_unreadable(tx, m, event, r.id, r.fields.stat_raw.as_deref())?;
            receipt::record_outcome(tx, r.id, Some(event), false, None)?;
            Ok(Outcome::StatusUnreadable {
                message_id: m,
                exception_id: ex,
            })
        }
        (None, _) if candidates.is_empty() => {
            receipt::record_outcome(tx, r.id, Some(event), false, None)?;
            if policy.uncorrelated_grace_ms > 0 && id_key.is_some() {
                // It may be a receipt that came before its submit's answer: it waits a while before
                // anyone is asked about it (`uncorrelated::sweep`).
                uncorrelated::wait(tx, event, r.connection, r.received_at)?;
                return Ok(Outcome::Waiting {
                    logical_event_id: event,
                });
            }
            let ex = uncorrelated::open_exception(tx, event, r.id, r.connection, r.fields.message_id_raw.as_deref())?;
            Ok(Outcome::Uncorrelated { exception_id: ex })
        }
        (None, _) => {
            let id = r.fields.message_id_raw.as_deref().unwrap_or_default();
            let summary = Summary::new(
                SummaryCode::Ambiguous,
                said::params([
                    ("count", candidates.len().to_string()),
                    ("connection", r.connection.to_owned()),
                    ("id", id.to_owned()),
                ]),
                format!(
                    "{} messages sent on {} have the provider id {id:?}; none was chosen.",
                    candidates.len(),
                    r.connection,
                ),
            );
            let ex = exceptions::open_for_receipt(tx, ExceptionKind::Ambiguous, None, event, r.id, summary)?;
            let key = id_key.unwrap_or_default();
            let attempts = attempt::with_provider_key(&*tx, r.connection, &key)?;
            for a in attempts {
                exceptions::link_attempt(&*tx, ex, a, EvidenceRole::Candidate)?;
            }
            receipt::record_outcome(tx, r.id, Some(event), false, None)?;
            Ok(Outcome::Ambiguous { exception_id: ex })
        }
    }
}

/// Records a new logical event with its correlation; None when the event is already recorded
/// (a repeat).
fn new_logical_event(
    tx: &mut WriteTx<'_>,
    r: &ReceiptView<'_>,
    key: &dedup::DedupKey,
    correlation: Correlation,
    message_id: Option<i64>,
) -> Result<Option<i64>, StoreError> {
    logical_event::record(
        tx,
        &logical_event::NewEvent {
            connection: r.connection,
            key,
            first_receipt_id: r.id,
            correlation,
            message_id,
        },
    )
}

fn unparseable(tx: &mut WriteTx<'_>, r: &ReceiptView<'_>, why: &str) -> Result<Outcome, StoreError> {
    let summary = Summary::new(
        SummaryCode::Unparseable,
        said::params([("connection", r.connection.to_owned())]),
        format!(
            "A report on {} could not be read: {why}. It is kept as received.",
            r.connection
        ),
    );
    let ex = exceptions::open(
        tx,
        &NewException {
            kind: ExceptionKind::Unparseable,
            message_id: None,
            logical_event_id: None,
            summary,
        },
    )?;
    exceptions::link_receipt(&*tx, ex, r.id, EvidenceRole::Receipt)?;
    receipt::record_outcome(tx, r.id, None, false, None)?;
    Ok(Outcome::Unparseable { exception_id: ex })
}

fn flags_json(f: &EventFacts) -> Option<String> {
    (f.mismatch || f.id_disagree)
        .then(|| serde_json::json!({ "mismatch": f.mismatch, "id_disagree": f.id_disagree }).to_string())
}

/// The parts of a message a receipt reports on: those whose accepted submits on `connection` carry
/// its id key; empty for every part (a message sent whole, one id for all its parts, or a receipt
/// a person attached with no submit carrying its id).
fn parts_reported(
    conn: &impl Reads,
    message_id: i64,
    segments: u32,
    connection: &str,
    key: Option<&str>,
) -> Result<Vec<u32>, StoreError> {
    let Some(key) = key.filter(|_| segments > 1) else {
        return Ok(Vec::new());
    };
    let parts = attempt::parts_with_provider_key(conn, message_id, connection, key)?;
    Ok(if parts.len() as u32 >= segments {
        Vec::new()
    } else {
        parts
    })
}

/// What a logical event says about a message. Ingestion computes it from the receipt in hand,
/// `rebuild` from the stored one ([`event_facts`]); both go through here, so they agree.
#[allow(clippy::too_many_arguments)]
fn facts(
    event: i64,
    state: DeliveryState,
    receipt: &mismatch::ReceiptFacts,
    id: Option<&str>,
    text_id: Option<&str>,
    message: Option<&mismatch::MessageFacts>,
    parts: Vec<u32>,
    policy: &ReceiptPolicy,
) -> EventFacts {
    let id_disagree = matches!((id, text_id), (Some(a), Some(b)) if !policy.tlv_and_text_agree(a, b));
    let mismatch = message.is_some_and(|m| !mismatch::check(receipt, m, policy.timezone_minutes).is_empty());
    EventFacts {
        event,
        state,
        mismatch,
        id_disagree,
        parts,
        of: message.map_or(1, |m| m.segments.max(1)),
    }
}

/// What a logical event says about a message, computed from the stored evidence. None when the
/// event carries no delivery status anyone can read.
pub fn event_facts(
    conn: &impl Reads,
    event: i64,
    message_id: i64,
    policy: &ReceiptPolicy,
) -> Result<Option<EventFacts>, StoreError> {
    let Some(logical_event::StoredEvent {
        stat,
        id,
        text_id,
        unreadable,
        connection,
        key,
    }) = logical_event::stored(conn, event)?
    else {
        return Ok(None);
    };
    let Some(state) = stat
        .as_deref()
        .filter(|_| !unreadable)
        .and_then(Stat::from_token)
        .map(state_from_stat)
    else {
        return Ok(None);
    };
    let receipt = exceptions::receipt_facts(conn, event)?;
    let message = exceptions::message_facts(conn, message_id)?;
    let segments = message.as_ref().map_or(1, |m| m.segments);
    let parts = parts_reported(conn, message_id, segments, &connection, key.as_deref())?;
    Ok(Some(facts(
        event,
        state,
        &receipt,
        id.as_deref(),
        text_id.as_deref(),
        message.as_ref(),
        parts,
        policy,
    )))
}

/// Applies stored receipts that have no outcome yet (their effects failed), in receive order,
/// starting after receipt `after` and taking at most `limit`. Returns how many were looked at and
/// the last receipt id seen, the cursor for the next call; a receipt that fails again is logged
/// and stays listed for the next start rather than retried in a loop.
pub fn process_pending(
    tx: &mut WriteTx<'_>,
    policy: &ReceiptPolicy,
    after: i64,
    limit: u32,
) -> Result<(usize, i64), StoreError> {
    let pending = receipt::unprocessed(&*tx, after, limit)?;
    for (id, row) in &pending {
        match tx.nested(|tx| process(tx, &ReceiptView::from_row(*id, row), policy)) {
            Ok(_) => receipt::applied_at_last(tx, *id)?,
            Err(e) => {
                tracing::error!(receipt_id = id, error = %e, "applying a stored receipt failed again");
                receipt::defer(tx, *id)?;
            }
        }
    }
    Ok((pending.len(), pending.last().map_or(after, |(id, _)| *id)))
}
