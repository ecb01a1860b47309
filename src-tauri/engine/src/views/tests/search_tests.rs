//! The list's number search as people type it (through [`search_number`]), the reversed
//! destination index that finds an ending, and the list's total, against a real database file.

use super::*;
use crate::views::messages::{total_query_plans, total_within, MessageTotal, TotalBound};

const FR: Option<&str> = Some("FR");

/// The ids the list gives for a number typed as `typed`, read as the engine reads it.
fn found(w: &World, typed: &str) -> Vec<i64> {
    let f = MessageFilter {
        destination: search_number(typed, FR, "destination").unwrap(),
        ..MessageFilter::default()
    };
    w.all_ids(&f, 50)
}

#[test]
fn every_way_a_person_types_a_number_finds_its_message() {
    let w = world();
    let target = w.add(new_message("+33612345600", "yours", MessageKind::Transactional));
    let same_end = w.add(new_message(
        "+447700903456",
        "also ends in 3456",
        MessageKind::Transactional,
    ));
    let other = w.add(new_message("+33612345601", "not yours", MessageKind::Transactional));
    for typed in [
        "06 12 34 56 00",
        "06.12.34.56.00",
        "06-12-34-56-00",
        "0612345600",
        "+33 6 12 34 56 00",
        "+33612345600",
        "33612345600",
        "0033 6 12 34 56 00",
        "45600",
        "*5600",
    ] {
        assert_eq!(found(&w, typed), vec![target], "{typed:?}");
    }
    assert_eq!(found(&w, "3456"), vec![same_end], "an ending of 4 digits");
    assert_eq!(
        found(&w, "2345"),
        Vec::<i64>::new(),
        "digits inside a number are no ending"
    );
    assert_eq!(found(&w, "+33 6 12*"), vec![other, target], "a beginning, newest first");
    assert_eq!(found(&w, "06 12*"), vec![other, target], "a national beginning");
}

/// An ending is a range of the reversed destination index, like a prefix of the destination
/// index: counted in that index, its ids sorted (the only sort), its rows read newest first;
/// never a scan of the message table. With another filter it checks the row's ending.
#[test]
fn an_ending_is_a_range_of_the_reversed_destination_index() {
    let w = world();
    mixed(&w);
    for f in [
        MessageFilter {
            destination: Some("*3456".into()),
            ..MessageFilter::default()
        },
        MessageFilter {
            destination: Some("*0003".into()),
            status: Some(QueueStatus::Accepted),
            from_ms: Some(1),
            ..MessageFilter::default()
        },
    ] {
        let plans = w.read(|c| query_plans(c, &f));
        let text = plans.join(" | ");
        assert_eq!(
            text.matches("INDEX message_destination_suffix (<expr>>? AND <expr><?)")
                .count(),
            2,
            "{f:?}: the count, then the ids: {text}"
        );
        assert_eq!(text.matches("TEMP B-TREE").count(), 1, "{f:?}: one sort: {text}");
        assert!(
            !text.contains("SCAN m") && !text.contains("SCAN q") && !text.contains("SCAN p"),
            "{f:?} scans nothing but its range: {text}"
        );
    }
    let with_words = MessageFilter {
        destination: Some("*0003".into()),
        q: Some("order".into()),
        ..MessageFilter::default()
    };
    let text = w.read(|c| query_plans(c, &with_words)).join(" | ");
    assert!(
        text.contains("VIRTUAL TABLE"),
        "words drive, the ending is checked: {text}"
    );
}

#[test]
fn an_ending_finds_old_matches_behind_many_newer_messages_every_one_once() {
    let w = world();
    let old: Vec<i64> = (0..3)
        .map(|i| w.add(new_message(&format!("+3365000{i}777"), "old", MessageKind::Otp)))
        .collect();
    for i in 0..40 {
        w.add(new_message(&format!("+3361000{i:04}"), "new", MessageKind::Bulk));
    }
    let f = MessageFilter {
        destination: Some("*777".into()),
        ..MessageFilter::default()
    };
    let page = w.read(|c| list_with_budget(c, &f, 10));
    assert_eq!(
        page.items.iter().map(|m| m.id).collect::<Vec<_>>(),
        old.iter().rev().copied().collect::<Vec<_>>(),
        "all three on the first page, though forty newer messages come first by id"
    );
    assert_eq!(page.next_cursor, None);
}

/// The ids a filter selects, counted the plain way.
fn plain_count(w: &World, f: &MessageFilter) -> u64 {
    expected(&facts(w), f).len() as u64
}

#[test]
fn the_total_is_the_plain_count_of_what_the_filter_selects() {
    let w = world();
    let (t1, t2) = mixed(&w);
    let mut filters = vec![MessageFilter::default()];
    filters.extend(QueueStatus::ALL.iter().map(|s| MessageFilter {
        status: Some(*s),
        ..MessageFilter::default()
    }));
    filters.extend(DeliveryState::ALL.iter().map(|s| MessageFilter {
        state: Some(*s),
        ..MessageFilter::default()
    }));
    for (from, to) in [
        (Some(t1), Some(t2)),
        (Some(t2), None),
        (None, Some(t1)),
        (Some(1), None),
    ] {
        filters.push(MessageFilter {
            from_ms: from,
            to_ms: to,
            ..MessageFilter::default()
        });
    }
    for d in ["+33612340003", "+336123400*", "*0003", "*9999"] {
        filters.push(MessageFilter {
            destination: Some(d.into()),
            ..MessageFilter::default()
        });
    }
    filters.push(MessageFilter {
        kind: Some(MessageKind::Otp),
        state: Some(DeliveryState::Pending),
        ..MessageFilter::default()
    });
    filters.push(MessageFilter {
        status: Some(QueueStatus::Accepted),
        from_ms: Some(t1),
        ..MessageFilter::default()
    });
    filters.push(MessageFilter {
        q: Some("order".into()),
        ..MessageFilter::default()
    });
    for f in &filters {
        let page = w.page(f);
        assert_eq!(page.total, Some(MessageTotal::exact(plain_count(&w, f))), "{f:?}");
        let later = MessageFilter {
            cursor: Some(cursor::encode("messages", 30)),
            ..f.clone()
        };
        assert_eq!(w.page(&later).total, None, "{f:?}: a page further on gives none");
    }
}

#[test]
fn a_total_stops_at_its_cap_and_at_its_budget_and_says_which() {
    let w = world();
    for i in 0..30 {
        let kind = if i % 10 == 0 {
            MessageKind::Otp
        } else {
            MessageKind::Bulk
        };
        w.add(new_message(&format!("+3361000{i:04}"), "x", kind));
    }
    let bulk = MessageFilter {
        kind: Some(MessageKind::Bulk),
        ..MessageFilter::default()
    };
    let total = |f: &MessageFilter, cap: u64, budget: i64| w.read(|c| total_within(c, f, cap, budget));
    assert_eq!(total(&bulk, 100, 1000), MessageTotal::exact(27));
    assert_eq!(
        total(&bulk, 10, 1000),
        MessageTotal {
            count: 10,
            bound: TotalBound::MoreThan
        },
        "past its cap: more than the cap"
    );
    assert_eq!(
        total(&bulk, 100, 20),
        MessageTotal {
            count: 18,
            bound: TotalBound::AtLeast
        },
        "the newest 20 hold 18 bulk messages; older ones were not looked at"
    );
    let ending = MessageFilter {
        destination: Some("*1".into()),
        kind: Some(MessageKind::Bulk),
        ..MessageFilter::default()
    };
    assert_eq!(total(&ending, 100, 1000), MessageTotal::exact(3), "…01, …11 and …21");
    assert_eq!(
        total(&ending, 100, 2).bound,
        TotalBound::AtLeast,
        "a range larger than the budget"
    );
    let prefix = MessageFilter {
        destination: Some("+336100*".into()),
        ..MessageFilter::default()
    };
    assert_eq!(
        total(&prefix, 100, 2),
        MessageTotal::exact(30),
        "a destination range alone is counted in its index, whatever the budget"
    );
    assert_eq!(
        total(&prefix, 25, 2),
        MessageTotal {
            count: 25,
            bound: TotalBound::MoreThan
        },
        "and no further than the cap"
    );
    assert_eq!(
        total(&MessageFilter::default(), 10, 5),
        MessageTotal::exact(30),
        "nothing filtered: the running total, whatever the cap"
    );
}

/// A total reads running totals when it can, and otherwise the index that drives the page, down
/// to its budget: never the whole message table.
#[test]
fn a_total_reads_running_totals_or_an_index_range_never_the_table() {
    let w = world();
    let (t1, _) = mixed(&w);
    for f in [
        MessageFilter::default(),
        MessageFilter {
            status: Some(QueueStatus::Failed),
            ..MessageFilter::default()
        },
        MessageFilter {
            state: Some(DeliveryState::Pending),
            ..MessageFilter::default()
        },
        MessageFilter {
            from_ms: Some(t1),
            ..MessageFilter::default()
        },
    ] {
        assert_eq!(
            w.read(|c| total_query_plans(c, &f)),
            Vec::<String>::new(),
            "{f:?}: running totals"
        );
    }
    for (f, index) in [
        (
            MessageFilter {
                status: Some(QueueStatus::Accepted),
                kind: Some(MessageKind::Otp),
                ..MessageFilter::default()
            },
            "queue_status_message",
        ),
        (
            MessageFilter {
                destination: Some("*0003".into()),
                kind: Some(MessageKind::Otp),
                ..MessageFilter::default()
            },
            "message_destination_suffix",
        ),
        (
            MessageFilter {
                destination: Some("+33612340003".into()),
                ..MessageFilter::default()
            },
            "message_destination",
        ),
    ] {
        let text = w.read(|c| total_query_plans(c, &f)).join(" | ");
        assert!(text.contains(index), "{f:?} must be counted in {index}: {text}");
        assert!(
            !text.contains("SCAN m") && !text.contains("SCAN q") && !text.contains("SCAN p"),
            "{f:?} must not scan a table: {text}"
        );
    }
    let prefix = MessageFilter {
        destination: Some("+3361*".into()),
        ..MessageFilter::default()
    };
    let plans = w.read(|c| total_query_plans(c, &prefix));
    assert!(
        plans.iter().any(|l| l.contains("COVERING INDEX message_destination ")),
        "a prefix alone is counted in its index: {plans:?}"
    );
    assert!(
        !plans
            .iter()
            .any(|l| l.contains("PRIMARY KEY") || l.contains(" q ") || l.contains(" p ")),
        "and no row of a table is read: {plans:?}"
    );
}
