//! The opt-out list on both stores: a number put on it and taken off, and the waiting messages
//! of the kinds it stops. (Looking an erased number up by its hash: `privacy::both_tests`.)

use smsdesk_core::domain::MessageKind;

use super::opt_out::{self, NewOptOut, Reason};
use super::test_rows;
use crate::both_stores::on_both;
use crate::writer::write_for_tests;

#[test]
fn a_number_goes_on_the_list_and_off_and_its_waiting_messages_are_found_on_both_stores() {
    on_both(|db| {
        let (entry, waiting) = write_for_tests(db, 1_000, |tx| {
            let mut ids = Vec::new();
            for (kind, status) in [
                ("bulk", "queued"),
                ("transactional", "queued"),
                ("bulk", "accepted"),
                ("otp", "queued"),
            ] {
                let m = test_rows::message(tx, "smsc-a", "+33612345678", kind)?;
                test_rows::queued(tx.db(), m, status, 1_000)?;
                ids.push(m);
            }
            let entry = opt_out::add(
                tx,
                &NewOptOut {
                    phone: "+33612345678",
                    kinds: &[MessageKind::Bulk, MessageKind::Transactional],
                    reason: Reason::Operator,
                    note: Some("STOP"),
                    inbox_message_id: None,
                    by: "system",
                },
            )?;
            Ok((entry, ids))
        })
        .unwrap();
        let kinds = [MessageKind::Bulk, MessageKind::Transactional];
        assert_eq!(
            opt_out::queued_to(&db, "+33612345678", &kinds).unwrap(),
            [waiting[0], waiting[1]],
            "{:?}",
            db.dialect()
        );
        assert_eq!(
            opt_out::queued_to(&db, "+33612345678", &[MessageKind::Otp]).unwrap(),
            [waiting[3]]
        );
        assert!(opt_out::queued_to(&db, "+33600000000", &kinds).unwrap().is_empty());
        write_for_tests(db, 2_000, |tx| {
            opt_out::end(tx, entry, Reason::Operator, Some("asked by phone"), None, "ana")
        })
        .unwrap();
        let row: (Option<i64>, Option<String>, String) = db
            .query_row(
                "SELECT removed_at, removed_by, kinds FROM opt_out WHERE id = ?1",
                &[&entry],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .unwrap();
        assert_eq!(row, (Some(2_000), Some("ana".into()), "bulk,transactional".into()));
    });
}
