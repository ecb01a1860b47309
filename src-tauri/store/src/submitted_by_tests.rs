//! Who handed a message in (schema version 15): written with the message, read back in its
//! detail; rows written before the column existed read as unknown and keep their channel.

use rusqlite::Connection;

use super::pragmas::{self, Role};
use super::*;
use smsdesk_core::domain::{IntakeChannel, MessageKind};
use smsdesk_core::message::NewMessage;
use smsdesk_core::time::Clock;

fn detail(store: &Store, id: i64) -> views::MessageDetail {
    store
        .reader()
        .read_blocking(move |c| views::message_detail(c, id))
        .unwrap()
        .expect("the message is there")
}

#[test]
fn a_message_keeps_who_handed_it_in_and_an_older_row_reads_as_unknown_with_its_channel() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("smsdesk.db");
    let old = {
        let mut c = Connection::open(&path).unwrap();
        pragmas::apply(&c, Role::Writer).unwrap();
        migrations::migrate_to(&mut c, 14, &Clock::system()).unwrap();
        c.execute(
            "INSERT INTO message (created_at, channel, destination_raw, destination, body, encoding, segments,
                 kind, priority, registered_delivery, connection)
             VALUES (1, 'compose', '+33600000001', '+33600000001', 'hi', 'gsm7', 1, 'transactional', 25, 1, 'sandbox')",
            [],
        )
        .unwrap();
        let id = c.last_insert_rowid();
        c.execute(
            "INSERT INTO queue (message_id, status, priority, next_attempt_at, updated_at) VALUES (?1, 'queued', 25, 1, 1)",
            [id],
        )
        .unwrap();
        id
    };
    let store = Store::open(&path).unwrap();
    assert!(store.migration().applied.contains(&15));

    let before = detail(&store, old).message;
    assert_eq!(before.submitted_by, None, "nobody was recorded then");
    assert_eq!(
        before.channel,
        IntakeChannel::Compose,
        "its channel still says how it came"
    );

    let composed = store
        .writer()
        .write_blocking(|tx| {
            tables::message::insert(
                tx,
                &NewMessage {
                    submitted_by: Some("Marie".into()),
                    ..NewMessage::text(
                        IntakeChannel::Compose,
                        "+33600000002",
                        "hi",
                        MessageKind::Transactional,
                        "sandbox",
                    )
                },
            )
        })
        .unwrap();
    let record = detail(&store, composed).message;
    assert_eq!(record.submitted_by.as_deref(), Some("Marie"));
    assert_eq!(record.channel, IntakeChannel::Compose);
    let json = serde_json::to_value(&record).unwrap();
    assert_eq!(json["submitted_by"], "Marie", "as the API and the screens read it");
    assert!(serde_json::to_value(&before).unwrap()["submitted_by"].is_null());
}
