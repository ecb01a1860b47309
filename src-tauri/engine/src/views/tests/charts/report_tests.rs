//! The delivery report over the charts' fixture (two days of messages at known times, with every
//! outcome), and the message list it opens.

use super::*;

/// The UTC day of `t0()`.
fn today() -> (i64, i64) {
    let start = t0() - 10 * 3_600_000;
    (start, start + DAY)
}

fn report(w: &World, by: &str, step: Option<ReportStep>) -> DeliveryReport {
    let (from, to) = today();
    let q = ReportQuery {
        from_ms: from,
        to_ms: to,
        by: (!by.is_empty()).then(|| by.to_owned()),
        step,
        utc_offset_minutes: None,
    };
    w.read(move |c| delivery_report(c, &q))
}

#[test]
fn the_day_s_figures_count_each_message_once_by_where_it_stands_now() {
    let w = seeded();
    let r = report(&w, "", None);
    let t = &r.total;
    assert_eq!(t.messages, 19 + 4 + 8, "minute 0, minute 1 and 08:00; not yesterday's");
    // Minute 0's 19, the late final of 08:00 and the operator's decision.
    assert_eq!(t.delivered, 21);
    // Refused at submit in minute 1, UNDELIV at 08:00, and refused in the queue at 08:00.
    assert_eq!(t.failed, 3);
    assert_eq!((t.expired, t.cancelled, t.no_receipt, t.unknown), (1, 1, 1, 1));
    // Minute 1's retried (enroute) and the one waiting for its answer; 08:00's retry.
    assert_eq!(t.pending, 3);
    assert_eq!(t.parts, 31);
    assert_eq!(t.delivered_pct, Some(21.0 * 100.0 / 31.0));
    assert_eq!(t.failed_pct, Some(4.0 * 100.0 / 31.0), "failed and expired");
    // Twenty latencies: minute 0's 19 and the late final's 7,000 s. The 10th is 9 s (in the
    // bucket up to 10 s), the 19th 123.456 s (in the bucket from 2 to 5 minutes).
    assert_eq!((t.latency_p50_ms, t.latency_p95_ms), (Some(10_000), Some(300_000)));
    assert_eq!(
        (
            r.previous_from_ms,
            r.previous_total.messages,
            r.previous_total.delivered
        ),
        (today().0 - DAY, 1, 1),
        "yesterday's one message, delivered"
    );
    assert_eq!(r.step, ReportStep::Hour, "a day is shown by hour");
    assert_eq!(r.buckets.len(), 24);
}

#[test]
fn groups_by_connection_and_outcome_add_up_and_their_series_fall_in_their_hours() {
    let w = seeded();
    let r = report(&w, "connection", None);
    let keys: Vec<(Vec<String>, i64)> = r.groups.iter().map(|g| (g.key.clone(), g.figures.messages)).collect();
    assert_eq!(
        keys,
        vec![(vec![CONN.to_owned()], 24), (vec![String::new()], 7)],
        "the messages tried on the connection, then those never tried"
    );
    let sandbox = &r.groups[0];
    assert_eq!(
        (sandbox.previous.messages, r.groups[1].previous.messages),
        (0, 1),
        "yesterday's one message was never tried"
    );
    // Minute 0 and minute 1 are in t0's hour (10:00), 08:00's late one in the 08:00 bucket.
    let hour = |at: i64| r.buckets.iter().position(|b| *b == at).unwrap();
    assert_eq!(sandbox.series[hour(t0())].messages, 23);
    assert_eq!(sandbox.series[hour(t0() - 2 * 3_600_000)].messages, 1);
    assert_eq!(sandbox.series.iter().map(|p| p.messages).sum::<i64>(), 24);

    let two = report(&w, "connection,outcome", Some(ReportStep::Day));
    assert_eq!(two.buckets, vec![today().0]);
    assert_eq!(two.groups.iter().map(|g| g.figures.messages).sum::<i64>(), 31);
    assert!(two.groups.iter().all(|g| g.key.len() == 2 && g.series.len() == 1));
    let failed_on_sandbox = two
        .groups
        .iter()
        .find(|g| g.key == [CONN, "failed"])
        .expect("the refused one of minute 1");
    assert_eq!(failed_on_sandbox.figures.messages, 1);
}

#[test]
fn every_figure_opens_exactly_its_messages_in_the_list() {
    let w = seeded();
    let (from, to) = today();
    for by in [
        "connection,outcome",
        "kind",
        "sender,country",
        "command_status",
        "error_code",
    ] {
        let r = report(&w, by, None);
        for g in &r.groups {
            let mut f = MessageFilter {
                from_ms: Some(from),
                to_ms: Some(to),
                limit: Some(7),
                ..MessageFilter::default()
            };
            for (d, value) in r.by.iter().zip(&g.key) {
                let v = Some(value.clone());
                match d {
                    ReportDimension::Kind => f.kind = Some(value.parse().unwrap()),
                    ReportDimension::Connection => f.connection = v,
                    ReportDimension::Route => f.route = v,
                    ReportDimension::Country => f.country = v,
                    ReportDimension::Sender => f.sender = v,
                    ReportDimension::Outcome => f.outcome = v,
                    ReportDimension::CommandStatus => f.command_status = Some(value.parse().unwrap()),
                    ReportDimension::ErrorCode => f.error_code = v,
                }
            }
            let first = w.read({
                let f = f.clone();
                move |c| list_messages(c, &f)
            });
            assert_eq!(
                first.total,
                Some(MessageTotal::exact(g.figures.messages as u64)),
                "{by} {:?}: the list's total is the report's figure",
                g.key
            );
            let mut listed = first.items.len();
            let mut cursor = first.next_cursor;
            while let Some(next) = cursor {
                let f = MessageFilter {
                    cursor: Some(next),
                    ..f.clone()
                };
                let page = w.read(move |c| list_messages(c, &f));
                listed += page.items.len();
                cursor = page.next_cursor;
            }
            assert_eq!(listed as i64, g.figures.messages, "{by} {:?}", g.key);
        }
    }
    // Several outcomes at once: a group's failed figure (failed and expired).
    let f = MessageFilter {
        from_ms: Some(from),
        to_ms: Some(to),
        outcome: Some("failed,expired".into()),
        ..MessageFilter::default()
    };
    let page = w.read(move |c| list_messages(c, &f));
    assert_eq!(page.items.len(), 4);
}

#[test]
fn a_report_that_cannot_be_answered_says_why() {
    let w = seeded();
    let (from, to) = today();
    let ask = |by: Option<&str>, from: i64, to: i64, step: Option<ReportStep>| {
        let q = ReportQuery {
            from_ms: from,
            to_ms: to,
            by: by.map(str::to_owned),
            step,
            utc_offset_minutes: None,
        };
        w.store
            .reader()
            .read_blocking(move |c| delivery_report(c, &q))
            .map_err(|e| e.to_string())
    };
    let refused = |r: Result<DeliveryReport, String>| r.expect_err("refused");
    assert!(refused(ask(Some("carrier"), from, to, None)).contains("`carrier` is none of kind"));
    assert!(refused(ask(Some("kind,route,country"), from, to, None)).contains("at most two"));
    assert!(refused(ask(Some("kind,kind"), from, to, None)).contains("twice"));
    assert!(refused(ask(None, to, from, None)).contains("must be before"));
    assert!(refused(ask(None, from - 40 * DAY, to, Some(ReportStep::Hour))).contains("ask by day"));
    assert!(refused(ask(None, from - 500 * DAY, to, None)).contains("at most 400 days"));
    // Times no clock gives, as a fuzzer sends them: refused, not an overflow.
    assert!(refused(ask(None, i64::MIN, i64::MIN, None)).contains("from_ms (-9223372036854775808) is not a time"));
    assert!(refused(ask(None, from, i64::MAX, None)).contains("to_ms (9223372036854775807) is not a time"));
    let f = MessageFilter {
        outcome: Some("lost".into()),
        ..MessageFilter::default()
    };
    let e = w
        .store
        .reader()
        .read_blocking(move |c| list_messages(c, &f))
        .unwrap_err();
    assert!(e.to_string().contains("`lost` is none of delivered"), "{e}");
    // Not whole hours: taken out to the hours around them.
    let r = ask(None, from + 1, to - 1, None).unwrap();
    assert_eq!((r.from_ms, r.to_ms), (from, to));
}
