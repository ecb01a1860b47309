//! The same SQL and the same reads on both stores: a SQLite connection and a database of its own
//! on the tests' PostgreSQL.

use super::pg_test;
use super::{Db, Dialect, PgConn};
use crate::StoreError;

/// Runs `f` on a new SQLite database, then on a new PostgreSQL one.
fn on_both(f: impl Fn(Db<'_>)) {
    let sqlite = rusqlite::Connection::open_in_memory().unwrap();
    f(Db::Sqlite(&sqlite));
    let database = pg_test::database();
    let pg: PgConn = database.connect();
    f(Db::Postgres(&pg));
}

fn table(db: Db<'_>) {
    let ddl = match db.dialect() {
        Dialect::Sqlite => "CREATE TABLE t (i INTEGER, r REAL, s TEXT, b BLOB, n INTEGER)",
        Dialect::Postgres => "CREATE TABLE t (i BIGINT, r DOUBLE PRECISION, s TEXT, b BYTEA, n BIGINT)",
    };
    db.execute_batch(ddl).unwrap();
}

#[test]
fn each_kind_of_value_goes_in_and_comes_back_the_same_on_both_stores() {
    on_both(|db| {
        table(db);
        let changed = db
            .execute(
                "INSERT INTO t (i, r, s, b, n) VALUES (?1, ?2, ?3, ?4, ?5)",
                &[&-42i64, &2.5f64, &"héllo ?1 'q'", &vec![0u8, 255, 7], &None::<i64>],
            )
            .unwrap();
        assert_eq!(changed, 1, "{:?}", db.dialect());
        let row = db
            .query_row("SELECT i, r, s, b, n FROM t WHERE s = ?", &[&"héllo ?1 'q'"], |r| {
                Ok((
                    r.get::<i64>(0)?,
                    r.get::<f64>(1)?,
                    r.get::<String>(2)?,
                    r.get::<Vec<u8>>(3)?,
                    r.get::<Option<i64>>(4)?,
                ))
            })
            .unwrap();
        assert_eq!(
            row,
            (-42, 2.5, "héllo ?1 'q'".to_owned(), vec![0, 255, 7], None),
            "{:?}",
            db.dialect()
        );
    });
}

#[test]
fn a_query_that_finds_nothing_is_none_or_no_row_and_changes_count_what_changed() {
    on_both(|db| {
        table(db);
        assert_eq!(
            db.query_opt("SELECT i FROM t WHERE i = ?1", &[&1i64], |r| r.get::<i64>(0))
                .unwrap(),
            None
        );
        assert!(matches!(db.one::<i64>("SELECT i FROM t", &[]), Err(StoreError::NoRow)));
        for i in 1..=3i64 {
            db.execute("INSERT INTO t (i) VALUES (?1)", &[&i]).unwrap();
        }
        assert_eq!(db.execute("UPDATE t SET s = 'x' WHERE i >= ?1", &[&2i64]).unwrap(), 2);
        let all = db
            .query("SELECT i FROM t ORDER BY i DESC", &[], |r| r.get::<i64>(0))
            .unwrap();
        assert_eq!(all, vec![3, 2, 1]);
    });
}

#[test]
fn sums_read_as_integers_and_averages_as_reals_on_both_stores() {
    on_both(|db| {
        table(db);
        // PostgreSQL sums bigints as numeric: these cross its base-10000 groups, with zero groups
        // left out at the end (10^12) and a negative total.
        for i in [1_000_000_000_000i64, 3, -2_000_000_000_000_000, 7_777] {
            db.execute("INSERT INTO t (i) VALUES (?1)", &[&i]).unwrap();
        }
        let sum: i64 = db.one("SELECT SUM(i) FROM t", &[]).unwrap();
        assert_eq!(
            sum,
            1_000_000_000_000 + 3 - 2_000_000_000_000_000 + 7_777,
            "{:?}",
            db.dialect()
        );
        let big: i64 = db.one("SELECT SUM(i) FROM t WHERE i > 5", &[]).unwrap();
        assert_eq!(big, 1_000_000_007_777);
        let avg: f64 = db.one("SELECT AVG(i) FROM t WHERE i IN (3, 7777)", &[]).unwrap();
        assert_eq!(avg, 3890.0);
        let half: f64 = db
            .one("SELECT AVG(i) FROM t WHERE i IN (3, 7777, 1000000000000)", &[])
            .unwrap();
        assert!((half - 333_333_335_926.666_7).abs() < 0.01, "{half}");
        let empty: Option<i64> = db.one("SELECT SUM(i) FROM t WHERE i = 0", &[]).unwrap();
        assert_eq!(empty, None);
    });
}

#[test]
fn an_integer_goes_where_postgresql_expects_another_numeric_type_or_text() {
    on_both(|db| {
        let as_text: String = db.one("SELECT CAST(?1 AS TEXT)", &[&123i64]).unwrap();
        assert_eq!(as_text, "123");
        let as_numeric: i64 = db
            .one("SELECT CAST(?1 AS NUMERIC) * 2", &[&-123_456_789_012i64])
            .unwrap();
        assert_eq!(as_numeric, -246_913_578_024);
        let as_real: f64 = db.one("SELECT CAST(?1 AS REAL) / 4", &[&10i64]).unwrap();
        assert_eq!(as_real, 2.5);
        let small: i64 = db.one("SELECT CAST(?1 AS INTEGER) + 1", &[&41i64]).unwrap();
        assert_eq!(small, 42);
    });
}

#[test]
fn a_failing_statement_is_an_error_and_the_connection_goes_on() {
    on_both(|db| {
        table(db);
        assert!(db.execute("INSERT INTO nowhere VALUES (?1)", &[&1i64]).is_err());
        db.execute("INSERT INTO t (i) VALUES (?1)", &[&5i64]).unwrap();
        assert_eq!(db.one::<i64>("SELECT COUNT(*) FROM t", &[]).unwrap(), 1);
    });
}

#[test]
fn text_where_postgresql_expects_a_number_is_refused_and_not_sent_as_bytes() {
    let database = pg_test::database();
    let pg = database.connect();
    let db = Db::Postgres(&pg);
    table(db);
    let e = db.execute("INSERT INTO t (i) VALUES (?1)", &[&"12345678"]).unwrap_err();
    assert!(
        e.to_string().contains("text cannot go where PostgreSQL expects int8"),
        "{e}"
    );
    let e = db.execute("INSERT INTO t (s) VALUES (?1)", &[&vec![1u8]]).unwrap_err();
    assert!(e.to_string().contains("a blob cannot go"), "{e}");
    assert_eq!(db.one::<i64>("SELECT COUNT(*) FROM t", &[]).unwrap(), 0);
}

#[test]
fn a_column_that_holds_another_kind_than_asked_is_a_corrupt_read_not_a_panic() {
    on_both(|db| {
        table(db);
        db.execute("INSERT INTO t (s) VALUES ('text')", &[]).unwrap();
        let e = db.one::<i64>("SELECT s FROM t", &[]).unwrap_err();
        assert!(
            matches!(e, StoreError::Corrupt(ref why) if why.contains("an integer was expected")),
            "{e}"
        );
    });
}
