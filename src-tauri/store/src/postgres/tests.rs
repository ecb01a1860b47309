//! The PostgreSQL schema against a real server: made once however many nodes start at once, the
//! same tables and columns as SQLite's, and the evidence append-only for the application's role
//! (its grants) and for the owner too (the triggers).

use std::collections::BTreeMap;

use smsdesk_core::time::Clock;

use super::migrations::{self, MIGRATIONS};
use crate::db::{pg_test, Db, PgConn};
use crate::StoreError;

fn migrated() -> (pg_test::TestDb, PgConn) {
    let database = pg_test::database();
    let conn = database.connect();
    migrations::migrate(Db::Postgres(&conn), &Clock::system()).unwrap();
    (database, conn)
}

#[test]
fn the_schema_is_made_on_an_empty_database_once_and_a_second_start_changes_nothing() {
    let database = pg_test::database();
    let conn = database.connect();
    let db = Db::Postgres(&conn);
    let first = migrations::migrate(db, &Clock::system()).unwrap();
    assert_eq!((first.from_version, first.to_version), (0, 31));
    assert_eq!(first.applied, vec![30, 31]);
    let again = migrations::migrate(db, &Clock::system()).unwrap();
    assert_eq!((again.from_version, again.to_version, again.applied), (31, 31, vec![]));
    for table in crate::TABLES {
        let n: i64 = db
            .one(
                "SELECT COUNT(*) FROM information_schema.tables WHERE table_name = ?1",
                &[table],
            )
            .unwrap();
        assert_eq!(n, 1, "{table}");
    }
}

#[test]
fn nodes_that_start_together_make_the_schema_once() {
    let database = pg_test::database();
    let url = database.url.clone();
    let nodes: Vec<_> = (0..4)
        .map(|_| {
            let url = url.clone();
            std::thread::spawn(move || {
                let conn = PgConn::connect(&url).unwrap();
                migrations::migrate(Db::Postgres(&conn), &Clock::system()).map(|r| r.applied)
            })
        })
        .collect();
    let applied: Vec<Vec<u32>> = nodes.into_iter().map(|n| n.join().unwrap().unwrap()).collect();
    // Each version applied by one node, whichever.
    let mut each: Vec<u32> = applied.iter().flatten().copied().collect();
    each.sort_unstable();
    let all: Vec<u32> = migrations::MIGRATIONS.iter().map(|m| m.version).collect();
    assert_eq!(each, all, "{applied:?}");
    let conn = database.connect();
    let rows: i64 = Db::Postgres(&conn)
        .one("SELECT COUNT(*) FROM schema_migration", &[])
        .unwrap();
    assert_eq!(rows, all.len() as i64);
}

#[test]
fn an_edited_migration_or_a_newer_database_is_refused_and_left_as_it_is() {
    let (_database, conn) = migrated();
    let db = Db::Postgres(&conn);
    db.execute(
        "UPDATE schema_migration SET checksum = 'edited' WHERE version = 30",
        &[],
    )
    .unwrap();
    let e = migrations::migrate(db, &Clock::system()).unwrap_err();
    assert!(matches!(e, StoreError::MigrationEdited { version: 30, .. }), "{e}");
    db.execute(
        "UPDATE schema_migration SET checksum = ?1 WHERE version = 30",
        &[&crate::migrations::checksum(MIGRATIONS[0].sql)],
    )
    .unwrap();
    db.execute("INSERT INTO schema_migration VALUES (999, 'future', 'x', 0)", &[])
        .unwrap();
    let e = migrations::migrate(db, &Clock::system()).unwrap_err();
    assert!(matches!(e, StoreError::SchemaTooNew { found: 999, known: 31 }), "{e}");
}

/// Every table's columns, in order, with SQLite's internal tables and FTS5's left out.
fn sqlite_columns() -> BTreeMap<String, Vec<String>> {
    let mut conn = rusqlite::Connection::open_in_memory().unwrap();
    crate::migrations::migrate(&mut conn, &Clock::system()).unwrap();
    let db = Db::Sqlite(&conn);
    let tables = db
        .query(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'
             AND name NOT LIKE 'message_fts%'",
            &[],
            |r| r.get::<String>(0),
        )
        .unwrap();
    tables
        .into_iter()
        .map(|t| {
            let columns = db
                .query("SELECT name FROM pragma_table_info(?1) ORDER BY cid", &[&t], |r| {
                    r.get::<String>(0)
                })
                .unwrap();
            (t, columns)
        })
        .collect()
}

#[test]
fn every_table_and_column_of_sqlite_is_in_postgresql_in_the_same_order() {
    let (_database, conn) = migrated();
    let rows = Db::Postgres(&conn)
        .query(
            "SELECT table_name, column_name FROM information_schema.columns
             WHERE table_schema = current_schema() ORDER BY table_name, ordinal_position",
            &[],
            |r| Ok((r.get::<String>(0)?, r.get::<String>(1)?)),
        )
        .unwrap();
    let mut postgres: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (table, column) in rows {
        postgres.entry(table).or_default().push(column);
    }
    assert_eq!(postgres, sqlite_columns());
}

/// A role that logs in as the application's nodes do: a member of `smsdesk_app`, nothing more.
fn node_role(database: &pg_test::TestDb, owner: &PgConn) -> PgConn {
    static N: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let name = format!(
        "node{}_{}",
        std::process::id(),
        N.fetch_add(1, std::sync::atomic::Ordering::SeqCst)
    );
    Db::Postgres(owner)
        .execute_batch(&format!(
            "CREATE ROLE {name} LOGIN PASSWORD 'node-secret' IN ROLE smsdesk_app"
        ))
        .unwrap();
    let (_, host_and_database) = database.url.split_once('@').unwrap();
    PgConn::connect(&format!("postgres://{name}:node-secret@{host_and_database}")).unwrap()
}

#[test]
fn the_applications_role_may_not_change_or_remove_evidence_and_the_owner_is_refused_by_the_triggers() {
    let (database, owner) = migrated();
    let node = node_role(&database, &owner);
    let app = Db::Postgres(&node);
    // The node writes evidence as it must.
    let id: i64 = app
        .one(
            "INSERT INTO audit (at, actor, action, note) VALUES (1, 'op', 'test', 'n') RETURNING id",
            &[],
        )
        .unwrap();
    // Its role was never granted more than redaction needs (a new actor, note and details)…
    for sql in [
        "UPDATE audit SET action = 'another' WHERE id = ?1",
        "DELETE FROM audit WHERE id = ?1",
    ] {
        let e = app.execute(sql, &[&id]).unwrap_err();
        assert!(e.to_string().contains("permission denied"), "{sql}: {e}");
    }
    // …and what it was granted is refused by the triggers unless it is a redaction.
    let e = app
        .execute("UPDATE audit SET actor = 'someone else' WHERE id = ?1", &[&id])
        .unwrap_err();
    assert!(e.to_string().contains("audit is append-only: UPDATE refused"), "{e}");
    // The owner may by its grants; the triggers refuse, with SQLite's words.
    let db = Db::Postgres(&owner);
    let e = db
        .execute("UPDATE audit SET actor = 'someone else' WHERE id = ?1", &[&id])
        .unwrap_err();
    assert!(e.to_string().contains("audit is append-only: UPDATE refused"), "{e}");
    let e = db.execute("DELETE FROM audit WHERE id = ?1", &[&id]).unwrap_err();
    assert!(e.to_string().contains("audit is append-only: DELETE refused"), "{e}");
    let actor: String = db.one("SELECT actor FROM audit WHERE id = ?1", &[&id]).unwrap();
    assert_eq!(actor, "op");
}

#[test]
fn a_node_finds_the_schema_made_by_the_owner_and_may_not_change_its_version() {
    let (database, owner) = migrated();
    let node = node_role(&database, &owner);
    let app = Db::Postgres(&node);
    let report = migrations::migrate(app, &Clock::system()).unwrap();
    assert_eq!(
        (report.from_version, report.to_version, report.applied),
        (31, 31, vec![])
    );
    let e = app
        .execute("UPDATE schema_migration SET checksum = 'x'", &[])
        .unwrap_err();
    assert!(e.to_string().contains("permission denied"), "{e}");
}

#[test]
fn a_receipt_is_kept_as_it_came_whoever_asks_and_only_a_redaction_may_replace_its_content() {
    let (database, owner) = migrated();
    let node = node_role(&database, &owner);
    let app = Db::Postgres(&node);
    let id: i64 = app
        .one(
            "INSERT INTO receipt (received_at, source, connection, source_addr, raw, kind, parser_version, stat)
             VALUES (1, 'smpp_deliver_sm', 'main', '+33612345678', ?1, 'receipt', 1, 'DELIVRD') RETURNING id",
            &[&b"id:1 stat:DELIVRD".to_vec()],
        )
        .unwrap();
    let refusals = [
        (
            app,
            "UPDATE receipt SET stat = 'UNDELIV' WHERE id = ?1",
            "permission denied",
        ),
        (app, "DELETE FROM receipt WHERE id = ?1", "permission denied"),
        (
            app,
            "UPDATE receipt SET source_addr = 'someone' WHERE id = ?1",
            "receipt is append-only evidence",
        ),
        (
            Db::Postgres(&owner),
            "UPDATE receipt SET stat = 'UNDELIV' WHERE id = ?1",
            "receipt is append-only evidence",
        ),
        (
            Db::Postgres(&owner),
            "DELETE FROM receipt WHERE id = ?1",
            "receipt is append-only evidence: DELETE refused",
        ),
    ];
    for (db, sql, said) in refusals {
        let e = db.execute(sql, &[&id]).unwrap_err();
        assert!(e.to_string().contains(said), "{sql}: {e}");
    }
    let e = Db::Postgres(&owner)
        .execute_batch("TRUNCATE receipt CASCADE")
        .unwrap_err();
    assert!(e.to_string().contains("append-only"), "{e}");
    let kept: (String, String) = app
        .query_row("SELECT stat, source_addr FROM receipt WHERE id = ?1", &[&id], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })
        .unwrap();
    assert_eq!(kept, ("DELIVRD".to_owned(), "+33612345678".to_owned()));
    // A redaction replaces the personal content, with its tombstone, and keeps the facts.
    let tombstone: i64 = app
        .one(
            "INSERT INTO redaction (at, rule, actor) VALUES (2, 'erasure', 'op') RETURNING id",
            &[],
        )
        .unwrap();
    let redacted = app
        .execute(
            "UPDATE receipt SET source_addr = 'h:0123', raw = ?2, redaction = ?3 WHERE id = ?1",
            &[&id, &Vec::<u8>::new(), &tombstone],
        )
        .unwrap();
    assert_eq!(redacted, 1);
    let after: (String, String, Vec<u8>) = app
        .query_row(
            "SELECT stat, source_addr, raw FROM receipt WHERE id = ?1",
            &[&id],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .unwrap();
    assert_eq!(after, ("DELIVRD".to_owned(), "h:0123".to_owned(), vec![]));
}
