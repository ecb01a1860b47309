//! Receipt handling against a real database file, through the same functions the SMPP session
//! and the HTTP callbacks use. The first tests follow the production checklist of the design's
//! source article; each asserts the computed state and the counters.

use std::collections::BTreeMap;

use proptest::prelude::*;

use super::exceptions;
use super::ingest::{HttpReceived, Ingested, Ingestor, Outcome, SmppReceived};
use super::parse::Tlv;
use super::policy::ReceiptPolicy;
use super::{deadline, rebuild, uncorrelated};
use crate::config::IdBase;
use crate::decisions::{self, Action, Resolution, ResolveError};
use crate::domain::{DeliveryState, ExceptionKind, ExceptionStatus, IntakeChannel, MessageKind, QueueStatus};
use crate::messages::{self, NewMessage};
use crate::store::{checks, Store, StoreError};
use crate::test_support::{self as report, Counters, MessageReport};

const CONN: &str = "sandbox";

struct World {
    _dir: tempfile::TempDir,
    store: Store,
    ingest: Ingestor,
    policy: ReceiptPolicy,
}

fn world() -> World {
    world_with(ReceiptPolicy::default())
}

fn world_with(policy: ReceiptPolicy) -> World {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("smsdesk.db")).unwrap();
    let ingest = Ingestor::new(store.writer().clone(), policy.clone());
    World {
        _dir: dir,
        store,
        ingest,
        policy,
    }
}

fn appendix_b(id: &str, stat: &str, done: &str) -> String {
    format!("id:{id} sub:001 dlvrd:001 submit date:9911291200 done date:{done} stat:{stat} err:000 text:Your order has ship")
}

impl World {
    /// Opens the exceptions of receipts that matched no message and wait no longer (none of the
    /// tests' submits awaits an answer, so every waiting one); returns how many.
    fn sweep_waiting(&self) -> usize {
        let policy = self.policy.clone();
        self.store
            .writer()
            .write_blocking(move |tx| uncorrelated::sweep(tx, crate::clock::Clock::system().now_ms(), &policy))
            .unwrap()
    }

    fn message(&self, destination: &str, body: &str) -> i64 {
        let m = NewMessage::text(IntakeChannel::Cli, destination, body, MessageKind::Transactional, CONN);
        self.store
            .writer()
            .write_blocking(move |tx| messages::insert(tx, &m))
            .unwrap()
    }

    /// A message the SMSC accepted with `provider_id`.
    fn accepted(&self, provider_id: &str) -> i64 {
        let m = self.message("+33612345678", "Your order has shipped and will arrive tomorrow");
        self.accept(m, provider_id);
        m
    }

    fn accept(&self, message: i64, provider_id: &str) -> usize {
        let id = provider_id.to_owned();
        let policy = self.policy.clone();
        self.store
            .writer()
            .write_blocking(move |tx| {
                let a = messages::begin_attempt(tx, message, 1, messages::Wire::sandbox(), 1)?;
                decisions::record_accepted(tx, a.id, None, &id, &policy)
            })
            .unwrap()
            .matched
    }

    fn smpp(&self, esm: u8, text: &str, tlvs: Vec<Tlv>) -> Ingested {
        self.ingest
            .smpp_blocking(SmppReceived {
                connection: CONN.into(),
                session_id: Some("s1".into()),
                sequence_number: Some(1),
                esm_class: Some(esm),
                source_addr: Some("33612345678".into()),
                destination_addr: Some("SHOP".into()),
                short_message: text.as_bytes().to_vec(),
                tlvs,
                received_at: 1,
                ..SmppReceived::default()
            })
            .unwrap()
    }

    fn http(&self, provider: &str, content_type: &str, body: &str) -> Vec<Ingested> {
        self.ingest
            .http_blocking(HttpReceived {
                provider: provider.into(),
                connection: CONN.into(),
                method: "POST".into(),
                content_type: Some(content_type.into()),
                body: body.as_bytes().to_vec(),
                received_at: 1,
                ..HttpReceived::default()
            })
            .unwrap()
    }

    fn dlr(&self, id: &str, stat: &str) -> Ingested {
        self.smpp(0x04, &appendix_b(id, stat, "9911291201"), vec![])
    }

    /// One row of a query, for looking at what was stored.
    fn row<T: Send + 'static>(
        &self,
        sql: &'static str,
        param: i64,
        f: impl FnOnce(&rusqlite::Row<'_>) -> rusqlite::Result<T> + Send + 'static,
    ) -> T {
        self.store
            .reader()
            .read_blocking(move |c| Ok::<_, StoreError>(c.query_row(sql, [param], f)?))
            .unwrap()
    }

    fn counters(&self) -> Counters {
        self.store.reader().read_blocking(report::counters).unwrap()
    }

    fn report(&self, m: i64) -> MessageReport {
        self.store
            .reader()
            .read_blocking(move |c| report::message_report(c, m))
            .unwrap()
            .unwrap()
    }

    /// The open exceptions of a kind, as the exception queue serves them.
    fn open_exceptions(&self, kind: ExceptionKind) -> Vec<crate::views::ExceptionSummary> {
        let f = crate::views::ExceptionFilter {
            status: Some(ExceptionStatus::Open),
            kind: Some(kind),
            limit: Some(crate::views::MAX_LIMIT),
            ..Default::default()
        };
        self.store
            .reader()
            .read_blocking(move |c| crate::views::list_exceptions(c, &f))
            .unwrap()
            .items
    }

    fn resolve(&self, r: Resolution) -> Result<(), ResolveError> {
        let policy = self.policy.clone();
        self.store
            .writer()
            .write_blocking(move |tx| decisions::resolve(tx, &r, &policy))
    }

    /// Changes a stored fold behind the engine's back (delivered becomes expired), as a damaged
    /// database would, for `rebuild` to find.
    fn tamper_with_projection(&self, message: i64) {
        self.store
            .writer()
            .write_blocking(move |tx| {
                tx.sql_for_tests().execute(
                    "UPDATE projection SET fold_json = replace(fold_json, 'delivered', 'expired') WHERE message_id = ?1",
                    [message],
                )?;
                Ok::<_, StoreError>(())
            })
            .unwrap();
    }

    fn rebuild_differences(&self) -> Vec<i64> {
        rebuild::run(&self.store, &self.policy, false, |_, _| {})
            .unwrap()
            .differing
    }
}

fn open_counts(pairs: &[(ExceptionKind, i64)]) -> BTreeMap<ExceptionKind, i64> {
    pairs.iter().copied().collect()
}

// ---- The production checklist ----

#[test]
fn the_same_callback_twice_changes_neither_the_state_nor_the_counters() {
    let w = world();
    let m = w.accepted("A1");
    let first = w.dlr("A1", "DELIVRD");
    assert_eq!(
        first.outcome,
        Outcome::Applied {
            message_id: m,
            state: DeliveryState::Delivered
        }
    );
    let before = w.counters();
    let report_before = w.report(m);

    let again = w.dlr("A1", "DELIVRD");
    let Outcome::Repeat { logical_event_id } = again.outcome else {
        panic!("a repeat must be recognised: {again:?}")
    };
    assert_ne!(
        again.receipt_id, first.receipt_id,
        "the repeat itself is kept as evidence"
    );

    let after = w.counters();
    assert_eq!(after.receipts, before.receipts + 1, "every receipt is stored");
    assert_eq!(after.repeats, before.repeats + 1, "and flagged as a repeat");
    assert_eq!(
        (
            after.logical_events,
            after.applied,
            &after.states,
            &after.open_exceptions
        ),
        (
            before.logical_events,
            before.applied,
            &before.states,
            &before.open_exceptions
        ),
        "a repeat must change no state and no counter"
    );
    assert_eq!(
        w.report(m),
        report_before,
        "a repeated receipt must not change the computed state"
    );
    let linked: i64 = w.row(
        "SELECT logical_event_id FROM receipt_outcome WHERE receipt_id = ?1",
        again.receipt_id,
        |r| r.get(0),
    );
    assert_eq!(linked, logical_event_id, "the repeat is linked to its logical event");
}

#[test]
fn an_intermediate_after_a_final_neither_degrades_nor_overwrites_it() {
    let w = world();
    let m = w.accepted("B1");
    w.dlr("B1", "DELIVRD");
    let late = w.smpp(0x20, &appendix_b("B1", "ENROUTE", "9911291200"), vec![]);
    assert!(matches!(late.outcome, Outcome::Applied { .. }), "{late:?}");
    let r = w.report(m);
    assert_eq!(r.reported_state, DeliveryState::Delivered, "the final must stand");
    assert!(
        r.flags.contains(&"late"),
        "the late intermediate must be flagged: {:?}",
        r.flags
    );
    let c = w.counters();
    assert_eq!(
        (c.receipts, c.logical_events, c.applied),
        (2, 2, 2),
        "the intermediate is kept and applied as evidence"
    );
}

#[test]
fn two_incompatible_finals_keep_the_first_and_open_one_conflict_linking_both() {
    let w = world();
    let m = w.accepted("C1");
    let first = w.dlr("C1", "DELIVRD");
    let second = w.dlr("C1", "UNDELIV");
    let r = w.report(m);
    assert_eq!(
        r.reported_state,
        DeliveryState::Delivered,
        "the first materialised final is kept"
    );
    assert!(r.flags.contains(&"conflict"));
    let open = w.open_exceptions(ExceptionKind::ConflictingFinal);
    assert_eq!(open.len(), 1);
    let conflict = open[0].id;
    let (_, evidence) = w
        .store
        .reader()
        .read_blocking(move |c| exceptions::get(c, conflict))
        .unwrap()
        .unwrap();
    let receipts: Vec<_> = evidence.iter().filter_map(|e| e.receipt_id).collect();
    assert_eq!(
        receipts,
        vec![first.receipt_id, second.receipt_id],
        "the conflict links both receipts"
    );

    // A third incompatible final joins the same exception rather than opening another.
    let third = w.dlr("C1", "EXPIRED");
    assert_eq!(w.open_exceptions(ExceptionKind::ConflictingFinal).len(), 1);
    let (_, evidence) = w
        .store
        .reader()
        .read_blocking(move |c| exceptions::get(c, conflict))
        .unwrap()
        .unwrap();
    assert!(evidence.iter().any(|e| e.receipt_id == Some(third.receipt_id)));
    assert_eq!(
        w.counters().open_exceptions,
        open_counts(&[(ExceptionKind::ConflictingFinal, 1)])
    );
}

#[test]
fn without_an_event_id_the_fingerprint_tells_repeats_from_new_events() {
    let w = world();
    let m = w.accepted("D1");
    w.smpp(0x04, &appendix_b("D1", "ENROUTE", "9911291201"), vec![]);
    // Same facts in another PDU (after a reconnect, say): a repeat.
    let again = w.smpp(0x04, &appendix_b("D1", "ENROUTE", "9911291201"), vec![]);
    assert!(matches!(again.outcome, Outcome::Repeat { .. }), "{again:?}");
    // A later done date is a new logical event.
    let later = w.smpp(0x04, &appendix_b("D1", "DELIVRD", "9911291203"), vec![]);
    assert!(matches!(later.outcome, Outcome::Applied { .. }));
    let c = w.counters();
    assert_eq!((c.receipts, c.logical_events, c.repeats), (3, 2, 1));
    assert_eq!(w.report(m).reported_state, DeliveryState::Delivered);
    let key: String = w
        .store
        .reader()
        .read_blocking(|c| {
            Ok::<_, StoreError>(
                c.query_row("SELECT dedup_key FROM logical_event ORDER BY id LIMIT 1", [], |r| {
                    r.get(0)
                })?,
            )
        })
        .unwrap();
    assert_eq!(
        key, "fp1|t:D1|ENROUTE|000|9911291201||intermediate",
        "the fingerprint's components are documented"
    );
}

#[test]
fn an_unknown_external_id_is_kept_uncorrelated_and_nothing_is_applied() {
    let w = world();
    let m = w.accepted("E1");
    let r = w.dlr("NO-SUCH-ID", "DELIVRD");
    assert!(matches!(r.outcome, Outcome::Waiting { .. }), "{r:?}");
    assert_eq!(w.sweep_waiting(), 1, "no submit awaits its answer: the exception opens");
    assert_eq!(
        w.report(m).reported_state,
        DeliveryState::Pending,
        "nothing may be applied to another message"
    );
    let c = w.counters();
    assert_eq!((c.receipts, c.logical_events, c.applied), (1, 1, 0));
    assert_eq!(c.open_exceptions, open_counts(&[(ExceptionKind::Uncorrelated, 1)]));
}

#[test]
fn an_unrecognised_date_or_payload_is_kept_with_its_parse_error() {
    let w = world();
    let m = w.accepted("F1");
    // An unreadable date: still a receipt, the date kept as written, no normalised time.
    let odd_date = w.smpp(0x04, &appendix_b("F1", "DELIVRD", "yesterday"), vec![]);
    assert!(matches!(odd_date.outcome, Outcome::Applied { .. }), "{odd_date:?}");
    let (done_date, done_ts): (Option<String>, Option<String>) = w.row(
        "SELECT done_date, done_ts FROM receipt WHERE id = ?1",
        odd_date.receipt_id,
        |r| Ok((r.get(0)?, r.get(1)?)),
    );
    assert_eq!((done_date.as_deref(), done_ts), (Some("yesterday"), None));
    assert_eq!(w.report(m).reported_state, DeliveryState::Delivered);

    // An unreadable payload: kept byte for byte, with its parse error, and an exception.
    let garbage = w.smpp(0x04, "\u{1}\u{2}garbage %%% ###", vec![]);
    assert!(matches!(garbage.outcome, Outcome::Unparseable { .. }), "{garbage:?}");
    let (raw, error): (Vec<u8>, Option<String>) = w.row(
        "SELECT raw, parse_error FROM receipt WHERE id = ?1",
        garbage.receipt_id,
        |r| Ok((r.get(0)?, r.get(1)?)),
    );
    assert_eq!(raw, b"\x01\x02garbage %%% ###".to_vec(), "the payload is kept exactly");
    assert!(error.is_some_and(|e| !e.is_empty()), "the parse error is kept");
    let c = w.counters();
    assert_eq!(c.receipts, 2);
    assert_eq!(c.open_exceptions, open_counts(&[(ExceptionKind::Unparseable, 1)]));
}

#[test]
fn an_uncorrelated_receipt_sharing_destination_and_text_is_still_not_attributed() {
    let w = world();
    // The same destination and text as the receipt below, but another provider id.
    let m = w.accepted("G1");
    let r = w.dlr("G2", "DELIVRD");
    assert!(
        matches!(r.outcome, Outcome::Waiting { .. }),
        "destination and text must never attribute: {r:?}"
    );
    assert_eq!(w.report(m).reported_state, DeliveryState::Pending);
    assert_eq!(w.counters().applied, 0);
}

#[test]
fn reports_tell_acceptance_network_state_and_operator_decisions_apart() {
    let w = world();
    let m = w.accepted("H1");
    let r = w.report(m);
    assert_eq!(
        (r.acceptance, r.reported_state, r.rule.as_str()),
        (QueueStatus::Accepted, DeliveryState::Pending, "no_report"),
        "acceptance by the SMSC is not delivery"
    );

    w.dlr("H1", "DELIVRD");
    w.dlr("H1", "UNDELIV");
    let r = w.report(m);
    assert_eq!(
        (r.reported_state, r.rule.as_str(), r.operator_decision),
        (DeliveryState::Delivered, "first_final", None)
    );

    let conflict = w.open_exceptions(ExceptionKind::ConflictingFinal)[0].id;
    w.resolve(Resolution {
        exception_id: conflict,
        action: Action::ChooseState(DeliveryState::Undeliverable),
        note: "Provider support confirmed the handset was off.".into(),
        actor: "ann".into(),
    })
    .unwrap();
    let r = w.report(m);
    assert_eq!(
        (r.acceptance, r.reported_state, r.rule.as_str(), r.operator_decision),
        (
            QueueStatus::Accepted,
            DeliveryState::Undeliverable,
            "operator_decision",
            Some(conflict)
        )
    );
    assert!(!r.flags.contains(&"conflict"));
}

// ---- Correlation ----

#[test]
fn a_receipt_before_the_submit_response_is_applied_when_the_id_arrives() {
    let w = world();
    let m = w.message("+33612345678", "Your order has shipped");
    let early = w.dlr("I1", "DELIVRD");
    assert!(matches!(early.outcome, Outcome::Waiting { .. }), "{early:?}");
    assert_eq!(
        w.accept(m, "I1"),
        1,
        "the waiting receipt is matched when the response brings its id"
    );
    assert_eq!(w.report(m).reported_state, DeliveryState::Delivered);
    assert_eq!(w.sweep_waiting(), 0, "nothing waits any more");
    let exceptions: i64 = w.row("SELECT count(*) FROM exception WHERE ?1 = ?1", 0, |r| r.get(0));
    assert_eq!(exceptions, 0, "nobody was asked about a receipt that found its message");
}

#[test]
fn a_receipt_that_matches_nothing_is_raised_once_no_earlier_submit_awaits_its_answer_or_after_the_grace() {
    let w = world();
    let m = w.message("+33612345678", "Your order has shipped");
    // A submit written, its answer not yet recorded.
    w.store
        .writer()
        .write_blocking(move |tx| messages::begin_attempt(tx, m, 1, messages::Wire::sandbox(), 1))
        .unwrap();
    let r = w
        .ingest
        .smpp_blocking(SmppReceived {
            connection: CONN.into(),
            esm_class: Some(0x04),
            short_message: appendix_b("NOT-YET", "DELIVRD", "9911291201").into_bytes(),
            received_at: crate::clock::Clock::system().now_ms(),
            ..SmppReceived::default()
        })
        .unwrap();
    assert!(matches!(r.outcome, Outcome::Waiting { .. }), "{r:?}");
    assert_eq!(
        w.sweep_waiting(),
        0,
        "an earlier submit still awaits its answer: it may be this one's"
    );
    let grace = w.policy.uncorrelated_grace_ms;
    let policy = w.policy.clone();
    let later = crate::clock::Clock::system().now_ms() + grace;
    let opened = w
        .store
        .writer()
        .write_blocking(move |tx| uncorrelated::sweep(tx, later, &policy))
        .unwrap();
    assert_eq!(opened, 1, "after the grace, a person is asked anyway");
    assert_eq!(
        w.counters().open_exceptions,
        open_counts(&[(ExceptionKind::Uncorrelated, 1)])
    );
    assert_eq!(w.sweep_waiting(), 0, "asked once");
}

#[test]
fn several_candidates_make_an_ambiguous_exception_and_nothing_is_applied() {
    let w = world();
    let a = w.accepted("J1");
    let b = w.accepted("J1");
    let r = w.dlr("J1", "DELIVRD");
    assert!(matches!(r.outcome, Outcome::Ambiguous { .. }), "{r:?}");
    assert_eq!(w.report(a).reported_state, DeliveryState::Pending);
    assert_eq!(w.report(b).reported_state, DeliveryState::Pending);
    let ex = w.open_exceptions(ExceptionKind::Ambiguous);
    let (_, evidence) = w
        .store
        .reader()
        .read_blocking(move |c| exceptions::get(c, ex[0].id))
        .unwrap()
        .unwrap();
    assert_eq!(
        evidence.iter().filter(|e| e.attempt_id.is_some()).count(),
        2,
        "both candidate submits are linked"
    );
}

#[test]
fn the_tlv_id_wins_over_the_text_id_and_a_disagreement_is_flagged() {
    let w = world();
    let m = w.accepted("K1");
    let tlv = Tlv {
        tag: 0x001E,
        value: b"K1\0".to_vec(),
    };
    let r = w.smpp(0x04, &appendix_b("ZZZ999", "DELIVRD", "9911291201"), vec![tlv]);
    assert_eq!(
        r.outcome,
        Outcome::Applied {
            message_id: m,
            state: DeliveryState::Delivered
        }
    );
    assert!(w.report(m).flags.contains(&"id_disagree"));
}

#[test]
fn hex_responses_match_decimal_receipts_only_where_the_connection_says_so() {
    let policy = ReceiptPolicy {
        response_id: IdBase::Hex,
        receipt_id: IdBase::Decimal,
        ..ReceiptPolicy::default()
    };
    let w = world_with(policy);
    let m = w.accepted("38601fa");
    let r = w.dlr("0059113978", "DELIVRD");
    assert_eq!(
        r.outcome,
        Outcome::Applied {
            message_id: m,
            state: DeliveryState::Delivered
        }
    );
    let raw: String = w
        .store
        .reader()
        .read_blocking(|c| Ok::<_, StoreError>(c.query_row("SELECT message_id_raw FROM receipt", [], |r| r.get(0))?))
        .unwrap();
    assert_eq!(raw, "0059113978", "the raw id is kept as received");

    let exact = world();
    exact.accepted("38601fa");
    assert!(matches!(
        exact.dlr("0059113978", "DELIVRD").outcome,
        Outcome::Waiting { .. }
    ));
}

#[test]
fn a_mismatching_destination_is_flagged_but_does_not_block_an_id_match() {
    let w = world();
    let m = w.message("+4915112345678", "Hallo");
    w.accept(m, "L1");
    let r = w.dlr("L1", "DELIVRD");
    assert_eq!(
        r.outcome,
        Outcome::Applied {
            message_id: m,
            state: DeliveryState::Delivered
        }
    );
    assert!(w.report(m).flags.contains(&"mismatch"));
}

// ---- HTTP provider callbacks: the same path ----

#[test]
fn an_http_callback_is_stored_as_received_and_applied_like_an_smpp_receipt() {
    let w = world();
    let m = w.accepted("0A0000001234567B");
    let body = r#"{"msisdn":"33612345678","to":"SHOP","network-code":"20801","messageId":"0A0000001234567B",
        "price":"0.0333","status":"delivered","scts":"2611291201","err-code":"0","message-timestamp":"2026-11-29 12:01:00"}"#;
    let out = w.http("vonage", "application/json", body);
    assert_eq!(out.len(), 1);
    assert_eq!(
        out[0].outcome,
        Outcome::Applied {
            message_id: m,
            state: DeliveryState::Delivered
        }
    );
    let stored: (Vec<u8>, String, Option<String>) = w
        .store
        .reader()
        .read_blocking(move |c| {
            Ok::<_, StoreError>(c.query_row("SELECT raw, source, provider FROM receipt", [], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?))
            })?)
        })
        .unwrap();
    assert_eq!(stored.0, body.as_bytes(), "the request body is kept byte for byte");
    assert_eq!((stored.1.as_str(), stored.2.as_deref()), ("http", Some("vonage")));
    // The provider posts it again (it did not see our 2xx): a repeat, nothing else.
    let again = w.http("vonage", "application/json", body);
    assert!(matches!(again[0].outcome, Outcome::Repeat { .. }), "{again:?}");
    let c = w.counters();
    assert_eq!((c.receipts, c.logical_events, c.repeats, c.applied), (2, 1, 1, 1));
}

#[test]
fn a_provider_event_id_is_the_deduplication_key() {
    let w = world();
    let m = w.accepted("SM1");
    let event = |id: &str, status: &str| {
        format!(
            r#"[{{"specversion":"1.0","type":"com.twilio.messaging.message.{status}","id":"{id}","source":"/2010-04-01/Accounts/AC1/Messages/SM1.json",
            "data":{{"messageSid":"SM1","messageStatus":"{}","timestamp":"2026-11-29T12:01:00.000Z"}}}}]"#,
            status.to_uppercase()
        )
    };
    let first = w.http("twilio-eventstreams", "application/json", &event("EZ1", "delivered"));
    assert_eq!(
        first[0].outcome,
        Outcome::Applied {
            message_id: m,
            state: DeliveryState::Delivered
        }
    );
    let key: String = w
        .store
        .reader()
        .read_blocking(|c| Ok::<_, StoreError>(c.query_row("SELECT dedup_key FROM logical_event", [], |r| r.get(0))?))
        .unwrap();
    assert_eq!(key, "ev:EZ1");
    let again = w.http("twilio-eventstreams", "application/json", &event("EZ1", "delivered"));
    assert!(matches!(again[0].outcome, Outcome::Repeat { .. }));
    assert_eq!(w.counters().logical_events, 1);
}

#[test]
fn a_callback_carrying_several_reports_stores_and_applies_each() {
    let w = world();
    let a = w.accepted("MSG-A");
    let b = w.accepted("MSG-B");
    let body = r#"{"results":[
        {"messageId":"MSG-A","to":"33612345678","sentAt":"2026-11-29T12:00:00.000+0000","doneAt":"2026-11-29T12:01:00.000+0000",
         "status":{"groupName":"DELIVERED","name":"DELIVERED_TO_HANDSET"},"error":{"id":0,"name":"NO_ERROR"}},
        {"messageId":"MSG-B","to":"33612345678","sentAt":"2026-11-29T12:00:00.000+0000","doneAt":"2026-11-29T12:02:00.000+0000",
         "status":{"groupName":"UNDELIVERABLE","name":"UNDELIVERABLE_NOT_DELIVERED"},"error":{"id":1,"name":"EC_UNKNOWN_SUBSCRIBER"}}
    ]}"#;
    let out = w.http("infobip", "application/json", body);
    assert_eq!(out.len(), 2);
    assert_eq!(
        out[0].outcome,
        Outcome::Applied {
            message_id: a,
            state: DeliveryState::Delivered
        }
    );
    assert_eq!(
        out[1].outcome,
        Outcome::Applied {
            message_id: b,
            state: DeliveryState::Undeliverable
        }
    );
    assert_eq!(w.counters().receipts, 2);
}

#[test]
fn an_unknown_provider_is_kept_as_unparseable_evidence() {
    let w = world();
    let out = w.http("nobody-knows", "application/json", r#"{"id":"X1","status":"DELIVRD"}"#);
    assert!(matches!(out[0].outcome, Outcome::Unparseable { .. }), "{out:?}");
    assert_eq!(
        w.counters().open_exceptions,
        open_counts(&[(ExceptionKind::Unparseable, 1)])
    );
}

// ---- Other report kinds ----

#[test]
fn a_deliver_sm_that_is_not_a_report_is_stored_as_an_incoming_message() {
    let w = world();
    let r = w.smpp(0x00, "STOP", vec![]);
    assert!(matches!(r.outcome, Outcome::Inbound { .. }), "{r:?}");
    let c = w.counters();
    assert_eq!((c.receipts, c.inbound, c.logical_events), (1, 1, 0));
}

// ---- Deadlines ----

#[test]
fn no_final_by_the_deadline_flags_the_message_and_a_late_final_clears_it() {
    let w = world();
    let m = w.accepted("M1");
    w.dlr("M1", "ENROUTE");
    let policy = w.policy.clone();
    let far = crate::clock::Clock::system().now_ms() + policy.deadline_of(MessageKind::Transactional) + 1;
    let sweep = |now: i64| {
        let policy = policy.clone();
        w.store
            .writer()
            .write_blocking(move |tx| deadline::sweep(tx, now, &policy, 100))
            .unwrap()
    };
    assert_eq!(
        sweep(crate::clock::Clock::system().now_ms()),
        0,
        "nothing is due before the deadline"
    );
    assert_eq!(sweep(far), 1);
    assert_eq!(sweep(far), 0, "a message is flagged once");
    let r = w.report(m);
    assert_eq!(
        r.reported_state,
        DeliveryState::Enroute,
        "no receipt is shown as neither delivered nor failed"
    );
    assert!(r.flags.contains(&"no_receipt"));
    assert_eq!(
        w.counters().open_exceptions,
        open_counts(&[(ExceptionKind::NoReceipt, 1)])
    );

    w.dlr("M1", "DELIVRD");
    let r = w.report(m);
    assert_eq!(r.reported_state, DeliveryState::Delivered);
    assert!(!r.flags.contains(&"no_receipt"));
    assert!(
        w.counters().open_exceptions.is_empty(),
        "the late final closes the no-receipt exception"
    );
}

#[test]
fn a_final_that_arrives_between_the_search_and_the_flagging_wins() {
    let w = world();
    let m = w.accepted("M2");
    let policy = w.policy.clone();
    let far = crate::clock::Clock::system().now_ms() + policy.deadline_of(MessageKind::Transactional) + 1;
    let p = policy.clone();
    let due = w
        .store
        .reader()
        .read_blocking(move |c| deadline::due(c, far, &p, None, 100))
        .unwrap();
    assert_eq!(due, vec![m]);
    w.dlr("M2", "DELIVRD");
    let flagged = w
        .store
        .writer()
        .write_blocking(move |tx| deadline::flag(tx, &due, far, &policy))
        .unwrap();
    assert_eq!(flagged, 0, "the deadline is re-checked inside the transaction");
    assert!(w.counters().open_exceptions.is_empty());
    assert_eq!(w.report(m).reported_state, DeliveryState::Delivered);
}

// ---- The exception queue ----

#[test]
fn attaching_an_uncorrelated_receipt_requires_a_note_and_a_look_at_every_mismatch() {
    let w = world();
    let m = w.message("+4915112345678", "Hallo Welt");
    w.accept(m, "N-OTHER");
    w.dlr("N1", "DELIVRD");
    w.sweep_waiting();
    let ex = w.open_exceptions(ExceptionKind::Uncorrelated)[0].id;
    let attach = |seen: bool, note: &str| Resolution {
        exception_id: ex,
        action: Action::Attach {
            message_id: m,
            mismatches_seen: seen,
        },
        note: note.into(),
        actor: "ann".into(),
    };
    assert!(matches!(w.resolve(attach(true, "  ")), Err(ResolveError::NoteRequired)));
    let refused = w.resolve(attach(false, "the provider confirmed the id was mistyped"));
    let Err(ResolveError::MismatchesNotSeen { mismatches, .. }) = refused else {
        panic!("{refused:?}")
    };
    let fields: Vec<_> = mismatches.iter().map(|m| m.field).collect();
    assert_eq!(fields, vec!["destination", "text"]);
    assert_eq!(
        w.report(m).reported_state,
        DeliveryState::Pending,
        "a refused decision writes nothing"
    );

    w.resolve(attach(true, "the provider confirmed the id was mistyped"))
        .unwrap();
    let r = w.report(m);
    assert_eq!(r.reported_state, DeliveryState::Delivered);
    assert!(r.flags.contains(&"mismatch"));
    let (row, _) = w
        .store
        .reader()
        .read_blocking(move |c| exceptions::get(c, ex))
        .unwrap()
        .unwrap();
    assert_eq!(row.status, ExceptionStatus::Resolved);
    assert_eq!(row.resolution.as_deref(), Some(format!("attached:{m}").as_str()));
    let audited: i64 = w.row(
        "SELECT count(*) FROM audit WHERE action = 'exception.resolve' AND subject_id = ?1 AND actor = 'ann'",
        ex,
        |r| r.get(0),
    );
    assert_eq!(audited, 1, "the decision is audited");
    assert!(matches!(
        w.resolve(attach(true, "again")),
        Err(ResolveError::NotOpen { .. })
    ));
}

#[test]
fn the_pickers_comparison_differs_on_exactly_what_attaching_lists_as_mismatches() {
    use smsdesk_core::receipts::mismatch::{CannotTell, Fact, Verdict};
    let w = world();
    let fits = w.message("+33612345678", "Your order has shipped and will arrive tomorrow");
    let other = w.message("+4915112345678", "Hallo Welt");
    let ucs2 = w.message("+33612345678", "Votre commande est prête");
    w.dlr("N1", "DELIVRD");
    w.sweep_waiting();
    let ex = w.open_exceptions(ExceptionKind::Uncorrelated)[0].id;
    let tz = w.policy.timezone_minutes;
    let compared = w
        .store
        .reader()
        .read_blocking(move |c| decisions::compare_candidates(c, ex, &[fits, other, 999_999, ucs2, fits], tz))
        .unwrap();
    assert_eq!(
        compared.iter().map(|(id, _)| *id).collect::<Vec<_>>(),
        vec![fits, other, ucs2],
        "each message that exists, once, in the order asked"
    );
    let verdicts = |i: usize| -> Vec<(Fact, Verdict)> { compared[i].1.iter().map(|f| (f.fact, f.verdict)).collect() };
    use Verdict::{Agrees, CannotTell as Untold, Differs};
    assert_eq!(
        verdicts(0),
        vec![
            (Fact::Connection, Agrees),
            (Fact::Destination, Agrees),
            (Fact::Text, Agrees),
            (Fact::Time, Agrees)
        ]
    );
    assert_eq!(
        verdicts(1),
        vec![
            (Fact::Connection, Agrees),
            (Fact::Destination, Differs),
            (Fact::Text, Differs),
            (Fact::Time, Agrees)
        ]
    );
    assert_eq!(verdicts(2)[2], (Fact::Text, Untold));
    assert_eq!(compared[2].1[2].why, Some(CannotTell::NotComparable));
    assert_eq!(
        compared[1].1[1].receipt.as_deref(),
        Some("33612345678"),
        "the receipt's value beside the message's"
    );
    for (id, facts) in &compared {
        let id = *id;
        let listed: Vec<&str> = w
            .store
            .reader()
            .read_blocking(move |c| decisions::preview_attach(c, ex, id, tz))
            .unwrap()
            .into_iter()
            .map(|m| m.field)
            .collect();
        let differs: Vec<&str> = facts
            .iter()
            .filter(|f| f.verdict == Differs)
            .map(|f| f.fact.as_str())
            .collect();
        assert_eq!(
            listed, differs,
            "message {id}: one comparison behind the picker and the attach check"
        );
    }
    let unknown = w
        .store
        .reader()
        .read_blocking(move |c| decisions::compare_candidates(c, ex + 100, &[fits], tz));
    assert!(matches!(unknown, Err(ResolveError::NotFound(_))), "{unknown:?}");
}

#[test]
fn resolving_never_changes_evidence_and_refuses_actions_that_do_not_fit() {
    let w = world();
    w.dlr("NOPE", "DELIVRD");
    w.sweep_waiting();
    let ex = w.open_exceptions(ExceptionKind::Uncorrelated)[0].id;
    let choose = Resolution {
        exception_id: ex,
        action: Action::ChooseState(DeliveryState::Delivered),
        note: "n".into(),
        actor: "ann".into(),
    };
    assert!(matches!(w.resolve(choose), Err(ResolveError::NotAllowed { .. })));
    let before: Vec<u8> = w
        .store
        .reader()
        .read_blocking(|c| Ok::<_, StoreError>(c.query_row("SELECT raw FROM receipt", [], |r| r.get(0))?))
        .unwrap();
    w.resolve(Resolution {
        exception_id: ex,
        action: Action::Dismiss,
        note: "test traffic".into(),
        actor: "ann".into(),
    })
    .unwrap();
    let after: Vec<u8> = w
        .store
        .reader()
        .read_blocking(|c| Ok::<_, StoreError>(c.query_row("SELECT raw FROM receipt", [], |r| r.get(0))?))
        .unwrap();
    assert_eq!(before, after);
    assert!(w.counters().open_exceptions.is_empty());
}

// ---- Rebuild and recovery ----

#[test]
fn projections_made_by_older_rules_are_rebuilt_at_start_and_then_carry_these_rules_version() {
    use super::rules::RULES_VERSION;
    let w = world();
    let a = w.accepted("P1");
    let b = w.accepted("P2");
    w.dlr("P1", "DELIVRD");
    w.dlr("P2", "DELIVRD");
    // a: computed by an older version of the rules that saw it otherwise; b: by one that agreed.
    w.tamper_with_projection(a);
    w.store
        .writer()
        .write_blocking(move |tx| {
            tx.sql_for_tests()
                .execute("UPDATE projection SET rules_version = ?1", [RULES_VERSION - 1])?;
            Ok::<_, StoreError>(())
        })
        .unwrap();
    let policy = w.policy.clone();
    let (listed, (looked, changed)) = w
        .store
        .writer()
        .write_blocking(move |tx| Ok::<_, StoreError>((rebuild::older_rules(tx)?, rebuild::wanted(tx, &policy, 100)?)))
        .unwrap();
    assert_eq!(listed, 2, "every projection of older rules is listed for a rebuild");
    assert_eq!(
        (looked, changed),
        (2, 1),
        "both are recomputed; only the one the rules see otherwise changes"
    );
    assert_eq!(
        w.rebuild_differences(),
        Vec::<i64>::new(),
        "the tampered fold was put right"
    );
    for m in [a, b] {
        let version: u32 = w.row("SELECT rules_version FROM projection WHERE message_id = ?1", m, |r| {
            r.get(0)
        });
        assert_eq!(version, RULES_VERSION, "message {m}'s projection is now these rules'");
    }
    let again = w.store.writer().write_blocking(rebuild::older_rules).unwrap();
    assert_eq!(again, 0, "the next start finds nothing made by older rules");
}

#[test]
fn a_start_under_the_rules_the_last_start_looked_under_reads_no_projection_and_other_rules_look_again() {
    use super::rules::RULES_VERSION;
    let w = world();
    w.accepted("P1");
    w.dlr("P1", "DELIVRD");
    let older = |w: &World, version: u32| {
        w.store
            .writer()
            .write_blocking(move |tx| {
                tx.sql_for_tests()
                    .execute("UPDATE projection SET rules_version = ?1", [version])?;
                Ok::<_, StoreError>(())
            })
            .unwrap();
    };
    let look = |w: &World, version: u32| {
        w.store
            .writer()
            .write_blocking(move |tx| {
                let listed = crate::store::tables::projection::want_rebuilt_before(tx, version)?;
                tx.sql_for_tests().execute("DELETE FROM rebuild_wanted", [])?;
                Ok::<_, StoreError>(listed)
            })
            .unwrap()
    };
    // The first start under these rules looks, and records that it did.
    assert_eq!(look(&w, RULES_VERSION), 0);
    // A row of older rules now could only come from elsewhere: the record is trusted, and no
    // projection is read (the row is not found).
    older(&w, RULES_VERSION - 1);
    assert_eq!(
        look(&w, RULES_VERSION),
        0,
        "the same rules do not read the projections again"
    );
    // A downgrade looks under its own rules (nothing is older than them) and records them; the
    // upgrade after it looks again, and finds what the older build wrote meanwhile.
    assert_eq!(look(&w, RULES_VERSION - 1), 0);
    assert_eq!(
        look(&w, RULES_VERSION),
        1,
        "other rules than the last look's look again"
    );
}

#[test]
fn a_rebuild_reproduces_every_stored_projection_and_notices_a_tampered_one() {
    let w = world();
    let a = w.accepted("P1");
    let b = w.accepted("P2");
    let c = w.message("+33612345678", "x");
    w.dlr("P1", "ENROUTE");
    w.dlr("P1", "DELIVRD");
    w.dlr("P1", "DELIVRD");
    w.dlr("P2", "DELIVRD");
    w.dlr("P2", "EXPIRED");
    w.dlr("P3", "DELIVRD");
    w.accept(c, "P3");
    let conflict = w.open_exceptions(ExceptionKind::ConflictingFinal)[0].id;
    w.resolve(Resolution {
        exception_id: conflict,
        action: Action::Dismiss,
        note: "keep first".into(),
        actor: "bo".into(),
    })
    .unwrap();
    assert_eq!(
        w.rebuild_differences(),
        Vec::<i64>::new(),
        "a rebuild must reproduce the stored projections exactly"
    );

    w.tamper_with_projection(a);
    assert_eq!(w.rebuild_differences(), vec![a]);
    let mut seen = Vec::new();
    let fixed = rebuild::run(&w.store, &w.policy, true, |done, total| seen.push((done, total))).unwrap();
    assert_eq!(
        (fixed.messages, fixed.differing),
        (3, vec![a]),
        "rebuild replaces what differs"
    );
    assert_eq!(seen.last(), Some(&(3, 3)), "progress reaches the total");
    assert_eq!(w.rebuild_differences(), Vec::<i64>::new());
    assert_eq!(w.report(a).reported_state, DeliveryState::Delivered);
    assert_eq!(
        w.report(b).reported_state,
        DeliveryState::Delivered,
        "the dismissed conflict keeps the first final"
    );
}

#[test]
fn a_receipt_stored_but_never_applied_is_applied_by_the_recovery_pass() {
    let w = world();
    let m = w.accepted("Q1");
    let r = w.dlr("Q1", "DELIVRD");
    // Simulate a crash between the evidence and its effects: remove every effect of the receipt.
    w.store
        .writer()
        .write_blocking(move |tx| {
            let c = tx.sql_for_tests();
            c.execute("DELETE FROM receipt_outcome", [])?;
            c.execute("DELETE FROM projection_input", [])?;
            c.execute("DELETE FROM logical_event", [])?;
            c.execute("DELETE FROM projection", [])?;
            Ok::<_, StoreError>(())
        })
        .unwrap();
    let policy = w.policy.clone();
    let n = w
        .store
        .writer()
        .write_blocking(move |tx| super::apply::process_pending(tx, &policy, 0, 100))
        .unwrap();
    assert_eq!(n, (1, r.receipt_id));
    assert_eq!(w.report(m).reported_state, DeliveryState::Delivered);
}

#[test]
fn the_dashboard_totals_kept_while_receipts_are_applied_agree_with_a_recount_of_the_rows() {
    let w = world();
    // Finals, a repeat, an intermediate after a final, an incoming message, an unreadable report.
    let delivered = w.accepted("T1");
    w.dlr("T1", "ENROUTE");
    w.dlr("T1", "DELIVRD");
    w.dlr("T1", "DELIVRD");
    w.dlr("T1", "ACCEPTD");
    w.accepted("T2");
    w.dlr("T2", "UNDELIV");
    w.accepted("T3");
    w.dlr("T3", "EXPIRED");
    w.smpp(0x00, "see you at 5", vec![]);
    w.smpp(0x04, "\u{1}garbage", vec![]);
    // A conflict an operator decides; a receipt that came before its submit's answer.
    w.accepted("T4");
    w.dlr("T4", "DELIVRD");
    w.dlr("T4", "REJECTD");
    let conflict = w.open_exceptions(ExceptionKind::ConflictingFinal)[0].id;
    w.resolve(Resolution {
        exception_id: conflict,
        action: Action::ChooseState(DeliveryState::Rejected),
        note: "the provider confirmed".into(),
        actor: "ann".into(),
    })
    .unwrap();
    w.dlr("T5", "DELIVRD");
    let early = w.message("+33612345678", "early");
    w.accept(early, "T5");
    // No final by the deadline, then a late one.
    w.accepted("T6");
    w.accepted("T7");
    w.dlr("T6", "ENROUTE");
    let policy = w.policy.clone();
    let far = crate::clock::Clock::system().now_ms() + policy.deadline_of(MessageKind::Transactional) + 1;
    let flagged = w
        .store
        .writer()
        .write_blocking(move |tx| deadline::sweep(tx, far, &policy, 100))
        .unwrap();
    assert_eq!(flagged, 2);
    w.dlr("T6", "DELIVRD");
    // A tampered projection that a rebuild puts right.
    w.tamper_with_projection(delivered);
    let fixed = rebuild::run(&w.store, &w.policy, true, |_, _| {}).unwrap();
    assert_eq!(fixed.differing, vec![delivered]);

    let (kept, recounted) = w
        .store
        .writer()
        .write_blocking(|tx| {
            Ok::<_, StoreError>((
                checks::totals_stored(tx.sql_for_tests())?,
                checks::totals_recomputed(tx.sql_for_tests())?,
            ))
        })
        .unwrap();
    for part in ["count", "latency", "outcome", "state"] {
        assert!(
            kept.iter().any(|line| line.starts_with(part)),
            "the scenario must reach the {part} totals: {kept:#?}"
        );
    }
    let (latency, rest): (Vec<_>, Vec<_>) = kept.iter().partition(|l| l.starts_with("latency"));
    let (latency_recounted, rest_recounted): (Vec<_>, Vec<_>) =
        recounted.iter().partition(|l| l.starts_with("latency"));
    assert_eq!(rest, rest_recounted);
    // T4's first final was counted when it arrived. The recount (version 5's statements for
    // upgrading a database) only sees first finals that still stand, not one an operator later
    // replaced; every minute, hour and day bucket differs by that one latency.
    let n = |l: &str| l.rsplit(' ').next().unwrap().parse::<i64>().unwrap();
    assert_eq!(latency.len(), 3);
    for (kept, recounted) in latency.iter().zip(&latency_recounted) {
        assert_eq!(n(kept), n(recounted) + 1, "{kept} / {recounted}");
    }
}

// ---- Properties over the store ----

fn compatible_stats() -> impl Strategy<Value = Vec<&'static str>> {
    (
        prop::sample::select(vec!["DELIVRD", "UNDELIV", "EXPIRED", "REJECTD"]),
        prop::collection::vec(prop::sample::select(vec!["ENROUTE", "ACCEPTD"]), 0..4),
        0..3usize,
    )
        .prop_map(|(fin, mut inter, finals)| {
            inter.extend(std::iter::repeat_n(fin, finals));
            inter
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn any_order_and_any_repeats_give_the_same_state_and_a_rebuild_agrees(
        stats in compatible_stats(),
        order_seed in any::<u64>(),
        repeats in prop::collection::vec(any::<prop::sample::Index>(), 0..5),
    ) {
        // Distinct logical events: each gets its own done date.
        let events: Vec<(String, &str)> =
            stats.iter().enumerate().map(|(i, s)| (format!("99112912{:02}", i), *s)).collect();
        let run = |order: &[usize], repeat: &[usize]| {
            let w = world();
            let m = w.accepted("R1");
            for &i in order {
                let (done, stat) = &events[i];
                let esm = if matches!(*stat, "ENROUTE" | "ACCEPTD") { 0x20 } else { 0x04 };
                w.smpp(esm, &appendix_b("R1", stat, done), vec![]);
            }
            for &i in repeat {
                let (done, stat) = &events[i];
                let esm = if matches!(*stat, "ENROUTE" | "ACCEPTD") { 0x20 } else { 0x04 };
                w.smpp(esm, &appendix_b("R1", stat, done), vec![]);
            }
            let r = w.report(m);
            let c = w.counters();
            assert_eq!(w.rebuild_differences(), Vec::<i64>::new(), "a rebuild must equal the incremental result");
            (r.reported_state, r.rule, c.logical_events, c.applied, c.open_exceptions)
        };
        let n = events.len();
        let identity: Vec<usize> = (0..n).collect();
        let mut shuffled = identity.clone();
        let mut seed = order_seed;
        for i in (1..n).rev() {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            shuffled.swap(i, (seed >> 33) as usize % (i + 1));
        }
        let repeat: Vec<usize> = if n == 0 { vec![] } else { repeats.iter().map(|r| r.index(n)).collect() };
        let reference = run(&identity, &[]);
        prop_assert_eq!(run(&shuffled, &[]), reference.clone(), "arrival order must not change the computed state");
        prop_assert_eq!(run(&shuffled, &repeat), reference, "repeats must change nothing");
    }
}

#[test]
fn a_receipt_whose_effects_fail_in_a_group_is_stored_and_the_others_are_applied() {
    let w = world();
    let ok_before = w.accepted("G1");
    let poisoned = w.accepted("G2");
    let ok_after = w.accepted("G3");
    // Make applying the middle receipt fail half-way: its logical event is written, then its
    // projection is refused.
    w.store
        .writer()
        .write_blocking(move |tx| {
            tx.sql_for_tests().execute_batch(&format!(
                "CREATE TRIGGER poison BEFORE INSERT ON projection WHEN NEW.message_id = {poisoned}
                 BEGIN SELECT RAISE(ABORT, 'poisoned'); END;"
            ))?;
            Ok::<_, StoreError>(())
        })
        .unwrap();

    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let (writer, ingest) = (w.store.writer().clone(), w.ingest.clone());
    let results = runtime.block_on(async move {
        // Hold the writer so that the three reports wait, and are recorded, together.
        let (release, gate) = std::sync::mpsc::channel::<()>();
        let blocker = tokio::spawn(async move {
            writer
                .write(move |_| {
                    gate.recv().unwrap();
                    Ok::<_, StoreError>(())
                })
                .await
        });
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        let mut tasks = Vec::new();
        for id in ["G1", "G2", "G3"] {
            let ingest = ingest.clone();
            tasks.push(tokio::spawn(async move {
                ingest
                    .smpp(SmppReceived {
                        connection: CONN.into(),
                        esm_class: Some(0x04),
                        short_message: appendix_b(id, "DELIVRD", "9911291201").into_bytes(),
                        received_at: 1,
                        ..SmppReceived::default()
                    })
                    .await
            }));
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        release.send(()).unwrap();
        blocker.await.unwrap().unwrap();
        let mut out = Vec::new();
        for t in tasks {
            out.push(t.await.unwrap().expect("every report is stored and answered"));
        }
        out
    });

    assert!(matches!(results[0].outcome, Outcome::Applied { message_id, .. } if message_id == ok_before));
    assert_eq!(
        results[1].outcome,
        Outcome::Deferred,
        "a receipt whose effects failed is stored all the same, and says so"
    );
    assert!(matches!(results[2].outcome, Outcome::Applied { message_id, .. } if message_id == ok_after));
    let stored = w.row(
        "SELECT count(*) FROM receipt WHERE id = ?1",
        results[1].receipt_id,
        |r| r.get::<_, i64>(0),
    );
    assert_eq!(stored, 1, "the evidence of a failed receipt must be committed");
    let c = w.counters();
    assert_eq!(
        (c.receipts, c.logical_events, c.applied),
        (3, 2, 2),
        "nothing of the failed receipt's effects may remain half-applied"
    );
    assert_eq!(w.report(poisoned).reported_state, DeliveryState::Pending);
    let listed = |w: &World| {
        w.row(
            "SELECT count(*) FROM receipt_deferred WHERE receipt_id = ?1",
            results[1].receipt_id,
            |r| r.get::<_, i64>(0),
        )
    };
    assert_eq!(
        listed(&w),
        1,
        "it is listed for the next start, in the transaction that stored it"
    );

    // Once the cause is gone, the recovery pass applies it.
    w.store
        .writer()
        .write_blocking(|tx| Ok::<_, StoreError>(tx.sql_for_tests().execute_batch("DROP TRIGGER poison")?))
        .unwrap();
    let policy = w.policy.clone();
    w.store
        .writer()
        .write_blocking(move |tx| super::apply::process_pending(tx, &policy, 0, 100))
        .unwrap();
    assert_eq!(w.report(poisoned).reported_state, DeliveryState::Delivered);
    assert_eq!(w.rebuild_differences(), Vec::<i64>::new());
    assert_eq!(listed(&w), 0, "applied, it leaves the list");
}

#[test]
fn a_message_s_last_accepted_submit_is_its_highest_accepted_attempt_even_when_answered_out_of_order() {
    let w = world();
    let m = w.message("+33612345678", "A long text in two parts");
    let segments = w
        .store
        .writer()
        .write_blocking(move |tx| {
            let one = messages::begin_attempt(tx, m, 1, messages::Wire::sandbox(), 1)?;
            let two = messages::begin_attempt(tx, m, 2, messages::Wire::sandbox(), 1)?;
            Ok::<_, StoreError>((one.id, two.id))
        })
        .unwrap();
    let accept = |attempt: i64, provider_id: &'static str| {
        let policy = w.policy.clone();
        // Answers a millisecond apart at least, so that their times tell them apart.
        std::thread::sleep(std::time::Duration::from_millis(3));
        w.store
            .writer()
            .write_blocking(move |tx| decisions::record_accepted(tx, attempt, None, provider_id, &policy))
            .unwrap();
    };
    let last = |w: &World| {
        w.row(
            "SELECT q.accepted_attempt_id, q.accepted_at, a.responded_at FROM queue q
             JOIN attempt a ON a.id = q.accepted_attempt_id WHERE q.message_id = ?1",
            m,
            |r| Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)?, r.get::<_, i64>(2)?)),
        )
    };
    // The second segment is answered first, then the first: the second stays the last submit.
    accept(segments.1, "S2");
    accept(segments.0, "S1");
    let (attempt, at, responded) = last(&w);
    assert_eq!(
        attempt, segments.1,
        "the last accepted submit is the one with the highest id"
    );
    assert_eq!(at, responded, "its time is its own answer's, not the later answer's");
    let first_answer = w.row("SELECT responded_at FROM attempt WHERE id = ?1", segments.0, |r| {
        r.get::<_, i64>(0)
    });
    assert!(
        first_answer > at,
        "the segments must have been answered at different times"
    );

    // A retry of the first segment, accepted later, has a higher id again and takes over.
    let retry = w
        .store
        .writer()
        .write_blocking(move |tx| {
            Ok::<_, StoreError>(messages::begin_attempt(tx, m, 1, messages::Wire::sandbox(), 1)?.id)
        })
        .unwrap();
    accept(retry, "S3");
    assert_eq!(last(&w).0, retry);
    let disagreeing = w
        .store
        .reader()
        .read_blocking(crate::store::checks::accepted_submits_disagreeing)
        .unwrap();
    assert_eq!(disagreeing, Vec::<i64>::new());

    // The receipt latency counted for the first final is measured from that submit (50 ms here,
    // in the 1 ms bins below 100 ms), as a recount from the attempts measures it.
    let retry_at = last(&w).1;
    w.ingest
        .smpp_blocking(SmppReceived {
            connection: CONN.into(),
            esm_class: Some(0x04),
            short_message: appendix_b("S3", "DELIVRD", "9911291201").into_bytes(),
            received_at: retry_at + 50,
            ..SmppReceived::default()
        })
        .unwrap();
    let (kept, recounted) = w
        .store
        .writer()
        .write_blocking(|tx| {
            Ok::<_, StoreError>((
                checks::totals_stored(tx.sql_for_tests())?,
                checks::totals_recomputed(tx.sql_for_tests())?,
            ))
        })
        .unwrap();
    let latency = |lines: &[String]| {
        lines
            .iter()
            .filter(|l| l.starts_with("latency"))
            .cloned()
            .collect::<Vec<_>>()
    };
    assert_eq!(latency(&kept), latency(&recounted));
    assert!(
        latency(&kept).iter().any(|l| l.contains(" Int(50) ")),
        "the latency must be counted from the retry's answer: {kept:#?}"
    );
}

// ---- Statuses nobody can read ----

#[test]
fn a_status_nobody_can_read_is_kept_for_its_message_and_sets_nothing_and_the_real_final_after_it_is_the_first() {
    let w = world();
    let m = w.accepted("Q1");
    let unread = w.dlr("Q1", "??");
    assert!(
        matches!(unread.outcome, Outcome::StatusUnreadable { message_id, .. } if message_id == m),
        "{unread:?}"
    );
    assert_eq!(
        w.report(m).reported_state,
        DeliveryState::Pending,
        "an unreadable status is not the network's UNKNOWN"
    );
    let ex = w.open_exceptions(ExceptionKind::StatusUnreadable);
    assert_eq!((ex.len(), ex[0].message_id), (1, Some(m)));
    let linked: i64 = w.row(
        "SELECT count(*) FROM exception_evidence WHERE exception_id = ?1 AND receipt_id IS NOT NULL",
        ex[0].id,
        |r| r.get(0),
    );
    assert_eq!(linked, 1, "the receipt is the exception's evidence");

    let delivered = w.dlr("Q1", "DELIVRD");
    assert!(matches!(delivered.outcome, Outcome::Applied { .. }), "{delivered:?}");
    let r = w.report(m);
    assert_eq!(r.reported_state, DeliveryState::Delivered);
    assert!(
        !r.flags.contains(&"conflict"),
        "nothing to conflict with: {:?}",
        r.flags
    );
    // The operator may still say what they know, or dismiss it.
    w.resolve(Resolution {
        exception_id: ex[0].id,
        action: Action::Dismiss,
        note: "the DELIVRD after it says it all".into(),
        actor: "ann".into(),
    })
    .unwrap();
    assert_eq!(w.report(m).reported_state, DeliveryState::Delivered);
}

#[test]
fn a_status_nobody_can_read_waiting_for_its_id_opens_its_exception_on_the_message_once_matched() {
    let w = world();
    let m = w.message("+33612345678", "Your order has shipped");
    let early = w.dlr("Q2", "??");
    assert!(matches!(early.outcome, Outcome::Waiting { .. }), "{early:?}");
    w.accept(m, "Q2");
    assert_eq!(w.report(m).reported_state, DeliveryState::Pending);
    let ex = w.open_exceptions(ExceptionKind::StatusUnreadable);
    assert_eq!((ex.len(), ex[0].message_id), (1, Some(m)));
}

// ---- Id rules that change ----

#[test]
fn when_the_id_rules_change_the_stored_keys_are_made_again_and_waiting_receipts_find_their_message() {
    use crate::receipts::rekey;
    let w = world();
    let apply = |policy: &ReceiptPolicy| {
        let policy = policy.clone();
        w.store
            .writer()
            .write_blocking(move |tx| rekey::apply(tx, &policy, CONN))
            .unwrap()
    };
    assert_eq!(
        apply(&w.policy),
        rekey::Rekeyed::default(),
        "first seen: the rules are recorded"
    );
    // Under the default rules, a hex response and a decimal receipt never meet.
    let waiting = w.accepted("38601fa");
    let r = w.dlr("0059113978", "DELIVRD");
    assert!(matches!(r.outcome, Outcome::Waiting { .. }), "{r:?}");
    let later = w.accepted("38601fb");

    let declared = ReceiptPolicy {
        response_id: IdBase::Hex,
        tlv_id: IdBase::Hex,
        receipt_id: IdBase::Decimal,
        ..w.policy.clone()
    };
    let done = apply(&declared);
    assert_eq!(done.connections, vec![CONN.to_owned()]);
    assert_eq!(
        (done.keys, done.matched),
        (3, 1),
        "two tries and one waiting receipt; it finds its message"
    );
    assert_eq!(w.report(waiting).reported_state, DeliveryState::Delivered);
    assert_eq!(
        apply(&declared),
        rekey::Rekeyed::default(),
        "the same rules again change nothing"
    );

    // A receipt arriving now, for a message accepted under the old rules, is matched too.
    let ingest = Ingestor::new(w.store.writer().clone(), declared);
    let r = ingest
        .smpp_blocking(SmppReceived {
            connection: CONN.into(),
            esm_class: Some(0x04),
            short_message: appendix_b("0059113979", "DELIVRD", "9911291201").into_bytes(),
            received_at: 1,
            ..SmppReceived::default()
        })
        .unwrap();
    assert_eq!(
        r.outcome,
        Outcome::Applied {
            message_id: later,
            state: DeliveryState::Delivered
        }
    );
}

#[test]
fn a_message_that_asked_for_no_receipt_or_only_for_one_on_failure_is_never_flagged_no_receipt() {
    let w = world();
    let asked = |registered_delivery: u8, provider_id: &str| {
        let m = w.message("+33612345678", "Your order has shipped");
        let (id, policy) = (provider_id.to_owned(), w.policy.clone());
        w.store
            .writer()
            .write_blocking(move |tx| {
                let a = messages::begin_attempt(tx, m, 1, messages::Wire::sandbox(), registered_delivery)?;
                decisions::record_accepted(tx, a.id, None, &id, &policy)
            })
            .unwrap();
        m
    };
    let none = asked(0, "R0");
    let failure_only = asked(2, "R2");
    let final_receipt = asked(1, "R1");
    let with_intermediate = asked(0x11, "R17");
    let policy = w.policy.clone();
    let far = crate::clock::Clock::system().now_ms() + policy.deadline_of(MessageKind::Transactional) + 1;
    let due = w
        .store
        .reader()
        .read_blocking(move |c| deadline::due(c, far, &policy, None, 100))
        .unwrap();
    assert_eq!(
        due,
        vec![final_receipt, with_intermediate],
        "only a message that asked for a receipt on success can miss one ({none} and {failure_only} did not)"
    );
}

#[test]
fn each_kind_has_its_own_receipt_deadline_in_minutes() {
    let w = world();
    let otp = {
        let m = NewMessage::text(IntakeChannel::Api, "+33612345678", "Code 1234", MessageKind::Otp, CONN);
        let id = w
            .store
            .writer()
            .write_blocking(move |tx| messages::insert(tx, &m))
            .unwrap();
        w.accept(id, "K1");
        id
    };
    let transactional = w.accepted("K2");
    let policy = w.policy.clone();
    assert_eq!(
        (
            policy.deadline_of(MessageKind::Otp),
            policy.deadline_of(MessageKind::Transactional)
        ),
        (15 * 60_000, 2_880 * 60_000)
    );
    let at = crate::clock::Clock::system().now_ms() + 16 * 60_000;
    let due = w
        .store
        .reader()
        .read_blocking(move |c| deadline::due(c, at, &policy, None, 100))
        .unwrap();
    assert_eq!(
        due,
        vec![otp],
        "a code is overdue after 15 minutes; an order update is not ({transactional})"
    );
}

/// The screens word an exception's summary in the operator's language from its code and
/// parameters; the English sentence stays beside them.
#[test]
fn each_exception_says_why_as_a_code_with_its_parameters() {
    use crate::said::SummaryCode;
    let w = world();
    w.accepted("S1");
    w.dlr("S1", "DELIVRD");
    w.dlr("S1", "UNDELIV");
    let conflict = &w.open_exceptions(ExceptionKind::ConflictingFinal)[0];
    assert_eq!(conflict.summary_code, Some(SummaryCode::ConflictingFinal));
    assert_eq!(
        conflict.summary_params.get("state").map(String::as_str),
        Some("delivered")
    );
    assert!(
        conflict.summary.contains("DELIVERED"),
        "the English sentence is kept: {}",
        conflict.summary
    );

    w.dlr("NO-SUCH-ID", "DELIVRD");
    w.sweep_waiting();
    let unmatched = &w.open_exceptions(ExceptionKind::Uncorrelated)[0];
    assert_eq!(unmatched.summary_code, Some(SummaryCode::Uncorrelated));
    assert_eq!(
        unmatched.summary_params.get("id").map(String::as_str),
        Some("NO-SUCH-ID")
    );
    assert!(unmatched.summary_params.contains_key("connection"));

    w.smpp(0x04, "\u{1}\u{2}garbage %%% ###", vec![]);
    let unreadable = &w.open_exceptions(ExceptionKind::Unparseable)[0];
    assert_eq!(unreadable.summary_code, Some(SummaryCode::Unparseable));
    assert_eq!(
        unreadable.summary_params.keys().collect::<Vec<_>>(),
        vec!["connection"],
        "the parser's own English reason stays in the sentence, not in a parameter"
    );
}
