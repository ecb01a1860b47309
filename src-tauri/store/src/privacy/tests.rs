//! Redaction keeps the facts and leaves no byte of the content behind; retention goes by age and
//! kind in bounded batches; erasure takes everything of one number and keeps its opt-out.

use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;

use rusqlite::params;
use smsdesk_core::domain::{IntakeChannel, MessageKind};
use smsdesk_core::message::NewMessage;
use smsdesk_core::time::Clock;

use super::retention::{batch, Cursor, Due, Tombstones};
use super::*;
use crate::number_token::NumberKey;
use crate::tables;
use crate::Store;

const NUMBER: &str = "+33612345600";
const OTHER: &str = "+33698765400";
const TEXT: &str = "canarytext rendezvous cardiologie";
const DAY: i64 = 86_400_000;
const NOW: i64 = 1_800_000_000_000;

struct Fixture {
    dir: tempfile::TempDir,
    store: Store,
    now: Arc<AtomicI64>,
}

fn fixture() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let now = Arc::new(AtomicI64::new(NOW));
    let read = now.clone();
    let store = Store::open_with_clock(
        &dir.path().join("smsdesk.db"),
        Clock::from_fn(move || read.load(Ordering::SeqCst)),
    )
    .unwrap();
    store.set_number_key(NumberKey::new([3; 32])).unwrap();
    Fixture { dir, store, now }
}

impl Fixture {
    /// A message to `to` of `kind` with the queue status `status`, written `age` ms ago, with a
    /// receipt echoing its text (and a message_payload TLV); returns its id.
    fn sent(&self, to: &str, kind: MessageKind, status: &str, age: i64) -> i64 {
        self.now.store(NOW - age, Ordering::SeqCst);
        let (to, status) = (to.to_owned(), status.to_owned());
        let id = self
            .store
            .writer()
            .write_blocking(move |tx| {
                let id = tables::message::insert(tx, &NewMessage::text(IntakeChannel::Api, &to, TEXT, kind, "sandbox"))?;
                let at = tx.now_ms();
                let c = tx.conn();
                c.execute("UPDATE queue SET status = ?2 WHERE message_id = ?1", params![id, status])?;
                let text = format!("id:P{id} sub:001 dlvrd:001 submit date:2605031200 done date:2605031201 stat:DELIVRD err:000 text:{TEXT}");
                c.execute(
                    "INSERT INTO receipt (received_at, source, connection, source_addr, destination_addr, pdu, raw,
                         raw_text, tlvs_json, kind, parser_version, message_id_raw, stat)
                     VALUES (?1, 'smpp_deliver_sm', 'sandbox', ?2, 'SMSDESK', ?3, ?3, ?4, ?5, 'receipt', 1, ?6, 'DELIVRD')",
                    params![
                        at,
                        to.trim_start_matches('+'),
                        text.as_bytes(),
                        text,
                        r#"[{"tag":"0x001e","hex":"5031"},{"tag":"0x0424","hex":"63616e617279"}]"#,
                        format!("P{id}")
                    ],
                )?;
                let receipt = c.last_insert_rowid();
                c.execute(
                    "INSERT INTO logical_event (connection, dedup_key, key_source, stat, receipt_kind, first_receipt_id,
                         created_at, correlation, message_id, correlated_at, correlated_by)
                     VALUES ('sandbox', ?1, 'fingerprint', 'DELIVRD', 'receipt', ?2, ?4, 'matched', ?3, ?4, 'system')",
                    params![format!("fp1|P{id}"), receipt, id, at],
                )?;
                c.execute(
                    "INSERT INTO receipt_outcome (receipt_id, logical_event_id, is_repeat, processed_at)
                     VALUES (?1, ?2, 0, ?3)",
                    params![receipt, c.last_insert_rowid(), at],
                )?;
                Ok::<_, StoreError>(id)
            })
            .unwrap();
        self.now.store(NOW, Ordering::SeqCst);
        id
    }

    /// A reply from `from` (an inbox message and the PDU that carried it), `age` ms ago.
    fn reply(&self, from: &str, age: i64) -> i64 {
        let from = from.to_owned();
        self.store
            .writer()
            .write_blocking(move |tx| {
                let c = tx.conn();
                let at = NOW - age;
                c.execute(
                    "INSERT INTO receipt (received_at, source, connection, source_addr, destination_addr, raw, raw_text,
                         kind, parser_version)
                     VALUES (?1, 'smpp_deliver_sm', 'sandbox', ?2, '36000', ?3, ?4, 'mo', 1)",
                    params![at, from.trim_start_matches('+'), format!("{TEXT} reply").as_bytes(), format!("{TEXT} reply")],
                )?;
                let receipt = c.last_insert_rowid();
                c.execute(
                    "INSERT INTO inbox_message (connection, thread, phone, handset, text, alphabet, parts, parts_received,
                         received_at, completed_at)
                     VALUES ('sandbox', ?1, ?1, ?2, ?3, 'gsm7', 1, 1, ?4, ?4)",
                    params![from, from.trim_start_matches('+'), format!("{TEXT} reply"), at],
                )?;
                let inbox = c.last_insert_rowid();
                c.execute(
                    "INSERT INTO inbound_message (receipt_id, connection, source_addr, destination_addr, body, text,
                         received_at, inbox_message_id)
                     VALUES (?1, 'sandbox', ?2, '36000', ?3, ?3, ?4, ?5)",
                    params![receipt, from.trim_start_matches('+'), format!("{TEXT} reply"), at, inbox],
                )?;
                Ok::<_, StoreError>(inbox)
            })
            .unwrap()
    }

    fn run(&self, due: &Due, limit: u32) -> (Redacted, usize) {
        let due = due.clone();
        let mut cursor = Cursor::default();
        let mut all = Redacted::default();
        let mut batches = 0;
        while !cursor.finished {
            let d = due.clone();
            let (done, c) = self
                .store
                .writer()
                .write_blocking(move |tx| {
                    let t = Tombstones::begin(tx, "retention")?;
                    let done = batch(tx, &d, &t, limit, &mut cursor)?;
                    Ok::<_, StoreError>((done, cursor))
                })
                .unwrap();
            cursor = c;
            all.add(&done);
            batches += 1;
            assert!(
                done.total() <= u64::from(limit) * 3,
                "a batch stays near its limit: {done:?}"
            );
        }
        (all, batches)
    }

    fn sql<T: rusqlite::types::FromSql>(&self, sql: &str) -> T {
        let conn = rusqlite::Connection::open(self.dir.path().join("smsdesk.db")).unwrap();
        conn.query_row(sql, [], |r| r.get(0)).unwrap()
    }

    /// Every byte of the data directory's files, once the WAL is copied in and emptied.
    fn file_bytes(&self) -> Vec<u8> {
        assert!(self.store.checkpoint_truncate().unwrap());
        let mut all = Vec::new();
        for e in std::fs::read_dir(self.dir.path()).unwrap() {
            let p = e.unwrap().path();
            if p.is_file() {
                all.extend(std::fs::read(&p).unwrap());
            }
        }
        all
    }
}

fn count(hay: &[u8], needle: &str) -> usize {
    hay.windows(needle.len()).filter(|w| *w == needle.as_bytes()).count()
}

fn everything_due() -> Due {
    Due {
        text_before: vec![
            (MessageKind::Otp, NOW),
            (MessageKind::Transactional, NOW),
            (MessageKind::Bulk, NOW),
        ],
        number_before: Some(NOW),
        replies_before: Some(NOW),
        audit_before: None,
    }
}

#[test]
fn retention_leaves_no_byte_of_texts_and_numbers_and_keeps_the_facts() {
    let f = fixture();
    let ids: Vec<i64> = (0..30)
        .map(|i| {
            f.sent(
                NUMBER,
                MessageKind::Transactional,
                if i % 2 == 0 { "accepted" } else { "failed" },
                DAY,
            )
        })
        .collect();
    let waiting = f.sent(NUMBER, MessageKind::Transactional, "queued", DAY);
    f.reply(NUMBER, DAY);
    // Indexed for search, so the search index held the words too.
    f.store
        .writer()
        .write_blocking(|tx| crate::search_index::catch_up(tx.conn()).map_err(StoreError::from))
        .unwrap();
    assert!(count(&f.file_bytes(), "canarytext") > 0, "the fixture wrote the canary");

    let (done, batches) = f.run(&everything_due(), 7);
    assert_eq!(done.texts, 30);
    assert_eq!(done.numbers, 30);
    assert_eq!(done.receipts, 30, "each message's receipt, once");
    assert!(done.replies >= 3, "the reply, its PDU and that PDU's receipt: {done:?}");
    assert!(batches > 5, "bounded batches, not one transaction: {batches}");

    // Only the waiting message still holds the canaries.
    let held: i64 = f.sql(&format!(
        "SELECT count(*) FROM message WHERE body <> '' AND id <> {waiting}"
    ));
    assert_eq!(held, 0);
    let bytes = f.file_bytes();
    // The waiting message: its text in the message row and receipt, its number in two columns,
    // indexes and its receipt's address. Nothing of the others.
    let (waiting_text, waiting_number) = (count(&bytes, "canarytext"), count(&bytes, "612345600"));
    let f2 = fixture();
    f2.sent(NUMBER, MessageKind::Transactional, "queued", DAY);
    f2.store
        .writer()
        .write_blocking(|tx| crate::search_index::catch_up(tx.conn()).map_err(StoreError::from))
        .unwrap();
    let one = f2.file_bytes();
    assert!(
        waiting_text <= count(&one, "canarytext"),
        "only the waiting message's text is left"
    );
    assert!(
        waiting_number <= count(&one, "612345600"),
        "only the waiting message's number is left"
    );

    // The facts stay: statuses, receipts' parsed fields, the tombstone.
    let accepted: i64 = f.sql("SELECT count(*) FROM queue WHERE status = 'accepted'");
    assert_eq!(accepted, 15);
    let stats: i64 = f.sql("SELECT count(*) FROM receipt WHERE stat = 'DELIVRD' AND message_id_raw IS NOT NULL");
    assert_eq!(stats, 31, "every receipt keeps its parsed facts");
    let kept_tlv: String = f.sql(&format!(
        "SELECT tlvs_json FROM receipt WHERE redaction IS NOT NULL AND message_id_raw = 'P{}'",
        ids[0]
    ));
    assert!(
        kept_tlv.contains("0x001e") && !kept_tlv.contains("0x0424"),
        "{kept_tlv}"
    );
    let echo: String = f.sql(&format!(
        "SELECT raw_text FROM receipt WHERE message_id_raw = 'P{}'",
        ids[0]
    ));
    assert!(echo.ends_with("stat:DELIVRD err:000 text:"), "{echo}");
    let hashed: String = f.sql(&format!("SELECT destination FROM message WHERE id = {}", ids[0]));
    assert_eq!(hashed, NumberKey::new([3; 32]).token(NUMBER));
    // The search no longer finds the words.
    let found: i64 = f.sql("SELECT count(*) FROM message_fts WHERE message_fts MATCH 'canarytext'");
    assert_eq!(found, 1, "the waiting message only");
}

#[test]
fn retention_goes_by_kind_and_age_and_skips_what_is_not_done() {
    let f = fixture();
    let otp_old = f.sent(NUMBER, MessageKind::Otp, "accepted", 2 * DAY);
    let bulk_recent = f.sent(NUMBER, MessageKind::Bulk, "accepted", 2 * DAY);
    let trans_old = f.sent(NUMBER, MessageKind::Transactional, "accepted", 100 * DAY);
    let held_old = f.sent(NUMBER, MessageKind::Transactional, "held", 100 * DAY);
    let due = Due {
        text_before: vec![
            (MessageKind::Otp, NOW - DAY),
            (MessageKind::Transactional, NOW - 90 * DAY),
            (MessageKind::Bulk, NOW - 30 * DAY),
        ],
        number_before: Some(NOW - 365 * DAY),
        replies_before: None,
        audit_before: None,
    };
    let (done, _) = f.run(&due, 100);
    assert_eq!((done.texts, done.numbers), (2, 0));
    let redacted = |id: i64| -> bool {
        f.sql(&format!(
            "SELECT text_redaction IS NOT NULL FROM message WHERE id = {id}"
        ))
    };
    assert!(redacted(otp_old) && redacted(trans_old));
    assert!(!redacted(bulk_recent) && !redacted(held_old));
}

#[test]
fn a_redacted_row_keeps_its_facts_immutable() {
    let f = fixture();
    let id = f.sent(NUMBER, MessageKind::Transactional, "accepted", DAY);
    let conn = rusqlite::Connection::open(f.dir.path().join("smsdesk.db")).unwrap();
    let refused = |sql: &str| conn.execute(sql, []).unwrap_err().to_string();
    assert!(refused(&format!("UPDATE message SET body = 'other' WHERE id = {id}")).contains("immutable"));
    assert!(refused(&format!("UPDATE message SET kind = 'bulk' WHERE id = {id}")).contains("immutable"));
    assert!(refused("UPDATE receipt SET stat = 'UNDELIV'").contains("append-only"));
    assert!(
        refused("UPDATE receipt SET raw = x''").contains("append-only"),
        "not without a tombstone"
    );
    // A number replaced by anything but its hash is refused.
    conn.execute(
        "INSERT INTO redaction (id, at, rule, actor) VALUES (99, 0, 'erasure', 't')",
        [],
    )
    .unwrap();
    assert!(refused(&format!(
        "UPDATE message SET destination = '+33600000000', destination_raw = '+33600000000', number_redaction = 99 WHERE id = {id}"
    ))
    .contains("immutable"));
}

#[test]
fn erasure_takes_every_trace_of_one_number_and_keeps_its_opt_out_as_a_hash() {
    let f = fixture();
    for _ in 0..3 {
        f.sent(NUMBER, MessageKind::Transactional, "accepted", DAY);
    }
    let other = f.sent(OTHER, MessageKind::Transactional, "accepted", DAY);
    let reply = f.reply(NUMBER, DAY);
    f.store
        .writer()
        .write_blocking(move |tx| {
            let id = tables::opt_out::add(
                tx,
                &tables::opt_out::NewOptOut {
                    phone: NUMBER,
                    kinds: &[MessageKind::Transactional, MessageKind::Bulk],
                    reason: tables::opt_out::Reason::Reply,
                    note: None,
                    inbox_message_id: Some(reply),
                    by: NUMBER,
                },
            )?;
            let answer = serde_json::json!({ "id": 1, "destination": NUMBER, "destination_raw": "06 12 34 56 00" });
            tx.conn().execute(
                "INSERT INTO idempotency (scope, key, request_hash, route, status, response_json, created_at)
                 VALUES ('key:1', 'k1', 'h', 'messages', 201, ?1, 0)",
                [answer.to_string()],
            )?;
            tx.audit().append(&crate::tables::NewAudit {
                actor: NUMBER.into(),
                action: smsdesk_core::audit::AuditAction::OptOutAdd,
                subject_type: Some("opt_out".into()),
                subject_id: Some(id),
                note: None,
                details_json: Some(serde_json::json!({ "phone": NUMBER }).to_string()),
            })?;
            Ok::<_, StoreError>(())
        })
        .unwrap();
    f.store
        .writer()
        .write_blocking(|tx| crate::search_index::catch_up(tx.conn()).map_err(StoreError::from))
        .unwrap();
    assert!(count(&f.file_bytes(), "612345600") > 0);

    let (_, done, skipped) = f
        .store
        .writer()
        .write_blocking(|tx| erasure::erase(tx, NUMBER, "admin"))
        .unwrap();
    assert_eq!((done.texts, done.numbers, done.opt_outs, skipped), (3, 3, 1, 0));
    assert!(done.audit >= 1);
    let bytes = f.file_bytes();
    assert_eq!(
        count(&bytes, "612345600"),
        0,
        "no byte of the number is left in the files"
    );
    assert!(count(&bytes, "698765400") > 0, "the other number is untouched");

    // Still opted out, by its hash.
    let conn = f
        .store
        .reader()
        .read_blocking(|c| Ok::<_, StoreError>(tables::opt_out::current(c, NUMBER)?.map(|c| c.id)));
    assert!(conn.unwrap().is_some(), "the erased number still stops sends");
    // And what is held about it still answers, by its hash, without its content.
    let record = f.store.reader().read_blocking(|c| access::subject(c, NUMBER)).unwrap();
    assert_eq!(record.messages.len(), 3);
    assert!(record.messages.iter().all(|m| m.text.is_none() && m.number_removed));
    assert_eq!(record.opt_outs.len(), 1);
    let other_text: String = f.sql(&format!("SELECT body FROM message WHERE id = {other}"));
    assert_eq!(other_text, TEXT);
}

#[test]
fn access_by_number_returns_its_messages_replies_and_opt_outs_and_nothing_of_another() {
    let f = fixture();
    let mine = [
        f.sent(NUMBER, MessageKind::Otp, "accepted", DAY),
        f.sent(NUMBER, MessageKind::Bulk, "failed", 0),
    ];
    f.sent(OTHER, MessageKind::Transactional, "accepted", DAY);
    f.reply(NUMBER, DAY);
    f.reply(OTHER, DAY);
    let record = f.store.reader().read_blocking(|c| access::subject(c, NUMBER)).unwrap();
    assert_eq!(record.messages.iter().map(|m| m.id).collect::<Vec<_>>(), mine.to_vec());
    assert_eq!(record.replies.len(), 1);
    let json = serde_json::to_string(&record).unwrap();
    assert!(!json.contains("698765400"), "nothing of another number");
}

#[test]
fn nothing_is_redacted_without_the_key() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("smsdesk.db")).unwrap();
    let e = store
        .writer()
        .write_blocking(|tx| erasure::erase(tx, NUMBER, "admin"))
        .unwrap_err();
    assert!(matches!(e, StoreError::NumberKey(_)), "{e}");
}

/// The mismatch check of a receipt's first event, as a rebuild computes it from the stored rows.
fn misfits(f: &Fixture, message: i64) -> Vec<&'static str> {
    f.store
        .reader()
        .read_blocking(move |c| {
            let event: i64 = c.query_row("SELECT id FROM logical_event WHERE message_id = ?1", [message], |r| {
                r.get(0)
            })?;
            let r = crate::tables::exception::receipt_facts(c, event)?;
            let m = crate::tables::message::message_facts(c, message)?.unwrap();
            Ok::<_, StoreError>(
                smsdesk_core::receipts::mismatch::check(&r, &m, 0)
                    .into_iter()
                    .map(|x| x.field)
                    .collect(),
            )
        })
        .unwrap()
}

#[test]
fn a_receipt_that_did_not_fit_its_message_still_does_not_once_redacted() {
    let f = fixture();
    let fits = f.sent(NUMBER, MessageKind::Transactional, "accepted", DAY);
    let misfit = f.sent(NUMBER, MessageKind::Transactional, "accepted", DAY);
    // The second one's receipt names another handset and echoes another text.
    f.store
        .writer()
        .write_blocking(move |tx| {
            tx.conn().execute_batch(&format!(
                "DROP TRIGGER receipt_refuses_update;
                 UPDATE receipt SET source_addr = '33699999999', raw_text = 'id:P{misfit} stat:DELIVRD text:hello there'
                 WHERE message_id_raw = 'P{misfit}';"
            ))?;
            Ok::<_, StoreError>(())
        })
        .unwrap();
    let before = (misfits(&f, fits), misfits(&f, misfit));
    assert_eq!(before, (vec![], vec!["destination", "text"]), "the scene");
    f.run(&everything_due(), 100);
    assert_eq!(
        (misfits(&f, fits), misfits(&f, misfit)),
        before,
        "the verdicts outlive the content"
    );
}

#[test]
fn each_batch_reads_only_what_is_due_through_an_index() {
    let f = fixture();
    f.sent(NUMBER, MessageKind::Transactional, "accepted", DAY);
    f.reply(NUMBER, DAY);
    let conn = rusqlite::Connection::open(f.dir.path().join("smsdesk.db")).unwrap();
    for sql in super::retention::due_queries() {
        let plan: Vec<String> = conn
            .prepare(&format!("EXPLAIN QUERY PLAN {sql}"))
            .unwrap()
            .query_map(rusqlite::params![1, 5], |r| r.get::<_, String>(3))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        let plan = plan.join(" / ");
        assert!(
            !plan.contains("SCAN") && !plan.contains("TEMP B-TREE"),
            "a batch must not read every row, nor sort them: {sql}\n{plan}"
        );
    }
}
