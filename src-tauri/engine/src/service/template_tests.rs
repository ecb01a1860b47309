//! Messages handed in by template, through the service on a real database file: the engine fills
//! the office's template with the values given, and a submit, a batch and a preview read it alike.

use std::sync::Arc;

use serde_json::{json, Value};

use super::{NewTemplate, Service, ServiceError, SubmitBatch};
use crate::apikeys::Caller;
use crate::domain::IntakeChannel;
use crate::intake::{IntakeRules, SubmitMessage};
use crate::receipts::ingest::Ingestor;
use crate::said::FieldCode;
use crate::store::{Store, StoreError};

async fn office() -> (tempfile::TempDir, Service) {
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(Store::open(&dir.path().join("smsdesk.db")).unwrap());
    let ingestor = Ingestor::new(store.writer().clone(), Default::default());
    // A run of its own, as an engine has: one-time codes are sealed with its key.
    crate::privacy::codes::new_run(store.path());
    let s = Service::new(store, ingestor, IntakeRules::new("sandbox", Some("FR")), 100);
    let reminder = NewTemplate {
        name: "Reminder".into(),
        text: "Hello {name}, see you on {date}.".into(),
    };
    s.create_template(&Caller::command_line(), reminder).await.unwrap();
    (dir, s)
}

fn message(v: Value) -> SubmitMessage {
    serde_json::from_value(v).unwrap()
}

async fn bodies(s: &Service) -> Vec<String> {
    s.store()
        .reader()
        .read(|c| {
            let mut q = c.prepare("SELECT body FROM message ORDER BY id")?;
            let rows = q.query_map([], |r| r.get(0))?;
            Ok::<_, StoreError>(rows.collect::<Result<Vec<String>, _>>()?)
        })
        .await
        .unwrap()
}

fn refused(e: ServiceError) -> Vec<(String, FieldCode, Option<String>)> {
    let ServiceError::Invalid(errors) = e else {
        panic!("refused as invalid fields, not {e:?}")
    };
    errors
        .into_iter()
        .map(|e| {
            let named = e.params.get("placeholder").or(e.params.get("name")).cloned();
            (e.field, e.code, named)
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_filled_template_is_sent_with_the_values_in_place() {
    let (_dir, s) = office().await;
    let one = json!({ "destination": "+33612345678", "template": "Reminder",
                      "values": { "name": "Anna", "date": "Monday" } });
    let sent = s
        .submit(&Caller::command_line(), IntakeChannel::Api, message(one), None)
        .await
        .unwrap();
    assert_eq!((sent.value.encoding.as_str(), sent.value.segments), ("gsm7", 1));
    let batch: SubmitBatch = serde_json::from_value(json!({ "messages": [
        { "destination": "+33612345679", "template": "reminder", "values": { "name": "Léo", "date": "Tuesday" } },
        { "destination": "+33612345680", "text": "Plain {name}" },
    ] }))
    .unwrap();
    s.submit_batch(&Caller::command_line(), IntakeChannel::Csv, batch, None)
        .await
        .unwrap();
    assert_eq!(
        bodies(&s).await,
        vec![
            "Hello Anna, see you on Monday.",
            "Hello Léo, see you on Tuesday.",
            "Plain {name}"
        ],
        "each message keeps the text the template was filled into; a text is sent as written"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_missing_value_is_refused_naming_the_placeholder_and_nothing_is_stored() {
    let (_dir, s) = office().await;
    let one = json!({ "destination": "+33612345678", "template": "Reminder", "values": { "name": "Anna" } });
    let e = s
        .submit(&Caller::command_line(), IntakeChannel::Api, message(one), None)
        .await
        .unwrap_err();
    assert_eq!(
        refused(e),
        vec![(
            "values".to_owned(),
            FieldCode::TemplateValueMissing,
            Some("date".to_owned())
        )]
    );
    let batch: SubmitBatch = serde_json::from_value(json!({ "messages": [
        { "destination": "+33612345679", "template": "Reminder", "values": { "name": "Léo", "date": "Tuesday" } },
        { "destination": "+33612345680", "template": "Reminder", "values": { "date": "Friday" } },
    ] }))
    .unwrap();
    let e = s
        .submit_batch(&Caller::command_line(), IntakeChannel::Csv, batch, None)
        .await
        .unwrap_err();
    assert_eq!(
        refused(e),
        vec![(
            "messages[1].values".to_owned(),
            FieldCode::TemplateValueMissing,
            Some("name".to_owned())
        )],
        "a batch names the message by its index"
    );
    assert_eq!(bodies(&s).await, Vec::<String>::new(), "nothing refused was stored");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unknown_template_is_refused() {
    let (_dir, s) = office().await;
    let one = json!({ "destination": "+33612345678", "template": "Birthday", "values": { "name": "Anna" } });
    let e = s
        .submit(&Caller::command_line(), IntakeChannel::Api, message(one), None)
        .await
        .unwrap_err();
    assert_eq!(
        refused(e),
        vec![(
            "template".to_owned(),
            FieldCode::UnknownTemplate,
            Some("Birthday".to_owned())
        )]
    );
    assert!(bodies(&s).await.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_preview_answers_the_filled_text_its_parts_and_the_placeholders_without_a_value() {
    let (_dir, s) = office().await;
    let batch: SubmitBatch = serde_json::from_value(json!({ "messages": [
        { "destination": "+33612345678", "template": "Reminder", "values": { "name": "Zoé", "date": "Friday" } },
        { "destination": "bad", "template": "Reminder", "values": { "name": "Zoé" } },
        { "destination": "+33612345678", "text": "Hello" },
    ] }))
    .unwrap();
    let preview = s.preview(&batch).await.unwrap();
    let [filled, missing, plain] = &preview.rows[..] else {
        panic!("a row a message: {preview:?}")
    };
    assert_eq!(filled.text.as_deref(), Some("Hello Zoé, see you on Friday."));
    assert_eq!(
        filled.plan.as_ref().map(|p| (p.encoding, p.segments)),
        Some((crate::sms::encoding::Encoding::Gsm7, 1)),
        "the filled text's encoding and parts"
    );
    assert!(filled.errors.is_empty(), "{filled:?}");
    assert_eq!(
        (missing.text.as_ref(), missing.plan.as_ref()),
        (None, None),
        "nothing half-filled"
    );
    assert_eq!(
        missing
            .errors
            .iter()
            .map(|e| (e.field.as_str(), e.code))
            .collect::<Vec<_>>(),
        vec![
            ("destination", FieldCode::InvalidNumber),
            ("values", FieldCode::TemplateValueMissing)
        ]
    );
    assert_eq!(plain.text, None, "a message given its text is answered as before");
    assert_eq!(plain.plan.as_ref().map(|p| p.segments), Some(1));
    assert!(bodies(&s).await.is_empty(), "a preview writes nothing");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_repeat_of_a_request_by_template_under_its_key_gets_the_first_answer() {
    let (_dir, s) = office().await;
    let one = json!({ "destination": "+33612345678", "template": "Reminder",
                      "values": { "name": "Anna", "date": "Monday" } });
    let key = || Some("reminder-anna".to_owned());
    let first = s
        .submit(&Caller::command_line(), IntakeChannel::Api, message(one.clone()), key())
        .await
        .unwrap();
    let again = s
        .submit(&Caller::command_line(), IntakeChannel::Api, message(one), key())
        .await
        .unwrap();
    assert!(
        again.replayed && again.body == first.body,
        "the first answer, byte for byte"
    );
    let other = json!({ "destination": "+33612345678", "template": "Reminder",
                        "values": { "name": "Anna", "date": "Tuesday" } });
    let e = s
        .submit(&Caller::command_line(), IntakeChannel::Api, message(other), key())
        .await
        .unwrap_err();
    assert!(
        matches!(e, ServiceError::KeyReused),
        "other values are another request: {e:?}"
    );
    assert_eq!(bodies(&s).await.len(), 1);
}
