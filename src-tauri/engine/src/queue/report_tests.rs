//! The delivery report's aggregates (store/src/reports.rs) against a count over the messages,
//! after any mix of the engine's own writes: intake, claims and every kind of answer, receipts
//! (finals, intermediates, conflicting finals), an operator's retries, cancellations and
//! decisions, the no-receipt deadline and a rebuild of the projections.

use proptest::prelude::*;

use crate::decisions::{self, Action, Resolution};
use crate::domain::{DeliveryState, ExceptionKind, ExceptionStatus, IntakeChannel, MessageKind};
use crate::messages::{self, NewMessage};
use crate::queue::{self, Claimed, SubmitResult};
use crate::receipts::ingest::{Ingestor, SmppReceived};
use crate::receipts::policy::ReceiptPolicy;
use crate::receipts::{deadline, rebuild};
use crate::store::{checks, Store, StoreError};
use smsdesk_core::retry::RetryPolicy;

const CONN: &str = "sandbox";

/// One of the engine's writes, on the `n`th message it names (modulo those there are).
#[derive(Debug, Clone)]
enum Step {
    Add {
        kind: MessageKind,
        to: usize,
        parts: u32,
        via_csv: bool,
    },
    /// Claims what is due and answers each claimed message's first part with `answer`.
    Send {
        answer: Answer,
    },
    Receipt {
        n: usize,
        stat: &'static str,
        err: &'static str,
    },
    Retry {
        n: usize,
    },
    Cancel {
        n: usize,
    },
    /// Decides the first open exception: a state, or a resend for an unknown outcome.
    Decide {
        delivered: bool,
    },
    Deadline,
    Rebuild,
}

#[derive(Debug, Clone, Copy)]
enum Answer {
    Accepted,
    Refused(u32),
    Timeout,
}

const NUMBERS: [&str; 4] = ["+33612345600", "+79161234567", "+447700900123", "+14155550123"];

fn step() -> impl Strategy<Value = Step> {
    let kind = prop::sample::select(vec![MessageKind::Otp, MessageKind::Transactional, MessageKind::Bulk]);
    let answer = prop_oneof![
        4 => Just(Answer::Accepted),
        1 => prop::sample::select(vec![0x08u32, 0x0B, 0x58, 0x14]).prop_map(Answer::Refused),
        1 => Just(Answer::Timeout),
    ];
    let stat = prop::sample::select(vec!["DELIVRD", "UNDELIV", "EXPIRED", "REJECTD", "ENROUTE"]);
    let err = prop::sample::select(vec!["000", "001", "00B"]);
    prop_oneof![
        4 => (kind, 0..NUMBERS.len(), 1..3u32, any::<bool>())
            .prop_map(|(kind, to, parts, via_csv)| Step::Add { kind, to, parts, via_csv }),
        3 => answer.prop_map(|answer| Step::Send { answer }),
        4 => (any::<usize>(), stat, err).prop_map(|(n, stat, err)| Step::Receipt { n, stat, err }),
        1 => any::<usize>().prop_map(|n| Step::Retry { n }),
        1 => any::<usize>().prop_map(|n| Step::Cancel { n }),
        1 => any::<bool>().prop_map(|delivered| Step::Decide { delivered }),
        1 => Just(Step::Deadline),
        1 => Just(Step::Rebuild),
    ]
}

struct World {
    _dir: tempfile::TempDir,
    store: Store,
    ingest: Ingestor,
    policy: ReceiptPolicy,
    messages: Vec<i64>,
    /// The parts of each message, by message.
    parts: std::collections::HashMap<i64, u32>,
    /// The provider id each accepted message was given, by message.
    accepted: Vec<(i64, String)>,
    next_id: u64,
}

impl World {
    fn new() -> World {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("smsdesk.db")).unwrap();
        let policy = ReceiptPolicy::default();
        let ingest = Ingestor::new(store.writer().clone(), policy.clone());
        World {
            _dir: dir,
            store,
            ingest,
            policy,
            messages: Vec::new(),
            parts: Default::default(),
            accepted: Vec::new(),
            next_id: 1,
        }
    }

    fn write<T: Send + 'static, E: std::fmt::Debug + From<StoreError> + Send + 'static>(
        &self,
        f: impl FnOnce(&mut crate::store::WriteTx<'_>) -> Result<T, E> + Send + 'static,
    ) -> Result<T, E> {
        self.store.writer().write_blocking(f)
    }

    fn run(&mut self, s: &Step) {
        let now = crate::clock::Clock::system().now_ms();
        match s.clone() {
            Step::Add {
                kind,
                to,
                parts,
                via_csv,
            } => {
                let m = NewMessage {
                    channel: if via_csv {
                        IntakeChannel::Csv
                    } else {
                        IntakeChannel::Compose
                    },
                    destination_raw: NUMBERS[to].into(),
                    destination: NUMBERS[to].into(),
                    body: "x".repeat(153 * parts as usize),
                    encoding: "gsm7".into(),
                    segments: parts,
                    kind,
                    connection: CONN.into(),
                    route: (parts == 2).then(|| "main".into()),
                    registered_delivery: 1,
                    client_ref: None,
                    ordering_key: None,
                    valid_until: None,
                    scheduled_at: Some(now - 1_000),
                    priority: messages::DEFAULT_PRIORITY,
                    api_key_id: None,
                    submitted_by: Some("ann".into()),
                    idempotency: None,
                    // Read at intake, or left for the store to read (as for messages from before).
                    country: (!via_csv).then(|| smsdesk_core::country::country_of(NUMBERS[to]).unwrap_or_default()),
                    // Priced on some numbers only: a cost that follows the message's outcome.
                    prices: match to % 2 {
                        0 => vec![(CONN.into(), 45_000 + to as i64)],
                        _ => Vec::new(),
                    },
                    smart_replaced: None,
                    smpp_receipt: None,
                };
                let id = self.write(move |tx| messages::insert(tx, &m)).unwrap();
                self.messages.push(id);
                self.parts.insert(id, parts);
            }
            Step::Send { answer } => {
                let claimed: Vec<Claimed> = self
                    .write(move |tx| {
                        queue::claim(
                            tx,
                            "test",
                            now,
                            60_000,
                            5,
                            &queue::Serving {
                                connection: CONN.into(),
                                routes: vec![("main".into(), false)],
                            },
                        )
                    })
                    .unwrap();
                for c in claimed {
                    let provider_id = format!("P{}", self.next_id);
                    self.next_id += 1;
                    let result = match answer {
                        Answer::Accepted => SubmitResult::Answered {
                            command_status: 0,
                            message_id: Some(provider_id.clone()),
                            written_at: Some(now),
                        },
                        Answer::Refused(status) => SubmitResult::Answered {
                            command_status: status,
                            message_id: None,
                            written_at: Some(now),
                        },
                        Answer::Timeout => SubmitResult::Timeout { written_at: Some(now) },
                    };
                    let policy = self.policy.clone();
                    let message = c.message_id;
                    let parts = self.parts[&message];
                    self.write(move |tx| {
                        // Every part, so that a long message may be accepted whole.
                        let mut next = None;
                        for segment in (1..=parts).filter(|p| !c.parts_accepted.contains(p)) {
                            let a = messages::begin_attempt(tx, c.message_id, segment, messages::Wire::sandbox(), 1)?;
                            let retry = RetryPolicy::default_for(c.kind);
                            let send = queue::SendPolicy {
                                retry: &retry,
                                classes: &Default::default(),
                                resend_unknown: false,
                            };
                            let mut result = result.clone();
                            if let SubmitResult::Answered {
                                message_id: Some(id), ..
                            } = &mut result
                            {
                                *id = format!("{id}-{segment}");
                            }
                            next = Some(queue::record(tx, &c, a.id, &result, now, &policy, send, || 0.5)?);
                        }
                        Ok::<_, StoreError>(next)
                    })
                    .unwrap();
                    if matches!(answer, Answer::Accepted) {
                        self.accepted.push((message, provider_id));
                    }
                }
            }
            Step::Receipt { n, stat, err } => {
                if self.accepted.is_empty() {
                    return;
                }
                let (_, id) = self.accepted[n % self.accepted.len()].clone();
                let esm = if stat == "ENROUTE" { 0x20 } else { 0x04 };
                let text = format!(
                    "id:{id}-1 sub:001 dlvrd:001 submit date:2612061200 done date:2612061201 stat:{stat} err:{err} text:x"
                );
                self.ingest
                    .smpp_blocking(SmppReceived {
                        connection: CONN.into(),
                        session_id: Some("s1".into()),
                        sequence_number: Some(1),
                        esm_class: Some(esm),
                        short_message: text.into_bytes(),
                        received_at: now,
                        ..SmppReceived::default()
                    })
                    .unwrap();
            }
            Step::Retry { n } | Step::Cancel { n } if self.messages.is_empty() => {
                let _ = n;
            }
            Step::Retry { n } => {
                let m = self.messages[n % self.messages.len()];
                // Refused when the message may not be retried: that, too, must leave the report exact.
                let _ = self.write(move |tx| queue::retry(tx, m, true, queue::RetryLimits::Override, "ann", "again"));
            }
            Step::Cancel { n } => {
                let m = self.messages[n % self.messages.len()];
                let _ = self.write(move |tx| queue::cancel(tx, m, "ann", "not needed"));
            }
            Step::Decide { delivered } => {
                let open: Option<(i64, ExceptionKind)> = self
                    .store
                    .reader()
                    .read_blocking(|c| {
                        use rusqlite::OptionalExtension;
                        Ok::<_, StoreError>(
                            c.query_row(
                                "SELECT id, kind FROM exception WHERE status = ?1 ORDER BY id LIMIT 1",
                                [ExceptionStatus::Open.as_str()],
                                |r| Ok((r.get(0)?, r.get::<_, crate::store::Text<ExceptionKind>>(1)?.0)),
                            )
                            .optional()?,
                        )
                    })
                    .unwrap();
                let Some((exception_id, kind)) = open else { return };
                let action = match kind {
                    ExceptionKind::OutcomeUnknown => Action::Resend {
                        confirm_duplicate: true,
                        limits: queue::RetryLimits::Override,
                    },
                    _ if delivered => Action::ChooseState(DeliveryState::Delivered),
                    _ => Action::ChooseState(DeliveryState::Undeliverable),
                };
                let policy = self.policy.clone();
                let r = Resolution {
                    exception_id,
                    action,
                    note: "decided".into(),
                    actor: "ann".into(),
                };
                let _ = self.write(move |tx| decisions::resolve(tx, &r, &policy));
            }
            Step::Deadline => {
                let policy = self.policy.clone();
                let far = now + 40 * 86_400_000;
                self.write(move |tx| deadline::sweep(tx, far, &policy, 1_000)).unwrap();
            }
            Step::Rebuild => {
                rebuild::run(&self.store, &self.policy, true, |_, _| {}).unwrap();
            }
        }
    }

    /// The report as kept, and as computed again from the messages alone.
    fn kept_and_recounted(&self) -> (Vec<String>, Vec<String>) {
        self.store
            .writer()
            .write_blocking(|tx| {
                let c = tx.sql_for_tests();
                let report = |lines: Vec<String>| lines.into_iter().filter(|l| l.starts_with("report")).collect();
                Ok::<_, StoreError>((report(checks::totals_stored(c)?), report(checks::totals_recomputed(c)?)))
            })
            .unwrap()
    }

    fn one(&self, sql: &'static str) -> i64 {
        self.store
            .reader()
            .read_blocking(move |c| Ok::<_, StoreError>(c.query_row(sql, [], |r| r.get(0))?))
            .unwrap()
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, ..ProptestConfig::default() })]

    #[test]
    fn the_report_kept_through_any_mix_of_writes_equals_a_count_over_the_messages(
        steps in prop::collection::vec(step(), 1..40),
    ) {
        let mut w = World::new();
        for s in &steps {
            w.run(s);
        }
        let (kept, recounted) = w.kept_and_recounted();
        prop_assert_eq!(&kept, &recounted, "the report kept must equal the one computed from the messages");
        // And what it sums is every message once: counted over the messages themselves.
        prop_assert_eq!(
            w.one("SELECT coalesce(sum(messages), 0) FROM report_hour"),
            w.one("SELECT count(*) FROM message")
        );
        prop_assert_eq!(
            w.one("SELECT coalesce(sum(parts), 0) FROM report_hour"),
            w.one("SELECT coalesce(sum(segments), 0) FROM message")
        );
        prop_assert_eq!(
            w.one("SELECT coalesce(sum(messages), 0) FROM report_hour WHERE outcome = 'delivered'"),
            w.one("SELECT count(*) FROM projection WHERE state = 'delivered'
                   AND rule IN ('first_final', 'parts_final', 'operator_decision')")
        );
        prop_assert_eq!(
            w.one("SELECT coalesce(sum(messages), 0) FROM report_hour WHERE outcome = 'cancelled'"),
            w.one("SELECT count(*) FROM queue q LEFT JOIN projection p ON p.message_id = q.message_id
                   WHERE q.status = 'cancelled'
                   AND (p.rule IS NULL OR p.rule NOT IN ('first_final', 'parts_final', 'operator_decision'))")
        );
        prop_assert_eq!(
            w.one("SELECT coalesce(sum(messages), 0) FROM report_hour WHERE connection = 'sandbox'"),
            w.one("SELECT count(DISTINCT message_id) FROM attempt WHERE outcome <> 'not_sent'")
        );
    }
}
