//! Reads what the rules look at: the links from the running sessions, the rest from the database
//! (on a read connection: the writer is asked only to answer its probe) and the disk.

use std::collections::HashMap;

use crate::alerts::rules::{self, Facts, LinkFact, WebhookFact};
use crate::config::AlertSettings;
use crate::service::{ConnectionStatus, Service};
use crate::smpp::session::LinkState;
use crate::store::alert_facts;
use crate::store::StoreError;

/// What the watcher remembers between two looks.
#[derive(Debug, Default)]
pub struct Memory {
    /// Since when each connection is seen unbound.
    unbound_since: HashMap<String, i64>,
    /// The last receipt seen, and the first try after it that asked for one (once found, it
    /// does not change until another receipt comes).
    receipt_asked: Option<(Option<i64>, i64)>,
}

const HOUR_MS: i64 = 3_600_000;

/// Reads every fact at `now_ms`.
pub async fn gather(
    service: &Service,
    memory: &mut Memory,
    settings: &AlertSettings,
    now_ms: i64,
    started_ms: i64,
) -> Result<Facts, StoreError> {
    let links = links(&service.links_status(), memory, now_ms);
    let writer = service.probe_writer().await;
    let room = service.store().room();
    let backups = service.backup_status();
    let window_from = now_ms - i64::from(settings.failure_window_minutes.0) * 60_000;
    let known = memory.receipt_asked;
    let read = service
        .store()
        .reader()
        .read(move |c| {
            let last_receipt = alert_facts::last_receipt_at(c)?;
            let asked = match known {
                Some((seen, first)) if seen == last_receipt => Some(first),
                _ => alert_facts::first_receipt_asked_after(c, last_receipt.unwrap_or(i64::MIN))?,
            };
            Ok::<_, StoreError>(Facts {
                now_ms,
                oldest_due_ms: alert_facts::oldest_due(c, now_ms)?,
                due_waiting: alert_facts::queued(c)?,
                submits: alert_facts::submits_since(c, window_from)?,
                recent_answers: alert_facts::submits_since(c, now_ms - rules::MOVING_WINDOW_MS)?.total(),
                last_receipt_ms: last_receipt,
                receipt_asked_since_ms: asked,
                otp_unknown: alert_facts::otp_outcome_unknown(c)?,
                open_exceptions: alert_facts::open_exceptions(c)?,
                otp_held: smsdesk_store::tables::exception::count_by(
                    c,
                    crate::domain::ExceptionStatus::Open,
                    crate::domain::ExceptionKind::UnusualVolume,
                )?,
                webhooks: alert_facts::failing_webhooks(c)?
                    .into_iter()
                    .map(|w| WebhookFact {
                        key_name: w.key_name,
                        since_ms: w.since_ms,
                        waiting: w.waiting,
                        last_error: w.last_error,
                    })
                    .collect(),
                opt_outs_last_hour: alert_facts::opt_outs_by_reply_since(c, now_ms - HOUR_MS)?,
                ..Facts::default()
            })
        })
        .await?;
    memory.receipt_asked = read.receipt_asked_since_ms.map(|t| (read.last_receipt_ms, t));
    Ok(Facts {
        links,
        disk_free_bytes: room.free_bytes,
        disk_reserve_bytes: room.reserve_bytes,
        // Commits failing for want of room say why; a writer that does not answer its probe, too.
        writer_error: room.failing_since_ms.and(room.error).or_else(|| {
            (!writer.answered).then(|| writer.error.unwrap_or_else(|| "the writer does not answer".into()))
        }),
        backups_automatic: backups.automatic,
        last_backup_ms: backups.last_backup_ms,
        backup_error: service.backup_failure(),
        started_ms,
        ..read
    })
}

/// Each enabled connection: since when it is seen unbound (none while bound, or disabled by an
/// operator, which is no fault).
fn links(status: &[ConnectionStatus], memory: &mut Memory, now_ms: i64) -> Vec<LinkFact> {
    let mut out = Vec::new();
    for c in status {
        let (down, error) = match &c.link {
            LinkState::Bound { .. } | LinkState::Stopped => (false, None),
            LinkState::Connecting { .. } => (true, None),
            LinkState::Down { error, .. } => (true, Some(error.clone())),
            LinkState::BindRefused { name, status, .. } => (true, Some(format!("{name} (0x{status:08X})"))),
        };
        let disabled = c
            .hold
            .as_ref()
            .is_some_and(|h| h.hold == smsdesk_core::domain::ConnectionHold::Disabled);
        if !down || disabled {
            memory.unbound_since.remove(&c.connection);
            if !disabled {
                out.push(LinkFact {
                    connection: c.connection.clone(),
                    unbound_since_ms: None,
                    error: None,
                });
            }
            continue;
        }
        let since = *memory.unbound_since.entry(c.connection.clone()).or_insert(now_ms);
        out.push(LinkFact {
            connection: c.connection.clone(),
            unbound_since_ms: Some(since),
            error,
        });
    }
    out
}
