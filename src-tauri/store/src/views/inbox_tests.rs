//! The inbox and the opt-out list on both stores: threads, a conversation, the unread counts and
//! the list read alike on SQLite and PostgreSQL (words in replies are searched on SQLite alone).

use super::test_rows;
use super::{
    inbox_counts, inbox_message, list_opt_outs, list_threads, thread, InboxFilter, OptOutFilter, ThreadItem,
    ThreadRequest, ViewError,
};
use crate::both_stores::on_both;
use crate::db::{Db, Dialect};
use crate::writer::write_for_tests;
use smsdesk_core::domain::MessageKind;

/// Replies from two numbers (one read) and a sender id, a message sent to the first, and opt-outs
/// of the second (current) and the first (taken off).
fn replies(db: Db<'_>) -> Vec<i64> {
    write_for_tests(db, 10_000, |tx| {
        let mut ids = Vec::new();
        for (phone, text, at, read) in [
            (Some("+33612345678"), "Bonjour", 1_000, true),
            (Some("+33699999999"), "STOP", 2_000, false),
            (None, "Arrêt", 3_000, false),
            (Some("+33612345678"), "Merci", 4_000, false),
        ] {
            let thread = phone.unwrap_or("INFO");
            let id: i64 = tx.db().one(
                "INSERT INTO inbox_message (connection, thread, phone, handset, text, alphabet, parts, parts_received,
                     received_at, completed_at, read_at, read_by)
                 VALUES ('smsc', ?1, ?2, ?1, ?3, 'gsm7', 1, 1, ?4, ?4, ?5, ?6) RETURNING id",
                &[
                    &thread,
                    &phone,
                    &text,
                    &at,
                    &read.then_some(at + 1),
                    &read.then_some("Ana"),
                ],
            )?;
            ids.push(id);
        }
        test_rows::message(tx, 2_500, "+33612345678", "Your order", "accepted")?;
        tx.db().execute(
            "INSERT INTO opt_out (phone, kinds, reason, inbox_message_id, created_at, created_by)
             VALUES ('+33699999999', 'bulk', 'reply', ?1, 2000, 'system')",
            &[&ids[1]],
        )?;
        tx.db().execute(
            "INSERT INTO opt_out (phone, kinds, reason, created_at, created_by, removed_at, removed_by, removed_reason)
             VALUES ('+33612345678', 'bulk', 'operator', 500, 'Ana', 900, 'Ana', 'operator')",
            &[],
        )?;
        Ok(ids)
    })
    .unwrap()
}

#[test]
fn threads_and_a_conversation_read_alike_on_both_stores() {
    on_both(|db| {
        let ids = replies(db);
        let page = list_threads(&db, &InboxFilter::default()).unwrap();
        let threads: Vec<(&str, u32, u32, bool)> = page
            .items
            .iter()
            .map(|t| (t.thread.as_str(), t.replies, t.unread, t.opted_out))
            .collect();
        assert_eq!(
            threads,
            [
                ("+33612345678", 2, 1, false),
                ("INFO", 1, 1, false),
                ("+33699999999", 1, 1, true)
            ],
            "{:?}",
            db.dialect()
        );
        let unread_ending = InboxFilter {
            number: Some("*9999".to_owned()),
            unread: Some(true),
            ..InboxFilter::default()
        };
        let found = list_threads(&db, &unread_ending).unwrap();
        assert_eq!(found.items.iter().map(|t| t.last.id).collect::<Vec<_>>(), [ids[1]]);
        let beginning = InboxFilter {
            number: Some("+336123*".to_owned()),
            ..InboxFilter::default()
        };
        assert_eq!(list_threads(&db, &beginning).unwrap().items.len(), 1);
        let words = InboxFilter {
            q: Some("arret".to_owned()),
            ..InboxFilter::default()
        };
        match db.dialect() {
            Dialect::Sqlite => assert_eq!(list_threads(&db, &words).unwrap().items[0].last.id, ids[2]),
            Dialect::Postgres => assert!(matches!(list_threads(&db, &words), Err(ViewError::InvalidFilter(_)))),
        }
        let sender_id = ThreadRequest {
            thread: "INFO".to_owned(),
            ..ThreadRequest::default()
        };
        let view = thread(&db, &sender_id).unwrap().unwrap();
        assert_eq!((view.phone, view.opt_out), (None, None));
        assert_eq!(view.items.len(), 1);
        assert_eq!(inbox_message(&db, ids[3]).unwrap().unwrap().text, "Merci");
        let counts = inbox_counts(&db).unwrap();
        assert_eq!((counts.unread, counts.threads_unread), (3, 3));
    });
}

#[test]
fn a_conversation_with_a_number_mixes_replies_and_sent_messages_and_finds_its_erased_opt_out_on_both_stores() {
    on_both(|db| {
        let key = crate::number_token::NumberKey::new([7; 32]);
        crate::number_token::set_for_tests(db, Some(key.clone()));
        let ids = replies(db);
        let req = ThreadRequest {
            thread: "+33612345678".to_owned(),
            ..ThreadRequest::default()
        };
        let view = thread(&db, &req).unwrap().unwrap();
        let lines: Vec<(bool, i64)> = view
            .items
            .iter()
            .map(|i| match i {
                ThreadItem::Received(m) => (true, m.id),
                ThreadItem::Sent(m) => (false, m.created_at_ms),
            })
            .collect();
        assert_eq!(lines, [(true, ids[0]), (false, 2_500), (true, ids[3])], "oldest first");
        assert_eq!(view.opt_out, None, "{:?}: taken off the list", db.dialect());
        // The number back on the list, then erased: its entry holds the hash alone.
        let hashed = key.token("+33612345678");
        let entry = write_for_tests(db, 9_000, |tx| {
            crate::tables::opt_out::add(
                tx,
                &crate::tables::opt_out::NewOptOut {
                    phone: &hashed,
                    kinds: &[MessageKind::Bulk],
                    reason: crate::tables::opt_out::Reason::Operator,
                    note: None,
                    inbox_message_id: None,
                    by: "ana",
                },
            )
        })
        .unwrap();
        let view = thread(&db, &req).unwrap().unwrap();
        assert_eq!(
            view.opt_out.map(|e| e.id),
            Some(entry),
            "{:?}: found by the hash",
            db.dialect()
        );
    });
}

#[test]
fn the_opt_out_list_and_its_history_read_alike_on_both_stores() {
    on_both(|db| {
        let ids = replies(db);
        let current = list_opt_outs(&db, &OptOutFilter::default()).unwrap();
        assert_eq!(current.current, 1, "{:?}", db.dialect());
        assert_eq!(current.items.len(), 1);
        assert_eq!(current.items[0].reply_text.as_deref(), Some("STOP"));
        assert_eq!(current.items[0].inbox_message_id, Some(ids[1]));
        let history = OptOutFilter {
            history: Some(true),
            q: Some("+33612345678".to_owned()),
            ..OptOutFilter::default()
        };
        let page = list_opt_outs(&db, &history).unwrap();
        assert_eq!(page.items.len(), 1);
        assert_eq!(page.items[0].removed_by.as_deref(), Some("Ana"));
    });
}
