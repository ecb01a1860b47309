//! Live updates for the window: the store's committed changes, forwarded as Tauri events with the
//! names and payloads of the HTTP event stream (`change` with `{entity, id}`, `resync` when this
//! listener fell behind), so the UI handles both transports alike.

use std::collections::HashSet;

use smsdesk_engine::changes::Change;
use smsdesk_http::ChangeEvent;
use tauri::{AppHandle, Emitter, Runtime};
use tokio::sync::broadcast::error::{RecvError, TryRecvError};
use tokio::sync::broadcast::Receiver;

/// The window the events are for.
pub const WINDOW: &str = "main";

/// Forwards until the store closes its channel (the engine stopped).
pub async fn forward<R: Runtime>(app: AppHandle<R>, mut changes: Receiver<Change>) {
    loop {
        let first = match changes.recv().await {
            Ok(c) => c,
            Err(RecvError::Lagged(missed)) => {
                resync(&app, missed);
                continue;
            }
            Err(RecvError::Closed) => return,
        };
        // One commit announces many rows at once; send what is already waiting as one batch,
        // each (entity, id) once, so a large import does not flood the window.
        let (batch, missed) = drain(first, &mut changes);
        for event in batch {
            if let Err(e) = app.emit_to(WINDOW, "change", event) {
                tracing::debug!(error = %e, "change not delivered to the window");
            }
        }
        if let Some(missed) = missed {
            resync(&app, missed);
        }
    }
}

fn resync<R: Runtime>(app: &AppHandle<R>, missed: u64) {
    tracing::debug!(
        missed,
        "the window fell behind the store's changes; asking it to reload"
    );
    if let Err(e) = app.emit_to(WINDOW, "resync", missed) {
        tracing::debug!(error = %e, "resync not delivered to the window");
    }
}

/// `first` and every change already queued behind it, in order, without repeats; and how many
/// were missed if the receiver lagged meanwhile.
fn drain(first: Change, changes: &mut Receiver<Change>) -> (Vec<ChangeEvent>, Option<u64>) {
    let mut seen = HashSet::new();
    let mut batch = Vec::new();
    let mut next = Some(first);
    let mut missed = None;
    while let Some(c) = next.take() {
        let event = ChangeEvent::from(c);
        if seen.insert((event.entity, event.id)) {
            batch.push(event);
        }
        next = match changes.try_recv() {
            Ok(c) => Some(c),
            Err(TryRecvError::Lagged(n)) => {
                missed = Some(n);
                None
            }
            Err(TryRecvError::Empty | TryRecvError::Closed) => None,
        };
    }
    (batch, missed)
}

#[cfg(test)]
mod tests {
    use smsdesk_engine::changes::Entity;
    use tokio::sync::broadcast;

    use super::*;

    fn change(entity: Entity, id: i64) -> Change {
        Change { entity, id }
    }

    /// Each event as the stream names it: `message 1`.
    fn pairs(batch: &[ChangeEvent]) -> Vec<String> {
        batch
            .iter()
            .map(|e| format!("{} {}", serde_json::to_value(e.entity).unwrap().as_str().unwrap(), e.id))
            .collect()
    }

    #[test]
    fn a_batch_keeps_the_order_of_changes_and_names_entities_as_the_http_stream_does() {
        let (tx, mut rx) = broadcast::channel(16);
        let first = change(Entity::Message, 1);
        tx.send(change(Entity::Queue, 1)).unwrap();
        tx.send(change(Entity::LogicalEvent, 4)).unwrap();
        let (batch, missed) = drain(first, &mut rx);
        assert_eq!(pairs(&batch), ["message 1", "queue 1", "logical_event 4"]);
        assert_eq!(missed, None);
    }

    #[test]
    fn a_repeated_change_in_one_batch_is_sent_once() {
        let (tx, mut rx) = broadcast::channel(16);
        for _ in 0..3 {
            tx.send(change(Entity::Projection, 9)).unwrap();
        }
        let (batch, _) = drain(change(Entity::Projection, 9), &mut rx);
        assert_eq!(
            pairs(&batch),
            ["projection 9"],
            "the window needs each changed row once per batch"
        );
    }

    #[test]
    fn a_lag_while_draining_is_reported_so_the_window_resyncs() {
        let (tx, mut rx) = broadcast::channel(2);
        for id in 1..=5 {
            tx.send(change(Entity::Message, id)).unwrap();
        }
        let (batch, missed) = drain(change(Entity::Audit, 1), &mut rx);
        assert_eq!(pairs(&batch), ["audit 1"]);
        assert_eq!(missed, Some(3), "changes the channel dropped must not go unnoticed");
    }
}
