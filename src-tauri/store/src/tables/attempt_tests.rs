//! Tries written, answered and read back alike on SQLite and PostgreSQL: a long message accepted
//! part by part, the provider ids receipts are matched by, and what a retry is measured against.

use smsdesk_core::domain::{AttemptOutcome, MessageKind, QueueStatus};

use super::attempt::{self, Wire};
use super::message_tests::text;
use super::{message, queue};
use crate::both_stores::on_both;
use crate::writer::write_for_tests;

#[test]
fn a_long_message_is_accepted_once_every_part_of_its_round_is_on_both_stores() {
    on_both(|db| {
        let (id, tries) = write_for_tests(db, 1_000, |tx| {
            let mut m = text("+33600000010", "long");
            m.segments = 3;
            let id = message::insert(tx, &m)?;
            queue::lease(tx, id, "dispatcher", 9_000)?;
            let tries: Vec<_> = (1..=3)
                .map(|part| attempt::begin_attempt(tx, id, part, Wire::sandbox(), 1))
                .collect::<Result<_, _>>()?;
            Ok((id, tries))
        })
        .unwrap();
        assert_eq!(tries.iter().map(|t| t.attempt_no).collect::<Vec<_>>(), [1, 1, 1]);
        let pending = write_for_tests(db, 1_000, |tx| attempt::pending_of(tx, id)).unwrap();
        assert_eq!(
            pending,
            tries.iter().map(|t| t.id).collect::<Vec<_>>(),
            "{:?}",
            db.dialect()
        );
        let (first, timed_out) = write_for_tests(db, 2_000, |tx| {
            let first = attempt::record_accepted(tx, tries[1].id, Some(1_500), "P-2", "p-2")?;
            attempt::record_accepted(tx, tries[0].id, None, "P-1", "p-1")?;
            attempt::finish_attempt(tx, tries[2].id, AttemptOutcome::Timeout, None, None, Some(1_600))?;
            Ok((first, queue::unsettled_parts(tx, id)?))
        })
        .unwrap();
        assert_eq!(
            (first.message_id, first.connection.as_str(), first.whole),
            (id, "sandbox", false)
        );
        assert_eq!(timed_out, (vec![(tries[2].id, "sandbox".to_owned())], 0));
        assert_eq!(
            queue::status(&db, id).unwrap(),
            Some(QueueStatus::Sending),
            "parts still to go"
        );
        let pending = write_for_tests(db, 2_000, |tx| attempt::pending(tx)).unwrap();
        assert!(pending.is_empty(), "every try answered: {pending:?}");
        let (segments, round) = attempt::current_round(&db, id).unwrap();
        assert_eq!(segments, 3);
        let parts: Vec<_> = round.iter().map(|t| (t.segment_no, t.outcome)).collect();
        assert_eq!(
            parts,
            [
                (1, Some(AttemptOutcome::Accepted)),
                (2, Some(AttemptOutcome::Accepted)),
                (3, Some(AttemptOutcome::Timeout))
            ]
        );
        let last = write_for_tests(db, 3_000, |tx| {
            let again = attempt::begin_attempt(tx, id, 3, Wire::sandbox(), 1)?;
            assert_eq!(again.attempt_no, 2);
            assert_eq!(queue::parts_accepted(tx, id)?, [1, 2]);
            let whole = attempt::record_accepted(tx, again.id, Some(2_900), "P-3", "p-3")?;
            assert!(whole.whole, "every part is accepted");
            Ok(again.id)
        })
        .unwrap();
        assert_eq!(queue::status(&db, id).unwrap(), Some(QueueStatus::Accepted));
        let (attempts, accepted_id, accepted_at, lease): (i64, i64, i64, Option<String>) = db
            .query_row(
                "SELECT attempts, accepted_attempt_id, accepted_at, lease_owner FROM queue WHERE message_id = ?1",
                &[&id],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
            )
            .unwrap();
        assert_eq!((attempts, accepted_id, accepted_at, lease), (1, last, 3_000, None));
        let sent_at: Vec<Option<i64>> = db
            .query(
                "SELECT sent_at FROM attempt WHERE message_id = ?1 ORDER BY id",
                &[&id],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(sent_at, [Some(2_000), Some(1_500), Some(1_600), Some(2_900)]);
        assert_eq!(queue::duplicate_evidence(&db, id).unwrap(), Some((true, true, false)));
    });
}

#[test]
fn provider_ids_find_their_tries_messages_and_parts_on_both_stores() {
    on_both(|db| {
        let (a, b, c) = write_for_tests(db, 1_000, |tx| {
            let mut ids = Vec::new();
            for to in ["+33600000011", "+33600000012", "+33600000013"] {
                let id = message::insert(tx, &text(to, "hi"))?;
                let t = attempt::begin_attempt(tx, id, 1, Wire::sandbox(), 1)?;
                ids.push((id, t.id));
            }
            attempt::record_accepted(tx, ids[0].1, None, "ID-A", "ida")?;
            attempt::record_accepted(tx, ids[1].1, None, "ID-B", "same")?;
            attempt::adopt_provider_id(tx, ids[2].1, Some("ID-C"), "same")?;
            attempt::adopt_provider_id(tx, ids[2].1, Some("ID-X"), "other")?;
            Ok((ids[0], ids[1], ids[2]))
        })
        .unwrap();
        let mut listed = attempt::accepted_provider_ids(&db, "sandbox").unwrap();
        listed.sort();
        assert_eq!(
            listed,
            [(a.1, "ID-A".to_owned()), (b.1, "ID-B".to_owned())],
            "{:?}",
            db.dialect()
        );
        assert_eq!(
            attempt::messages_with_provider_key(&db, "sandbox", "ida").unwrap(),
            [a.0]
        );
        assert_eq!(
            attempt::messages_with_provider_key(&db, "sandbox", "none").unwrap(),
            [0i64; 0]
        );
        let mut both = attempt::messages_with_provider_key(&db, "sandbox", "same").unwrap();
        both.sort();
        assert_eq!(both, [b.0, c.0], "the id adopted once, then kept");
        assert_eq!(attempt::with_provider_key(&db, "sandbox", "same").unwrap(), [b.1, c.1]);
        assert_eq!(attempt::with_provider_key(&db, "backup", "same").unwrap(), [0i64; 0]);
        assert_eq!(
            attempt::parts_with_provider_key(&db, b.0, "sandbox", "same").unwrap(),
            [1]
        );
        assert_eq!(
            attempt::parts_with_provider_key(&db, c.0, "sandbox", "same").unwrap(),
            [0u32; 0],
            "not accepted"
        );
        write_for_tests(db, 2_000, |tx| {
            attempt::set_provider_key(tx, a.1, "ida-2")?;
            assert_eq!(attempt::connection_of(tx, a.1)?, "sandbox");
            Ok(())
        })
        .unwrap();
        assert_eq!(attempt::with_provider_key(&db, "sandbox", "ida-2").unwrap(), [a.1]);
    });
}

#[test]
fn a_refusal_for_good_and_the_tries_a_retry_counts_read_alike_on_both_stores() {
    on_both(|db| {
        let id = write_for_tests(db, 1_000, |tx| {
            let mut m = text("+33600000014", "hi");
            m.kind = MessageKind::Bulk;
            let id = message::insert(tx, &m)?;
            let first = attempt::begin_attempt(tx, id, 1, Wire::sandbox(), 1)?;
            attempt::finish_attempt(tx, first.id, AttemptOutcome::Temporary, Some(0x58), Some("busy"), None)?;
            let second = attempt::begin_attempt(tx, id, 1, Wire::sandbox(), 1)?;
            attempt::finish_attempt(tx, second.id, AttemptOutcome::Permanent, Some(0x0b), None, Some(1_000))?;
            let never = attempt::begin_attempt(tx, id, 1, Wire::sandbox(), 1)?;
            attempt::finish_attempt(tx, never.id, AttemptOutcome::NotSent, None, None, None)?;
            Ok(id)
        })
        .unwrap();
        assert_eq!(
            attempt::permanent_failure(&db, id).unwrap(),
            Some(Some(0x0b)),
            "{:?}",
            db.dialect()
        );
        assert_eq!(
            attempt::retry_facts(&db, id).unwrap(),
            Some((MessageKind::Bulk, 1_000, 2))
        );
        assert_eq!(attempt::retry_facts(&db, id + 1).unwrap(), None);
        let error: Option<String> = db
            .one(
                "SELECT error FROM attempt WHERE message_id = ?1 AND attempt_no = 1",
                &[&id],
            )
            .unwrap();
        assert_eq!(error.as_deref(), Some("busy"));
    });
}
