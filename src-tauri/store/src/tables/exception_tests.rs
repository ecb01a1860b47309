//! Exceptions on both stores: opened, given their evidence in order, closed by the system (with
//! its audit line) or settled by an operator, and counted.

use smsdesk_core::domain::{Correlation, EvidenceRole, ExceptionKind, ExceptionStatus, ReceiptKind};
use smsdesk_core::receipts::dedup;
use smsdesk_core::said::{self, Summary, SummaryCode};

use super::exception::{self, Evidence, NewException};
use super::{logical_event, test_rows};
use crate::both_stores::on_both;
use crate::writer::write_for_tests;

#[test]
fn an_exception_gathers_its_evidence_in_order_and_is_closed_and_counted_alike_on_both_stores() {
    on_both(|db| {
        let (m, event, receipts, attempt) = write_for_tests(db, 1_000, |tx| {
            let m = test_rows::message(tx, "smsc-a", "+33612345678", "otp")?;
            let attempt = test_rows::accepted_try(tx.db(), m, 1, "smsc-a", "k1", 1_000)?;
            let first = test_rows::receipt(tx, "smsc-a", "k1", "WEIRD")?;
            let second = test_rows::receipt(tx, "smsc-a", "k1", "WEIRD")?;
            let dk = dedup::key(None, Some("k1"), Some("WEIRD"), None, None, None, ReceiptKind::Receipt);
            let new = logical_event::NewEvent {
                connection: "smsc-a",
                key: &dk,
                first_receipt_id: first,
                correlation: Correlation::Matched,
                message_id: Some(m),
            };
            let event = logical_event::record(tx, &new)?.unwrap();
            Ok((m, event, [first, second], attempt))
        })
        .unwrap();
        let ex = write_for_tests(db, 2_000, |tx| {
            let ex = exception::open_status_unreadable(tx, m, event, receipts[1], Some("WEIRD"))?;
            let again = exception::open_status_unreadable(tx, m, event, receipts[0], None)?;
            assert_eq!(again, ex, "the message's open exception of that kind takes the receipt");
            exception::link_attempt(tx, ex, attempt, EvidenceRole::Candidate)?;
            exception::link_event_receipts(tx, ex, event, EvidenceRole::MaterialisedFinal)?;
            Ok(ex)
        })
        .unwrap();
        assert_eq!(
            exception::open_for_message(&db, m, ExceptionKind::StatusUnreadable).unwrap(),
            Some(ex)
        );
        assert_eq!(
            exception::open_for_message(&db, m, ExceptionKind::NoReceipt).unwrap(),
            None
        );
        assert_eq!(exception::open_for_event(&db, event).unwrap(), Some(ex));
        let (row, evidence) = exception::get(&db, ex).unwrap().unwrap();
        assert_eq!(
            (row.kind, row.status),
            (ExceptionKind::StatusUnreadable, ExceptionStatus::Open)
        );
        assert_eq!(
            (row.message_id, row.logical_event_id, row.created_at),
            (Some(m), Some(event), 2_000)
        );
        assert!(row.summary.contains("\"WEIRD\""), "{}", row.summary);
        let receipt = |id, role| Evidence {
            role,
            receipt_id: Some(id),
            attempt_id: None,
        };
        assert_eq!(
            evidence,
            [
                receipt(receipts[1], EvidenceRole::Receipt),
                receipt(receipts[0], EvidenceRole::Receipt),
                Evidence {
                    role: EvidenceRole::Candidate,
                    receipt_id: None,
                    attempt_id: Some(attempt),
                },
                receipt(receipts[0], EvidenceRole::MaterialisedFinal),
            ],
            "in the order linked, {:?}",
            db.dialect()
        );
        let facts = exception::receipt_facts(&db, event).unwrap();
        assert_eq!((facts.connection.as_str(), facts.redacted), ("smsc-a", false));
        assert_eq!(facts.handset.as_deref(), Some("+33612345678"));
        assert_eq!(facts.text.as_deref(), Some("hello"));

        let other = write_for_tests(db, 3_000, |tx| {
            exception::close_automatically(tx, ex, "receipt_readable", "A later receipt was read.")?;
            let summary = Summary::new(SummaryCode::StatusUnreadable, said::Params::new(), "Other.".into());
            let other = exception::open(
                tx,
                &NewException {
                    kind: ExceptionKind::NoReceipt,
                    message_id: Some(m),
                    logical_event_id: None,
                    summary,
                },
            )?;
            exception::settle(tx, other, ExceptionStatus::Dismissed, "dismissed", "Not needed.", "ana")?;
            Ok(other)
        })
        .unwrap();
        let closed = exception::get(&db, ex).unwrap().unwrap().0;
        assert_eq!(closed.status, ExceptionStatus::Resolved);
        assert_eq!(
            (
                closed.resolution.as_deref(),
                closed.resolved_by.as_deref(),
                closed.resolved_at
            ),
            (Some("receipt_readable"), Some("system"), Some(3_000))
        );
        let audited: (String, i64) = db
            .query_row(
                "SELECT action, subject_id FROM audit WHERE subject_type = 'exception' ORDER BY id DESC LIMIT 1",
                &[],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .unwrap();
        assert_eq!(audited, ("exception.closed".into(), ex));
        let settled = exception::get(&db, other).unwrap().unwrap().0;
        assert_eq!(
            (settled.status, settled.resolution_note.as_deref()),
            (ExceptionStatus::Dismissed, Some("Not needed."))
        );
        let count = |status, kind| exception::count_by(&db, status, kind).unwrap();
        assert_eq!(count(ExceptionStatus::Resolved, ExceptionKind::StatusUnreadable), 1);
        assert_eq!(count(ExceptionStatus::Dismissed, ExceptionKind::NoReceipt), 1);
        assert_eq!(count(ExceptionStatus::Open, ExceptionKind::StatusUnreadable), 0);
        assert_eq!(exception::open_for_event(&db, event).unwrap(), None);
    });
}
