//! Logical events on both stores: recorded once per event whatever number of receipts carried
//! it, matched to a message, and read back with their first receipt.

use smsdesk_core::domain::{Correlation, IdSource, ReceiptKind};
use smsdesk_core::receipts::dedup;

use super::logical_event::{self, NewEvent};
use super::test_rows;
use crate::both_stores::on_both;
use crate::writer::write_for_tests;

#[test]
fn an_event_is_recorded_once_matched_and_read_back_with_its_first_receipt_on_both_stores() {
    on_both(|db| {
        let key = dedup::key(
            None,
            Some("ab12"),
            Some("DELIVRD"),
            None,
            None,
            None,
            ReceiptKind::Receipt,
        );
        let (event, receipt, message) = write_for_tests(db, 1_000, |tx| {
            let receipt = test_rows::receipt(tx, "smsc-a", "AB12", "DELIVRD")?;
            let message = test_rows::message(tx, "smsc-a", "+33612345678", "transactional")?;
            let new = NewEvent {
                connection: "smsc-a",
                key: &key,
                first_receipt_id: receipt,
                correlation: Correlation::Pending,
                message_id: None,
            };
            let event = logical_event::record(tx, &new)?.expect("a new event");
            assert_eq!(logical_event::record(tx, &new)?, None, "a repeat");
            Ok((event, receipt, message))
        })
        .unwrap();
        assert_eq!(logical_event::by_dedup_key(&db, "smsc-a", &key.key).unwrap(), event);
        assert_eq!(logical_event::waiting_for(&db, "smsc-a", "ab12").unwrap(), [event]);
        assert_eq!(
            logical_event::receipted_id(&db, event).unwrap(),
            ("smsc-a".into(), Some("ab12".into()), Some("AB12".into()))
        );
        assert_eq!(
            logical_event::first_receipt_status(&db, event).unwrap(),
            (receipt, Some("DELIVRD".into()))
        );
        assert_eq!(
            logical_event::unmatched_ids(&db, "smsc-a").unwrap(),
            [(event, "AB12".to_owned(), None::<IdSource>)]
        );
        write_for_tests(db, 2_000, |tx| {
            logical_event::set_receipted_key(tx, event, "AB12")?;
            logical_event::mark_matched(tx, event, message, "operator")
        })
        .unwrap();
        let stored = logical_event::stored(&db, event).unwrap().unwrap();
        assert_eq!(stored.stat.as_deref(), Some("DELIVRD"));
        assert_eq!((stored.id.as_deref(), stored.unreadable), (Some("AB12"), false));
        assert_eq!(
            (stored.connection.as_str(), stored.key.as_deref()),
            ("smsc-a", Some("AB12"))
        );
        assert!(
            logical_event::unmatched_ids(&db, "smsc-a").unwrap().is_empty(),
            "matched"
        );
        assert!(logical_event::waiting_for(&db, "smsc-a", "AB12").unwrap().is_empty());
        assert!(logical_event::stored(&db, event + 1).unwrap().is_none());
        assert!(logical_event::by_dedup_key(&db, "smsc-b", &key.key).is_err());
    });
}
