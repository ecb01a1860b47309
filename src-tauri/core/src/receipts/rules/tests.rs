//! Given/when/then tests of the rules, and property tests of the fold.

use proptest::prelude::*;

use super::*;
use crate::domain::DeliveryState as S;

const SETTINGS: RuleSettings = RuleSettings {
    accepted_is_final: false,
};

fn ev(event: i64, state: S) -> Input {
    Input::Event(EventFacts {
        event,
        state,
        mismatch: false,
        id_disagree: false,
        parts: Vec::new(),
        of: 1,
    })
}

/// An event about part `part` of a message sent in `of` parts.
fn part(event: i64, state: S, part: u32, of: u32) -> Input {
    Input::Event(EventFacts {
        event,
        state,
        mismatch: false,
        id_disagree: false,
        parts: vec![part],
        of,
    })
}

fn given(inputs: &[Input]) -> Projection {
    fold(inputs, SETTINGS)
}

#[test]
fn nothing_reported_is_pending_with_no_report_rule() {
    let p = given(&[]);
    assert_eq!((p.state, p.rule), (S::Pending, Rule::NoReport));
}

#[test]
fn the_first_final_materialises_the_state() {
    let p = given(&[ev(1, S::Enroute), ev(2, S::Delivered)]);
    assert_eq!(
        (p.state, p.rule, p.supporting.clone()),
        (S::Delivered, Rule::FirstFinal, vec![2])
    );
    assert!(!p.late && !p.conflict);
}

#[test]
fn an_intermediate_after_a_final_is_kept_and_flagged_late_without_downgrading() {
    let p = given(&[ev(1, S::Delivered), ev(2, S::Enroute)]);
    assert_eq!(p.state, S::Delivered, "an intermediate must never downgrade a final");
    assert!(p.late, "the late intermediate must be flagged");
    assert_eq!(p.supporting, vec![1]);
}

#[test]
fn the_same_final_again_only_supports_it() {
    let p = given(&[ev(1, S::Undeliverable), ev(2, S::Undeliverable)]);
    assert_eq!((p.state, p.supporting.clone()), (S::Undeliverable, vec![1, 2]));
    assert!(!p.conflict);
}

#[test]
fn an_incompatible_final_keeps_the_first_and_raises_a_conflict() {
    let p = given(&[ev(1, S::Delivered), ev(2, S::Undeliverable)]);
    assert_eq!(p.state, S::Delivered, "the first materialised final stays");
    assert!(p.conflict);
    assert_eq!(p.conflicting, vec![2]);
}

#[test]
fn accepted_is_intermediate_by_default_and_final_when_the_connection_says_so() {
    let inputs = [ev(1, S::Accepted), ev(2, S::Delivered)];
    assert_eq!(fold(&inputs, SETTINGS).state, S::Delivered);
    let final_accept = fold(
        &inputs,
        RuleSettings {
            accepted_is_final: true,
        },
    );
    assert_eq!(final_accept.state, S::Accepted);
    assert!(
        final_accept.conflict,
        "DELIVERED after a final ACCEPTED is an incompatible final"
    );
}

#[test]
fn intermediates_take_the_most_advanced_whatever_their_order() {
    assert_eq!(given(&[ev(1, S::Enroute), ev(2, S::Accepted)]).state, S::Enroute);
    assert_eq!(given(&[ev(1, S::Accepted), ev(2, S::Enroute)]).state, S::Enroute);
}

#[test]
fn a_deadline_flags_no_receipt_until_a_final_arrives() {
    let p = given(&[ev(1, S::Enroute), Input::Deadline { exception: 9 }]);
    assert!(p.no_receipt);
    assert_eq!(p.state, S::Enroute, "no receipt is neither delivered nor failed");
    let p = given(&[Input::Deadline { exception: 9 }, ev(2, S::Delivered)]);
    assert!(!p.no_receipt);
    let p = given(&[ev(1, S::Delivered), Input::Deadline { exception: 9 }]);
    assert!(!p.no_receipt, "a deadline after a final changes nothing");
}

#[test]
fn an_operator_decision_sets_the_state_and_closes_the_conflict() {
    let p = given(&[
        ev(1, S::Delivered),
        ev(2, S::Undeliverable),
        Input::Decision {
            exception: 7,
            kind: ExceptionKind::ConflictingFinal,
            state: Some(S::Undeliverable),
        },
    ]);
    assert_eq!(
        (p.state, p.rule, p.decided_by),
        (S::Undeliverable, Rule::OperatorDecision, Some(7))
    );
    assert!(!p.conflict);
    let later = {
        let mut q = p.clone();
        apply(&mut q, &ev(3, S::Delivered), SETTINGS);
        q
    };
    assert_eq!(
        later.state,
        S::Undeliverable,
        "a receipt never overrides an operator's decision"
    );
    assert!(later.conflict, "but a contradicting one is raised again");
}

#[test]
fn dismissing_a_conflict_keeps_the_first_final() {
    let p = given(&[
        ev(1, S::Delivered),
        ev(2, S::Expired),
        Input::Decision {
            exception: 7,
            kind: ExceptionKind::ConflictingFinal,
            state: None,
        },
    ]);
    assert_eq!((p.state, p.conflict), (S::Delivered, false));
}

#[test]
fn mismatch_and_id_disagreement_are_flags_only() {
    let e = Input::Event(EventFacts {
        event: 1,
        state: S::Delivered,
        mismatch: true,
        id_disagree: true,
        parts: Vec::new(),
        of: 1,
    });
    let p = given(&[e]);
    assert_eq!(p.state, S::Delivered);
    assert!(p.mismatch && p.id_disagree);
}

#[test]
fn a_stored_fold_leaves_out_what_is_empty_or_false_and_reads_back_the_same() {
    let delivered = given(&[ev(7, S::Delivered)]);
    let stored = serde_json::to_string(&delivered).unwrap();
    assert_eq!(stored, r#"{"state":"delivered","rule":"first_final","supporting":[7]}"#);
    assert_eq!(serde_json::from_str::<Projection>(&stored).unwrap(), delivered);
    // A row written in full, as before, reads the same.
    let full = r#"{"state":"delivered","rule":"first_final","supporting":[7],"conflicting":[],"decided_by":null,
        "late":false,"conflict":false,"no_receipt":false,"mismatch":false,"id_disagree":false}"#;
    assert_eq!(serde_json::from_str::<Projection>(full).unwrap(), delivered);
    // Every field set survives the trip.
    let everything = Projection {
        state: S::Rejected,
        rule: Rule::OperatorDecision,
        supporting: vec![1, 2],
        conflicting: vec![3],
        decided_by: Some(4),
        late: true,
        conflict: true,
        no_receipt: true,
        mismatch: true,
        id_disagree: true,
        parts: vec![given(&[ev(1, S::Delivered)]), given(&[])],
    };
    let stored = serde_json::to_string(&everything).unwrap();
    assert_eq!(serde_json::from_str::<Projection>(&stored).unwrap(), everything);
}

/// A state a receipt can report (never pending, never the roll-up of parts).
fn any_state() -> impl Strategy<Value = S> {
    prop::sample::select(
        S::ALL
            .iter()
            .copied()
            .filter(|s| !matches!(s, S::Pending | S::PartiallyDelivered))
            .collect::<Vec<_>>(),
    )
}

// ---- Messages sent in parts ----

#[test]
fn a_long_message_is_delivered_only_when_every_part_is() {
    let one = given(&[part(1, S::Delivered, 1, 2)]);
    assert_eq!(
        (one.state, one.rule),
        (S::PartiallyDelivered, Rule::PartsPending),
        "one part of two reported delivered is not the message delivered"
    );
    assert!(!one.complete(SETTINGS));
    let both = given(&[part(1, S::Delivered, 1, 2), part(2, S::Delivered, 2, 2)]);
    assert_eq!((both.state, both.rule), (S::Delivered, Rule::FirstFinal));
    assert_eq!(both.supporting, vec![1, 2]);
    assert!(both.complete(SETTINGS));
}

#[test]
fn parts_never_conflict_with_each_other_and_the_state_lists_where_each_stands() {
    let p = given(&[part(1, S::Delivered, 1, 2), part(2, S::Undeliverable, 2, 2)]);
    assert_eq!((p.state, p.rule), (S::PartiallyDelivered, Rule::PartsFinal));
    assert!(!p.conflict, "part 1 delivered and part 2 undeliverable is no conflict");
    assert_eq!(
        p.parts.iter().map(|x| x.state).collect::<Vec<_>>(),
        vec![S::Delivered, S::Undeliverable]
    );
    // The same part reported two ways is a conflict, of that part and so of the message.
    let q = given(&[part(1, S::Delivered, 1, 2), part(2, S::Undeliverable, 1, 2)]);
    assert!(q.conflict && q.parts[0].conflict && !q.parts[1].conflict);
}

#[test]
fn with_no_part_delivered_the_first_final_a_part_got_stands_until_the_others_report() {
    let p = given(&[part(5, S::Undeliverable, 2, 3), part(9, S::Expired, 1, 3)]);
    assert_eq!((p.state, p.rule), (S::Undeliverable, Rule::PartsPending));
    let p = given(&[
        part(5, S::Undeliverable, 2, 3),
        part(9, S::Expired, 1, 3),
        part(11, S::Expired, 3, 3),
    ]);
    assert_eq!((p.state, p.rule), (S::Undeliverable, Rule::PartsFinal));
    let intermediate = given(&[part(1, S::Enroute, 1, 2), part(2, S::Accepted, 2, 2)]);
    assert_eq!(
        intermediate.state,
        S::Accepted,
        "while no part has a final, the least advanced part says how far the message is"
    );
}

#[test]
fn a_receipt_for_every_part_sets_them_all_and_a_deadline_waits_for_every_part() {
    let all = given(&[Input::Event(EventFacts {
        event: 1,
        state: S::Delivered,
        mismatch: false,
        id_disagree: false,
        parts: Vec::new(),
        of: 3,
    })]);
    assert_eq!((all.state, all.parts.len()), (S::Delivered, 3));
    let p = given(&[part(1, S::Delivered, 1, 2), Input::Deadline { exception: 4 }]);
    assert!(p.no_receipt, "part 2 never reported: no receipt by the deadline");
    let p = given(&[
        part(1, S::Delivered, 1, 2),
        part(2, S::Undeliverable, 2, 2),
        Input::Deadline { exception: 4 },
    ]);
    assert!(!p.no_receipt, "every part has its final");
}

#[test]
fn a_decision_on_a_long_message_holds_and_a_dismissed_conflict_stays_dismissed() {
    let mut p = given(&[
        part(1, S::Delivered, 1, 2),
        part(2, S::Undeliverable, 1, 2),
        Input::Decision {
            exception: 7,
            kind: ExceptionKind::ConflictingFinal,
            state: None,
        },
    ]);
    assert!(!p.conflict);
    apply(&mut p, &part(3, S::Delivered, 2, 2), SETTINGS);
    assert!(
        !p.conflict,
        "a dismissed conflict does not come back with another part's report"
    );
    assert_eq!(p.state, S::Delivered);
    apply(
        &mut p,
        &Input::Decision {
            exception: 8,
            kind: ExceptionKind::NoReceipt,
            state: Some(S::Undeliverable),
        },
        SETTINGS,
    );
    apply(&mut p, &part(4, S::Delivered, 2, 2), SETTINGS);
    assert_eq!(
        (p.state, p.rule),
        (S::Undeliverable, Rule::OperatorDecision),
        "a report never overrides a decision"
    );
}

/// Events about the parts of a two-part message whose finals, part by part, agree.
fn compatible_part_events() -> impl Strategy<Value = Vec<Input>> {
    let finals = vec![S::Delivered, S::Expired, S::Undeliverable, S::Rejected];
    (
        prop::sample::select(finals.clone()),
        prop::sample::select(finals),
        prop::collection::vec((1u32..=2, prop::sample::select(vec![S::Enroute, S::Accepted])), 0..5),
        0..3usize,
        0..3usize,
    )
        .prop_map(|(f1, f2, inter, n1, n2)| {
            let mut states: Vec<(u32, S)> = inter;
            states.extend(std::iter::repeat_n((1, f1), n1));
            states.extend(std::iter::repeat_n((2, f2), n2));
            states
                .into_iter()
                .enumerate()
                .map(|(i, (p, s))| part(i as i64 + 1, s, p, 2))
                .collect()
        })
}

/// Events whose finals all agree (no incompatible finals), with distinct ids.
fn compatible_events() -> impl Strategy<Value = Vec<Input>> {
    (
        prop::option::of(prop::sample::select(vec![
            S::Delivered,
            S::Expired,
            S::Undeliverable,
            S::Rejected,
        ])),
        0..8usize,
    )
        .prop_flat_map(|(final_state, n)| {
            let intermediates =
                prop::collection::vec(prop::sample::select(vec![S::Enroute, S::Accepted, S::Scheduled]), n);
            let finals = prop::collection::vec(Just(final_state), 0..3);
            (intermediates, finals)
        })
        .prop_map(|(inter, finals)| {
            let mut states: Vec<S> = inter;
            states.extend(finals.into_iter().flatten());
            states
                .into_iter()
                .enumerate()
                .map(|(i, s)| ev(i as i64 + 1, s))
                .collect()
        })
}

proptest! {
    #[test]
    fn any_order_of_compatible_receipts_gives_the_same_state(
        (events, order) in compatible_events().prop_flat_map(|e| { let n = e.len(); (Just(e), Just((0..n).collect::<Vec<_>>()).prop_shuffle()) })
    ) {
        let reference = given(&events);
        let shuffled: Vec<Input> = order.iter().map(|&i| events[i].clone()).collect();
        let p = given(&shuffled);
        prop_assert_eq!(p.state, reference.state, "the computed state must not depend on arrival order");
        prop_assert_eq!(p.rule, reference.rule);
        prop_assert_eq!(&p.supporting, &reference.supporting);
        prop_assert!(!p.conflict, "compatible finals never conflict");
    }

    #[test]
    fn any_order_of_compatible_reports_on_the_parts_gives_the_same_state(
        (events, order) in compatible_part_events().prop_flat_map(|e| { let n = e.len(); (Just(e), Just((0..n).collect::<Vec<_>>()).prop_shuffle()) })
    ) {
        let reference = given(&events);
        let shuffled: Vec<Input> = order.iter().map(|&i| events[i].clone()).collect();
        let p = given(&shuffled);
        let per_part = |p: &Projection| p.parts.iter().map(|x| x.state).collect::<Vec<_>>();
        prop_assert_eq!(per_part(&p), per_part(&reference), "each part's state must not depend on arrival order");
        prop_assert!(!p.conflict, "parts never conflict with each other");
        if reference.parts.iter().all(|x| x.state.is_final()) {
            prop_assert_eq!(p.state, reference.state, "once every part is final, so is the message, whatever the order");
        }
    }

    #[test]
    fn a_repeat_changes_nothing(
        events in prop::collection::vec((1..1000i64, any_state(), 1u32..=2), 1..12),
        in_parts in any::<bool>(),
        again in 0usize..12,
    ) {
        // A message sent whole, or in two parts.
        let inputs: Vec<Input> = events
            .iter()
            .map(|&(id, s, p)| if in_parts { part(id, s, p, 2) } else { ev(id, s) })
            .collect();
        let once = given(&inputs);
        let mut twice = inputs.clone();
        twice.push(inputs[again % inputs.len()].clone());
        let p = given(&twice);
        prop_assert_eq!((p.state, p.rule, p.conflict), (once.state, once.rule, once.conflict), "the same event again changes nothing");
        prop_assert_eq!(p.supporting, once.supporting);
    }

    #[test]
    fn applying_one_by_one_through_storage_equals_folding(
        events in prop::collection::vec((1..1000i64, any_state()), 0..15),
    ) {
        let inputs: Vec<Input> = events.iter().map(|(id, s)| ev(*id, *s)).collect();
        let mut p = Projection::default();
        for i in &inputs {
            // What the store does: read the stored fold state, apply, store it again.
            let stored = serde_json::to_string(&p).unwrap();
            p = serde_json::from_str(&stored).unwrap();
            apply(&mut p, i, SETTINGS);
        }
        prop_assert_eq!(p, given(&inputs));
    }

    #[test]
    fn a_final_never_moves_to_another_state_on_a_later_receipt(
        first in prop::sample::select(vec![S::Delivered, S::Expired, S::Deleted, S::Undeliverable, S::Rejected, S::Unknown, S::Skipped]),
        later in prop::collection::vec(any_state(), 0..10),
    ) {
        let mut inputs = vec![ev(1, first)];
        inputs.extend(later.iter().enumerate().map(|(i, s)| ev(i as i64 + 2, *s)));
        prop_assert_eq!(given(&inputs).state, first);
    }
}
