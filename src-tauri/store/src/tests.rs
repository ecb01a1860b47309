//! Store tests at the level the behaviour lives: a real database file in a temporary directory.

use std::time::Duration;

use rusqlite::{params, Connection};

use super::pragmas::{self, Role, BUSY_TIMEOUT_MS};
use super::tables::{NewAudit, NewReceipt};
use super::*;
use smsdesk_core::audit::{AuditAction, RecordedAction};
use smsdesk_core::domain::*;
use smsdesk_core::receipts::fields::ReceiptFields;
use smsdesk_core::receipts::parse::Stat;

fn temp_store() -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("smsdesk.db")).unwrap();
    (dir, store)
}

fn sample_receipt() -> NewReceipt {
    NewReceipt {
        received_at: 1,
        source: Some(ReceiptSource::SmppDeliverSm),
        connection: "sandbox".into(),
        raw: b"id:1 sub:001 dlvrd:001 submit date:2511291200 done date:2511291201 stat:DELIVRD err:000 text:".to_vec(),
        kind: Some(ReceiptKind::Receipt),
        parser_version: 1,
        fields: ReceiptFields {
            message_id_raw: Some("1".into()),
            stat: Some(Stat::Delivrd),
            ..ReceiptFields::default()
        },
        ..NewReceipt::default()
    }
}

#[test]
fn pragmas_are_in_force_on_writer_and_reader_connections() {
    let (_dir, store) = temp_store();
    let expected = |p: &pragmas::Pragmas| {
        assert_eq!(
            p.journal_mode.to_ascii_lowercase(),
            "wal",
            "the store must run in WAL mode"
        );
        assert_eq!(
            p.synchronous, 2,
            "synchronous must be FULL so acknowledged writes survive a power cut"
        );
        assert!(p.foreign_keys, "foreign keys must be enforced");
        assert_eq!(p.busy_timeout_ms, i64::from(BUSY_TIMEOUT_MS));
        assert!(p.stable_plans, "a plan must not depend on the values bound");
    };
    let on_writer = store.writer().write_blocking(|tx| pragmas::read(tx.conn())).unwrap();
    expected(&on_writer);
    let on_reader = store.reader().read_blocking(|c| pragmas::read(c)).unwrap();
    expected(&on_reader);
}

#[test]
fn read_back_reports_what_sqlite_really_has() {
    let dir = tempfile::tempdir().unwrap();
    let conn = Connection::open(dir.path().join("x.db")).unwrap();
    pragmas::apply(&conn, Role::Writer).unwrap();
    conn.pragma_update(None, "synchronous", "NORMAL").unwrap();
    let p = pragmas::read(&conn).unwrap();
    assert_eq!(p.synchronous, 1, "read-back must report what SQLite really has");
}

#[test]
fn migrations_are_numbered_from_one_without_gaps() {
    for (i, m) in migrations::MIGRATIONS.iter().enumerate() {
        assert_eq!(m.version as usize, i + 1, "migration {} is out of sequence", m.name);
        assert!(!m.sql.trim().is_empty());
    }
}

#[test]
fn migrations_build_every_table_on_an_empty_database() {
    let (_dir, store) = temp_store();
    assert_eq!(store.migration().from_version, 0);
    assert_eq!(store.migration().to_version, migrations::latest_version());
    assert_eq!(store.migration().applied.len(), migrations::MIGRATIONS.len());
    let tables: Vec<String> = store
        .reader()
        .read_blocking(|c| {
            let mut s = c.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")?;
            let names = s.query_map([], |r| r.get(0))?.collect::<Result<Vec<String>, _>>()?;
            Ok::<_, StoreError>(names)
        })
        .unwrap();
    for t in TABLES {
        assert!(
            tables.iter().any(|n| n == t),
            "table {t} missing after migrating an empty database"
        );
    }
    let user_version: u32 = store
        .reader()
        .read_blocking(|c| Ok::<_, StoreError>(c.pragma_query_value(None, "user_version", |r| r.get(0))?))
        .unwrap();
    assert_eq!(user_version, migrations::latest_version());
}

#[test]
fn reopening_does_not_rerun_migrations() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("smsdesk.db");
    let first = Store::open(&path).unwrap();
    let applied_at = |s: &Store| -> Vec<(u32, i64)> {
        s.reader()
            .read_blocking(|c| {
                let mut st = c.prepare("SELECT version, applied_at FROM schema_migration ORDER BY version")?;
                let v = st
                    .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
                    .collect::<Result<Vec<_>, _>>()?;
                Ok::<_, StoreError>(v)
            })
            .unwrap()
    };
    let before = applied_at(&first);
    first.shutdown();
    drop(first);
    std::thread::sleep(Duration::from_millis(5));
    let second = Store::open(&path).unwrap();
    assert!(
        second.migration().applied.is_empty(),
        "a migrated database must not be migrated again"
    );
    assert_eq!(applied_at(&second), before);
}

#[test]
fn an_edited_migration_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("smsdesk.db");
    Store::open(&path).unwrap().shutdown();
    let conn = Connection::open(&path).unwrap();
    conn.execute("UPDATE schema_migration SET checksum = 'edited' WHERE version = 1", [])
        .unwrap();
    drop(conn);
    match Store::open(&path) {
        Err(StoreError::MigrationEdited { version: 1, .. }) => {}
        other => panic!("an edited migration must be refused, got {:?}", other.err()),
    }
}

#[test]
fn a_newer_database_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("smsdesk.db");
    Store::open(&path).unwrap().shutdown();
    let conn = Connection::open(&path).unwrap();
    conn.execute("INSERT INTO schema_migration VALUES (999, 'future', 'x', 0)", [])
        .unwrap();
    drop(conn);
    match Store::open(&path) {
        Err(StoreError::SchemaTooNew { found: 999, .. }) => {}
        other => panic!("a database from a newer smsdesk must be refused, got {:?}", other.err()),
    }
}

#[test]
fn receipts_refuse_update_and_delete_in_sql() {
    let (_dir, store) = temp_store();
    let id = store
        .writer()
        .write_blocking(|tx| tx.receipts().append(&sample_receipt()))
        .unwrap();
    let update = store.writer().write_blocking(move |tx| {
        tx.conn()
            .execute("UPDATE receipt SET stat = 'UNDELIV' WHERE id = ?1", [id])
            .map_err(StoreError::from)
    });
    let msg = update.expect_err("UPDATE on receipt must be refused").to_string();
    assert!(msg.contains("append-only"), "{msg}");
    let delete = store.writer().write_blocking(move |tx| {
        tx.conn()
            .execute("DELETE FROM receipt WHERE id = ?1", [id])
            .map_err(StoreError::from)
    });
    assert!(delete.is_err(), "DELETE on receipt must be refused");
    // Even a direct connection outside the writer cannot do it.
    let conn = Connection::open(store.path()).unwrap();
    assert!(conn.execute("DELETE FROM receipt", []).is_err());
    assert!(conn.execute("UPDATE receipt SET raw = x'00'", []).is_err());
    let (stat, raw): (String, Vec<u8>) = store
        .reader()
        .read_blocking(move |c| {
            Ok::<_, StoreError>(c.query_row("SELECT stat, raw FROM receipt WHERE id = ?1", [id], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })?)
        })
        .unwrap();
    assert_eq!(stat, "DELIVRD", "the evidence must be unchanged");
    assert_eq!(raw, sample_receipt().raw);
}

#[test]
fn audit_refuses_update_and_delete_in_sql() {
    let (_dir, store) = temp_store();
    store
        .writer()
        .write_blocking(|tx| tx.audit().append(&NewAudit::new("system", AuditAction::SettingsUpdate)))
        .unwrap();
    let conn = Connection::open(store.path()).unwrap();
    assert!(
        conn.execute("UPDATE audit SET actor = 'x'", []).is_err(),
        "audit UPDATE must be refused"
    );
    assert!(
        conn.execute("DELETE FROM audit", []).is_err(),
        "audit DELETE must be refused"
    );
}

#[test]
fn an_audit_row_reads_back_with_its_action_even_one_this_version_does_not_know() {
    let (_dir, store) = temp_store();
    store
        .writer()
        .write_blocking(|tx| {
            tx.audit().append(&NewAudit {
                subject_type: Some("message".into()),
                subject_id: Some(7),
                ..NewAudit::new("ann", AuditAction::MessageRetryConfirmed)
            })
        })
        .unwrap();
    // A newer version's row, with a word this one has no action for.
    let conn = Connection::open(store.path()).unwrap();
    conn.execute(
        "INSERT INTO audit (at, actor, action, subject_type, subject_id) VALUES (2, 'bob', 'message.teleport', 'message', 7)",
        [],
    )
    .unwrap();
    let stored: String = conn
        .query_row("SELECT action FROM audit WHERE actor = 'ann'", [], |r| r.get(0))
        .unwrap();
    assert_eq!(stored, "message.retry_confirmed", "an action is stored as its word");

    let page = store
        .reader()
        .read_blocking(|c| views::audit_log(c, None, None))
        .expect("a row with an unknown action must not make the log unreadable");
    let actions: Vec<(&str, &RecordedAction)> = page.items.iter().map(|e| (e.actor.as_str(), &e.action)).collect();
    assert_eq!(
        actions,
        vec![
            ("bob", &RecordedAction::Other("message.teleport".into())),
            ("ann", &RecordedAction::Known(AuditAction::MessageRetryConfirmed)),
        ],
        "a known word reads as its action, an unknown one as written"
    );
    let json = serde_json::to_value(&page.items[0]).unwrap();
    assert_eq!(
        json["action"], "message.teleport",
        "clients get the word as it was written"
    );
}

#[test]
fn every_enum_text_form_passes_the_schema_checks() {
    let (_dir, store) = temp_store();
    store
        .writer()
        .write_blocking(|tx| {
            let c = tx.conn();
            for (i, k) in MessageKind::ALL.iter().enumerate() {
                c.execute(
                    "INSERT INTO message (id, created_at, channel, destination_raw, destination, body, encoding,
                         segments, kind, priority, registered_delivery, connection)
                     VALUES (?1, 0, 'cli', '+33600000000', '+33600000000', 'hi', 'gsm7', 1, ?2, ?3, 1, 'sandbox')",
                    params![i as i64 + 1, Text(*k), k.priority()],
                )?;
            }
            for (i, ch) in IntakeChannel::ALL.iter().enumerate() {
                c.execute(
                    "INSERT INTO message (id, created_at, channel, destination_raw, destination, body, encoding,
                         segments, kind, priority, registered_delivery, connection)
                     VALUES (?1, 0, ?2, '+33600000000', '+33600000000', 'hi', 'gsm7', 1, 'bulk', 2, 1, 'sandbox')",
                    params![i as i64 + 100, Text(*ch)],
                )?;
            }
            for (i, s) in QueueStatus::ALL.iter().enumerate() {
                let owner = (*s == QueueStatus::Sending).then_some("test");
                c.execute("DELETE FROM queue", [])?;
                c.execute(
                    "INSERT INTO queue (message_id, status, priority, next_attempt_at, lease_owner, updated_at)
                     VALUES (1, ?1, 0, ?2, ?3, 0)",
                    params![Text(*s), i as i64, owner],
                )?;
            }
            for s in DeliveryState::ALL {
                c.execute("DELETE FROM projection", [])?;
                c.execute(
                    "INSERT INTO projection (message_id, state, rule, fold_json, rules_version, updated_at)
                     VALUES (1, ?1, 'r', '{}', 1, 0)",
                    [Text(*s)],
                )?;
            }
            for (n, o) in AttemptOutcome::ALL.iter().enumerate() {
                c.execute(
                    "INSERT INTO attempt (message_id, attempt_no, connection, created_at, outcome) VALUES (1, ?1, 's', 0, ?2)",
                    params![n as i64 + 1, Text(*o)],
                )?;
            }
            for k in ExceptionKind::ALL {
                c.execute(
                    "INSERT INTO exception (kind, status, summary, created_at) VALUES (?1, 'open', 's', 0)",
                    [Text(*k)],
                )?;
            }
            for k in ReceiptKind::ALL {
                for s in ReceiptSource::ALL {
                    let mut r = sample_receipt();
                    r.kind = Some(*k);
                    r.source = Some(*s);
                    tx.receipts().append(&r)?;
                }
            }
            let receipt_id = tx.receipts().append(&sample_receipt())?;
            let c = tx.conn();
            for st in ExceptionStatus::ALL {
                let closed = (*st != ExceptionStatus::Open).then_some(1_i64);
                c.execute(
                    "INSERT INTO exception (kind, status, summary, created_at, resolution_note, resolved_at)
                     VALUES ('unparseable', ?1, 's', 0, ?2, ?3)",
                    params![Text(*st), closed.map(|_| "checked by hand"), closed],
                )?;
            }
            for (i, corr) in Correlation::ALL.iter().enumerate() {
                let message = (*corr == Correlation::Matched).then_some(1_i64);
                c.execute(
                    "INSERT INTO logical_event (connection, dedup_key, key_source, receipt_kind, first_receipt_id,
                         created_at, correlation, message_id)
                     VALUES ('s', ?1, 'fingerprint', 'receipt', ?2, 0, ?3, ?4)",
                    params![format!("k{i}"), receipt_id, Text(*corr), message],
                )?;
            }
            // And a form the schema does not know is refused.
            assert!(c
                .execute(
                    "INSERT INTO attempt (message_id, attempt_no, connection, created_at, outcome) VALUES (1, 99, 's', 0, 'sent')",
                    [],
                )
                .is_err());
            Ok::<_, StoreError>(())
        })
        .expect("every Rust enum form must be accepted by the schema");
}

/// Counts rows of the `audit` table written by [`audit_row`] with `label`.
fn count_actions(store: &Store, label: &'static str) -> i64 {
    store
        .reader()
        .read_blocking(move |c| {
            Ok::<_, StoreError>(c.query_row("SELECT count(*) FROM audit WHERE note = ?1", [label], |r| r.get(0))?)
        })
        .unwrap()
}

/// An audit row told apart from others by its note, `label`.
fn audit_row(label: &str) -> NewAudit {
    NewAudit {
        note: Some(label.into()),
        ..NewAudit::new("system", AuditAction::SettingsUpdate)
    }
}

#[derive(Debug, thiserror::Error)]
enum TestError {
    #[error("refused on purpose")]
    Refused,
    #[error(transparent)]
    Store(#[from] StoreError),
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failing_operation_does_not_take_its_batch_down_nor_half_apply() {
    let (_dir, store) = temp_store();
    let writer = store.writer().clone();

    // Hold the writer inside a first batch until every other operation is queued, so that they
    // all land in the next batch together.
    let (release, blocker) = crate::replay_tests::hold(&writer).await;

    let mut good = Vec::new();
    for _ in 0..3 {
        let w = writer.clone();
        good.push(tokio::spawn(async move {
            w.write(|tx| {
                tx.audit().append(&audit_row("good"))?;
                Ok::<_, TestError>(tx.batch())
            })
            .await
        }));
    }
    let failing = {
        let w = writer.clone();
        tokio::spawn(async move {
            w.write(|tx| {
                // Write first, then fail: the write must not survive.
                tx.audit().append(&audit_row("half"))?;
                Err::<u64, _>(TestError::Refused)
            })
            .await
        })
    };
    let panicking = {
        let w = writer.clone();
        tokio::spawn(async move {
            w.write(|tx| {
                tx.audit().append(&audit_row("panicked")).unwrap();
                if tx.batch() > 0 {
                    panic!("an operation that panics mid-way");
                }
                Ok::<u64, StoreError>(0)
            })
            .await
        })
    };
    let last = {
        let w = writer.clone();
        tokio::spawn(async move {
            w.write(|tx| {
                tx.audit().append(&audit_row("good"))?;
                Ok::<_, StoreError>(tx.batch())
            })
            .await
        })
    };
    crate::replay_tests::until_queued(&writer, 6).await;
    release.send(()).unwrap();

    let first_batch = blocker.await.unwrap();
    let mut batches = Vec::new();
    for g in good {
        batches.push(
            g.await
                .unwrap()
                .expect("a good operation must be answered with its result"),
        );
    }
    batches.push(last.await.unwrap().unwrap());
    assert!(
        batches.iter().all(|b| *b == first_batch + 1),
        "the queued operations must share one batch: {batches:?}"
    );

    assert!(
        matches!(failing.await.unwrap(), Err(TestError::Refused)),
        "the failing caller gets its own error"
    );
    assert!(
        matches!(panicking.await.unwrap(), Err(StoreError::Aborted)),
        "a panicked operation reports Aborted"
    );
    assert_eq!(
        count_actions(&store, "good"),
        4,
        "every good operation in the batch must be committed"
    );
    assert_eq!(
        count_actions(&store, "half"),
        0,
        "a failed operation must not half-apply"
    );
    assert_eq!(
        count_actions(&store, "panicked"),
        0,
        "a panicked operation must not half-apply"
    );

    // And the writer still works afterwards.
    writer.write(|tx| tx.audit().append(&audit_row("after"))).await.unwrap();
    assert_eq!(count_actions(&store, "after"), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn callers_are_answered_only_after_commit_and_changes_follow_commit() {
    let (_dir, store) = temp_store();
    let mut changes = store.subscribe();
    let path = store.path().to_owned();
    let id = store
        .writer()
        .write(|tx| tx.receipts().append(&sample_receipt()))
        .await
        .unwrap();
    // A separate connection sees the row as soon as the caller has its answer.
    let seen: i64 = tokio::task::spawn_blocking(move || {
        let c = Connection::open(path).unwrap();
        c.query_row("SELECT count(*) FROM receipt WHERE id = ?1", [id], |r| r.get(0))
            .unwrap()
    })
    .await
    .unwrap();
    assert_eq!(seen, 1, "an answered write must already be committed");
    let change = changes.recv().await.unwrap();
    assert_eq!(
        change,
        Change {
            entity: Entity::Receipt,
            id
        }
    );

    // A failed operation announces nothing.
    let _ = store
        .writer()
        .write(|tx| {
            tx.receipts().append(&sample_receipt())?;
            Err::<(), _>(StoreError::Aborted)
        })
        .await;
    let next = store
        .writer()
        .write(|tx| tx.audit().append(&audit_row("x")))
        .await
        .unwrap();
    assert_eq!(
        changes.recv().await.unwrap(),
        Change {
            entity: Entity::Audit,
            id: next
        }
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn many_concurrent_writers_are_grouped_into_few_commits() {
    let (_dir, store) = temp_store();
    let mut tasks = Vec::new();
    for _ in 0..2_000 {
        let w = store.writer().clone();
        tasks.push(tokio::spawn(async move {
            w.write(|tx| {
                tx.audit().append(&audit_row("bulk"))?;
                Ok::<_, StoreError>(tx.batch())
            })
            .await
        }));
    }
    let mut batches = std::collections::BTreeSet::new();
    for t in tasks {
        batches.insert(t.await.unwrap().unwrap());
    }
    assert_eq!(count_actions(&store, "bulk"), 2_000);
    assert!(
        batches.len() < 2_000,
        "concurrent writes must share transactions ({} batches)",
        batches.len()
    );
}

#[test]
fn writes_after_shutdown_are_refused_and_queued_ones_complete() {
    let (_dir, store) = temp_store();
    store
        .writer()
        .write_blocking(|tx| tx.audit().append(&audit_row("before")))
        .unwrap();
    store.shutdown();
    let after = store
        .writer()
        .write_blocking(|tx| tx.audit().append(&audit_row("late")));
    assert!(
        matches!(after, Err(StoreError::Closed)),
        "a write after shutdown must be refused, got {after:?}"
    );
    assert_eq!(count_actions(&store, "before"), 1);
}

/// The tables version 4 rebuilt, with the column that orders each.
const REBUILT: &[(&str, &str)] = &[
    ("receipt", "id"),
    ("logical_event", "id"),
    ("receipt_outcome", "receipt_id"),
    ("projection", "message_id"),
    ("projection_input", "seq"),
];

/// A table's columns, in order.
fn columns(c: &Connection, table: &str) -> Vec<String> {
    c.prepare(&format!("SELECT name FROM pragma_table_info('{table}')"))
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

/// Every row of a table, every column, as SQLite gives it back.
fn dump(c: &Connection, table: &str, order: &str) -> Vec<Vec<rusqlite::types::Value>> {
    dump_columns(c, table, &columns(c, table), order)
}

/// Every row of a table, the given columns, as SQLite gives them back.
fn dump_columns(c: &Connection, table: &str, columns: &[String], order: &str) -> Vec<Vec<rusqlite::types::Value>> {
    let mut s = c
        .prepare(&format!("SELECT {} FROM {table} ORDER BY {order}", columns.join(", ")))
        .unwrap();
    let n = s.column_count();
    s.query_map([], |r| (0..n).map(|i| r.get(i)).collect())
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

fn count(c: &Connection, table: &str) -> i64 {
    c.query_row(&format!("SELECT count(*) FROM {table}"), [], |r| r.get(0))
        .unwrap()
}

/// A version 3 database with a little of everything ingestion writes.
fn version_3_database(path: &std::path::Path) {
    let mut c = Connection::open(path).unwrap();
    pragmas::apply(&c, Role::Writer).unwrap();
    let report = migrations::migrate_to(&mut c, 3, &Clock::system()).unwrap();
    assert_eq!(report.to_version, 3);
    c.execute_batch(
        "INSERT INTO message (id, created_at, channel, destination_raw, destination, body, encoding, segments,
             kind, priority, registered_delivery, connection)
         VALUES (1, 10, 'api', '+33600000001', '+33600000001', 'one', 'gsm7', 1, 'otp', 1, 1, 'sandbox'),
                (2, 11, 'cli', '+33600000002', '+33600000002', 'two', 'gsm7', 1, 'bulk', 3, 1, 'sandbox');
         INSERT INTO queue (message_id, status, priority, next_attempt_at, updated_at)
         VALUES (1, 'accepted', 15, 0, 12), (2, 'accepted', 35, 0, 12);
         INSERT INTO attempt (message_id, attempt_no, connection, created_at, provider_message_id,
             provider_id_norm, outcome)
         VALUES (1, 1, 'sandbox', 12, 'A1', 'a1', 'accepted'), (2, 1, 'sandbox', 12, 'A2', 'a2', 'accepted');
         INSERT INTO receipt (received_at, source, connection, raw, raw_text, kind, parser_version,
             message_id_raw, stat, tlvs_json, pdu)
         VALUES (20, 'smpp_deliver_sm', 'sandbox', x'6964', 'id:A1 stat:DELIVRD', 'receipt', 1, 'A1', 'DELIVRD',
                 '[{\"tag\":\"0x001e\",\"hex\":\"4131\"}]', x'00010203'),
                (21, 'smpp_deliver_sm', 'sandbox', x'6964', 'id:A1 stat:DELIVRD', 'receipt', 1, 'A1', 'DELIVRD',
                 NULL, NULL),
                (22, 'smpp_data_sm', 'sandbox', x'6964', 'id:A2 stat:ENROUTE', 'intermediate', 1, 'A2', 'ENROUTE',
                 NULL, NULL),
                (23, 'http', 'sandbox', x'7b7d', '{}', 'unparseable', 1, NULL, NULL, NULL, NULL),
                (24, 'smpp_deliver_sm', 'sandbox', x'6869', 'hi', 'mo', 1, NULL, NULL, NULL, NULL),
                (25, 'smpp_deliver_sm', 'sandbox', x'6964', 'id:ZZ stat:DELIVRD', 'receipt', 1, 'ZZ', 'DELIVRD',
                 NULL, NULL);
         INSERT INTO logical_event (connection, dedup_key, key_source, receipted_id_norm, stat, receipt_kind,
             first_receipt_id, created_at, correlation, message_id, correlated_at, correlated_by)
         VALUES ('sandbox', 'fp1|a1|DELIVRD', 'fingerprint', 'a1', 'DELIVRD', 'receipt', 1, 20, 'matched', 1, 20,
                 'system'),
                ('sandbox', 'fp1|a2|ENROUTE', 'fingerprint', 'a2', 'ENROUTE', 'intermediate', 3, 22, 'matched', 2, 22,
                 'system'),
                ('sandbox', 'fp1|zz|DELIVRD', 'fingerprint', 'zz', 'DELIVRD', 'receipt', 6, 25, 'none', NULL, NULL,
                 NULL);
         INSERT INTO receipt_outcome (receipt_id, logical_event_id, is_repeat, flags_json, processed_at)
         VALUES (1, 1, 0, NULL, 20), (2, 1, 1, NULL, 21), (3, 2, 0, '{\"mismatch\":true}', 22), (4, NULL, 0, NULL, 23),
                (5, NULL, 0, NULL, 24), (6, 3, 0, NULL, 25);
         INSERT INTO inbound_message (receipt_id, connection, body, received_at) VALUES (5, 'sandbox', 'hi', 24);
         INSERT INTO exception (kind, status, logical_event_id, summary, created_at)
         VALUES ('uncorrelated', 'open', 3, 'no message', 25), ('unparseable', 'open', NULL, 'unreadable', 23);
         INSERT INTO exception_evidence (exception_id, receipt_id, role) VALUES (1, 6, 'receipt'), (2, 4, 'receipt');
         INSERT INTO projection_input (message_id, kind, logical_event_id, applied_at)
         VALUES (1, 'event', 1, 20), (2, 'event', 2, 22);
         INSERT INTO projection (message_id, state, rule, supporting_json, flag_mismatch, fold_json, rules_version,
             updated_at)
         VALUES (1, 'delivered', 'first_final', '[1]', 0, '{\"state\":\"delivered\"}', 1, 20),
                (2, 'enroute', 'intermediate', '[2]', 1, '{\"state\":\"enroute\"}', 1, 22);",
    )
    .unwrap();
}

#[test]
fn a_version_3_database_migrates_with_every_row_intact() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("smsdesk.db");
    version_3_database(&path);

    let all_tables = [
        "message",
        "queue",
        "attempt",
        "receipt",
        "logical_event",
        "receipt_outcome",
        "projection",
        "projection_input",
        "inbound_message",
        "exception",
        "exception_evidence",
        "view_count",
    ];
    let before = {
        let c = Connection::open(&path).unwrap();
        let counts: Vec<i64> = all_tables.iter().map(|t| count(&c, t)).collect();
        let rows: Vec<_> = REBUILT.iter().map(|(t, o)| (columns(&c, t), dump(&c, t, o))).collect();
        let views = dump(&c, "view_count", "scope, value");
        (counts, rows, views)
    };

    let store = Store::open(&path).unwrap();
    assert_eq!(store.migration().from_version, 3);
    assert!(store.migration().applied.contains(&4), "version 4 must be applied");
    let c = Connection::open(&path).unwrap();
    pragmas::apply(&c, Role::Reader).unwrap();
    let counts: Vec<i64> = all_tables.iter().map(|t| count(&c, t)).collect();
    assert_eq!(
        counts, before.0,
        "no row may be lost or added by the migration ({all_tables:?})"
    );
    for ((t, o), (columns, rows)) in REBUILT.iter().zip(&before.1) {
        assert_eq!(
            &dump_columns(&c, t, columns, o),
            rows,
            "every column of every {t} row must survive the rebuild (columns added later aside)"
        );
    }
    assert_eq!(
        dump(&c, "view_count", "scope, value"),
        before.2,
        "the dashboard counts must not move"
    );
    let integrity: String = c.query_row("PRAGMA integrity_check", [], |r| r.get(0)).unwrap();
    assert_eq!(integrity, "ok");
    let broken: Vec<String> = c
        .prepare("PRAGMA foreign_key_check")
        .unwrap()
        .query_map([], |r| r.get::<_, String>(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert!(broken.is_empty(), "every reference must still resolve: {broken:?}");
    drop(c);
    let on_writer = store.writer().write_blocking(|tx| pragmas::read(tx.conn())).unwrap();
    assert!(
        on_writer.foreign_keys,
        "foreign keys must be enforced again after migrating"
    );

    // The rebuilt tables keep their indexes, triggers and checks, and new ids follow the old.
    let objects: Vec<String> = store
        .reader()
        .read_blocking(|c| {
            let mut s = c.prepare(
                "SELECT name FROM sqlite_master WHERE type IN ('index', 'trigger')
                 AND tbl_name IN ('receipt', 'logical_event', 'receipt_outcome', 'projection', 'projection_input')",
            )?;
            let v = s.query_map([], |r| r.get(0))?.collect::<Result<Vec<String>, _>>()?;
            Ok::<_, StoreError>(v)
        })
        .unwrap();
    for name in [
        "receipt_refuses_update",
        "receipt_refuses_delete",
        "logical_event_message",
        "logical_event_uncorrelated",
        "receipt_outcome_event",
        "projection_state",
        "projection_input_message",
        // (Version 6 leaves the projections' other counts to the writer, version 7 their
        // webhook notifications.)
        "view_count_projection_delete",
    ] {
        assert!(objects.iter().any(|o| o == name), "{name} must exist after the rebuild");
    }
    let (id, refused, projected) = store
        .writer()
        .write_blocking(|tx| {
            let id = tx.receipts().append(&sample_receipt())?;
            let c = tx.conn();
            let refused = c.execute("DELETE FROM receipt WHERE id = 1", []).is_err();
            c.execute("DELETE FROM projection WHERE message_id = 2", [])?;
            let projected: i64 = c.query_row(
                "SELECT n FROM view_count WHERE scope = 'projection' AND value = 'enroute'",
                [],
                |r| r.get(0),
            )?;
            let bad_state = c
                .execute("UPDATE projection SET state = 'read' WHERE message_id = 1", [])
                .is_err();
            assert!(bad_state, "the state check must still refuse an unknown state");
            Ok::<_, StoreError>((id, refused, projected))
        })
        .unwrap();
    assert_eq!(id, 7, "a new receipt id must follow the last one");
    assert!(refused, "receipts must still refuse DELETE");
    assert_eq!(projected, 0, "the count trigger must still follow a deleted projection");
}

#[test]
fn version_8_puts_each_message_s_last_accepted_submit_on_its_queue_row() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("smsdesk.db");
    {
        let mut c = Connection::open(&path).unwrap();
        pragmas::apply(&c, Role::Writer).unwrap();
        migrations::migrate_to(&mut c, 7, &Clock::system()).unwrap();
        // 1: two segments, the second answered before the first, then a failed retry; 2: accepted
        // with no response time recorded; 3: never accepted.
        c.execute_batch(
            "INSERT INTO message (id, created_at, channel, destination_raw, destination, body, encoding, segments,
                 kind, priority, registered_delivery, connection)
             VALUES (1, 10, 'api', '+33600000001', '+33600000001', 'one', 'gsm7', 2, 'bulk', 3, 1, 'sandbox'),
                    (2, 10, 'api', '+33600000002', '+33600000002', 'two', 'gsm7', 1, 'bulk', 3, 1, 'sandbox'),
                    (3, 10, 'api', '+33600000003', '+33600000003', 'three', 'gsm7', 1, 'bulk', 3, 1, 'sandbox');
             INSERT INTO queue (message_id, status, priority, next_attempt_at, updated_at)
             VALUES (1, 'accepted', 35, 0, 12), (2, 'accepted', 35, 0, 12), (3, 'failed', 35, 0, 12);
             INSERT INTO attempt (id, message_id, attempt_no, segment_no, connection, created_at, sent_at, responded_at,
                 provider_message_id, provider_id_norm, outcome)
             VALUES (1, 1, 1, 1, 'sandbox', 11, 12, 40, 'A1', 'a1', 'accepted'),
                    (2, 1, 1, 2, 'sandbox', 11, 12, 30, 'A2', 'a2', 'accepted'),
                    (3, 1, 2, 1, 'sandbox', 50, 51, 52, NULL, NULL, 'temporary'),
                    (4, 2, 1, 1, 'sandbox', 11, 13, NULL, 'B1', 'b1', 'accepted'),
                    (5, 3, 1, 1, 'sandbox', 11, 12, 14, NULL, NULL, 'permanent');",
        )
        .unwrap();
    }
    let store = Store::open(&path).unwrap();
    assert!(store.migration().applied.contains(&8));
    let (rows, disagreeing, indexed) = store
        .reader()
        .read_blocking(|c| {
            let rows = c
                .prepare("SELECT message_id, accepted_attempt_id, accepted_at FROM queue ORDER BY message_id")?
                .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
                .collect::<Result<Vec<(i64, Option<i64>, Option<i64>)>, _>>()?;
            let disagreeing = crate::checks::accepted_submits_disagreeing(c)?;
            let indexed = c
                .prepare("SELECT name FROM pragma_index_info('attempt_provider_id') ORDER BY seqno")?
                .query_map([], |r| r.get(0))?
                .collect::<Result<Vec<String>, _>>()?;
            Ok::<_, StoreError>((rows, disagreeing, indexed))
        })
        .unwrap();
    assert_eq!(
        rows,
        vec![(1, Some(2), Some(30)), (2, Some(4), Some(13)), (3, None, None)],
        "the accepted attempt with the highest id, and its answer's time (else when it was sent)"
    );
    assert_eq!(disagreeing, Vec::<i64>::new());
    assert_eq!(indexed, ["connection", "provider_id_norm", "message_id"]);
}

#[test]
fn running_totals_follow_what_commits_and_forget_what_is_rolled_back() {
    let (_dir, store) = temp_store();
    let w = store.writer();
    w.write_blocking(|tx| {
        tx.receipts().append(&sample_receipt())?;
        tx.receipts().append(&sample_receipt())?;
        Ok::<_, StoreError>(())
    })
    .unwrap();
    // A savepoint that fails takes its receipt and its count with it; the rest stands.
    w.write_blocking(|tx| {
        tx.receipts().append(&sample_receipt())?;
        let undone = tx.nested(|tx| {
            tx.receipts().append(&sample_receipt())?;
            Err::<(), _>(StoreError::Aborted)
        });
        assert!(undone.is_err());
        Ok::<_, StoreError>(())
    })
    .unwrap();
    // So does an operation that fails, and one that panics.
    let failed = w.write_blocking(|tx| {
        tx.receipts().append(&sample_receipt())?;
        Err::<(), _>(StoreError::Aborted)
    });
    assert!(failed.is_err());
    let panicked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        w.write_blocking(|tx| {
            tx.receipts().append(&sample_receipt())?;
            if tx.batch() > 0 {
                panic!("an operation that panics after writing");
            }
            Ok::<_, StoreError>(())
        })
    }));
    assert!(
        matches!(panicked, Ok(Err(_)) | Err(_)),
        "the panicking write is not stored"
    );
    // An incoming message is stored but is not a report.
    w.write_blocking(|tx| {
        tx.receipts().append(&NewReceipt {
            kind: Some(ReceiptKind::Mo),
            ..sample_receipt()
        })
    })
    .unwrap();

    let (rows, per_grain, kept, recomputed) = w
        .write_blocking(|tx| {
            let c = tx.conn();
            let rows = count(c, "receipt");
            let mut s = c.prepare("SELECT grain, bucket, n FROM activity_count WHERE metric = 'receipt' ORDER BY 1")?;
            let per_grain = s
                .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
                .collect::<Result<Vec<(i64, i64, i64)>, _>>()?;
            Ok::<_, StoreError>((
                rows,
                per_grain,
                checks::totals_stored(c)?,
                checks::totals_recomputed(c)?,
            ))
        })
        .unwrap();
    assert_eq!(rows, 4, "three reports and an incoming message were committed");
    assert_eq!(
        per_grain,
        [(60_000, 0, 3), (3_600_000, 0, 3), (86_400_000, 0, 3)],
        "each committed report counts once in its minute, hour and day; nothing rolled back does"
    );
    assert_eq!(kept, recomputed);
}

/// A writer that always has work never finds the WAL wholly copied, which is when SQLite starts
/// it over; without help the file grows by everything written.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_wal_starts_over_under_a_writer_that_never_pauses() {
    let (dir, store) = temp_store();
    const TASKS: usize = 32;
    const ROW: usize = 4 * 1024;
    // Long enough for several background passes (one each 250 ms).
    let until = std::time::Instant::now() + Duration::from_secs(2);
    let mut tasks = Vec::new();
    for _ in 0..TASKS {
        let w = store.writer().clone();
        tasks.push(tokio::spawn(async move {
            let mut n = 0;
            while std::time::Instant::now() < until {
                w.write(|tx| {
                    tx.receipts().append(&NewReceipt {
                        raw: vec![b'x'; ROW],
                        ..sample_receipt()
                    })
                })
                .await
                .unwrap();
                n += 1;
            }
            n
        }));
    }
    let mut writes = 0;
    for t in tasks {
        writes += t.await.unwrap();
    }
    let written_mib = (writes * ROW) as f64 / 1_048_576.0;
    let wal_mib = std::fs::metadata(dir.path().join("smsdesk.db-wal")).unwrap().len() as f64 / 1_048_576.0;
    let rows = store
        .reader()
        .read_blocking(|c| Ok::<_, StoreError>(count(c, "receipt")))
        .unwrap();
    assert_eq!(rows, writes as i64, "every write is stored");
    assert!(
        written_mib > 8.0,
        "the test must write well past the restart point: {written_mib:.1} MiB"
    );
    assert!(
        wal_mib < written_mib / 2.0,
        "the WAL must be written over again, not grow by all that was written: {wal_mib:.1} MiB for {written_mib:.1} MiB written"
    );
}

#[test]
fn version_4_checks_are_comparisons_not_lists() {
    let (_dir, store) = temp_store();
    let sql: Vec<(String, String)> = store
        .reader()
        .read_blocking(|c| {
            let mut s = c.prepare(
                "SELECT name, sql FROM sqlite_master WHERE type = 'table'
                 AND name IN ('receipt', 'logical_event', 'receipt_outcome', 'projection', 'projection_input')",
            )?;
            let v = s
                .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
                .collect::<Result<Vec<_>, _>>()?;
            Ok::<_, StoreError>(v)
        })
        .unwrap();
    assert_eq!(sql.len(), REBUILT.len());
    for (name, sql) in sql {
        // A list of three or more makes SQLite build a temporary b-tree for every row written.
        assert!(
            !sql.contains(" IN ("),
            "table {name} must check enumerations with comparisons: {sql}"
        );
    }
}

#[test]
fn a_receipts_fields_are_read_back_as_they_were_written() {
    let (_dir, store) = temp_store();
    let fields = ReceiptFields {
        message_id_raw: Some("0A1b".into()),
        id_source: Some(IdSource::Tlv),
        text_id: Some("2587".into()),
        event_id: Some("ev-1".into()),
        stat: Some(Stat::Undeliv),
        stat_raw: Some("undelivered".into()),
        status_unreadable: false,
        err: Some("001".into()),
        sub: Some("001".into()),
        dlvrd: Some("000".into()),
        submit_date: Some("2611291200".into()),
        done_date: Some("2611291201".into()),
        submit_ts: Some("2026-11-29T12:00:00".into()),
        done_ts: Some("2026-11-29T12:01:00".into()),
        message_state: Some(5),
        network_error_code: Some("030001".into()),
    };
    let row = NewReceipt {
        fields: fields.clone(),
        ..sample_receipt()
    };
    store
        .writer()
        .write_blocking(move |tx| tx.receipts().append(&row))
        .unwrap();
    let back = store
        .reader()
        .read_blocking(|c| tables::receipt::unprocessed(c, 0, 10))
        .unwrap();
    assert_eq!(
        back[0].1.fields, fields,
        "every field the report was read into is kept as it was"
    );
}
