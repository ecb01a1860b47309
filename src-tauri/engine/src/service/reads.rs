//! What the screens and the API read: messages, exceptions, the dashboard and the pace of sending,
//! CSV exports and the audit log. Nothing here writes to the database.

use std::ops::ControlFlow;
use std::path::PathBuf;

use super::{Service, ServiceError};
use crate::access::{Access, Caller};
use crate::pace::{Pace, PaceConnection, SendingLimits};
use crate::queue;
use crate::views::{self, ExportProgress, MessageFilter};

impl Service {
    /// A page of the messages `caller` may read, newest first, as `f` filters them.
    pub async fn list_messages(&self, caller: &Caller, f: MessageFilter) -> Result<views::MessagePage, ServiceError> {
        let f = self.number_read(seen_by(caller, f))?;
        Ok(self.store.reader().read(move |c| views::list_messages(c, &f)).await?)
    }

    /// Everything about one message, or `NotFound` (also for one `caller` may not read), with
    /// what a retry by `caller` would meet now, by the rules the retry applies.
    pub async fn message(&self, caller: &Caller, id: i64) -> Result<views::MessageDetail, ServiceError> {
        self.visible(caller, id).await?;
        let now = self.clock().now_ms();
        let policies = self.live().retry;
        let currency = self.live().rules.guardrails.currency.clone();
        let asker = queue::rules::Asker {
            may_act: caller.may(Access::Act),
            admin: caller.is_admin(),
        };
        self.store
            .reader()
            .read(move |c| {
                let Some(mut d) = views::message_detail(c, id)? else {
                    return Ok::<_, ServiceError>(None);
                };
                d.retry = queue::rules::advice(c, id, now, &policies, asker)?;
                d.currency = d.cost_micros.map(|_| currency);
                Ok(Some(d))
            })
            .await?
            .ok_or_else(|| ServiceError::NotFound(format!("message {id}")))
    }

    /// A page of the exception queue, newest first, as `f` filters it.
    pub async fn list_exceptions(&self, f: views::ExceptionFilter) -> Result<views::ExceptionPage, ServiceError> {
        Ok(self.store.reader().read(move |c| views::list_exceptions(c, &f)).await?)
    }

    /// One exception with its evidence (dates in receipts read in the receipts' timezone), or
    /// `NotFound`.
    pub async fn exception(&self, id: i64) -> Result<views::ExceptionDetail, ServiceError> {
        let timezone = self.policy().timezone_minutes;
        self.store
            .reader()
            .read(move |c| views::exception_detail(c, id, timezone))
            .await?
            .ok_or_else(|| ServiceError::NotFound(format!("exception {id}")))
    }

    /// The overview now, "today" starting at midnight UTC, with the last backup.
    pub async fn dashboard(&self) -> Result<views::Dashboard, ServiceError> {
        let now = self.clock().now_ms();
        let backups = self.backups.clone();
        let service = self.clone();
        Ok(self
            .store
            .reader()
            .read(move |c| {
                let mut d = views::dashboard_at(c, now, 0)?;
                d.spend = service.dashboard_spend(c, now)?;
                // A look at the backup folder, on the same blocking thread.
                d.backups = backups.map(|plan| plan.status()).unwrap_or_default();
                Ok::<_, views::ViewError>(d)
            })
            .await?)
    }

    /// The nodes that share the database, with what each runs (one on SQLite).
    pub async fn nodes(&self) -> Result<Vec<crate::nodes::NodeView>, ServiceError> {
        let now = self.store.clock().now_ms();
        Ok(self.store.reader().read(move |c| crate::nodes::read(c, now)).await?)
    }

    /// How fast messages go out now and how long those waiting will take: the window and rate the
    /// session applies (the sandbox's own, or the provider account's), the rate measured over the
    /// last minute, and the queue at that rate. `NotFound` while there is no session.
    pub async fn pace(&self) -> Result<Pace, ServiceError> {
        let live = self.live();
        if live.links.is_empty() {
            return Err(ServiceError::NotFound("an SMPP connection".into()));
        }
        // Every connection sends at once: their windows and rates add up.
        let (mut window, mut tps, mut binds) = (0usize, 0f64, 0usize);
        for l in &live.links {
            let (w, t) = l.session.limits();
            window += w;
            tps += t;
            binds += l.session.binds().iter().filter(|(role, _)| role.sends()).count();
        }
        let limits = SendingLimits {
            connection: if live.links.iter().all(|l| l.sandbox) {
                PaceConnection::Sandbox
            } else {
                PaceConnection::Provider
            },
            window: u32::try_from(window).unwrap_or(u32::MAX),
            binds: u32::try_from(binds).unwrap_or(1),
            tps: tps.round() as u32,
        };
        let now = self.clock().now_ms();
        let counts = self.store.reader().read(move |c| views::pace_counts(c, now)).await?;
        Ok(Pace::new(now, limits, counts))
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

    /// Delivery figures over a period, from the sums the writer keeps ([`views::delivery_report`]).
    pub async fn delivery_report(&self, query: views::ReportQuery) -> Result<views::DeliveryReport, ServiceError> {
        Ok(self
            .store
            .reader()
            .read(move |c| views::delivery_report(c, &query))
            .await?)
    }

    /// Writes every message `filter` selects as CSV to `out` ([`views::write_csv`], as the command
    /// line does), on a blocking thread; `progress` hears the total first, then after each page, and
    /// may stop the export. Returns the rows written.
    pub async fn export_csv<W: std::io::Write + Send + 'static>(
        &self,
        caller: &Caller,
        filter: MessageFilter,
        out: W,
        progress: impl FnMut(ExportProgress) -> ControlFlow<()> + Send + 'static,
    ) -> Result<u64, ServiceError> {
        let filter = self.number_read(seen_by(caller, filter))?;
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
        caller: &Caller,
        filter: MessageFilter,
        path: PathBuf,
        progress: impl FnMut(ExportProgress) -> ControlFlow<()> + Send + 'static,
    ) -> Result<u64, ServiceError> {
        let file = std::fs::File::create(&path).map_err(|e| {
            views::ExportError::Write(std::io::Error::new(e.kind(), format!("{}: {e}", path.display())))
        })?;
        let result = self
            .export_csv(caller, filter, std::io::BufWriter::new(file), progress)
            .await;
        if result.is_err() {
            let _ = std::fs::remove_file(&path);
        }
        result
    }

    /// A page of the audit log, newest first, from `cursor`.
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
}

/// `f`, narrowed to the messages `caller` may read.
impl Service {
    /// `f` with its phone number read as typed ([`views::search_number`]), national numbers in
    /// the intake's default region, so that the list and its export find the same messages.
    fn number_read(&self, f: MessageFilter) -> Result<MessageFilter, ServiceError> {
        let region = self.region();
        let destination = match f.destination.as_deref() {
            Some(raw) => views::search_number(raw, region.as_deref(), "destination")?,
            None => None,
        };
        Ok(MessageFilter { destination, ..f })
    }
}

fn seen_by(caller: &Caller, f: MessageFilter) -> MessageFilter {
    MessageFilter {
        only_key: caller.only_own(),
        ..f
    }
}
