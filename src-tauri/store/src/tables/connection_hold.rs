//! The `connection_hold` table: the connections an operator drains or disabled, each change
//! audited in the same transaction.

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
    conn.db().query(
        "SELECT connection, hold, since, actor, note FROM connection_hold ORDER BY connection",
        &[],
        |r| {
            Ok(HoldRow {
                connection: r.get(0)?,
                hold: r.get::<Text<_>>(1)?.0,
                since_ms: r.get(2)?,
                actor: r.get(3)?,
                note: r.get(4)?,
            })
        },
    )
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
    let before = put(tx, connection, hold, actor, note)?;
    if before == hold {
        return Ok(before);
    }
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

/// The row part of [`set`]: writes `hold` on `connection` (None: lifts it) unless it already has
/// that hold; returns the hold it had.
fn put(
    tx: &mut WriteTx<'_>,
    connection: &str,
    hold: Option<ConnectionHold>,
    actor: &str,
    note: Option<&str>,
) -> Result<Option<ConnectionHold>, StoreError> {
    let db = tx.db();
    let before: Option<ConnectionHold> = db.query_opt(
        "SELECT hold FROM connection_hold WHERE connection = ?1",
        &[&connection],
        |r| Ok(r.get::<Text<_>>(0)?.0),
    )?;
    if before == hold {
        return Ok(before);
    }
    match hold {
        Some(h) => db.execute(
            "INSERT INTO connection_hold (connection, hold, since, actor, note) VALUES (?1, ?2, ?3, ?4, ?5)
             ON CONFLICT (connection) DO UPDATE SET hold = excluded.hold, since = excluded.since,
                 actor = excluded.actor, note = excluded.note",
            &[&connection, &Text(h), &tx.now_ms(), &actor, &note],
        )?,
        None => db.execute("DELETE FROM connection_hold WHERE connection = ?1", &[&connection])?,
    };
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

    #[test]
    fn a_hold_is_written_changed_and_lifted_on_both_stores() {
        crate::both_stores::on_both(|db| {
            let put_at = |now: i64, hold: Option<ConnectionHold>, note: Option<&'static str>| {
                crate::writer::write_for_tests(db, now, |tx| put(tx, "primary", hold, "anna", note)).unwrap()
            };
            assert_eq!(put_at(1_000, Some(ConnectionHold::Draining), Some("maintenance")), None);
            assert_eq!(
                put_at(2_000, Some(ConnectionHold::Draining), None),
                Some(ConnectionHold::Draining),
                "the same hold again changes nothing"
            );
            let rows = all(&db).unwrap();
            assert_eq!(
                rows,
                [HoldRow {
                    connection: "primary".into(),
                    hold: ConnectionHold::Draining,
                    since_ms: 1_000,
                    actor: "anna".into(),
                    note: Some("maintenance".into()),
                }],
                "{:?}",
                db.dialect()
            );
            put_at(3_000, Some(ConnectionHold::Disabled), None);
            let rows = all(&db).unwrap();
            assert_eq!(
                (rows[0].hold, rows[0].since_ms, rows[0].note.as_deref()),
                (ConnectionHold::Disabled, 3_000, None)
            );
            assert_eq!(put_at(4_000, None, None), Some(ConnectionHold::Disabled));
            assert_eq!(all(&db).unwrap(), []);
        });
    }
}
