//! Alerts on both stores: fired once while they hold, acknowledged or resolved (audited), and
//! what each channel was told of them.

use smsdesk_core::alert::{AlertChannel, AlertRule, NoticeKind, NoticeOutcome};

use super::alert::{self, AckRefused, NewNotice, PastNotice};
use crate::both_stores::on_both;
use crate::writer::write_for_tests;

fn notice(alert_id: Option<i64>, kind: NoticeKind, outcome: NoticeOutcome, day: Option<&str>) -> NewNotice {
    NewNotice {
        alert_id,
        kind,
        channel: AlertChannel::Email,
        outcome,
        detail: None,
        day: day.map(str::to_owned),
    }
}

#[test]
fn an_alert_fires_once_is_told_acknowledged_and_resolved_alike_on_both_stores() {
    on_both(|db| {
        let (id, other) = write_for_tests(db, 1_000, |tx| {
            let id = alert::fire(tx, AlertRule::LinkDown, "smsc-a", "{\"down_s\":60}")?;
            assert_eq!(
                alert::fire(tx, AlertRule::LinkDown, "smsc-a", "{}")?,
                id,
                "already open"
            );
            let other = alert::fire(tx, AlertRule::QueueStuck, "", "{}")?;
            alert::see(tx, id, "{\"down_s\":120}")?;
            alert::notice(tx, &notice(Some(id), NoticeKind::Fired, NoticeOutcome::Sent, None))?;
            alert::notice(
                tx,
                &notice(None, NoticeKind::Summary, NoticeOutcome::Sent, Some("2026-01-01")),
            )?;
            alert::notice(
                tx,
                &notice(None, NoticeKind::Summary, NoticeOutcome::Failed, Some("2026-01-01")),
            )?;
            Ok((id, other))
        })
        .unwrap();
        let open = alert::recent(&db, 0).unwrap();
        assert_eq!(
            open.iter().map(|a| a.id).collect::<Vec<_>>(),
            [id, other],
            "{:?}",
            db.dialect()
        );
        assert_eq!(
            (open[0].facts.as_str(), open[0].acknowledged),
            ("{\"down_s\":120}", false)
        );
        assert_eq!(
            alert::history(&db, id, AlertChannel::Email).unwrap(),
            [PastNotice {
                kind: NoticeKind::Fired,
                outcome: NoticeOutcome::Sent,
                at_ms: 1_000
            }]
        );
        assert!(alert::history(&db, id, AlertChannel::Webhook).unwrap().is_empty());
        assert_eq!(
            alert::summary_tried(&db, "2026-01-01").unwrap(),
            Some((NoticeOutcome::Sent, 1_000)),
            "a sent one before a later failed one"
        );
        assert_eq!(alert::summary_tried(&db, "2026-01-02").unwrap(), None);

        write_for_tests(db, 2_000, |tx| {
            alert::repeated(tx, id)?;
            assert_eq!(alert::acknowledge(tx, id, "ana", "on it")?, Ok(()));
            assert_eq!(alert::acknowledge(tx, id, "bob", "me too")?, Err(AckRefused::Already));
            assert_eq!(alert::acknowledge(tx, id + other, "ana", "")?, Err(AckRefused::Unknown));
            alert::resolve(tx, other)?;
            assert_eq!(alert::acknowledge(tx, other, "ana", "")?, Err(AckRefused::Resolved));
            Ok(())
        })
        .unwrap();
        let recent = alert::recent(&db, 2_000).unwrap();
        assert_eq!(recent.len(), 2);
        assert!(recent[0].acknowledged);
        assert_eq!(recent[1].resolved_at_ms, Some(2_000));
        assert_eq!(alert::recent(&db, 2_001).unwrap().len(), 1, "closed before");
        let listed = alert::list(&db, 10).unwrap();
        assert_eq!(
            listed.iter().map(|a| a.id).collect::<Vec<_>>(),
            [id, other],
            "open ones first"
        );
        assert_eq!(listed[0].acknowledged_by.as_deref(), Some("ana"));
        assert_eq!((listed[0].repeated_at_ms, listed[0].notices.len()), (Some(2_000), 1));
        let others = alert::other_notices(&db, 10).unwrap();
        assert_eq!(
            others.iter().map(|n| n.outcome).collect::<Vec<_>>(),
            [NoticeOutcome::Failed, NoticeOutcome::Sent]
        );
        assert_eq!(alert::fired_between(&db, 0, 1_001).unwrap().len(), 2);
        assert!(alert::fired_between(&db, 1_001, 5_000).unwrap().is_empty());
        let audited: i64 = db
            .one("SELECT count(*) FROM audit WHERE subject_type = 'alert'", &[])
            .unwrap();
        assert_eq!(audited, 4, "two fired, one acknowledged, one resolved");
    });
}
