//! A store copied from SQLite to PostgreSQL and back holds every row it had: a database made by an
//! earlier release (the upgrade fixture: messages, tries, receipts, exceptions, the audit), brought
//! to this schema, then copied there and back, compared table by table, row by row.

use rusqlite::types::Value;
use rusqlite::Connection;
use smsdesk_core::time::Clock;

use crate::copy::{copy, Place};
use crate::db::{pg_test, PgTarget};
use crate::Store;

const FIXTURE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../tests/fixtures/upgrade/smsdesk-0.1.0-schema17.db"
);

/// Every table of the copy, each row of every column (but `skip`), in id order.
fn rows(path: &std::path::Path, skip: &[&str]) -> Vec<(String, Vec<Vec<Value>>)> {
    let c = Connection::open(path).unwrap();
    let tables: Vec<String> = c
        .prepare(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'
             AND name NOT LIKE 'message_fts%' AND name NOT IN ('schema_migration', 'instance') ORDER BY name",
        )
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    tables
        .into_iter()
        .map(|t| {
            let cols: Vec<String> = c
                .prepare(&format!("SELECT name FROM pragma_table_info('{t}') ORDER BY cid"))
                .unwrap()
                .query_map([], |r| r.get(0))
                .unwrap()
                .collect::<Result<Vec<String>, _>>()
                .unwrap()
                .into_iter()
                .filter(|col| !skip.contains(&format!("{t}.{col}").as_str()))
                .collect();
            let list = cols.iter().map(|c| format!("\"{c}\"")).collect::<Vec<_>>().join(", ");
            let mut s = c
                .prepare(&format!("SELECT {list} FROM \"{t}\" ORDER BY {list}"))
                .unwrap();
            let n = s.column_count();
            let rows = s
                .query_map([], |r| (0..n).map(|i| r.get(i)).collect())
                .unwrap()
                .collect::<Result<_, _>>()
                .unwrap();
            (t, rows)
        })
        .collect()
}

#[test]
fn a_store_goes_to_postgres_and_back_with_every_row_and_into_an_empty_database_only() {
    let tmp = tempfile::tempdir().unwrap();
    let (a, b) = (tmp.path().join("a.db"), tmp.path().join("b.db"));
    std::fs::copy(FIXTURE, &a).unwrap();
    Store::open(&a).unwrap().shutdown();
    let without_country: i64 = Connection::open(&a)
        .unwrap()
        .query_row("SELECT count(*) FROM message WHERE country IS NULL", [], |r| r.get(0))
        .unwrap();
    assert!(without_country > 0, "the fixture's messages predate the country column");
    Store::open(&b).unwrap().shutdown();
    let pg = pg_test::database();
    let target = PgTarget::new(&pg.url, None).unwrap();
    Store::open_postgres(&target, Clock::system()).unwrap().shutdown();

    let mut heard = Vec::new();
    let there = copy(&Place::Sqlite(a.clone()), &Place::Postgres(target.clone()), |t, n| {
        heard.push((t.to_owned(), n))
    })
    .unwrap();
    assert_eq!(heard, there.tables, "progress hears every table");
    let count = |name: &str| there.tables.iter().find(|(t, _)| t == name).map_or(0, |(_, n)| *n);
    assert!(
        count("message") > 0 && count("receipt") > 0 && count("exception") > 0 && count("audit") > 0,
        "{there:?}"
    );
    let parents_first = |child: &str, parent: &str| {
        let at = |name: &str| there.tables.iter().position(|(t, _)| t == name).unwrap();
        at(parent) < at(child)
    };
    assert!(parents_first("receipt", "message") && parents_first("attempt", "message"));

    // Into a database that holds anything: refused, and nothing more is written.
    let again = copy(&Place::Sqlite(a.clone()), &Place::Postgres(target.clone()), |_, _| {}).unwrap_err();
    assert!(again.to_string().contains("not empty"), "{again}");
    let messages: i64 = crate::db::Db::Postgres(&pg.connect())
        .one("SELECT count(*) FROM message", &[])
        .unwrap();
    assert_eq!(messages as u64, count("message"));

    let back = copy(&Place::Postgres(target.clone()), &Place::Sqlite(b.clone()), |_, _| {}).unwrap();
    assert_eq!(back.tables, there.tables);
    // The copy back holds every row; a message stored before intake read countries has its
    // country (read from its number) after PostgreSQL.
    assert_eq!(rows(&a, &["message.country"]), rows(&b, &["message.country"]));
    let c = Connection::open(&b).unwrap();
    let missing: i64 = c
        .query_row(
            "SELECT count(*) FROM message WHERE country IS NULL AND destination LIKE '+33%'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(missing, 0);
    drop(c);

    // What copies back is a store: it opens, passes its checks, and its text index was made again.
    let store = Store::open(&b).unwrap();
    let found: i64 = store
        .reader()
        .read_blocking(|c| c.db().one("SELECT count(*) FROM message_fts", &[]))
        .unwrap();
    assert_eq!(found as u64, count("message"));
    store.shutdown();

    // Both ways only: SQLite to SQLite is a backup's work.
    let same = copy(&Place::Sqlite(a), &Place::Sqlite(b), |_, _| {}).unwrap_err();
    assert!(same.to_string().contains("from SQLite to PostgreSQL or back"), "{same}");
}
