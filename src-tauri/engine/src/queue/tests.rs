//! The queue's transitions against a real database file.

use crate::domain::{AttemptOutcome, ExceptionKind, IntakeChannel, MessageKind, QueueStatus};
use crate::messages::{self, NewMessage};
use crate::queue::{self, Claimed, Next, SubmitResult};
use crate::receipts::policy::ReceiptPolicy;
use crate::store::Text;
use crate::store::{Store, StoreError};
use smsdesk_core::retry::{GiveUp, RetryPolicy};

/// The tests' "now": the real clock, read once, since messages are stamped with it when written.
fn now() -> i64 {
    static NOW: std::sync::OnceLock<i64> = std::sync::OnceLock::new();
    *NOW.get_or_init(|| crate::clock::Clock::system().now_ms())
}

struct Q {
    _dir: tempfile::TempDir,
    store: Store,
}

/// A queue whose store's clock stands at [`now`], the time the tests claim and send at: on the wall
/// clock, a test that ran long after the first one read [`now`] (a loaded machine) saw a retry
/// stamped later than the claims it then made, and nothing came due.
fn q() -> Q {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open_with_clock(&dir.path().join("q.db"), crate::clock::Clock::from_fn(now)).unwrap();
    Q { _dir: dir, store }
}

fn msg(kind: MessageKind) -> NewMessage {
    NewMessage {
        channel: IntakeChannel::Api,
        destination_raw: "+33612345600".into(),
        destination: "+33612345600".into(),
        body: "hello".into(),
        encoding: "gsm7".into(),
        segments: 1,
        kind,
        connection: "sandbox".into(),
        route: None,
        registered_delivery: 1,
        client_ref: None,
        ordering_key: None,
        valid_until: None,
        scheduled_at: Some(now() - 1_000),
        priority: crate::messages::DEFAULT_PRIORITY,
        api_key_id: None,
        submitted_by: None,
        idempotency: None,
        country: None,
        prices: Vec::new(),
        smart_replaced: None,
        smpp_receipt: None,
    }
}

impl Q {
    fn add(&self, m: NewMessage) -> i64 {
        self.store
            .writer()
            .write_blocking(move |tx| messages::insert(tx, &m))
            .unwrap()
    }

    fn claim(&self, now: i64, limit: u32) -> Vec<Claimed> {
        self.store
            .writer()
            .write_blocking(move |tx| {
                queue::claim(tx, "test", now, 60_000, limit, &queue::Serving::queued_for("sandbox"))
            })
            .unwrap()
    }

    fn ids(&self, now: i64, limit: u32) -> Vec<i64> {
        self.claim(now, limit).into_iter().map(|c| c.message_id).collect()
    }

    /// Records an attempt of the claimed message's first part, and applies `result`.
    fn send(&self, c: &Claimed, result: SubmitResult, now: i64) -> Next {
        self.send_part(c, 1, result, now)
    }

    /// Records an attempt of one part of the claimed message, and applies `result`.
    fn send_part(&self, c: &Claimed, segment: u32, result: SubmitResult, now: i64) -> Next {
        let c = c.clone();
        self.store
            .writer()
            .write_blocking(move |tx| {
                let a = messages::begin_attempt(tx, c.message_id, segment, messages::Wire::sandbox(), 1)?;
                let retry = RetryPolicy::default_for(c.kind);
                let send = queue::SendPolicy {
                    retry: &retry,
                    classes: &Default::default(),
                    resend_unknown: false,
                };
                queue::record(tx, &c, a.id, &result, now, &ReceiptPolicy::default(), send, || 0.5)
            })
            .unwrap()
    }

    fn row<T: Send + 'static>(
        &self,
        sql: &'static str,
        id: i64,
        f: fn(&rusqlite::Row<'_>) -> rusqlite::Result<T>,
    ) -> T {
        self.store
            .reader()
            .read_blocking(move |c| Ok::<_, StoreError>(c.query_row(sql, [id], f)?))
            .unwrap()
    }

    fn status(&self, id: i64) -> (QueueStatus, Option<String>) {
        self.row("SELECT status, last_error FROM queue WHERE message_id = ?1", id, |r| {
            Ok((r.get::<_, Text<_>>(0)?.0, r.get(1)?))
        })
    }
}

/// A message of `segments` parts.
fn long(kind: MessageKind, segments: u32) -> NewMessage {
    NewMessage {
        body: "x".repeat(153 * segments as usize),
        segments,
        ..msg(kind)
    }
}

fn timeout() -> SubmitResult {
    SubmitResult::Timeout {
        written_at: Some(now()),
    }
}

fn answered(status: u32) -> SubmitResult {
    SubmitResult::Answered {
        command_status: status,
        message_id: (status == 0).then(|| "abc123".to_owned()),
        written_at: Some(now()),
    }
}

#[test]
fn otp_goes_first_then_transactional_then_bulk() {
    let q = q();
    let bulk = q.add(msg(MessageKind::Bulk));
    let tx = q.add(msg(MessageKind::Transactional));
    let otp = q.add(msg(MessageKind::Otp));
    assert_eq!(q.ids(now(), 10), vec![otp, tx, bulk]);
    assert!(
        q.ids(now(), 10).is_empty(),
        "a claimed message is not claimed again while leased"
    );
}

#[test]
fn a_scheduled_message_waits_for_its_time() {
    let q = q();
    let later = q.add(NewMessage {
        scheduled_at: Some(now() + 60_000),
        ..msg(MessageKind::Bulk)
    });
    assert!(q.ids(now(), 10).is_empty());
    assert_eq!(q.ids(now() + 60_000, 10), vec![later]);
}

#[test]
fn messages_sharing_an_ordering_key_never_overtake_each_other_even_across_retries() {
    let q = q();
    let key = |k: MessageKind| NewMessage {
        ordering_key: Some("order-42".into()),
        ..msg(k)
    };
    let first = q.add(key(MessageKind::Bulk));
    let second = q.add(key(MessageKind::Otp));
    let other = q.add(msg(MessageKind::Bulk));
    let claimed = q.claim(now(), 10);
    assert_eq!(
        claimed.iter().map(|c| c.message_id).collect::<Vec<_>>(),
        vec![first, other],
        "the OTP waits for its key's earlier message"
    );

    // The first one fails temporarily and waits for a retry: the second still waits.
    let next = q.send(&claimed[0], answered(0x14), now());
    assert!(matches!(next, Next::RetryAt { .. }), "{next:?}");
    assert!(
        q.ids(now() + 1, 10).is_empty(),
        "a retry keeps its place in the key's order"
    );

    let Next::RetryAt { at, .. } = next else { unreachable!() };
    let again = q.claim(at, 10);
    assert_eq!(again.iter().map(|c| c.message_id).collect::<Vec<_>>(), vec![first]);
    assert_eq!(q.send(&again[0], answered(0), at), Next::Accepted);
    assert_eq!(q.ids(at, 10), vec![second], "once accepted, the next in the key goes");
}

#[test]
fn a_message_past_its_validity_is_never_sent() {
    let q = q();
    let otp = q.add(NewMessage {
        valid_until: Some(now() - 1),
        ..msg(MessageKind::Otp)
    });
    assert!(
        q.ids(now(), 10).is_empty(),
        "a message past its validity is never claimed"
    );
    assert_eq!(
        q.store
            .writer()
            .write_blocking(move |tx| queue::expire(tx, now()))
            .unwrap(),
        1
    );
    assert_eq!(q.status(otp).0, QueueStatus::Expired);
}

#[test]
fn results_move_the_message_on_with_the_status_named() {
    let q = q();
    let ok = q.add(msg(MessageKind::Transactional));
    let bad = q.add(msg(MessageKind::Transactional));
    let slow = q.add(msg(MessageKind::Transactional));
    let claimed = q.claim(now(), 10);

    assert_eq!(q.send(&claimed[0], answered(0), now()), Next::Accepted);
    assert_eq!(q.status(ok).0, QueueStatus::Accepted);
    let (outcome, provider): (AttemptOutcome, Option<String>) = q.row(
        "SELECT outcome, provider_message_id FROM attempt WHERE message_id = ?1",
        ok,
        |r| Ok((r.get::<_, Text<_>>(0)?.0, r.get(1)?)),
    );
    assert_eq!(
        (outcome, provider.as_deref()),
        (AttemptOutcome::Accepted, Some("abc123"))
    );

    assert_eq!(
        q.send(&claimed[1], answered(0x0B), now()),
        Next::Failed(GiveUp::Permanent)
    );
    let (status, error) = q.status(bad);
    assert_eq!(status, QueueStatus::Failed);
    assert!(
        error.unwrap().contains("ESME_RINVDSTADR"),
        "the failure names the status"
    );

    let next = q.send(&claimed[2], answered(0x58), now());
    assert!(
        matches!(next, Next::RetryAt { at, slow_down: true } if at > now()),
        "{next:?}"
    );
    assert_eq!(q.status(slow).0, QueueStatus::Queued);
}

#[test]
fn an_otp_gets_two_tries_at_most() {
    let q = q();
    let otp = q.add(msg(MessageKind::Otp));
    let c = q.claim(now(), 1);
    let Next::RetryAt { at, .. } = q.send(&c[0], answered(0x08), now()) else {
        panic!("first failure retries")
    };
    let c = q.claim(at, 1);
    assert_eq!(
        q.send(&c[0], answered(0x08), at),
        Next::Failed(GiveUp::AttemptsExhausted)
    );
    assert_eq!(q.status(otp).0, QueueStatus::Failed);
}

#[test]
fn no_answer_after_the_write_is_never_resent_blindly() {
    let q = q();
    let m = q.add(msg(MessageKind::Transactional));
    let c = q.claim(now(), 1);
    let Next::Held { exception_id } = q.send(&c[0], timeout(), now()) else {
        panic!()
    };
    assert_eq!(q.status(m).0, QueueStatus::OutcomeUnknown);
    assert!(
        q.ids(now() + 86_400_000, 10).is_empty(),
        "an unknown outcome is never claimed again by itself"
    );
    let kind: ExceptionKind = q.row("SELECT kind FROM exception WHERE id = ?1", exception_id, |r| {
        r.get::<_, Text<_>>(0).map(|t| t.0)
    });
    assert_eq!(kind, ExceptionKind::OutcomeUnknown);
    let linked: i64 = q.row(
        "SELECT count(*) FROM exception_evidence WHERE exception_id = ?1 AND attempt_id IS NOT NULL",
        exception_id,
        |r| r.get(0),
    );
    assert_eq!(linked, 1, "the exception links the unanswered attempt");
}

#[test]
fn recovery_requeues_what_never_reached_the_wire_and_holds_what_might_have() {
    let q = q();
    let untouched = q.add(msg(MessageKind::Bulk));
    let written = q.add(msg(MessageKind::Bulk));
    let claimed = q.claim(now(), 10);
    assert_eq!(claimed.len(), 2);
    // The second had its attempt committed (its PDU may have gone out) when the process died.
    q.store
        .writer()
        .write_blocking(move |tx| messages::begin_attempt(tx, written, 1, messages::Wire::sandbox(), 1))
        .unwrap();

    let (requeued, unknown) = q.store.writer().write_blocking(|tx| queue::recover(tx, "d")).unwrap();
    assert_eq!((requeued, unknown), (1, 1));
    assert_eq!(q.status(untouched).0, QueueStatus::Queued);
    assert_eq!(
        q.status(written).0,
        QueueStatus::OutcomeUnknown,
        "nothing that may have gone out is sent again"
    );
    assert_eq!(q.ids(now(), 10), vec![untouched]);
}

#[test]
fn a_failed_message_can_be_retried_and_an_accepted_one_only_with_confirmation() {
    let q = q();
    let bad = q.add(msg(MessageKind::Transactional));
    let good = q.add(msg(MessageKind::Transactional));
    let c = q.claim(now(), 10);
    q.send(&c[0], answered(0x0B), now());
    q.send(&c[1], answered(0), now());

    q.store
        .writer()
        .write_blocking(move |tx| {
            queue::retry(
                tx,
                bad,
                false,
                queue::RetryLimits::defaults(),
                "ann",
                "fixed the number",
            )
        })
        .unwrap();
    assert_eq!(q.status(bad).0, QueueStatus::Queued);
    assert_eq!(q.ids(now() + 1_000, 10), vec![bad]);

    let refused = q
        .store
        .writer()
        .write_blocking(move |tx| queue::retry(tx, good, false, queue::RetryLimits::defaults(), "ann", ""));
    assert!(
        matches!(
            refused,
            Err(queue::ActionError::ConfirmationRequired(queue::DuplicateRisk::Accepted))
        ),
        "{refused:?}"
    );
    assert_eq!(
        q.status(good).0,
        QueueStatus::Accepted,
        "a refused action changes nothing"
    );
    q.store
        .writer()
        .write_blocking(move |tx| {
            queue::retry(
                tx,
                good,
                true,
                queue::RetryLimits::defaults(),
                "ann",
                "customer asked again",
            )
        })
        .unwrap();
    assert_eq!(q.status(good).0, QueueStatus::Queued);
    let audited: i64 = q.row(
        "SELECT count(*) FROM audit WHERE action = 'message.retry_confirmed' AND subject_id = ?1",
        good,
        |r| r.get(0),
    );
    assert_eq!(audited, 1, "the confirmed duplicate risk is audited");
}

#[test]
fn only_a_queued_message_can_be_cancelled_and_it_is_never_sent() {
    let q = q();
    let m = q.add(msg(MessageKind::Bulk));
    q.store
        .writer()
        .write_blocking(move |tx| queue::cancel(tx, m, "ann", "sent by mistake"))
        .unwrap();
    assert_eq!(q.status(m).0, QueueStatus::Cancelled);
    assert!(q.ids(now(), 10).is_empty());
    let again = q
        .store
        .writer()
        .write_blocking(move |tx| queue::cancel(tx, m, "ann", ""));
    assert!(matches!(
        again,
        Err(queue::ActionError::NotAllowed(QueueStatus::Cancelled, _))
    ));
}

#[test]
fn an_unknown_outcome_is_settled_by_resend_or_mark_failed_and_its_exception_closes() {
    let q = q();
    let a = q.add(msg(MessageKind::Transactional));
    let b = q.add(msg(MessageKind::Transactional));
    let c = q.claim(now(), 10);
    q.send(&c[0], timeout(), now());
    q.send(
        &c[1],
        SubmitResult::LinkLost {
            written_at: Some(now()),
        },
        now(),
    );
    q.store
        .writer()
        .write_blocking(move |tx| {
            queue::retry(
                tx,
                a,
                true,
                queue::RetryLimits::defaults(),
                "ann",
                "provider says it never arrived",
            )
        })
        .unwrap();
    q.store
        .writer()
        .write_blocking(move |tx| queue::mark_failed(tx, b, "ann", "customer called; no need"))
        .unwrap();
    assert_eq!(q.status(a).0, QueueStatus::Queued);
    assert_eq!(q.status(b).0, QueueStatus::Failed);
    let open: i64 = q.row(
        "SELECT count(*) FROM exception WHERE status = 'open' AND ?1 = ?1",
        0,
        |r| r.get(0),
    );
    assert_eq!(open, 0, "both outcome-unknown exceptions are closed");
    let resolutions: String = q.row(
        "SELECT group_concat(resolution, ',') FROM (SELECT resolution FROM exception WHERE ?1 = ?1 ORDER BY id)",
        0,
        |r| r.get(0),
    );
    assert_eq!(resolutions, "resend,mark_failed");
}

#[test]
fn the_exception_queue_resolves_an_unknown_outcome_with_a_note() {
    use crate::decisions::{self as exceptions, Action, Resolution, ResolveError};
    let q = q();
    let m = q.add(msg(MessageKind::Transactional));
    let c = q.claim(now(), 1);
    let Next::Held { exception_id } = q.send(&c[0], timeout(), now()) else {
        panic!()
    };
    let resolve = |action: Action, note: &str| {
        let r = Resolution {
            exception_id,
            action,
            note: note.into(),
            actor: "ann".into(),
        };
        q.store
            .writer()
            .write_blocking(move |tx| exceptions::resolve(tx, &r, &ReceiptPolicy::default()))
    };
    let resend = || Action::Resend {
        confirm_duplicate: false,
        limits: queue::RetryLimits::defaults(),
    };
    assert!(matches!(resolve(resend(), " "), Err(ResolveError::NoteRequired)));
    assert!(
        matches!(resolve(Action::Dismiss, "ignore"), Err(ResolveError::NotAllowed { .. })),
        "it needs a decision"
    );
    resolve(resend(), "the provider has no trace of it").unwrap();
    assert_eq!(q.status(m).0, QueueStatus::Queued);
    let (status, note): (String, String) = q.row(
        "SELECT status, resolution_note FROM exception WHERE id = ?1",
        exception_id,
        |r| Ok((r.get(0)?, r.get(1)?)),
    );
    assert_eq!(
        (status.as_str(), note.as_str()),
        ("resolved", "the provider has no trace of it")
    );
}

#[test]
fn configured_classes_and_the_resend_policy_change_what_a_result_does() {
    use crate::smpp::status::ClassOverrides;
    let q = q();
    let a = q.add(msg(MessageKind::Transactional));
    let b = q.add(msg(MessageKind::Transactional));
    let c = q.claim(now(), 10);
    let record = |claimed: &Claimed, result: SubmitResult, classes: ClassOverrides, resend: bool| {
        let claimed = claimed.clone();
        q.store
            .writer()
            .write_blocking(move |tx| {
                let attempt = messages::begin_attempt(tx, claimed.message_id, 1, messages::Wire::sandbox(), 1)?;
                let retry = RetryPolicy::default_for(claimed.kind);
                let send = queue::SendPolicy {
                    retry: &retry,
                    classes: &classes,
                    resend_unknown: resend,
                };
                queue::record(
                    tx,
                    &claimed,
                    attempt.id,
                    &result,
                    now(),
                    &ReceiptPolicy::default(),
                    send,
                    || 0.5,
                )
            })
            .unwrap()
    };
    // ESME_RSUBMITFAIL is retried a few times by default; this connection says it is final.
    let permanent = ClassOverrides {
        permanent: vec![0x45],
        ..Default::default()
    };
    assert_eq!(
        record(&c[0], answered(0x45), permanent, false),
        Next::Failed(GiveUp::Permanent)
    );
    assert_eq!(q.status(a).0, QueueStatus::Failed);
    // A kind whose policy is "resend" retries after a timeout instead of raising an exception.
    let next = record(&c[1], timeout(), ClassOverrides::default(), true);
    assert!(matches!(next, Next::RetryAt { .. }), "{next:?}");
    assert_eq!(q.status(b).0, QueueStatus::Queued);
    let exceptions: i64 = q.row("SELECT count(*) FROM exception WHERE ?1 = ?1", 0, |r| r.get(0));
    assert_eq!(exceptions, 0);
}

#[test]
fn a_long_message_is_accepted_only_when_every_part_is_and_a_retry_sends_only_the_parts_not_accepted() {
    let q = q();
    let m = q.add(long(MessageKind::Transactional, 3));
    let c = q.claim(now(), 1);
    assert_eq!(c[0].parts_accepted, Vec::<u32>::new());
    assert_eq!(q.send_part(&c[0], 1, answered(0), now()), Next::PartAccepted);
    assert_eq!(
        q.status(m).0,
        QueueStatus::Sending,
        "one part accepted is not the message accepted"
    );
    // Part 2 is throttled: the message waits for a retry, and part 1 is not sent again.
    let Next::RetryAt { at, .. } = q.send_part(&c[0], 2, answered(0x58), now()) else {
        panic!("a throttled part is retried")
    };
    assert_eq!(q.status(m).0, QueueStatus::Queued);
    let again = q.claim(at, 1);
    assert_eq!(again[0].parts_accepted, vec![1], "the accepted part is not sent again");
    assert_eq!(q.send_part(&again[0], 2, answered(0), at), Next::PartAccepted);
    assert_eq!(q.send_part(&again[0], 3, answered(0), at), Next::Accepted);
    assert_eq!(q.status(m).0, QueueStatus::Accepted);
    let tries: i64 = q.row("SELECT attempts FROM queue WHERE message_id = ?1", m, |r| r.get(0));
    assert_eq!(tries, 2, "two tries of the message: the first stopped at part 2");
}

#[test]
fn a_long_message_partly_accepted_that_cannot_go_on_is_held_with_its_parts_named() {
    let q = q();
    let refused = q.add(long(MessageKind::Transactional, 3));
    let unanswered = q.add(long(MessageKind::Transactional, 2));
    let c = q.claim(now(), 10);
    q.send_part(&c[0], 1, answered(0), now());
    let Next::Held { exception_id } = q.send_part(&c[0], 2, answered(0x65), now()) else {
        panic!("a part refused for good holds the message")
    };
    let (kind, summary): (ExceptionKind, String) =
        q.row("SELECT kind, summary FROM exception WHERE id = ?1", exception_id, |r| {
            Ok((r.get::<_, Text<_>>(0)?.0, r.get(1)?))
        });
    assert_eq!(kind, ExceptionKind::PartlySent);
    for part in [
        "Part 1 of 3: accepted (provider id \"abc123\")",
        "Part 2 of 3: refused: ESME_RX_P_APPN",
        "Part 3 of 3: not sent",
    ] {
        assert!(
            summary.contains(part),
            "the exception names where each part stands: {summary}"
        );
    }
    assert_eq!(q.status(refused).0, QueueStatus::OutcomeUnknown);

    q.send_part(&c[1], 1, answered(0), now());
    let Next::Held { exception_id } = q.send_part(&c[1], 2, timeout(), now()) else {
        panic!("a part without an answer holds the message")
    };
    let kind: ExceptionKind = q.row("SELECT kind FROM exception WHERE id = ?1", exception_id, |r| {
        r.get::<_, Text<_>>(0).map(|t| t.0)
    });
    assert_eq!(kind, ExceptionKind::OutcomeUnknown);
    assert_eq!(q.status(unanswered).0, QueueStatus::OutcomeUnknown);
}

#[test]
fn per_key_order_waits_for_every_part_of_a_long_message() {
    let q = q();
    let keyed = |m: NewMessage| NewMessage {
        ordering_key: Some("order-7".into()),
        ..m
    };
    let first = q.add(keyed(long(MessageKind::Transactional, 3)));
    let second = q.add(keyed(msg(MessageKind::Transactional)));
    let c = q.claim(now(), 10);
    assert_eq!(c.len(), 1);
    q.send_part(&c[0], 1, answered(0), now());
    assert!(
        q.ids(now(), 10).is_empty(),
        "part 1 accepted: the next message of the key waits"
    );
    q.send_part(&c[0], 2, answered(0), now());
    q.send_part(&c[0], 3, answered(0), now());
    assert_eq!(q.status(first).0, QueueStatus::Accepted);
    assert_eq!(q.ids(now(), 10), vec![second]);
}

#[test]
fn recovery_resends_only_parts_that_never_reached_the_wire_and_holds_a_part_that_may_have() {
    let q = q();
    let cut_after_part_1 = q.add(long(MessageKind::Transactional, 3));
    let cut_during_part_2 = q.add(long(MessageKind::Transactional, 3));
    let c = q.claim(now(), 10);
    q.send_part(&c[0], 1, answered(0), now());
    q.send_part(&c[1], 1, answered(0), now());
    // The process dies with part 2 of the second message recorded (it may be on the wire).
    q.store
        .writer()
        .write_blocking(move |tx| messages::begin_attempt(tx, cut_during_part_2, 2, messages::Wire::sandbox(), 1))
        .unwrap();

    let (requeued, unknown) = q.store.writer().write_blocking(|tx| queue::recover(tx, "d")).unwrap();
    assert_eq!((requeued, unknown), (1, 1));
    assert_eq!(q.status(cut_after_part_1).0, QueueStatus::Queued);
    let again = q.claim(now(), 10);
    assert_eq!(again.len(), 1);
    assert_eq!(
        (again[0].message_id, again[0].parts_accepted.clone()),
        (cut_after_part_1, vec![1]),
        "only parts 2 and 3 go out again"
    );
    let (status, error) = q.status(cut_during_part_2);
    assert_eq!(status, QueueStatus::OutcomeUnknown);
    let error = error.unwrap();
    assert!(
        error.contains("Part 2 of 3: written, answer never came") && error.contains("Part 3 of 3: not sent"),
        "{error}"
    );
}

#[test]
fn a_try_that_never_reached_the_wire_is_recorded_and_not_counted() {
    let q = q();
    let otp = q.add(msg(MessageKind::Otp));
    let c = q.claim(now(), 1);
    let next = q.send(&c[0], SubmitResult::NotSent, now());
    assert_eq!(
        next,
        Next::RetryAt {
            at: now(),
            slow_down: false
        }
    );
    let (outcome, tries): (AttemptOutcome, u32) = q.row(
        "SELECT a.outcome, q.attempts FROM attempt a JOIN queue q ON q.message_id = a.message_id
         WHERE a.message_id = ?1",
        otp,
        |r| Ok((r.get::<_, Text<_>>(0)?.0, r.get(1)?)),
    );
    assert_eq!((outcome, tries), (AttemptOutcome::NotSent, 0), "recorded, not counted");
    // An OTP gets two real tries whatever came before that never went out.
    let c = q.claim(now(), 1);
    assert!(matches!(q.send(&c[0], answered(0x08), now()), Next::RetryAt { .. }));
    let c = q.claim(now() + 60_000, 1);
    assert_eq!(
        q.send(&c[0], answered(0x08), now()),
        Next::Failed(GiveUp::AttemptsExhausted)
    );
}

#[test]
fn a_claimed_message_whose_validity_ends_before_the_write_expires_without_going_out() {
    let q = q();
    let otp = q.add(NewMessage {
        valid_until: Some(now() + 10_000),
        ..msg(MessageKind::Otp)
    });
    let c = q.claim(now(), 1);
    assert_eq!(c[0].expires_at, Some(now() + 10_000));
    let next = q
        .store
        .writer()
        .write_blocking(move |tx| queue::expire_claimed(tx, otp, None))
        .unwrap();
    assert_eq!(next, Next::Failed(GiveUp::ValidityEnded));
    assert_eq!(q.status(otp).0, QueueStatus::Expired);
}

#[test]
fn a_manual_retry_past_the_kinds_tries_or_age_is_refused_unless_overridden() {
    let q = q();
    let failed = q.add(msg(MessageKind::Transactional));
    let c = q.claim(now(), 10);
    q.send(&c[0], answered(0x0B), now());
    let with = |tweak: fn(&mut RetryPolicy)| {
        let mut policies = queue::RetryLimits::DEFAULT_POLICIES;
        tweak(&mut policies[1]);
        queue::RetryLimits::Obey(policies)
    };
    let retry = |limits| {
        q.store
            .writer()
            .write_blocking(move |tx| queue::retry(tx, failed, false, limits, "ann", "customer asked"))
    };
    let tried_once = retry(with(|p| p.max_attempts = 1));
    assert!(
        matches!(
            tried_once,
            Err(queue::ActionError::AttemptsExhausted { tries: 1, max: 1, .. })
        ),
        "one try of one allowed: {tried_once:?}"
    );
    let old = retry(with(|p| p.max_age_ms = 0));
    assert!(matches!(old, Err(queue::ActionError::TooOld { .. })), "{old:?}");
    assert_eq!(
        q.status(failed).0,
        QueueStatus::Failed,
        "a refused retry changes nothing"
    );
    retry(queue::RetryLimits::Override).expect("an override goes past the kind's limits");
    assert_eq!(q.status(failed).0, QueueStatus::Queued);
    let overrides: i64 = q
        .store
        .reader()
        .read_blocking(move |c| {
            c.query_row(
                "SELECT count(*) FROM audit WHERE action = 'message.retry_override' AND subject_id = ?1",
                [failed],
                |r| r.get(0),
            )
            .map_err(StoreError::from)
        })
        .unwrap();
    assert_eq!(overrides, 1, "the override is audited as one");
}

/// The queue's rows by status and the submits answered by minute, hour and day are counted by the
/// writer as it moves messages on (schema 21, no trigger): after every kind of move, and a write
/// that failed and was undone, what is kept equals a recount of the rows.
#[test]
fn the_queue_and_submit_totals_kept_through_every_move_equal_a_recount_of_the_rows() {
    let q = q();
    for _ in 0..6 {
        q.add(msg(MessageKind::Transactional));
    }
    let long = q.add(long(MessageKind::Bulk, 2));
    let cancelled = q.add(msg(MessageKind::Bulk));
    q.store
        .writer()
        .write_blocking(move |tx| queue::cancel(tx, cancelled, "ann", "not needed"))
        .unwrap();
    let c = q.claim(now(), 10);
    assert_eq!(c.len(), 7, "every message but the cancelled one");
    let id = |i: usize| c[i].message_id;
    q.send(&c[0], answered(0), now());
    q.send(&c[1], answered(0x0B), now());
    q.send(&c[2], answered(0x58), now());
    q.send(&c[3], timeout(), now());
    q.send(&c[5], answered(0), now());
    assert_eq!(c[6].message_id, long);
    q.send_part(&c[6], 1, answered(0), now());
    // An accepted one sent again on an operator's word; a failed one's retry that is undone.
    let again = id(0);
    q.store
        .writer()
        .write_blocking(move |tx| queue::retry(tx, again, true, queue::RetryLimits::defaults(), "ann", "asked"))
        .unwrap();
    let failed = id(1);
    let undone = q.store.writer().write_blocking(move |tx| {
        queue::retry(tx, failed, false, queue::RetryLimits::defaults(), "ann", "")?;
        Err::<(), _>(queue::ActionError::from(StoreError::Commit("undone on purpose".into())))
    });
    assert!(undone.is_err());
    assert_eq!(
        q.status(failed).0,
        QueueStatus::Failed,
        "the undone retry left it failed"
    );

    let (kept, recounted) = q
        .store
        .writer()
        .write_blocking(|tx| {
            Ok::<_, StoreError>((
                crate::store::checks::totals_stored(tx.sql_for_tests())?,
                crate::store::checks::totals_recomputed(tx.sql_for_tests())?,
            ))
        })
        .unwrap();
    let part = |lines: &[String], prefix: &str| -> Vec<String> {
        lines.iter().filter(|l| l.starts_with(prefix)).cloned().collect()
    };
    assert_eq!(
        part(&kept, "queue"),
        [
            "queue 0 0 Text(\"accepted\") 1",
            "queue 0 0 Text(\"cancelled\") 1",
            "queue 0 0 Text(\"failed\") 1",
            "queue 0 0 Text(\"outcome_unknown\") 1",
            "queue 0 0 Text(\"queued\") 2",
            "queue 0 0 Text(\"sending\") 2",
        ],
        "the queue's rows by status"
    );
    for metric in ["accepted", "refused", "unknown"] {
        assert!(
            kept.iter()
                .any(|l| l.starts_with("count") && l.contains(&format!("\"{metric}\""))),
            "the submits {metric} are counted: {kept:#?}"
        );
    }
    assert_eq!(kept, recounted, "what is kept equals a recount of the rows");
}

#[path = "rules_tests.rs"]
mod rules_tests;
