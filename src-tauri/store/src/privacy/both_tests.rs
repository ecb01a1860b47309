//! Erasure, retention and access by number on both stores, with the number's hash made as each
//! store makes it (SQLite's function, or Rust's on PostgreSQL): an erased number still stops
//! sends, retention keeps the facts, and an access export finds the number's rows by its hash.

use smsdesk_core::domain::{MessageKind, QueueStatus};

use super::retention::{batch, Cursor, Due, Tombstones};
use super::{access, erasure, RedactionRule};
use crate::both_stores::on_both;
use crate::db::Db;
use crate::number_token::{self, NumberKey};
use crate::tables::opt_out::{self, NewOptOut, Reason};
use crate::views::inbox as opt_outs;
use crate::views::test_rows;
use crate::writer::{write_for_tests, WriteTx};
use crate::StoreError;

const NUMBER: &str = "+33612345678";
const BARE: &str = "33612345678";
const TEXT: &str = "canarytext rendezvous";
const AT: i64 = 1_000_000;

fn key() -> NumberKey {
    NumberKey::new([5; 32])
}

fn hash(number: &str) -> String {
    key().token(number)
}

/// What one number left behind.
struct Scene {
    message: i64,
    receipt: i64,
    reply: i64,
    opt_out: i64,
    audit: i64,
}

/// A message to the number (done with), its receipt, a reply from it with the PDU that carried
/// it, its opt-out (asked by that reply), an audit line naming it and two kept answers (one
/// message's, one batch's) repeating it.
fn scene(tx: &mut WriteTx<'_>) -> Result<Scene, StoreError> {
    let message = test_rows::message(tx, AT, NUMBER, TEXT, "accepted")?;
    let (receipt, _) = test_rows::receipt(tx, Some(message), "P1", AT)?;
    let reply: i64 = tx.db().one(
        "INSERT INTO inbox_message (connection, thread, phone, handset, text, alphabet, parts, parts_received,
             received_at, completed_at)
         VALUES ('smsc', ?1, ?1, ?2, ?3, 'gsm7', 1, 1, ?4, ?4) RETURNING id",
        &[&NUMBER, &BARE, &"STOP", &AT],
    )?;
    let mo: i64 = tx.db().one(
        "INSERT INTO receipt (received_at, source, connection, source_addr, destination_addr, raw, raw_text, kind,
             parser_version)
         VALUES (?1, 'smpp_deliver_sm', 'smsc', ?2, '36000', ?3, 'STOP', 'mo', 1) RETURNING id",
        &[&AT, &BARE, &b"STOP".as_slice()],
    )?;
    tx.db().execute(
        "INSERT INTO inbound_message (receipt_id, connection, source_addr, destination_addr, body, text, received_at,
             inbox_message_id)
         VALUES (?1, 'smsc', ?2, '36000', 'STOP', 'STOP', ?3, ?4)",
        &[&mo, &BARE, &AT, &reply],
    )?;
    let opt_out = opt_out::add(
        tx,
        &NewOptOut {
            phone: NUMBER,
            kinds: &[MessageKind::Bulk],
            reason: Reason::Reply,
            note: None,
            inbox_message_id: Some(reply),
            by: NUMBER,
        },
    )?;
    let audit = test_rows::audit(
        tx,
        AT,
        "opt_out.add",
        ("opt_out", opt_out),
        &format!("STOP from {NUMBER}"),
    )?;
    let one = format!(r#"{{"id":{message},"destination":"{NUMBER}","destination_raw":"06 12 34 56 78"}}"#);
    let many =
        format!(r#"{{"messages":[{{"id":{message},"destination":"{NUMBER}"}},{{"id":0,"destination":"+4470"}}]}}"#);
    for (k, json) in [("one", one), ("many", many)] {
        tx.db().execute(
            "INSERT INTO idempotency (scope, key, request_hash, route, status, response_json, created_at)
             VALUES ('operator', ?1, 'h', 'POST /messages', 202, ?2, ?3)",
            &[&k, &json, &AT],
        )?;
    }
    Ok(Scene {
        message,
        receipt,
        reply,
        opt_out,
        audit,
    })
}

fn text(db: Db<'_>, sql: &str, id: i64) -> Option<String> {
    db.one(sql, &[&id]).unwrap()
}

fn answers(db: Db<'_>) -> Vec<serde_json::Value> {
    db.query("SELECT response_json FROM idempotency ORDER BY key DESC", &[], |r| {
        Ok(serde_json::from_str(&r.get::<String>(0)?).unwrap())
    })
    .unwrap()
}

/// The number's hash wherever the scene held it, as both erasure and retention leave it.
fn assert_number_hashed(db: Db<'_>, s: &Scene) {
    let at = format!("{:?}", db.dialect());
    let message: (String, String, String) = db
        .query_row(
            "SELECT destination, destination_raw, country FROM message WHERE id = ?1",
            &[&s.message],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .unwrap();
    assert_eq!(
        message,
        (hash(NUMBER), hash(NUMBER), "FR".to_owned()),
        "{at}: the country read before it went"
    );
    let receipt = text(db, "SELECT source_addr FROM receipt WHERE id = ?1", s.receipt);
    assert_eq!(receipt, Some(hash(NUMBER)), "{at}");
    let reply: (String, String, String) = db
        .query_row(
            "SELECT handset, phone, thread FROM inbox_message WHERE id = ?1",
            &[&s.reply],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .unwrap();
    assert_eq!(reply, (hash(BARE), hash(NUMBER), hash(NUMBER)), "{at}");
    let pdu: Vec<(Option<String>, Option<String>)> = db
        .query("SELECT source_addr, text FROM inbound_message", &[], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })
        .unwrap();
    assert_eq!(pdu, [(Some(hash(BARE)), Some(String::new()))], "{at}");
    let answers = answers(db);
    assert_eq!(answers[0]["destination"], hash(NUMBER), "{at}: {answers:?}");
    assert_eq!(answers[0]["destination_raw"], hash(NUMBER), "{at}");
    assert_eq!(answers[0]["id"], s.message, "{at}: the rest of the answer stays");
    assert_eq!(
        answers[1]["messages"][0]["destination"],
        hash(NUMBER),
        "{at}: {answers:?}"
    );
    assert_eq!(answers[1]["messages"][1]["destination_raw"], hash("+4470"), "{at}");
}

#[test]
fn an_erased_number_still_stops_sends_and_leaves_only_its_hash_on_both_stores() {
    on_both(|db| {
        number_token::set_for_tests(db, Some(key()));
        let s = write_for_tests(db, AT, scene).unwrap();
        let (t, done, skipped) = write_for_tests(db, AT + 1, |tx| erasure::erase(tx, NUMBER, "ana")).unwrap();
        let at = format!("{:?}", db.dialect());
        assert_eq!(
            (done.texts, done.numbers, done.opt_outs, skipped),
            (1, 1, 1, 0),
            "{at}: {done:?}"
        );
        assert!(done.replies >= 2 && done.audit >= 1, "{at}: {done:?}");
        assert_number_hashed(db, &s);
        let opt_out: (String, String, Option<i64>) = db
            .query_row(
                "SELECT phone, created_by, redaction FROM opt_out WHERE id = ?1",
                &[&s.opt_out],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .unwrap();
        assert_eq!(opt_out, (hash(NUMBER), hash(NUMBER), Some(t)), "{at}");
        let current = opt_out::current(&db, NUMBER).unwrap().expect("still on the list");
        assert_eq!(
            (current.id, current.kinds),
            (s.opt_out, vec![MessageKind::Bulk]),
            "{at}"
        );
        assert_eq!(
            opt_outs::current_entry(&db, NUMBER).unwrap().map(|e| e.id),
            Some(s.opt_out),
            "{at}"
        );
        assert!(opt_out::current(&db, "+33600000000").unwrap().is_none(), "{at}");
        let audit: (String, Option<String>) = db
            .query_row("SELECT actor, note FROM audit WHERE id = ?1", &[&s.audit], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })
            .unwrap();
        assert_eq!(
            audit,
            ("Ana".to_owned(), Some(format!("STOP from {}", hash(NUMBER)))),
            "{at}"
        );
        let rule: String = db.one("SELECT rule FROM redaction WHERE id = ?1", &[&t]).unwrap();
        assert_eq!(rule, RedactionRule::Erasure.as_str());
    });
}

#[test]
fn a_subjects_access_export_finds_the_numbers_rows_before_and_after_erasure_on_both_stores() {
    on_both(|db| {
        number_token::set_for_tests(db, Some(key()));
        let s = write_for_tests(db, AT, scene).unwrap();
        let at = format!("{:?}", db.dialect());
        let before = access::subject(&db, NUMBER).unwrap();
        assert_eq!(before.messages.len(), 1, "{at}");
        assert_eq!(before.messages[0].text.as_deref(), Some(TEXT));
        assert_eq!(before.messages[0].status, QueueStatus::Accepted);
        assert_eq!(
            before.replies.iter().map(|r| r.id).collect::<Vec<_>>(),
            [s.reply],
            "{at}"
        );
        assert_eq!(
            before.opt_outs.iter().map(|o| o.id).collect::<Vec<_>>(),
            [s.opt_out],
            "{at}"
        );
        write_for_tests(db, AT + 1, |tx| erasure::erase(tx, NUMBER, "ana")).unwrap();
        let after = access::subject(&db, NUMBER).unwrap();
        let m = &after.messages[..];
        assert_eq!(m.len(), 1, "{at}: found by its hash");
        assert!(
            m[0].number_removed && m[0].text.is_none() && m[0].text_removed_at_ms == Some(AT + 1),
            "{at}"
        );
        assert_eq!(
            after
                .replies
                .iter()
                .map(|r| (r.id, r.text.is_none()))
                .collect::<Vec<_>>(),
            [(s.reply, true)],
            "{at}"
        );
        assert_eq!(
            after.opt_outs.iter().map(|o| o.id).collect::<Vec<_>>(),
            [s.opt_out],
            "{at}"
        );
        let other = access::subject(&db, "+33600000000").unwrap();
        assert!(
            other.messages.is_empty() && other.replies.is_empty() && other.opt_outs.is_empty(),
            "{at}"
        );
    });
}

#[test]
fn retention_redacts_texts_and_numbers_and_keeps_the_facts_on_both_stores() {
    on_both(|db| {
        number_token::set_for_tests(db, Some(key()));
        let s = write_for_tests(db, AT, scene).unwrap();
        let now = AT + 10;
        let due = Due {
            text_before: vec![(MessageKind::Transactional, now)],
            number_before: Some(now),
            replies_before: Some(now),
            audit_before: Some(now),
        };
        let mut cursor = Cursor::default();
        let mut runs = 0;
        while !cursor.finished {
            runs += 1;
            assert!(runs < 10, "retention ends");
            write_for_tests(db, now, |tx| {
                let t = Tombstones::begin(tx, "retention")?;
                batch(tx, &due, &t, 100, &mut cursor)
            })
            .unwrap();
        }
        let at = format!("{:?}", db.dialect());
        assert_number_hashed(db, &s);
        let message: (String, String, i64, String) = db
            .query_row(
                "SELECT m.body, m.kind, m.created_at, q.status FROM message m JOIN queue q ON q.message_id = m.id
                 WHERE m.id = ?1",
                &[&s.message],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
            )
            .unwrap();
        assert_eq!(
            message,
            (String::new(), "transactional".into(), AT, "accepted".into()),
            "{at}: the facts stay"
        );
        let receipt: (Vec<u8>, Option<String>) = db
            .query_row("SELECT raw, stat FROM receipt WHERE id = ?1", &[&s.receipt], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })
            .unwrap();
        assert_eq!(receipt, (Vec::new(), Some("DELIVRD".into())), "{at}");
        let reply = text(db, "SELECT text FROM inbox_message WHERE id = ?1", s.reply);
        assert_eq!(reply.as_deref(), Some(""), "{at}");
        let note = text(db, "SELECT note FROM audit WHERE id = ?1", s.audit);
        assert_eq!(note, None, "{at}");
        let kept = text(db, "SELECT phone FROM opt_out WHERE id = ?1", s.opt_out);
        assert_eq!(kept.as_deref(), Some(NUMBER), "{at}: retention leaves the list alone");
    });
}

#[test]
fn without_the_key_a_lookup_finds_the_number_itself_and_nothing_is_redacted_on_both_stores() {
    on_both(|db| {
        number_token::set_for_tests(db, None);
        let s = write_for_tests(db, AT, scene).unwrap();
        let at = format!("{:?}", db.dialect());
        assert_eq!(
            opt_out::current(&db, NUMBER).unwrap().map(|c| c.id),
            Some(s.opt_out),
            "{at}"
        );
        assert_eq!(
            opt_outs::current_entry(&db, NUMBER).unwrap().map(|e| e.id),
            Some(s.opt_out),
            "{at}"
        );
        assert_eq!(access::subject(&db, NUMBER).unwrap().messages.len(), 1, "{at}");
        let e = write_for_tests(db, AT + 1, |tx| erasure::erase(tx, NUMBER, "ana")).unwrap_err();
        assert!(matches!(e, StoreError::NumberKey(_)), "{at}: {e}");
        let e = write_for_tests(db, AT + 1, |tx| crate::tables::redact::message_number(tx, s.message, 1)).unwrap_err();
        match db {
            Db::Sqlite(_) => assert!(e.to_string().contains("NOT NULL"), "{e}"),
            Db::Postgres(_) => assert!(matches!(e, StoreError::NumberKey(_)), "{e}"),
        }
        let destination = text(db, "SELECT destination FROM message WHERE id = ?1", s.message);
        assert_eq!(destination.as_deref(), Some(NUMBER), "{at}");
    });
}
