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
    };
    let stored = serde_json::to_string(&everything).unwrap();
    assert_eq!(serde_json::from_str::<Projection>(&stored).unwrap(), everything);
}

fn any_state() -> impl Strategy<Value = S> {
    prop::sample::select(S::ALL.iter().copied().filter(|s| *s != S::Pending).collect::<Vec<_>>())
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
