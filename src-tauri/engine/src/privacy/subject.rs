//! Erasure and access by number: the service's work, beside the store's rules.

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::audit::AuditAction;
use crate::queue::{self, ActionError};
use crate::store::privacy::access::{self, SubjectRecord};
use crate::store::privacy::{erasure, Redacted};
use crate::store::tables::NewAudit;
use crate::store::{Store, StoreError};

/// What erasing a number did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
pub struct Erased {
    /// The number's hash, as the database now holds it (`h:` then 32 hexadecimal digits).
    pub hash: String,
    pub redacted: Redacted,
    /// Messages to it still being sent: their content goes once they are done; erase again then.
    #[ts(type = "number")]
    pub still_sending: u64,
    /// Whether the WAL could be emptied (no reader held it): otherwise its old frames are
    /// overwritten at the next checkpoint.
    pub wal_emptied: bool,
}

/// Erases `number` (E.164) as `actor` with the person's `note`: what waits for it is cancelled,
/// everything held about it redacted, the erasure audited without the number, the WAL emptied.
pub async fn erase(store: &Arc<Store>, number: &str, actor: &str, note: &str) -> Result<Erased, ActionError> {
    let hash = store
        .number_key()
        .ok_or_else(|| StoreError::NumberKey("the key is not set".into()))?
        .token(number);
    let (number, actor, note) = (number.to_owned(), actor.to_owned(), note.to_owned());
    let (redacted, still_sending) = store
        .writer()
        .write(move |tx| {
            let waiting = erasure::waiting(tx, &number)?;
            for w in &waiting {
                // The eraser's own note says why, in their words, on each cancellation too.
                queue::cancel(tx, w.message_id, &actor, &note)?;
            }
            let (t, mut done, still_sending) = erasure::erase(tx, &number, &actor)?;
            // The erased messages were cancelled, then redacted with the rest.
            done.cancelled = waiting.len() as u64;
            crate::store::privacy::finish(tx, t, &done)?;
            tx.audit().append(&NewAudit {
                subject_type: Some("redaction".into()),
                subject_id: Some(t),
                note: Some(note),
                details_json: Some(serde_json::json!({ "redacted": done, "still_sending": still_sending }).to_string()),
                ..NewAudit::new(actor, AuditAction::PrivacyErase)
            })?;
            Ok::<_, ActionError>((done, still_sending))
        })
        .await?;
    let wal_emptied = super::empty_wal(store).await?;
    Ok(Erased {
        hash,
        redacted,
        still_sending,
        wal_emptied,
    })
}

/// Everything held about `number` (E.164).
pub async fn record(store: &Store, number: &str) -> Result<SubjectRecord, StoreError> {
    let number = number.to_owned();
    store.reader().read(move |c| access::subject(c, &number)).await
}

/// The same as CSV: one line per thing held (a message, a reply, an opt-out entry).
pub fn record_csv(r: &SubjectRecord) -> String {
    let mut w = csv::Writer::from_writer(Vec::new());
    let ms = |v: Option<i64>| v.map(|v| v.to_string()).unwrap_or_default();
    let _ = w.write_record(["what", "id", "at_ms", "kind", "text", "status", "state", "detail"]);
    for m in &r.messages {
        let _ = w.write_record([
            "message",
            &m.id.to_string(),
            &m.created_at_ms.to_string(),
            m.kind.as_str(),
            m.text.as_deref().unwrap_or(""),
            m.status.as_str(),
            m.state.map(|s| s.as_str()).unwrap_or(""),
            &match (m.text_removed_at_ms, m.number_removed) {
                (Some(at), _) => format!("text removed at {at}"),
                (None, true) => "number kept as its hash".into(),
                _ => format!("channel {}; accepted at {}", m.channel, ms(m.accepted_at_ms)),
            },
        ]);
    }
    for p in &r.replies {
        let _ = w.write_record([
            "reply",
            &p.id.to_string(),
            &p.received_at_ms.to_string(),
            "",
            p.text.as_deref().unwrap_or(""),
            "",
            "",
            p.intent.as_deref().unwrap_or(""),
        ]);
    }
    for o in &r.opt_outs {
        let kinds: Vec<&str> = o.kinds.iter().map(|k| k.as_str()).collect();
        let _ = w.write_record([
            "opt_out",
            &o.id.to_string(),
            &o.created_at_ms.to_string(),
            &kinds.join(","),
            "",
            if o.removed_at_ms.is_some() { "ended" } else { "current" },
            "",
            &format!("{}; ended at {}", o.reason, ms(o.removed_at_ms)),
        ]);
    }
    String::from_utf8(w.into_inner().unwrap_or_default()).unwrap_or_default()
}
