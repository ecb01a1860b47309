//! The retry advice a message's detail shows and the retry itself agree: for each situation, the
//! first fact the advice names is the refusal the retry answers with when nothing is confirmed,
//! and with every confirmation the caller may give, the retry is refused exactly when the advice
//! says it is blocked. And the queue's last problem is recorded as a reason with the sentence.

use super::*;
use crate::optouts::{self, Source};
use crate::queue::rules::{self, Asker};
use crate::reasons::{QueueReasonCode, RetryAdvice, RetryFactCode};
use crate::store::tables::opt_out::Reason;

const OPERATOR: Asker = Asker {
    may_act: true,
    admin: false,
};
const ADMIN: Asker = Asker {
    may_act: true,
    admin: true,
};
const VIEWER: Asker = Asker {
    may_act: false,
    admin: false,
};

impl Q {
    fn advice(&self, id: i64, asker: Asker) -> RetryAdvice {
        let policies = queue::RetryLimits::DEFAULT_POLICIES;
        self.store
            .reader()
            .read_blocking(move |c| rules::advice(c, id, now(), &policies, asker))
            .unwrap()
    }

    /// The operator's retry, with the confirmations given, obeying the limits or overriding them.
    fn retry(&self, id: i64, confirm: bool, override_limits: bool) -> Result<(), queue::ActionError> {
        let limits = match override_limits {
            true => queue::RetryLimits::Override,
            false => queue::RetryLimits::defaults(),
        };
        let confirmed = queue::Confirmed {
            duplicate: confirm,
            permanent_failure: confirm,
        };
        self.store
            .writer()
            .write_blocking(move |tx| queue::operator_retry(tx, id, confirmed, limits, "Olga", "checked"))
    }

    fn opt_out(&self, phone: &'static str) {
        self.store
            .writer()
            .write_blocking(move |tx| {
                let src = Source::by("Olga", Reason::Operator, None);
                optouts::add(tx, phone, &[MessageKind::Transactional, MessageKind::Otp], &src)
            })
            .unwrap();
    }

    fn reason(&self, id: i64) -> Option<crate::reasons::QueueReason> {
        let json: Option<String> = self.row("SELECT reason FROM queue WHERE message_id = ?1", id, |r| r.get(0));
        crate::reasons::QueueReason::from_json(json.as_deref())
    }
}

/// Whether a refusal is the one a fact announces.
fn announced_by(fact: RetryFactCode, refusal: &queue::ActionError) -> bool {
    use queue::ActionError as E;
    matches!(
        (fact, refusal),
        (RetryFactCode::InFlight, E::NotAllowed(..))
            | (RetryFactCode::Expired, E::ValidityEnded)
            | (RetryFactCode::OptedOut, E::OptedOut(_))
            | (
                RetryFactCode::LimitReached,
                E::AttemptsExhausted { .. } | E::TooOld { .. }
            )
            | (RetryFactCode::MayArriveTwice, E::ConfirmationRequired(_))
            | (RetryFactCode::RejectedByNetwork, E::ConfirmationRequired(_))
            | (RetryFactCode::WillFailAgain, E::PermanentFailure { .. })
    )
}

/// The advice for `asker` and the retry agree on message `id`; returns the advice. Runs the
/// retry, which may queue the message again when nothing blocks it.
fn agree(q: &Q, id: i64, asker: Asker) -> RetryAdvice {
    let advice = q.advice(id, asker);
    let first = advice.blocked.iter().chain(&advice.confirm).next().map(|f| f.code);
    match (q.retry(id, false, false), first) {
        (Ok(()), None) => return advice,
        (Err(e), Some(fact)) => assert!(announced_by(fact, &e), "{fact:?} announced, refused with {e:?}"),
        (got, fact) => panic!("advice {advice:?} (first {fact:?}) but the retry answered {got:?}"),
    }
    let confirmed = q.retry(id, true, asker.admin);
    match (confirmed, advice.blocked.first()) {
        (Ok(()), None) => {}
        (Err(e), Some(fact)) => assert!(announced_by(fact.code, &e), "{fact:?} blocked, refused with {e:?}"),
        (got, blocked) => panic!("blocked {blocked:?} but the confirmed retry answered {got:?}"),
    }
    advice
}

fn codes(facts: &[crate::reasons::RetryFact]) -> Vec<RetryFactCode> {
    facts.iter().map(|f| f.code).collect()
}

#[test]
fn a_message_refused_for_good_asks_to_confirm_it_will_fail_again_naming_the_status() {
    let q = q();
    let bad = q.add(msg(MessageKind::Transactional));
    let c = q.claim(now(), 1);
    q.send(&c[0], answered(0x0B), now());
    let reason = q.reason(bad).expect("the refusal is recorded as a reason");
    assert_eq!(reason.code, QueueReasonCode::RefusedPermanent);
    assert_eq!(reason.params["status"], "ESME_RINVDSTADR");
    assert_eq!(reason.params["tries"], "1");

    let advice = agree(&q, bad, OPERATOR);
    assert!(advice.blocked.is_empty(), "{advice:?}");
    assert_eq!(codes(&advice.confirm), [RetryFactCode::WillFailAgain]);
    assert_eq!(advice.confirm[0].params["status"], "ESME_RINVDSTADR");
    assert_eq!(
        q.status(bad).0,
        QueueStatus::Queued,
        "confirmed, it went back in the queue"
    );
}

#[test]
fn an_opted_out_number_blocks_a_retry_before_any_note_on_arriving_twice_is_asked() {
    let q = q();
    let id = q.add(msg(MessageKind::Transactional));
    let c = q.claim(now(), 1);
    q.send(&c[0], answered(0), now());
    q.opt_out("+33612345600");
    let advice = agree(&q, id, OPERATOR);
    assert_eq!(codes(&advice.blocked), [RetryFactCode::OptedOut]);
    assert_eq!(codes(&advice.confirm), [RetryFactCode::MayArriveTwice]);
    assert_eq!(advice.confirm[0].params["risk"], "accepted");
    let refused = q.retry(id, false, false);
    assert!(
        matches!(refused, Err(queue::ActionError::OptedOut(_))),
        "the opt-out, not the confirmation, is what the retry answers: {refused:?}"
    );
    assert_eq!(q.status(id).0, QueueStatus::Accepted, "nothing changed");
}

#[test]
fn a_message_waiting_for_an_opted_out_number_is_held_with_the_reason_and_how_it_was_found() {
    let q = q();
    let id = q.add(msg(MessageKind::Transactional));
    q.opt_out("+33612345600");
    let reason = q.reason(id).expect("held with a reason");
    assert_eq!(reason.code, QueueReasonCode::OptedOut);
    assert_eq!(
        (
            reason.params["phone"].as_str(),
            reason.params["via"].as_str(),
            reason.params["actor"].as_str()
        ),
        ("+33612345600", "operator", "Olga")
    );
    let advice = agree(&q, id, OPERATOR);
    assert_eq!(codes(&advice.blocked), [RetryFactCode::OptedOut]);
}

#[test]
fn the_tries_limit_blocks_an_operator_and_asks_an_admin_to_confirm() {
    let q = q();
    let otp = q.add(msg(MessageKind::Otp));
    let c = q.claim(now(), 1);
    let Next::RetryAt { at, .. } = q.send(&c[0], answered(0x08), now()) else {
        panic!("first failure retries")
    };
    let retrying = q.reason(otp).unwrap();
    assert_eq!(retrying.code, QueueReasonCode::RefusedTemporary);
    assert_eq!(retrying.params["at_ms"], at.to_string());
    let c = q.claim(at, 1);
    q.send(&c[0], answered(0x08), at);
    assert_eq!(q.reason(otp).unwrap().params["end"], "attempts_exhausted");

    let viewer = q.advice(otp, VIEWER);
    assert_eq!(
        (codes(&viewer.blocked), viewer.confirm.len()),
        (vec![RetryFactCode::NotAllowed], 0)
    );
    let operator = agree(&q, otp, OPERATOR);
    assert_eq!(codes(&operator.blocked), [RetryFactCode::LimitReached]);
    let limit = &operator.blocked[0].params;
    assert_eq!(
        (
            limit["limit"].as_str(),
            limit["kind"].as_str(),
            limit["tries"].as_str(),
            limit["max"].as_str()
        ),
        ("tries", "otp", "2", "2")
    );
    let admin = agree(&q, otp, ADMIN);
    assert!(admin.blocked.is_empty(), "{admin:?}");
    assert_eq!(codes(&admin.confirm), [RetryFactCode::LimitReached]);
    assert_eq!(q.status(otp).0, QueueStatus::Queued, "the admin's override sent it");
}

#[test]
fn a_queued_message_or_one_past_its_validity_is_blocked() {
    let q = q();
    let waiting = q.add(msg(MessageKind::Transactional));
    let advice = agree(&q, waiting, ADMIN);
    assert_eq!(codes(&advice.blocked), [RetryFactCode::InFlight]);
    assert_eq!(advice.blocked[0].params["status"], "queued");

    let late = q.add(NewMessage {
        valid_until: Some(now() - 1),
        ..msg(MessageKind::Transactional)
    });
    q.store
        .writer()
        .write_blocking(move |tx| queue::expire(tx, now()))
        .unwrap();
    assert_eq!(q.reason(late).unwrap().code, QueueReasonCode::Expired);
    let advice = agree(&q, late, ADMIN);
    assert_eq!(codes(&advice.blocked), [RetryFactCode::Expired]);
}

#[test]
fn an_unanswered_try_is_held_with_its_reason_and_a_retry_asks_to_confirm_arriving_twice() {
    let q = q();
    let id = q.add(msg(MessageKind::Transactional));
    let c = q.claim(now(), 1);
    q.send(&c[0], timeout(), now());
    let (status, sentence) = q.status(id);
    assert_eq!(status, QueueStatus::OutcomeUnknown);
    assert!(sentence.unwrap().contains("no answer within the response timeout"));
    assert_eq!(q.reason(id).unwrap().code, QueueReasonCode::Timeout);
    let advice = agree(&q, id, OPERATOR);
    assert_eq!(codes(&advice.confirm), [RetryFactCode::MayArriveTwice]);
    assert_eq!(advice.confirm[0].params["risk"], "outcome_unknown");
}
