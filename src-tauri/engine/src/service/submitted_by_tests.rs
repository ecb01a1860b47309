//! A message records who handed it in, beside the channel it came by: the person who composed it
//! or imported its CSV file (in a browser the signed-in account, in the window its operator), or
//! the API key. On a real database file, read back through the message's detail.

use serde_json::json;

use super::{Service, SubmitBatch};
use crate::access::{Caller, Role};
use crate::domain::IntakeChannel;
use crate::intake::SubmitMessage;
use crate::test_support::{new_key, service};
use crate::views::MessageRecord;

fn message(text: &str) -> SubmitMessage {
    serde_json::from_value(json!({ "destination": "+33612345678", "text": text })).unwrap()
}

async fn submit(s: &Service, caller: &Caller, channel: IntakeChannel, text: &str) -> MessageRecord {
    let id = s.submit(caller, channel, message(text), None).await.unwrap().value.id;
    s.message(caller, id).await.unwrap().message
}

fn marie() -> Caller {
    Caller::Person {
        account_id: 3,
        name: "Marie".into(),
        role: Role::Operator,
        session_id: 9,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_persons_compose_and_csv_import_record_the_person() {
    let dir = tempfile::tempdir().unwrap();
    let s = service(&dir);
    let composed = submit(&s, &marie(), IntakeChannel::Compose, "Your table is ready").await;
    assert_eq!(composed.submitted_by.as_deref(), Some("Marie"));
    assert_eq!((composed.channel, composed.api_key_id), (IntakeChannel::Compose, None));

    let batch = SubmitBatch {
        messages: vec![message("Row 1"), message("Row 2")],
    };
    let imported = s.submit_batch(&marie(), IntakeChannel::Csv, batch, None).await.unwrap();
    for m in imported.value.messages {
        let record = s.message(&marie(), m.id).await.unwrap().message;
        assert_eq!(
            (record.channel, record.submitted_by.as_deref()),
            (IntakeChannel::Csv, Some("Marie"))
        );
    }

    let window = Caller::window();
    let from_window = submit(&s, &window, IntakeChannel::Compose, "From the desk").await;
    assert_eq!(
        from_window.submitted_by,
        Some(window.submitter()),
        "the window's operator, by their login name"
    );
    assert!(
        !window.submitter().ends_with("(desktop)"),
        "a name, not the audit log's wording"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_api_keys_submit_records_the_key() {
    let dir = tempfile::tempdir().unwrap();
    let s = service(&dir);
    let (id, key) = new_key(&s, &dir).await;
    let caller = s.authenticate(key).await.unwrap().expect("the key just made");
    let record = submit(&s, &caller, IntakeChannel::Api, "Order 7 shipped").await;
    assert_eq!(record.submitted_by.as_deref(), Some("website"));
    assert_eq!(record.api_key_id, Some(id));
    assert_eq!(record.channel, IntakeChannel::Api);
}
