//! The message list on both stores: each index that drives a page (the text search, the
//! destination, its beginning and its ending, a status), the totals, the count and the export
//! find the same messages on SQLite and PostgreSQL.

use super::messages::{list_with_budget, total_within};
use super::test_rows;
use super::{count_messages, export_page, list_messages, MessageFilter, TotalBound, EXPORT_COLUMNS};
use crate::both_stores::on_both;
use crate::db::Db;
use crate::writer::write_for_tests;
use smsdesk_core::domain::{MessageKind, QueueStatus};

/// Three messages (the first with two accepted tries), and the totals the writer would keep.
fn three_messages(db: Db<'_>) -> [i64; 3] {
    let ids = write_for_tests(db, 1_000, |tx| {
        let order = test_rows::message(tx, 1_000, "+33612345678", "Order 4217 shipped", "accepted")?;
        let code = test_rows::message(tx, 2_000, "+33612349999", "Your code is 1234", "queued")?;
        let hello = test_rows::message(tx, 3_000, "+44700000001", "Hello there", "failed")?;
        test_rows::attempt(tx, order, 1, 1_100, "accepted", Some("p1"))?;
        test_rows::attempt(tx, order, 2, 1_200, "accepted", Some("p2"))?;
        for (scope, value, n) in [("message", "all", 3), ("queue", "failed", 1)] {
            test_rows::view_count(tx, scope, value, n)?;
        }
        Ok([order, code, hello])
    })
    .unwrap();
    // SQLite's text index is kept by the writer, up to the last message at each commit.
    if let Db::Sqlite(c) = db {
        crate::search_index::catch_up(c).unwrap();
    }
    ids
}

fn ids(db: Db<'_>, f: &MessageFilter) -> Vec<i64> {
    list_messages(&db, f).unwrap().items.iter().map(|m| m.id).collect()
}

fn filter(destination: Option<&str>, q: Option<&str>) -> MessageFilter {
    MessageFilter {
        destination: destination.map(str::to_owned),
        q: q.map(str::to_owned),
        ..MessageFilter::default()
    }
}

#[test]
fn each_index_that_drives_the_list_finds_the_same_messages_on_both_stores() {
    on_both(|db| {
        let [order, code, hello] = three_messages(db);
        let dialect = db.dialect();
        let all = list_messages(&db, &MessageFilter::default()).unwrap();
        assert_eq!(all.items.iter().map(|m| m.id).collect::<Vec<_>>(), [hello, code, order]);
        assert_eq!(all.total.map(|t| (t.count, t.bound)), Some((3, TotalBound::Exact)));
        assert_eq!(all.items[2].attempts, 2, "{dialect:?}");
        assert_eq!(all.items[2].preview, "Order 4217 shipped");
        assert_eq!(ids(db, &filter(None, Some("ord 42"))), [order], "words, {dialect:?}");
        assert_eq!(ids(db, &filter(None, Some("CODE"))), [code], "{dialect:?}");
        assert_eq!(
            ids(db, &filter(None, Some("ref-2000"))),
            [code],
            "the client reference, {dialect:?}"
        );
        let syntax = filter(None, Some("o'brien & (x) \\ !no:* \"q\""));
        assert_eq!(
            ids(db, &syntax),
            [0; 0],
            "query syntax in words is only words, {dialect:?}"
        );
        assert_eq!(ids(db, &filter(Some("*5678"), None)), [order], "an ending, {dialect:?}");
        assert_eq!(ids(db, &filter(Some("+336*"), None)), [code, order], "a beginning");
        assert_eq!(ids(db, &filter(Some("+44700000001"), None)), [hello], "a whole number");
        assert_eq!(
            ids(db, &filter(Some("+336*"), Some("code"))),
            [code],
            "words and a beginning"
        );
        let failed = MessageFilter {
            status: Some(QueueStatus::Failed),
            ..MessageFilter::default()
        };
        let page = list_messages(&db, &failed).unwrap();
        assert_eq!(page.items.iter().map(|m| m.id).collect::<Vec<_>>(), [hello]);
        assert_eq!(page.total.map(|t| t.count), Some(1));
        let dated = MessageFilter {
            from_ms: Some(1_500),
            to_ms: Some(3_000),
            ..MessageFilter::default()
        };
        assert_eq!(ids(db, &dated), [code], "a creation-time range, {dialect:?}");
    });
}

#[test]
fn a_page_stops_at_its_budget_and_counts_are_bounded_alike_on_both_stores() {
    on_both(|db| {
        let [order, _, hello] = three_messages(db);
        let bulk_or_not = MessageFilter {
            kind: Some(MessageKind::Transactional),
            limit: Some(1),
            ..MessageFilter::default()
        };
        let first = list_with_budget(&db, &bulk_or_not, 1).unwrap();
        assert_eq!(first.items.iter().map(|m| m.id).collect::<Vec<_>>(), [hello]);
        let total = total_within(&db, &bulk_or_not, 2, 10).unwrap();
        assert_eq!(
            (total.count, total.bound),
            (2, TotalBound::MoreThan),
            "{:?}",
            db.dialect()
        );
        let total = total_within(&db, &bulk_or_not, 10, 2).unwrap();
        assert_eq!(
            (total.count, total.bound),
            (2, TotalBound::AtLeast),
            "{:?}",
            db.dialect()
        );
        let ending = filter(Some("*5678"), None);
        assert_eq!(count_messages(&db, &ending).unwrap(), 1, "{:?}", db.dialect());
        assert_eq!(count_messages(&db, &bulk_or_not).unwrap(), 3);
        let rows = export_page(&db, &filter(Some("*5678"), None)).unwrap().rows;
        let at = |name: &str| EXPORT_COLUMNS.iter().position(|c| *c == name).unwrap();
        assert_eq!(rows.len(), 1);
        assert_eq!(rows[0][at("id")], order.to_string());
        assert_eq!(rows[0][at("provider_message_ids")], "p1 p2", "{:?}", db.dialect());
        assert_eq!(rows[0][at("body")], "Order 4217 shipped");
    });
}
