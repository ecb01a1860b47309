//! A message's detail on both stores: its row, queue and state, its tries and receipts as
//! evidence, its exceptions and audit lines read alike on SQLite and PostgreSQL.

use smsdesk_core::domain::{
    AttemptOutcome, Correlation, DeliveryState, ExceptionKind, ExceptionStatus, Flag, QueueStatus,
};
use smsdesk_core::receipts::parse::Stat;

use super::{audit_facts, stored};
use crate::both_stores::on_both;
use crate::db::Db;
use crate::tables::redact::RedactionRule;
use crate::views::test_rows;
use crate::views::{evidence, exceptions, list_exceptions, messages, ExceptionFilter};
use crate::writer::write_for_tests;

/// A message whose text was removed, tried twice, with a matched receipt, a projection, an
/// exception about it and one about its receipt's event, and an audit line: (message, receipt,
/// second try).
fn one_message(db: Db<'_>) -> (i64, i64, i64) {
    write_for_tests(db, 5_000, |tx| {
        let m = test_rows::message(tx, 1_000, "+33612345678", "Your code is 1234", "accepted")?;
        test_rows::attempt(tx, m, 1, 1_100, "timeout", None)?;
        let second = test_rows::attempt(tx, m, 2, 1_200, "accepted", Some("p1"))?;
        let (receipt, event) = test_rows::receipt(tx, Some(m), "p1", 2_000)?;
        let removal: i64 = tx.db().one(
            "INSERT INTO redaction (at, rule, actor) VALUES (4000, 'text_days', 'retention') RETURNING id",
            &[],
        )?;
        tx.db().execute(
            "UPDATE message SET body = '', text_redaction = ?2 WHERE id = ?1",
            &[&m, &removal],
        )?;
        tx.db().execute(
            "INSERT INTO projection (message_id, state, rule, flag_mismatch, fold_json, rules_version, updated_at)
             VALUES (?1, 'delivered', 'first_final', 1, '{\"state\":\"delivered\",\"rule\":\"first_final\"}', 3, 2000)",
            &[&m],
        )?;
        for (kind, message, event) in [("no_receipt", Some(m), None), ("ambiguous", None, Some(event))] {
            tx.db().execute(
                "INSERT INTO exception (kind, status, message_id, logical_event_id, summary, details_json, created_at)
                 VALUES (?1, 'open', ?2, ?3, 'look', '{\"summary_code\":\"nonsense\"}', 3000)",
                &[&kind, &message, &event],
            )?;
        }
        test_rows::audit(tx, 4_500, "message.cancel", ("message", m), "by hand")?;
        Ok((m, receipt, second))
    })
    .unwrap()
}

#[test]
fn a_messages_row_queue_and_state_read_alike_on_both_stores() {
    on_both(|db| {
        let (m, _, _) = one_message(db);
        let (message, queue, state) = stored(db, m).unwrap().unwrap();
        assert_eq!((message.id, message.body.as_str()), (m, ""));
        assert_eq!(message.submitted_by.as_deref(), Some("key:1"));
        let removed = message.text_removed.expect("the text's tombstone");
        assert_eq!(
            (removed.at, removed.rule, removed.actor.as_str()),
            (4_000, RedactionRule::TextDays, "retention")
        );
        assert_eq!(message.number_removed, None);
        assert_eq!((queue.status, queue.queue_priority), (QueueStatus::Accepted, 13));
        let state = state.expect("a projection");
        assert_eq!((state.state, state.rules_version), (DeliveryState::Delivered, 3));
        assert!(state.flags.mismatch && !state.flags.conflict, "{:?}", db.dialect());
        assert!(stored(db, m + 100).unwrap().is_none());
        let summary = messages::summary(db, m).unwrap().unwrap();
        assert_eq!(summary.flags, [Flag::Mismatch]);
        assert_eq!((summary.attempts, summary.state), (2, DeliveryState::Delivered));
    });
}

#[test]
fn tries_and_receipts_as_evidence_read_alike_on_both_stores() {
    on_both(|db| {
        let (m, receipt, second) = one_message(db);
        let tries = evidence::attempts_of(db, m).unwrap();
        assert_eq!(
            tries.iter().map(|a| a.outcome).collect::<Vec<_>>(),
            [AttemptOutcome::Timeout, AttemptOutcome::Accepted]
        );
        assert_eq!(tries[1].command_status_hex.as_deref(), Some("0x00000000"));
        assert_eq!(evidence::attempt(db, second).unwrap().unwrap(), tries[1]);
        let receipts = evidence::receipts_of(db, m).unwrap();
        assert_eq!(receipts.len(), 1, "{:?}", db.dialect());
        let r = &receipts[0];
        assert_eq!(
            (r.id, r.message_id, r.correlation),
            (receipt, Some(m), Some(Correlation::Matched))
        );
        assert_eq!(
            (r.fields.stat, r.reported_state),
            (Some(Stat::Delivrd), Some(DeliveryState::Delivered))
        );
        assert_eq!(r.flags, [Flag::Mismatch]);
        assert!(!r.is_repeat);
        assert_eq!(r.raw_hex, hex::encode(r.raw_text.as_deref().unwrap()));
        assert_eq!(evidence::receipt(db, receipt).unwrap().as_ref(), Some(r));
    });
}

#[test]
fn a_messages_exceptions_and_audit_lines_read_alike_on_both_stores() {
    on_both(|db| {
        let (m, _, _) = one_message(db);
        let of = exceptions::exceptions_of(db, m).unwrap();
        let kinds: Vec<ExceptionKind> = of.iter().map(|e| e.kind).collect();
        assert_eq!(
            kinds,
            [ExceptionKind::NoReceipt, ExceptionKind::Ambiguous],
            "{:?}",
            db.dialect()
        );
        assert_eq!(of[0].destination.as_deref(), Some("+33612345678"));
        assert_eq!(of[1].summary_code, None, "a code this version does not know");
        let audit = audit_facts(db, m, &of).unwrap();
        assert_eq!(audit.len(), 1);
        assert_eq!(audit[0].note.as_deref(), Some("by hand"));
        let open_ambiguous = ExceptionFilter {
            status: Some(ExceptionStatus::Open),
            kind: Some(ExceptionKind::Ambiguous),
            ..ExceptionFilter::default()
        };
        let page = list_exceptions(&db, &open_ambiguous).unwrap();
        assert_eq!(page.items.iter().map(|e| e.id).collect::<Vec<_>>(), [of[1].id]);
        let all = list_exceptions(
            &db,
            &ExceptionFilter {
                limit: Some(1),
                ..ExceptionFilter::default()
            },
        )
        .unwrap();
        assert_eq!(all.items[0].id, of[1].id, "newest first");
        assert!(all.next_cursor.is_some());
    });
}

/// The whole detail, which also reads guardrails, webhooks, exceptions and the message's facts.
#[test]
fn a_whole_message_and_exception_detail_read_alike_on_both_stores() {
    on_both(|db| {
        let (m, _, _) = one_message(db);
        let detail = crate::views::message_detail(&db, m).unwrap().unwrap();
        assert_eq!(detail.attempts.len(), 2);
        assert_eq!(detail.queue.provider_message_ids, ["p1"]);
        let x = detail.exceptions[0].id;
        let e = crate::views::exception_detail(&db, x, 0).unwrap().unwrap();
        assert_eq!(e.message.map(|s| s.id), Some(m));
    });
}
