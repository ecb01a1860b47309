//! Receipt ingestion: evidence first, then effects.
//!
//! 1. The report is parsed (outside the writer) and appended to the receipt log as received.
//! 2. In the same transaction, its effects are applied: de-duplication into a logical event,
//!    correlation by the provider's message id, the projection, exceptions.
//! 3. The caller (who then answers deliver_sm_resp or HTTP 2xx) hears back only after the commit.
//!
//! If step 2 fails, the receipt is still committed without a `receipt_outcome` row, listed as
//! deferred, and [`process_pending`](super::apply::process_pending) applies it at the next start: evidence is never lost because
//! an effect failed, and a start reads the list, not every receipt.
//!
//! Reports that arrive while the writer is busy wait together and go to it as one operation:
//! every receipt of the group is appended, then each is applied, under one savepoint. Should any
//! step fail, the group is rolled back and recorded again one report at a time, each receipt's
//! effects in a savepoint of their own, which is what one report alone would have got. (A
//! savepoint per receipt copies every page it touches aside; that was a tenth of ingestion.)

use std::sync::{Arc, Mutex};

use serde::Serialize;
use tokio::sync::oneshot;

pub use super::apply::Outcome;
use super::apply::{process, ReceiptView};
use super::policy::ReceiptPolicy;
pub use super::rows::HttpReceived;
use super::rows::{http_rows, smpp_row};
use crate::store::tables::{receipt, NewReceipt};
use crate::store::{Guard, StoreError, WriteTx, Writer};
pub use smsdesk_smpp::SmppReceived;

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

/// Appends the evidence, then applies it in a nested savepoint; if that fails, lists it as
/// deferred (for [`process_pending`](super::apply::process_pending)) in the same transaction.
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
