//! PDUs from handsets and the inbox messages they make, on both stores: parts waiting for the
//! others, put together, found again when a provider repeats one, and marked read.

use smsdesk_core::domain::ReceiptKind;

use super::inbound::{self, NewInbound, Place};
use super::inbox::{self, Intent, NewInboxMessage};
use crate::both_stores::on_both;
use crate::tables::receipt::NewReceipt;
use crate::writer::{write_for_tests, WriteTx};
use crate::StoreError;

fn mo(tx: &mut WriteTx<'_>, id: &str) -> Result<i64, StoreError> {
    let now = tx.now_ms();
    let mut r = NewReceipt {
        received_at: now,
        connection: "smsc-a".into(),
        source_addr: Some("+33612345678".into()),
        raw: vec![0x48, 0x69],
        kind: Some(ReceiptKind::Mo),
        ..NewReceipt::default()
    };
    r.fields.message_id_raw = Some(id.into());
    tx.receipts().append(&r)
}

fn part<'a>(receipt_id: i64, text: &'a str, seq: u8, sender: Option<&'a str>) -> NewInbound<'a> {
    NewInbound {
        receipt_id,
        connection: "smsc-a",
        source_addr: sender,
        destination_addr: Some("36000"),
        body: Some(text),
        text,
        alphabet: "gsm7",
        place: Some(Place {
            reference: 513,
            total: 2,
            seq,
        }),
        received_at: 1_000 + i64::from(seq),
    }
}

#[test]
fn the_parts_of_a_long_message_wait_are_put_together_and_read_alike_on_both_stores() {
    on_both(|db| {
        let place = Place {
            reference: 513,
            total: 2,
            seq: 1,
        };
        let (second, first, lone) = write_for_tests(db, 1_000, |tx| {
            let (r2, r1, r3) = (mo(tx, "P2")?, mo(tx, "P1")?, mo(tx, "P3")?);
            let second = inbound::insert(tx, &part(r2, "world", 2, Some("+33612345678")))?;
            let first = inbound::insert(tx, &part(r1, "hello ", 1, Some("+33612345678")))?;
            // A sender without an address waits apart from the others.
            let lone = inbound::insert(
                tx,
                &NewInbound {
                    received_at: 1_005,
                    ..part(r3, "?", 1, None)
                },
            )?;
            Ok((second, first, lone))
        })
        .unwrap();
        let waiting = inbound::waiting_parts(&db, "smsc-a", Some("+33612345678"), place).unwrap();
        assert_eq!(
            waiting.iter().map(|p| (p.id, p.seq)).collect::<Vec<_>>(),
            [(first, 1), (second, 2)]
        );
        let no_sender = inbound::waiting_parts(&db, "smsc-a", None, place).unwrap();
        assert_eq!(
            no_sender.iter().map(|p| p.id).collect::<Vec<_>>(),
            [lone],
            "{:?}",
            db.dialect()
        );
        let overdue = inbound::overdue(&db, 1_010).unwrap();
        let senders: Vec<Option<&str>> = overdue.iter().map(|o| o.1.as_deref()).collect();
        assert_eq!(senders, [Some("+33612345678"), None], "the oldest wait first");
        assert_eq!(overdue[0].2, place);
        assert_eq!(inbound::overdue(&db, 1_002).unwrap().len(), 1);
        assert!(inbound::overdue(&db, 1_001).unwrap().is_empty(), "waiting since 1001");
        assert_eq!(
            inbound::with_provider_id(&db, "smsc-a", "+33612345678", Some("+33612345678"), "P1").unwrap(),
            Some(first)
        );
        assert_eq!(
            inbound::with_provider_id(&db, "smsc-a", "+33612345678", None, "P3").unwrap(),
            Some(lone)
        );
        let arrived = inbound::arrived(&db, inbound::receipt_of(&db, first).unwrap().unwrap())
            .unwrap()
            .unwrap();
        assert_eq!(
            (arrived.raw, arrived.source_addr),
            (vec![0x48, 0x69], Some("+33612345678".into()))
        );

        let inbox_id = write_for_tests(db, 2_000, |tx| {
            let id = inbox::insert(
                tx,
                &NewInboxMessage {
                    connection: "smsc-a",
                    phone: Some("+33612345678"),
                    handset: "+33612345678",
                    recipient: Some("36000"),
                    text: "hello ",
                    alphabet: "gsm7",
                    parts: 2,
                    parts_received: 1,
                    received_at: 1_001,
                    completed_at: 2_000,
                    intent: None,
                },
            )?;
            inbound::attach(tx, &[first], id)?;
            Ok(id)
        })
        .unwrap();
        assert_eq!(
            inbox::incomplete(&db, "smsc-a", "+33612345678", 513, 2, 1_000).unwrap(),
            Some(inbox_id)
        );
        assert_eq!(
            inbox::incomplete(&db, "smsc-a", "+33612345678", 514, 2, 1_000).unwrap(),
            None
        );
        assert_eq!(
            inbox::holding_part(&db, "smsc-a", "+33612345678", (513, 2, 1), 1_000).unwrap(),
            Some(inbox_id)
        );
        assert_eq!(
            inbox::holding_part(&db, "smsc-a", "+33612345678", (513, 2, 2), 1_000).unwrap(),
            None
        );
        assert_eq!(
            inbound::with_provider_id(&db, "smsc-a", "+33612345678", Some("+33612345678"), "P1").unwrap(),
            Some(first),
            "found in the sender's thread once filed"
        );
        write_for_tests(db, 3_000, |tx| {
            inbound::attach(tx, &[second], inbox_id)?;
            inbox::fill_in(tx, inbox_id, "hello world", 2)?;
            inbox::set_intent(tx, inbox_id, Intent::OptOut, "STOP")?;
            inbound::set_decoded(tx, lone, "?", "latin1", None)?;
            Ok(())
        })
        .unwrap();
        let parts = inbound::parts_of(&db, inbox_id).unwrap();
        assert_eq!(parts.iter().map(|p| p.text.as_str()).collect::<String>(), "hello world");
        assert_eq!(
            inbox::incomplete(&db, "smsc-a", "+33612345678", 513, 2, 1_000).unwrap(),
            None
        );
        assert_eq!(inbound::next_unread_text(&db, 0).unwrap(), None);
        assert_eq!(
            inbox::thread_of(&db, inbox_id).unwrap().as_deref(),
            Some("+33612345678")
        );
        assert!(inbox::thread_exists(&db, "+33612345678").unwrap());
        assert!(!inbox::thread_exists(&db, "+33600000000").unwrap());
        let read = write_for_tests(db, 4_000, |tx| {
            let read = inbox::mark_read(tx, "+33612345678", None, "ana")?;
            assert_eq!(
                inbox::mark_read(tx, "+33612345678", Some(inbox_id), "ana")?,
                0,
                "read once"
            );
            Ok(read)
        })
        .unwrap();
        assert_eq!(read, 1);
    });
}
