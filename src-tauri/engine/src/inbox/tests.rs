//! Reading replies: parts put back together, and what a missing part looks like.

use super::{distinct_parts, put_together, tlvs_of};
use crate::store::tables::inbound::StoredPart;

fn part(id: i64, seq: u8, text: &str) -> StoredPart {
    StoredPart {
        id,
        seq,
        text: text.into(),
        alphabet: "ucs2".into(),
        received_at: 1_000 + id,
    }
}

#[test]
fn parts_join_in_their_order_whatever_order_they_came_in() {
    let parts = [part(1, 1, "Bonjour, "), part(3, 3, "demain."), part(2, 2, "pas ")];
    let mut sorted = parts.to_vec();
    sorted.sort_by_key(|p| p.seq);
    assert_eq!(put_together(&sorted, 3), ("Bonjour, pas demain.".to_owned(), 3));
}

#[test]
fn a_missing_part_shows_as_a_gap_and_counts_as_missing() {
    let parts = [part(1, 1, "Bonjour, "), part(3, 3, "demain.")];
    assert_eq!(put_together(&parts, 3), ("Bonjour,  […] demain.".to_owned(), 2));
}

#[test]
fn a_part_received_twice_counts_once() {
    let parts = [part(1, 1, "a"), part(2, 1, "a"), part(3, 2, "b")];
    assert_eq!(distinct_parts(&parts), 2);
    assert_eq!(put_together(&parts, 2), ("ab".to_owned(), 2));
}

#[test]
fn tlvs_read_back_as_the_receipt_log_wrote_them() {
    let tlvs = tlvs_of(Some(r#"[{"tag":"0x020c","hex":"0007"},{"tag":"0x0424","hex":"4869"}]"#));
    assert_eq!(tlvs.len(), 2);
    assert_eq!((tlvs[0].tag, tlvs[0].value.clone()), (0x020c, vec![0, 7]));
    assert_eq!((tlvs[1].tag, tlvs[1].value.clone()), (0x0424, b"Hi".to_vec()));
    assert!(tlvs_of(Some("not json")).is_empty());
    assert!(tlvs_of(None).is_empty());
}

// ------------------------------------------------------------------ through the store

use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;

use smsdesk_core::inbox::InboxRules;

use crate::clock::Clock;
use crate::domain::{ExceptionKind, IntakeChannel, MessageKind, QueueStatus};
use crate::messages::{self, NewMessage};
use crate::queue;
use crate::receipts::ingest::{Ingestor, Outcome, SmppReceived};
use crate::receipts::policy::ReceiptPolicy;
use crate::store::tables::exception;
use crate::store::Store;

struct World {
    _dir: tempfile::TempDir,
    store: Store,
    ingest: Ingestor,
    now: Arc<AtomicI64>,
}

fn world() -> World {
    let dir = tempfile::tempdir().unwrap();
    let now = Arc::new(AtomicI64::new(1_800_000_000_000));
    let clock = {
        let now = now.clone();
        Clock::from_fn(move || now.load(Ordering::Relaxed))
    };
    let store = Store::open_with_clock(&dir.path().join("smsdesk.db"), clock).unwrap();
    let ingest = Ingestor::new(store.writer().clone(), ReceiptPolicy::default());
    World {
        _dir: dir,
        store,
        ingest,
        now,
    }
}

/// Part `seq` of 2 of a long UCS-2 reply with reference 7 from +33612345099.
fn part_of_two(seq: u8, text: &str) -> SmppReceived {
    let mut short_message = vec![0x05, 0x00, 0x03, 0x07, 0x02, seq];
    short_message.extend(text.encode_utf16().flat_map(u16::to_be_bytes));
    SmppReceived {
        connection: "sandbox".into(),
        esm_class: Some(0x40),
        data_coding: Some(0x08),
        source_addr: Some("33612345099".into()),
        source_addr_ton: Some(1),
        destination_addr: Some("smsdesk".into()),
        short_message,
        ..SmppReceived::default()
    }
}

impl World {
    async fn receive(&self, r: SmppReceived) -> Outcome {
        let mut r = r;
        r.received_at = self.now.load(Ordering::Relaxed);
        self.ingest.smpp(r).await.unwrap().outcome
    }

    async fn replies(&self) -> Vec<(String, u32, u32, Option<String>)> {
        self.store
            .reader()
            .read(|c| {
                let mut s = c.prepare("SELECT text, parts, parts_received, intent FROM inbox_message ORDER BY id")?;
                let rows = s
                    .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))?
                    .collect::<Result<Vec<_>, _>>()?;
                Ok::<_, crate::store::StoreError>(rows)
            })
            .await
            .unwrap()
    }

    async fn queue(&self, to: &str, kind: MessageKind) -> i64 {
        let m = NewMessage::text(IntakeChannel::Api, to, "Rappel", kind, "sandbox");
        self.store
            .writer()
            .write(move |tx| messages::insert(tx, &m))
            .await
            .unwrap()
    }

    async fn status(&self, id: i64) -> QueueStatus {
        self.store
            .writer()
            .write(move |tx| crate::store::tables::queue::status(tx, id))
            .await
            .unwrap()
            .unwrap()
    }
}

#[tokio::test]
async fn a_long_reply_missing_a_part_is_shown_after_the_wait_and_takes_the_late_part() {
    let w = world();
    let rules = InboxRules::default();
    assert!(matches!(
        w.receive(part_of_two(1, "Je ne viendrai ")).await,
        Outcome::Inbound { .. }
    ));
    assert_eq!(w.replies().await, vec![], "a part alone waits for the others");

    // Before the wait is over, nothing is shown; after it, the part that came is.
    async fn sweep(w: &World, rules: &InboxRules) -> usize {
        let rules = rules.clone();
        w.store
            .writer()
            .write(move |tx| super::file_overdue(tx, &rules))
            .await
            .unwrap()
    }
    w.now.fetch_add(rules.reassembly_ms - 1, Ordering::Relaxed);
    assert_eq!(sweep(&w, &rules).await, 0);
    w.now.fetch_add(2, Ordering::Relaxed);
    assert_eq!(sweep(&w, &rules).await, 1);
    assert_eq!(w.replies().await, vec![("Je ne viendrai  […] ".to_owned(), 2, 1, None)]);

    // The late part joins the reply shown without it.
    w.receive(part_of_two(2, "pas demain.")).await;
    assert_eq!(
        w.replies().await,
        vec![("Je ne viendrai pas demain.".to_owned(), 2, 2, None)]
    );
    assert_eq!(sweep(&w, &rules).await, 0);
}

#[tokio::test]
async fn a_part_delivered_again_after_its_reply_was_whole_changes_nothing_and_waits_for_nothing() {
    let w = world();
    w.receive(part_of_two(1, "Je ne viendrai ")).await;
    w.receive(part_of_two(2, "pas demain.")).await;
    w.receive(part_of_two(2, "pas demain.")).await;
    assert_eq!(
        w.replies().await,
        vec![("Je ne viendrai pas demain.".to_owned(), 2, 2, None)]
    );
    // Long after, nothing is left waiting to be shown on its own.
    let rules = InboxRules::default();
    w.now.fetch_add(rules.reassembly_ms + 1, Ordering::Relaxed);
    let shown = w
        .store
        .writer()
        .write(move |tx| super::file_overdue(tx, &rules))
        .await
        .unwrap();
    assert_eq!(shown, 0);
    assert_eq!(w.replies().await.len(), 1);
}

#[tokio::test]
async fn a_keyword_split_in_two_parts_opts_out_once_the_reply_is_whole() {
    let w = world();
    w.receive(part_of_two(2, "OP")).await;
    assert!(w.replies().await.is_empty());
    w.receive(part_of_two(1, "ST")).await;
    assert_eq!(
        w.replies().await,
        vec![("STOP".to_owned(), 2, 2, Some("opt_out".to_owned()))]
    );
    let on_list = w
        .store
        .writer()
        .write(|tx| crate::optouts::blocks(tx, "+33612345099", MessageKind::Bulk))
        .await
        .unwrap();
    assert!(on_list.is_some());
}

#[tokio::test]
async fn a_message_put_back_in_the_queue_after_its_number_opted_out_is_held_when_it_falls_due() {
    let w = world();
    let phone = "+33612345098";
    let waiting = w.queue(phone, MessageKind::Transactional).await;
    let on_the_wire = w.queue(phone, MessageKind::Bulk).await;
    let code = w.queue(phone, MessageKind::Otp).await;
    // The bulk message is being sent when the number opts out: it cannot be called back.
    let now = w.now.load(Ordering::Relaxed);
    w.store
        .writer()
        .write(move |tx| crate::store::tables::queue::lease(tx, on_the_wire, "test", now + 60_000))
        .await
        .unwrap();
    w.store
        .writer()
        .write(move |tx| {
            let src = crate::optouts::Source::by("Olga", crate::store::tables::opt_out::Reason::Operator, None);
            crate::optouts::add(tx, phone, &[MessageKind::Transactional, MessageKind::Bulk], &src)
        })
        .await
        .unwrap();
    assert_eq!(w.status(waiting).await, QueueStatus::Held);
    assert_eq!(w.status(on_the_wire).await, QueueStatus::Sending);
    assert_eq!(
        w.status(code).await,
        QueueStatus::Queued,
        "one-time codes are not stopped"
    );

    // Its try fails for a while and it goes back in the queue: when it falls due, it is held.
    w.store
        .writer()
        .write(move |tx| {
            let throttled = crate::queue_reason::refused(0x58, crate::command_status::ErrorClass::Throttled, 1);
            crate::store::tables::queue::set_status(tx, on_the_wire, QueueStatus::Queued, Some(&throttled), None)
        })
        .await
        .unwrap();
    let now = w.now.load(Ordering::Relaxed) + 1;
    let claimed = w
        .store
        .writer()
        .write(move |tx| queue::claim(tx, "test", now, 60_000, 10, &queue::Serving::queued_for("sandbox")))
        .await
        .unwrap();
    let ids: Vec<i64> = claimed.iter().map(|c| c.message_id).collect();
    assert_eq!(ids, vec![code], "only the one-time code goes out");
    assert_eq!(w.status(on_the_wire).await, QueueStatus::Held);
    let open = w
        .store
        .writer()
        .write(move |tx| exception::open_for_message(tx, on_the_wire, ExceptionKind::OptedOut))
        .await
        .unwrap();
    assert!(open.is_some(), "a person is asked what to do with it");
}

/// Version 11 on a version 10 database: replies stored before the inbox existed are filed into it
/// at start, read from their receipt rows as new ones are; a STOP among them opts its number out
/// and holds what waited for it; every row is kept.
#[tokio::test]
async fn replies_stored_before_the_inbox_existed_are_filed_into_it_and_a_stop_among_them_counts() {
    use crate::store::migrations;
    use crate::store::pragmas::{self, Role};
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("smsdesk.db");
    {
        let mut c = rusqlite::Connection::open(&path).unwrap();
        pragmas::apply(&c, Role::Writer).unwrap();
        migrations::migrate_to(&mut c, 10, &Clock::system()).unwrap();
        // "Arrêt" in UCS-2 from +33612345097, "Merci" in GSM 7-bit from +33612345096, each as
        // version 10 kept them; and a bulk message to the first, waiting.
        c.execute_batch(
            "INSERT INTO receipt (id, received_at, source, connection, source_addr, destination_addr, raw, raw_text,
                 esm_class, data_coding, kind, parser_version)
             VALUES (1, 40, 'smpp_deliver_sm', 'sandbox', '+33612345097', 'smsdesk', x'00410072007200ea0074',
                     'ignored', 0, 8, 'mo', 1),
                    (2, 41, 'smpp_deliver_sm', 'sandbox', '+33612345096', 'smsdesk', x'4d65726369', 'Merci',
                     0, 0, 'mo', 1);
             INSERT INTO receipt_outcome (receipt_id, is_repeat, processed_at) VALUES (1, 0, 40), (2, 0, 41);
             INSERT INTO inbound_message (id, receipt_id, connection, source_addr, destination_addr, body, received_at)
             VALUES (1, 1, 'sandbox', '+33612345097', 'smsdesk', 'ignored', 40),
                    (2, 2, 'sandbox', '+33612345096', 'smsdesk', 'Merci', 41);
             INSERT INTO message (id, created_at, channel, destination_raw, destination, body, encoding, segments,
                 kind, priority, registered_delivery, connection)
             VALUES (1, 10, 'api', '+33612345097', '+33612345097', 'Soldes', 'gsm7', 1, 'bulk', 3, 1, 'sandbox');
             INSERT INTO queue (message_id, status, priority, next_attempt_at, updated_at)
             VALUES (1, 'queued', 35, 0, 10);",
        )
        .unwrap();
    }
    let store = Store::open(&path).unwrap();
    let rules = InboxRules::default();
    let (n, _) = store
        .writer()
        .write(move |tx| super::file_earlier(tx, &rules, 0, 100))
        .await
        .unwrap();
    assert_eq!(n, 2);
    let rows = store
        .reader()
        .read(|c| {
            let mut s = c.prepare("SELECT thread, text, intent FROM inbox_message ORDER BY id")?;
            let rows = s
                .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
                .collect::<Result<Vec<(String, String, Option<String>)>, _>>()?;
            Ok::<_, crate::store::StoreError>(rows)
        })
        .await
        .unwrap();
    assert_eq!(
        rows,
        vec![
            (
                "+33612345097".to_owned(),
                "Arrêt".to_owned(),
                Some("opt_out".to_owned())
            ),
            ("+33612345096".to_owned(), "Merci".to_owned(), None),
        ]
    );
    let held = store
        .writer()
        .write(|tx| crate::store::tables::queue::status(tx, 1))
        .await
        .unwrap();
    assert_eq!(held, Some(QueueStatus::Held));
    // Filed once: a second start finds nothing left to file.
    let rules = InboxRules::default();
    let (again, _) = store
        .writer()
        .write(move |tx| super::file_earlier(tx, &rules, 0, 100))
        .await
        .unwrap();
    assert_eq!(again, 0);
}

// ------------------------------------------------------------------ from HTTP providers

impl World {
    /// A provider's inbound webhook, as the route hands it in.
    async fn post(&self, provider: &str, content_type: &str, query: &str, body: &str) -> Vec<Outcome> {
        let r = crate::receipts::ingest::HttpReceived {
            provider: provider.into(),
            inbound: true,
            connection: "vonage".into(),
            method: "POST".into(),
            content_type: Some(content_type.into()),
            query: query.into(),
            body: body.as_bytes().to_vec(),
            received_at: self.now.load(Ordering::Relaxed),
            ..Default::default()
        };
        self.ingest
            .http(r)
            .await
            .unwrap()
            .into_iter()
            .map(|i| i.outcome)
            .collect()
    }

    async fn threads(&self) -> Vec<(String, String, String)> {
        self.store
            .reader()
            .read(|c| {
                let mut s = c.prepare("SELECT thread, text, alphabet FROM inbox_message ORDER BY id")?;
                let rows = s
                    .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
                    .collect::<Result<Vec<_>, _>>()?;
                Ok::<_, crate::store::StoreError>(rows)
            })
            .await
            .unwrap()
    }
}

const FORM: &str = "application/x-www-form-urlencoded";

/// Part `seq` of 2 of a long Vonage message with reference 42, its own message id.
fn vonage_part(seq: u8, text: &str) -> String {
    format!(
        "msisdn=33612345090&to=33757000000&messageId=0A0{seq}&text={}&type=text&concat=true\
         &concat-ref=42&concat-total=2&concat-part={seq}",
        text.replace(' ', "+")
    )
}

#[tokio::test]
async fn a_long_vonage_message_posted_in_parts_is_put_back_together() {
    let w = world();
    assert!(matches!(
        w.post("vonage", FORM, "", &vonage_part(2, "pas demain.")).await[..],
        [Outcome::Inbound { .. }]
    ));
    // The provider posts the same part again: kept, not waiting twice.
    assert!(matches!(
        w.post("vonage", FORM, "", &vonage_part(2, "pas demain.")).await[..],
        [Outcome::InboundRepeat { .. }]
    ));
    assert!(w.threads().await.is_empty(), "a part alone waits for the others");
    w.post("vonage", FORM, "", &vonage_part(1, "Je ne viendrai ")).await;
    assert_eq!(
        w.threads().await,
        vec![(
            "+33612345090".to_owned(),
            "Je ne viendrai pas demain.".to_owned(),
            "text".to_owned()
        )]
    );
}

#[tokio::test]
async fn a_message_posted_again_is_kept_as_a_repeat_and_filed_once() {
    let w = world();
    let body = "From=%2B33612345091&To=%2B33757000000&Body=STOP&MessageSid=SM0001&NumSegments=1";
    let first = w.post("twilio", FORM, "", body).await;
    let [Outcome::Inbound { inbound_id }] = first[..] else {
        panic!("{first:?}")
    };
    w.now.fetch_add(60_000, Ordering::Relaxed);
    assert_eq!(
        w.post("twilio", FORM, "", body).await,
        vec![Outcome::InboundRepeat { inbound_id }]
    );
    assert_eq!(
        w.threads().await,
        vec![("+33612345091".to_owned(), "STOP".to_owned(), "text".to_owned())]
    );
    let (receipts, repeats): (i64, i64) = w
        .store
        .reader()
        .read(|c| {
            Ok::<_, crate::store::StoreError>(c.query_row(
                "SELECT count(*), sum(o.is_repeat) FROM receipt r JOIN receipt_outcome o ON o.receipt_id = r.id
                 WHERE r.kind = 'mo' AND r.source = 'http'",
                [],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )?)
        })
        .await
        .unwrap();
    assert_eq!(
        (receipts, repeats),
        (2, 1),
        "both kept as evidence, the second a repeat"
    );
    // Another message of the same sender is no repeat.
    let other = "From=%2B33612345091&To=%2B33757000000&Body=START&MessageSid=SM0002";
    assert!(matches!(
        w.post("twilio", FORM, "", other).await[..],
        [Outcome::Inbound { .. }]
    ));
}

#[tokio::test]
async fn each_message_of_an_infobip_request_is_filed_and_a_number_without_plus_reads_as_international() {
    let w = world();
    let json = r#"{"results":[
        {"messageId":"ib-1","from":"33612345092","to":"33757000000","text":"Merci","cleanText":"Merci"},
        {"messageId":"ib-2","from":"0612345093","to":"33757000000","text":"Stop","cleanText":""}
      ],"messageCount":2,"pendingMessageCount":0}"#;
    let outcomes = w.post("infobip", "application/json", "", json).await;
    assert_eq!(outcomes.len(), 2);
    let threads = w.threads().await;
    assert_eq!(threads[0].0, "+33612345092");
    // No region in the rules: a national number reads as no number, and is kept as received.
    assert_eq!(threads[1].0, "0612345093");
}

#[tokio::test]
async fn a_request_without_a_message_or_from_an_unmapped_preset_is_kept_with_an_exception() {
    let w = world();
    for (provider, body) in [
        ("twilio", "MessageSid=SM9&MessageStatus=delivered"),
        ("sinch", "from=33612345094&body=hi"),
    ] {
        let outcomes = w.post(provider, FORM, "", body).await;
        assert!(
            matches!(outcomes[..], [Outcome::Unparseable { .. }]),
            "{provider}: {outcomes:?}"
        );
    }
    assert!(w.threads().await.is_empty());
}
