//! The `connection_hold` table: the connections an operator drains or disabled, each change
//! audited in the same transaction.

use rusqlite::{params, OptionalExtension};
use smsdesk_core::audit::AuditAction;
use smsdesk_core::domain::ConnectionHold;

use crate::tables::NewAudit;
use crate::writer::WriteTx;
use crate::Reads;
use crate::{StoreError, Text};

/// A hold on a connection: which, since when, who set it and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HoldRow {
    pub connection: String,
    pub hold: ConnectionHold,
    pub since_ms: i64,
    pub actor: String,
    pub note: Option<String>,
}

/// Every hold, by connection name.
pub fn all(conn: &impl Reads) -> Result<Vec<HoldRow>, StoreError> {
    let conn = conn.connection();
    Ok(conn
        .prepare_cached("SELECT connection, hold, since, actor, note FROM connection_hold ORDER BY connection")?
        .query_map([], |r| {
            Ok(HoldRow {
                connection: r.get(0)?,
                hold: r.get::<_, Text<_>>(1)?.0,
                since_ms: r.get(2)?,
                actor: r.get(3)?,
                note: r.get(4)?,
            })
        })?
        .collect::<Result<_, _>>()?)
}

/// Puts `hold` on `connection` (None: lifts it), audited as `actor`'s, with `note`. Returns the
/// hold it had; a change to what it already is writes nothing and is not audited.
pub fn set(
    tx: &mut WriteTx<'_>,
    connection: &str,
    hold: Option<ConnectionHold>,
    actor: &str,
    note: Option<&str>,
) -> Result<Option<ConnectionHold>, StoreError> {
    let before: Option<ConnectionHold> = tx
        .conn()
        .prepare_cached("SELECT hold FROM connection_hold WHERE connection = ?1")?
        .query_row([connection], |r| r.get::<_, Text<_>>(0).map(|t| t.0))
        .optional()?;
    if before == hold {
        return Ok(before);
    }
    let now = tx.now_ms();
    match hold {
        Some(h) => tx
            .conn()
            .prepare_cached(
                "INSERT INTO connection_hold (connection, hold, since, actor, note) VALUES (?1, ?2, ?3, ?4, ?5)
                 ON CONFLICT (connection) DO UPDATE SET hold = excluded.hold, since = excluded.since,
                     actor = excluded.actor, note = excluded.note",
            )?
            .execute(params![connection, Text(h), now, actor, note])?,
        None => tx
            .conn()
            .prepare_cached("DELETE FROM connection_hold WHERE connection = ?1")?
            .execute([connection])?,
    };
    let action = match hold {
        Some(ConnectionHold::Draining) => AuditAction::ConnectionDrain,
        Some(ConnectionHold::Disabled) => AuditAction::ConnectionDisable,
        None => AuditAction::ConnectionEnable,
    };
    let details = serde_json::json!({
        "connection": connection,
        "from": before.map(|h| h.as_str()),
    });
    tx.audit().append(&NewAudit {
        actor: actor.to_owned(),
        action,
        subject_type: Some("connection".into()),
        subject_id: None,
        note: note.map(str::to_owned),
        details_json: Some(details.to_string()),
    })?;
    Ok(before)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Store;

    #[tokio::test]
    async fn a_hold_is_kept_changed_and_lifted_each_change_audited_once() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("s.db")).unwrap();
        let w = store.writer();
        let set = |hold, note: Option<&'static str>| w.write(move |tx| set(tx, "primary", hold, "anna", note));
        assert_eq!(
            set(Some(ConnectionHold::Draining), Some("provider maintenance"))
                .await
                .unwrap(),
            None
        );
        assert_eq!(
            set(Some(ConnectionHold::Draining), None).await.unwrap(),
            Some(ConnectionHold::Draining),
            "the same hold again changes nothing"
        );
        set(Some(ConnectionHold::Disabled), None).await.unwrap();
        let rows = store.reader().read(all).await.unwrap();
        assert_eq!(rows.len(), 1);
        assert_eq!(
            (rows[0].hold, rows[0].actor.as_str()),
            (ConnectionHold::Disabled, "anna")
        );
        set(None, Some("back")).await.unwrap();
        assert!(store.reader().read(all).await.unwrap().is_empty());
        let audit: Vec<(String, Option<String>)> = store
            .reader()
            .read(|c| {
                Ok::<_, StoreError>(
                    c.prepare("SELECT action, note FROM audit WHERE subject_type = 'connection' ORDER BY id")?
                        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
                        .collect::<Result<Vec<_>, _>>()?,
                )
            })
            .await
            .unwrap();
        assert_eq!(
            audit,
            vec![
                ("connection.drain".into(), Some("provider maintenance".into())),
                ("connection.disable".into(), None),
                ("connection.enable".into(), Some("back".into())),
            ]
        );
    }
}
