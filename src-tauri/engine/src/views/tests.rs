//! The read models against a real database file, with rows written by the same functions intake,
//! the dispatcher and receipt ingestion use.

use std::collections::BTreeSet;

use crate::store::Connection;

use super::cursor;
use super::messages::{destination, list_with_budget, query_plans, Destination};
use super::*;
use crate::audit::{AuditAction, RecordedAction};
use crate::decisions::{self, self as resolve, Action, Resolution};
use crate::domain::Flag;
use crate::domain::{
    AttemptOutcome, Correlation, DeliveryState, ExceptionKind, ExceptionStatus, IntakeChannel, MessageKind,
    QueueStatus, ReceiptKind, ReceiptSource,
};
use crate::messages::{self, NewMessage};
use crate::queue::{self, Claimed, SubmitResult};
use crate::receipts::ingest::{Ingested, Ingestor, SmppReceived};
use crate::receipts::parse::Tlv;
use crate::receipts::policy::ReceiptPolicy;
use crate::store::totals::Delta;
use crate::store::Text;
use crate::store::{Store, StoreError, WriteTx};
use smsdesk_core::retry::RetryPolicy;

mod search_tests;

const CONN: &str = "sandbox";

struct World {
    _dir: tempfile::TempDir,
    store: Store,
    ingest: Ingestor,
    policy: ReceiptPolicy,
}

fn world() -> World {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("smsdesk.db")).unwrap();
    // Receipts that match no message open their exceptions at once: these tests are about what
    // the screens show of them (the wait before is the receipts module's to test).
    let policy = ReceiptPolicy {
        uncorrelated_grace_ms: 0,
        ..ReceiptPolicy::default()
    };
    let ingest = Ingestor::new(store.writer().clone(), policy.clone());
    World {
        _dir: dir,
        store,
        ingest,
        policy,
    }
}

fn receipt_text(id: &str, stat: &str) -> String {
    format!("id:{id} sub:001 dlvrd:001 submit date:2611291200 done date:2611291201 stat:{stat} err:000 text:hi")
}

fn new_message(destination: &str, body: &str, kind: MessageKind) -> NewMessage {
    NewMessage::text(IntakeChannel::Api, destination, body, kind, CONN)
}

impl World {
    fn write<T: Send + 'static>(
        &self,
        f: impl FnOnce(&mut WriteTx<'_>) -> Result<T, StoreError> + Send + 'static,
    ) -> T {
        self.store.writer().write_blocking(f).unwrap()
    }

    fn read<T>(&self, f: impl FnOnce(&Connection) -> Result<T, ViewError>) -> T {
        self.store.reader().read_blocking(f).unwrap()
    }

    fn add(&self, m: NewMessage) -> i64 {
        self.write(move |tx| messages::insert(tx, &m))
    }

    fn accept(&self, message: i64, provider_id: &str) -> i64 {
        let id = provider_id.to_owned();
        let policy = self.policy.clone();
        self.write(move |tx| {
            let a = messages::begin_attempt(tx, message, 1, messages::Wire::sandbox(), 1)?;
            decisions::record_accepted(tx, a.id, None, &id, &policy)?;
            Ok(a.id)
        })
    }

    /// Records one submit try of `message` that came to `result`, as the dispatcher does.
    fn submit(&self, message: i64, result: SubmitResult) -> queue::Next {
        let policy = self.policy.clone();
        self.write(move |tx| {
            let kind: MessageKind =
                tx.sql_for_tests()
                    .query_row("SELECT kind FROM message WHERE id = ?1", [message], |r| {
                        r.get::<_, Text<_>>(0).map(|t| t.0)
                    })?;
            let a = messages::begin_attempt(tx, message, 1, messages::Wire::sandbox(), 1)?;
            let claimed = Claimed {
                message_id: message,
                destination: String::new(),
                body: String::new(),
                sealed: None,
                kind,
                registered_delivery: 1,
                expires_at: None,
                created_at: tx.now_ms(),
                attempts: 0,
                parts_accepted: Vec::new(),
                route: None,
                pinned: false,
            };
            let retry = RetryPolicy::default_for(kind);
            let send = queue::SendPolicy {
                retry: &retry,
                classes: &Default::default(),
                resend_unknown: false,
            };
            queue::record(tx, &claimed, a.id, &result, tx.now_ms(), &policy, send, || 0.5)
        })
    }

    fn refuse(&self, message: i64, command_status: u32) -> queue::Next {
        self.submit(
            message,
            SubmitResult::Answered {
                command_status,
                message_id: None,
                written_at: None,
            },
        )
    }

    fn smpp(&self, text: &str, tlvs: Vec<Tlv>, pdu: Option<Vec<u8>>) -> Ingested {
        self.ingest
            .smpp_blocking(SmppReceived {
                connection: CONN.into(),
                session_id: Some("s1".into()),
                sequence_number: Some(3),
                esm_class: Some(4),
                source_addr: Some("33612345678".into()),
                destination_addr: Some("SHOP".into()),
                short_message: text.as_bytes().to_vec(),
                tlvs,
                pdu,
                received_at: crate::clock::Clock::system().now_ms(),
                ..SmppReceived::default()
            })
            .unwrap()
    }

    fn dlr(&self, id: &str, stat: &str) -> Ingested {
        self.smpp(&receipt_text(id, stat), vec![], None)
    }

    fn resolve(&self, r: Resolution) {
        let policy = self.policy.clone();
        self.store
            .writer()
            .write_blocking(move |tx| resolve::resolve(tx, &r, &policy))
            .unwrap();
    }

    fn detail(&self, id: i64) -> MessageDetail {
        self.read(|c| message_detail(c, id)).expect("the message exists")
    }

    fn page(&self, f: &MessageFilter) -> MessagePage {
        self.read(|c| list_messages(c, f))
    }

    /// Every id a filter lists, following `next_cursor` to the end with pages of `limit`.
    fn all_ids(&self, f: &MessageFilter, limit: u32) -> Vec<i64> {
        let mut f = f.clone();
        f.limit = Some(limit);
        let mut ids = Vec::new();
        for _ in 0..1_000 {
            let page = self.page(&f);
            assert!(page.items.len() <= limit as usize, "a page never exceeds its limit");
            ids.extend(page.items.iter().map(|m| m.id));
            match page.next_cursor {
                Some(c) => f.cursor = Some(c),
                None => return ids,
            }
        }
        panic!("the cursor never ran out")
    }

    fn open_exception(&self, kind: ExceptionKind) -> i64 {
        let f = ExceptionFilter {
            status: Some(ExceptionStatus::Open),
            kind: Some(kind),
            ..ExceptionFilter::default()
        };
        let page = self.read(|c| list_exceptions(c, &f));
        assert_eq!(page.items.len(), 1, "one open {kind} exception expected");
        page.items[0].id
    }
}

// ---- Detail ----

#[test]
fn the_detail_shows_attempts_and_receipts_exactly_as_stored() {
    let w = world();
    let mut m = new_message(
        "+33612345678",
        "Your order 4217 has shipped",
        MessageKind::Transactional,
    );
    m.client_ref = Some("ORD-4217".into());
    m.valid_until = Some(4_102_444_800_000);
    m.ordering_key = Some("order-4217".into());
    let id = w.add(m);
    w.refuse(id, 0x58);
    w.accept(id, "ABC");
    let tlvs = vec![Tlv {
        tag: 0x001e,
        value: b"ABC\0".to_vec(),
    }];
    let first = w.smpp(&receipt_text("ABC", "DELIVRD"), tlvs, Some(vec![0, 0, 0, 0x10, 0xAB]));
    let repeat = w.dlr("ABC", "DELIVRD");

    let d = w.detail(id);
    assert_eq!(d.message.id, id);
    assert_eq!(d.message.body, "Your order 4217 has shipped");
    assert_eq!(d.message.destination_raw, "+33612345678");
    assert_eq!(d.message.client_ref.as_deref(), Some("ORD-4217"));
    assert_eq!(d.message.valid_until_ms, Some(4_102_444_800_000));
    assert_eq!(d.message.ordering_key.as_deref(), Some("order-4217"));
    assert_eq!(d.message.priority, messages::DEFAULT_PRIORITY);
    assert_eq!(d.message.connection, CONN);

    assert_eq!(d.attempts.len(), 2, "both tries are shown");
    let throttled = &d.attempts[0];
    assert_eq!(
        (throttled.attempt_no, throttled.outcome, throttled.command_status),
        (1, AttemptOutcome::Throttled, Some(0x58))
    );
    assert_eq!(throttled.command_status_hex.as_deref(), Some("0x00000058"));
    assert_eq!(throttled.command_status_name.as_deref(), Some("ESME_RTHROTTLED"));
    assert_eq!(
        throttled.command_status_meaning.as_deref(),
        Some(crate::smpp::status::describe(0x58).meaning)
    );
    let accepted = &d.attempts[1];
    assert_eq!(
        (accepted.attempt_no, accepted.outcome, accepted.sequence_number),
        (2, AttemptOutcome::Accepted, Some(7))
    );
    assert_eq!(
        accepted.provider_message_id.as_deref(),
        Some("ABC"),
        "exactly as returned"
    );
    assert_eq!(accepted.command_status_name.as_deref(), Some("ESME_ROK"));
    assert_eq!(accepted.session_id.as_deref(), Some("s1"));

    assert_eq!(d.queue.status, QueueStatus::Accepted);
    assert_eq!(d.queue.provider_message_ids, vec!["ABC".to_owned()]);
    assert_eq!(d.queue.accepted_at_ms, accepted.responded_at_ms);

    let ids: Vec<i64> = d.receipts.iter().map(|r| r.id).collect();
    assert_eq!(
        ids,
        vec![first.receipt_id, repeat.receipt_id],
        "every receipt, repeats included"
    );
    let r = &d.receipts[0];
    let text = receipt_text("ABC", "DELIVRD");
    assert_eq!(r.raw_text.as_deref(), Some(text.as_str()));
    assert_eq!(r.raw_hex, hex::encode(text.as_bytes()), "the raw bytes, in hex");
    assert_eq!(r.pdu_hex.as_deref(), Some("00000010ab"));
    assert_eq!(
        r.tlvs,
        Some(serde_json::json!([{ "tag": "0x001e", "hex": "41424300" }])),
        "TLVs come back as JSON"
    );
    assert_eq!(
        (r.source, r.kind, r.esm_class, r.sequence_number),
        (ReceiptSource::SmppDeliverSm, ReceiptKind::Receipt, Some(4), Some(3))
    );
    assert_eq!(r.fields.stat, Some(crate::receipts::parse::Stat::Delivrd));
    assert_eq!(r.fields.stat_raw.as_deref(), Some("DELIVRD"));
    assert_eq!(r.fields.err.as_deref(), Some("000"));
    assert_eq!(r.fields.submit_date.as_deref(), Some("2611291200"));
    assert_eq!(r.fields.done_date.as_deref(), Some("2611291201"));
    assert_eq!(r.reported_state, Some(DeliveryState::Delivered));
    assert_eq!((r.correlation, r.message_id), (Some(Correlation::Matched), Some(id)));
    assert!(!r.is_repeat && d.receipts[1].is_repeat, "the second is a repeat");
    assert_eq!(
        r.logical_event_id, d.receipts[1].logical_event_id,
        "of the same logical event"
    );

    assert_eq!(d.state.state, DeliveryState::Delivered);
    assert_eq!(d.state.rule, crate::receipts::rules::Rule::FirstFinal);
    assert_eq!(d.state.reported_state, Some(DeliveryState::Delivered));
    assert_eq!(d.state.supporting_event_ids, vec![r.logical_event_id.unwrap()]);
    assert_eq!(
        d.state.supporting_receipt_ids, ids,
        "both receipts carried the supporting event"
    );
    assert_eq!(
        d.state.flags,
        StateFlags {
            mismatch: true,
            ..StateFlags::default()
        },
        "the receipt's text (\"hi\") does not fit the message's: shown, never used to match"
    );
    assert_eq!(r.flags, vec![Flag::Mismatch]);
    assert_eq!(d.state.rules_version, Some(crate::receipts::rules::RULES_VERSION));
    assert!(d.operator_decision.is_none());

    let summary = w.page(&MessageFilter::default()).items.remove(0);
    assert_eq!(summary, d.summary, "the detail carries the list's row for the message");
    assert_eq!(summary.id, id);
    assert_eq!(summary.flags, vec![Flag::Mismatch, Flag::Repeat]);
    assert_eq!((summary.attempts, summary.state), (2, DeliveryState::Delivered));

    assert!(
        w.read(|c| message_detail(c, id + 1000)).is_none(),
        "an unknown id is None"
    );
}

#[test]
fn acceptance_network_reports_and_operator_decisions_stay_apart_and_the_timeline_is_in_order() {
    let w = world();
    let id = w.add(new_message(
        "+33612345678",
        "Appointment tomorrow 10:00",
        MessageKind::Transactional,
    ));
    let pending = w.detail(id);
    assert_eq!(
        (
            pending.queue.status,
            pending.state.state,
            pending.state.rule.as_str(),
            pending.state.reported_state
        ),
        (QueueStatus::Queued, DeliveryState::Pending, "no_report", None)
    );

    w.accept(id, "C1");
    let accepted = w.detail(id);
    assert_eq!(accepted.queue.status, QueueStatus::Accepted);
    assert_eq!(
        (accepted.state.state, accepted.state.reported_state),
        (DeliveryState::Pending, None),
        "acceptance by the SMSC is not delivery"
    );

    let delivered = w.dlr("C1", "DELIVRD");
    let undelivered = w.dlr("C1", "UNDELIV");
    let conflict = w.open_exception(ExceptionKind::ConflictingFinal);
    let d = w.detail(id);
    assert!(d.state.flags.conflict);
    assert_eq!(d.state.conflicting_receipt_ids, vec![undelivered.receipt_id]);
    assert_eq!(d.state.supporting_receipt_ids, vec![delivered.receipt_id]);

    w.resolve(Resolution {
        exception_id: conflict,
        action: Action::ChooseState(DeliveryState::Undeliverable),
        note: "Provider support confirmed the handset was off.".into(),
        actor: "ann".into(),
    });
    let d = w.detail(id);
    assert_eq!(d.queue.status, QueueStatus::Accepted, "our side is unchanged");
    assert_eq!(
        (d.state.state, d.state.rule.as_str()),
        (DeliveryState::Undeliverable, "operator_decision")
    );
    assert_eq!(
        d.state.reported_state,
        Some(DeliveryState::Delivered),
        "what the network reported stays visible beside the decision"
    );
    assert_eq!(d.state.decided_by_exception_id, Some(conflict));
    let decision = d.operator_decision.as_ref().expect("the decision is shown");
    assert_eq!(
        (decision.exception_id, decision.state, decision.decided_by.as_deref()),
        (conflict, Some(DeliveryState::Undeliverable), Some("ann"))
    );
    assert_eq!(
        decision.note.as_deref(),
        Some("Provider support confirmed the handset was off.")
    );
    assert_eq!(d.exceptions.len(), 1);
    assert_eq!(d.exceptions[0].status, ExceptionStatus::Resolved);

    let kinds: Vec<TimelineKind> = d.timeline.iter().map(|e| e.kind).collect();
    assert_eq!(
        kinds,
        vec![
            TimelineKind::Created,
            TimelineKind::Attempt,
            TimelineKind::AttemptResult,
            TimelineKind::Receipt,
            TimelineKind::Receipt,
            TimelineKind::ExceptionOpened,
            TimelineKind::ExceptionClosed,
            TimelineKind::Audit,
        ],
        "{:#?}",
        d.timeline
    );
    assert!(
        d.timeline.windows(2).all(|p| p[0].at_ms <= p[1].at_ms),
        "the timeline is in time order"
    );
    let refs: Vec<i64> = d.timeline.iter().map(|e| e.ref_id).collect();
    let attempt = d.attempts[0].id;
    let audit_id: i64 = w.read(|c| {
        Ok(c.query_row(
            "SELECT id FROM audit WHERE action = 'exception.resolve' AND subject_id = ?1",
            [conflict],
            |r| r.get(0),
        )?)
    });
    assert_eq!(
        refs,
        vec![
            id,
            attempt,
            attempt,
            delivered.receipt_id,
            undelivered.receipt_id,
            conflict,
            conflict,
            audit_id
        ],
        "each entry names the row it comes from"
    );
    assert!(
        d.timeline[2].summary.contains("accepted") && d.timeline[2].summary.contains("\"C1\""),
        "{}",
        d.timeline[2].summary
    );
    assert!(
        d.timeline[3].summary.contains("reported delivered"),
        "{}",
        d.timeline[3].summary
    );
    assert!(d.timeline[6].summary.contains("ann"), "{}", d.timeline[6].summary);
}

// ---- The list ----

/// What the oracle knows about a message, read with plain SQL.
struct Fact {
    id: i64,
    created_at: i64,
    kind: MessageKind,
    channel: IntakeChannel,
    destination: String,
    words: Vec<String>,
    status: QueueStatus,
    state: DeliveryState,
}

fn fold_accents(s: &str) -> String {
    s.chars()
        .map(|c| match c {
            'é' | 'è' | 'ê' => 'e',
            'à' => 'a',
            'ç' => 'c',
            other => other,
        })
        .collect::<String>()
        .to_lowercase()
}

fn words(text: &str) -> Vec<String> {
    fold_accents(text)
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_owned)
        .collect()
}

fn facts(w: &World) -> Vec<Fact> {
    w.read(|c| {
        let mut s = c.prepare(
            "SELECT m.id, m.created_at, m.kind, m.channel, m.destination, m.body, m.client_ref, q.status,
                 coalesce(p.state, 'pending')
             FROM message m JOIN queue q ON q.message_id = m.id LEFT JOIN projection p ON p.message_id = m.id
             ORDER BY m.id DESC",
        )?;
        let rows = s.query_map([], |r| {
            let body: String = r.get(5)?;
            let client_ref: Option<String> = r.get(6)?;
            Ok(Fact {
                id: r.get(0)?,
                created_at: r.get(1)?,
                kind: r.get::<_, Text<_>>(2)?.0,
                channel: r.get::<_, Text<_>>(3)?.0,
                destination: r.get(4)?,
                words: words(&format!("{body} {}", client_ref.unwrap_or_default())),
                status: r.get::<_, Text<_>>(7)?.0,
                state: r.get::<_, Text<_>>(8)?.0,
            })
        })?;
        Ok(rows.collect::<Result<Vec<_>, _>>()?)
    })
}

/// The ids a filter must list, worked out in Rust from the facts.
fn expected(facts: &[Fact], f: &MessageFilter) -> Vec<i64> {
    let dest = f.destination.as_deref().and_then(destination);
    facts
        .iter()
        .filter(|m| f.status.is_none_or(|s| m.status == s))
        .filter(|m| f.state.is_none_or(|s| m.state == s))
        .filter(|m| f.kind.is_none_or(|k| m.kind == k))
        .filter(|m| f.channel.is_none_or(|c| m.channel == c))
        .filter(|m| f.from_ms.is_none_or(|t| m.created_at >= t))
        .filter(|m| f.to_ms.is_none_or(|t| m.created_at < t))
        .filter(|m| match &dest {
            None => true,
            Some(Destination::Exact(d)) => &m.destination == d,
            Some(Destination::Prefix(p)) => m.destination.starts_with(p.as_str()),
            Some(Destination::Suffix(d)) => m.destination.ends_with(d.as_str()),
        })
        .filter(|m| match &f.q {
            None => true,
            Some(q) => words(q).iter().all(|q| {
                m.words.iter().any(|w| {
                    if q.chars().count() == 1 {
                        w == q
                    } else {
                        w.starts_with(q.as_str())
                    }
                })
            }),
        })
        .map(|m| m.id)
        .collect()
}

const BODIES: [&str; 6] = [
    "Your order {n} has shipped",
    "Your login code is {n}",
    "Rendez-vous confirmé demain à 10h",
    "Spring sale: 20% off everything",
    "Reminder: appointment on day {n}",
    "Parcel {n} is waiting at the locker",
];

/// Forty messages in three batches a few milliseconds apart, with every queue status, several
/// states, kinds, channels, destinations, texts and client references. Returns the first creation
/// time of the second and third batches.
fn mixed(w: &World) -> (i64, i64) {
    let kinds = [MessageKind::Otp, MessageKind::Transactional, MessageKind::Bulk];
    let channels = [
        IntakeChannel::Api,
        IntakeChannel::Csv,
        IntakeChannel::Compose,
        IntakeChannel::Cli,
    ];
    let mut marks = Vec::new();
    for i in 0..40_usize {
        if i == 14 || i == 28 {
            std::thread::sleep(std::time::Duration::from_millis(5));
            marks.push(crate::clock::Clock::system().now_ms());
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        let dest = if i % 5 == 0 {
            format!("+4915100{:04}", i)
        } else {
            format!("+3361234{:04}", i % 7)
        };
        let body = BODIES[i % 6].replace("{n}", &(1000 + i).to_string());
        let mut m = new_message(&dest, &body, kinds[i % 3]);
        m.channel = channels[i % 4];
        m.client_ref = (i % 2 == 0).then(|| format!("ORD-{i}"));
        let id = w.add(m);
        let pid = format!("P{i}");
        match i % 8 {
            0 => {}
            1 => {
                w.accept(id, &pid);
                w.dlr(&pid, "DELIVRD");
                if i % 16 == 1 {
                    w.dlr(&pid, "DELIVRD");
                }
            }
            2 => {
                w.accept(id, &pid);
                w.dlr(&pid, "UNDELIV");
            }
            3 => {
                w.accept(id, &pid);
            }
            4 => {
                w.refuse(id, 0x0B);
            }
            5 => w.write(move |tx| {
                queue::cancel(tx, id, "ann", "duplicate order").map_err(|e| StoreError::Corrupt(e.to_string()))
            }),
            6 => {
                w.submit(id, SubmitResult::Timeout { written_at: None });
            }
            _ => {
                w.accept(id, &pid);
                w.dlr(&pid, "ENROUTE");
            }
        }
    }
    (marks[0], marks[1])
}

#[test]
fn every_filter_selects_exactly_the_matching_messages_across_pages() {
    let w = world();
    let (t1, t2) = mixed(&w);
    let facts = facts(&w);
    assert_eq!(facts.len(), 40);
    let statuses: BTreeSet<QueueStatus> = facts.iter().map(|f| f.status).collect();
    assert_eq!(
        statuses.len(),
        5,
        "the fixture covers queued, accepted, failed, cancelled, outcome_unknown"
    );

    let mut filters = vec![MessageFilter::default()];
    let one = |f: fn(&mut MessageFilter)| {
        let mut x = MessageFilter::default();
        f(&mut x);
        x
    };
    for s in QueueStatus::ALL {
        filters.push(MessageFilter {
            status: Some(*s),
            ..MessageFilter::default()
        });
    }
    for s in [
        DeliveryState::Pending,
        DeliveryState::Delivered,
        DeliveryState::Undeliverable,
        DeliveryState::Enroute,
        DeliveryState::Expired,
    ] {
        filters.push(MessageFilter {
            state: Some(s),
            ..MessageFilter::default()
        });
    }
    for k in MessageKind::ALL {
        filters.push(MessageFilter {
            kind: Some(*k),
            ..MessageFilter::default()
        });
    }
    for c in IntakeChannel::ALL {
        filters.push(MessageFilter {
            channel: Some(*c),
            ..MessageFilter::default()
        });
    }
    for d in [
        "+33612340003",
        "0033 6 12 34 00 03",
        "+49*",
        "+336123400*",
        "+336123400",
        "33612340005",
        "*0003",
        "*000015",
        "*9999",
    ] {
        filters.push(MessageFilter {
            destination: Some(d.into()),
            ..MessageFilter::default()
        });
    }
    for q in [
        "order",
        "ORD",
        "appoint",
        "confirme",
        "sale 20",
        "code 1007",
        "locker parcel",
        "nothing-here",
        "a",
        "à 10h",
    ] {
        filters.push(MessageFilter {
            q: Some(q.into()),
            ..MessageFilter::default()
        });
    }
    filters.push(MessageFilter {
        from_ms: Some(t1),
        to_ms: Some(t2),
        ..MessageFilter::default()
    });
    filters.push(MessageFilter {
        from_ms: Some(t2),
        ..MessageFilter::default()
    });
    filters.push(one(|f| {
        f.status = Some(QueueStatus::Accepted);
        f.state = Some(DeliveryState::Pending);
    }));
    filters.push(one(|f| {
        f.kind = Some(MessageKind::Bulk);
        f.channel = Some(IntakeChannel::Api);
    }));
    filters.push(one(|f| {
        f.q = Some("order".into());
        f.status = Some(QueueStatus::Accepted);
    }));
    filters.push(one(|f| {
        f.destination = Some("+33612340001".into());
        f.state = Some(DeliveryState::Delivered);
    }));
    filters.push(one(|f| {
        f.state = Some(DeliveryState::Delivered);
        f.kind = Some(MessageKind::Otp);
        f.destination = Some("+33*".into());
    }));
    filters.push(MessageFilter {
        state: Some(DeliveryState::Undeliverable),
        to_ms: Some(t2),
        ..MessageFilter::default()
    });

    for f in &filters {
        let want = expected(&facts, f);
        for limit in [3, 500] {
            assert_eq!(w.all_ids(f, limit), want, "filter {f:?} with pages of {limit}");
        }
    }
    // The fixture must make the filters mean something.
    assert_eq!(expected(&facts, &filters[0]).len(), 40);
    let text = MessageFilter {
        q: Some("confirme".into()),
        ..MessageFilter::default()
    };
    assert!(!expected(&facts, &text).is_empty(), "accents are ignored");
}

#[test]
fn a_list_row_carries_the_flags_and_facts_of_its_message() {
    let w = world();
    let unknown = w.add(new_message("+33612345678", "a", MessageKind::Otp));
    w.submit(unknown, SubmitResult::Timeout { written_at: None });
    let late = w.add(new_message("+33612345678", &"x".repeat(100), MessageKind::Bulk));
    w.accept(late, "L1");
    w.dlr("L1", "DELIVRD");
    w.dlr("L1", "ENROUTE");

    let page = w.page(&MessageFilter::default());
    let row = |id| page.items.iter().find(|m| m.id == id).unwrap().clone();
    let u = row(unknown);
    assert_eq!(u.status, QueueStatus::OutcomeUnknown);
    assert_eq!(u.flags, vec![Flag::OutcomeUnknown]);
    assert_eq!((u.state, u.rule.as_str()), (DeliveryState::Pending, "no_report"));
    assert_eq!(u.attempts, 1);
    let l = row(late);
    assert_eq!(l.flags, vec![Flag::Late, Flag::Mismatch]);
    assert_eq!(l.preview.chars().count(), 80, "the preview is the first 80 characters");
    assert_eq!(l.body_chars, 100);
    assert_eq!(
        (l.kind, l.channel, l.segments),
        (MessageKind::Bulk, IntakeChannel::Api, 1)
    );
}

#[test]
fn pages_cover_every_message_exactly_once_while_messages_keep_arriving() {
    let w = world();
    for i in 0..60 {
        let kind = if i % 2 == 0 {
            MessageKind::Bulk
        } else {
            MessageKind::Otp
        };
        w.add(new_message("+33612345678", &format!("batch one {i}"), kind));
    }
    for filter in [
        MessageFilter::default(),
        MessageFilter {
            kind: Some(MessageKind::Bulk),
            ..MessageFilter::default()
        },
    ] {
        let before = w.all_ids(&filter, 500);
        let mut f = MessageFilter {
            limit: Some(7),
            ..filter.clone()
        };
        let mut seen = Vec::new();
        loop {
            let page = w.page(&f);
            seen.extend(page.items.iter().map(|m| m.id));
            // Others keep writing between two requests.
            for i in 0..3 {
                w.add(new_message(
                    "+33612345678",
                    &format!("arrived meanwhile {i}"),
                    MessageKind::Bulk,
                ));
            }
            match page.next_cursor {
                Some(c) => f.cursor = Some(c),
                None => break,
            }
        }
        assert_eq!(
            seen, before,
            "paging while messages arrive returns each existing message once, newest first ({filter:?})"
        );
    }
}

#[test]
fn a_page_stops_at_its_scan_budget_and_its_cursor_goes_on_from_there() {
    let w = world();
    let mut otps = Vec::new();
    for i in 1..=40 {
        let kind = if [5, 25, 38].contains(&i) {
            MessageKind::Otp
        } else {
            MessageKind::Bulk
        };
        let id = w.add(new_message("+33612345678", "hello", kind));
        if kind == MessageKind::Otp {
            otps.push(id);
        }
    }
    otps.reverse();
    let mut f = MessageFilter {
        kind: Some(MessageKind::Otp),
        ..MessageFilter::default()
    };
    let mut pages = Vec::new();
    loop {
        let page = w.read(|c| list_with_budget(c, &f, 10));
        pages.push((page.items.iter().map(|m| m.id).collect::<Vec<_>>(), page.scan_limited));
        match page.next_cursor {
            Some(c) => f.cursor = Some(c),
            None => break,
        }
    }
    let found: Vec<i64> = pages.iter().flat_map(|(ids, _)| ids.clone()).collect();
    assert_eq!(found, otps, "every match is found once, whatever the budget");
    assert!(pages.len() >= 4, "ten candidates a page over forty messages: {pages:?}");
    assert!(
        pages.iter().any(|(ids, limited)| ids.is_empty() && *limited),
        "a page may be empty yet say the scan goes on: {pages:?}"
    );
    assert!(pages.iter().all(|(ids, _)| ids.len() <= 1), "{pages:?}");

    // Without residual filters a page is never cut short.
    let page = w.read(|c| list_with_budget(c, &MessageFilter::default(), 10));
    assert_eq!((page.items.len(), page.scan_limited), (40, false));
}

#[test]
fn a_bad_cursor_or_filter_is_a_typed_error() {
    let w = world();
    w.add(new_message("+33612345678", "hello", MessageKind::Otp));
    let bad = |f: MessageFilter| {
        w.store
            .reader()
            .read_blocking(move |c| list_messages(c, &f))
            .unwrap_err()
    };

    let e = bad(MessageFilter {
        cursor: Some("not-a-cursor".into()),
        ..MessageFilter::default()
    });
    assert!(matches!(e, ViewError::InvalidCursor { list: "messages" }), "{e:?}");
    assert_eq!(e.code(), "invalid_cursor");
    assert!(e.is_client_error());

    let other_list = cursor::encode("exceptions", 10);
    let e = bad(MessageFilter {
        cursor: Some(other_list.clone()),
        ..MessageFilter::default()
    });
    assert!(
        matches!(e, ViewError::InvalidCursor { .. }),
        "another list's cursor is refused"
    );
    let e = w
        .store
        .reader()
        .read_blocking(|c| audit_log(c, Some(&other_list), None))
        .unwrap_err();
    assert!(matches!(e, ViewError::InvalidCursor { list: "audit" }));

    let e = bad(MessageFilter {
        from_ms: Some(10),
        to_ms: Some(10),
        ..MessageFilter::default()
    });
    assert!(matches!(e, ViewError::InvalidFilter(_)), "{e:?}");
    let e = bad(MessageFilter {
        q: Some("?! --".into()),
        ..MessageFilter::default()
    });
    assert_eq!(e.code(), "invalid_filter");
}

#[test]
fn text_search_finds_words_in_the_text_and_the_reference_without_reading_syntax() {
    let w = world();
    let mut a = new_message(
        "+33612345678",
        "Your order 4217 has shipped",
        MessageKind::Transactional,
    );
    a.client_ref = Some("CRM-2024-77".into());
    let a = w.add(a);
    let b = w.add(new_message(
        "+33612345678",
        "Votre commande a été expédiée",
        MessageKind::Transactional,
    ));
    let c = w.add(new_message(
        "+33612345678",
        "Code: 918273 (valid 5 min)",
        MessageKind::Otp,
    ));
    let search = |q: &str| {
        w.all_ids(
            &MessageFilter {
                q: Some(q.into()),
                ..MessageFilter::default()
            },
            50,
        )
    };
    assert_eq!(search("order"), vec![a]);
    assert_eq!(
        search("ORD"),
        vec![a],
        "case is ignored; a word may be the start of one"
    );
    assert_eq!(search("shipped order"), vec![a], "every word must occur, in any order");
    assert_eq!(search("2024-77"), vec![a], "the client reference is searched");
    assert_eq!(search("crm"), vec![a]);
    assert_eq!(search("ete expediee"), vec![b], "accents are ignored");
    assert_eq!(search("été"), vec![b]);
    assert_eq!(search("9182"), vec![c]);
    assert_eq!(search("5"), vec![c], "a single digit is a whole word");
    assert_eq!(search("9"), Vec::<i64>::new(), "and never the start of a longer one");
    assert_eq!(search("y"), Vec::<i64>::new());
    assert_eq!(search("order commande"), Vec::<i64>::new());
    for (syntax, found) in [
        ("\"order", vec![a]),
        ("order\"", vec![a]),
        ("NOT order", vec![]),
        ("order OR code", vec![]),
        ("body:order", vec![]),
        ("(order", vec![a]),
        ("order*", vec![a]),
    ] {
        assert_eq!(
            search(syntax),
            found,
            "{syntax:?} is read as words, never as query syntax"
        );
    }
    let nothing_to_find = w.store.reader().read_blocking(|conn| {
        list_messages(
            conn,
            &MessageFilter {
                q: Some("* \"\"".into()),
                ..MessageFilter::default()
            },
        )
    });
    assert!(matches!(nothing_to_find, Err(ViewError::InvalidFilter(_))));
    // The index agrees with the message table it is built from.
    w.write(|tx| {
        tx.sql_for_tests().execute(
            "INSERT INTO message_fts (message_fts, rank) VALUES ('integrity-check', 1)",
            [],
        )?;
        Ok(())
    });
}

#[test]
fn the_destination_filter_is_an_exact_number_or_a_prefix() {
    assert_eq!(
        destination("+33 6 12-34.56 (78)"),
        Some(Destination::Exact("+33612345678".into()))
    );
    assert_eq!(
        destination("0033612345678"),
        Some(Destination::Exact("+33612345678".into()))
    );
    assert_eq!(
        destination("33612345678"),
        Some(Destination::Exact("+33612345678".into()))
    );
    assert_eq!(destination("+3361*"), Some(Destination::Prefix("+3361".into())));
    assert_eq!(destination("  "), None);

    let w = world();
    let a = w.add(new_message("+33612345678", "a", MessageKind::Otp));
    let b = w.add(new_message("+33612345679", "b", MessageKind::Otp));
    let ids = |d: &str| {
        w.all_ids(
            &MessageFilter {
                destination: Some(d.into()),
                ..MessageFilter::default()
            },
            50,
        )
    };
    assert_eq!(ids("+33 6 12 34 56 78"), vec![a]);
    assert_eq!(ids("+3361234567*"), vec![b, a]);
    assert_eq!(
        ids("+3361234567"),
        Vec::<i64>::new(),
        "without * the number must be whole"
    );
}

#[test]
fn each_page_is_driven_by_an_index_and_never_sorted() {
    let w = world();
    mixed(&w);
    let cases: Vec<(MessageFilter, &str)> = vec![
        (MessageFilter::default(), "SEARCH m USING INTEGER PRIMARY KEY"),
        (
            MessageFilter {
                status: Some(QueueStatus::Failed),
                kind: Some(MessageKind::Otp),
                ..MessageFilter::default()
            },
            "queue_status_message",
        ),
        (
            MessageFilter {
                state: Some(DeliveryState::Delivered),
                ..MessageFilter::default()
            },
            "projection_state",
        ),
        (
            MessageFilter {
                destination: Some("+33612345678".into()),
                status: Some(QueueStatus::Failed),
                ..MessageFilter::default()
            },
            "message_destination",
        ),
        (
            MessageFilter {
                q: Some("order".into()),
                state: Some(DeliveryState::Pending),
                ..MessageFilter::default()
            },
            "VIRTUAL TABLE",
        ),
        (
            MessageFilter {
                from_ms: Some(1),
                to_ms: Some(i64::MAX),
                ..MessageFilter::default()
            },
            "SEARCH m USING INTEGER PRIMARY KEY (rowid>? AND rowid<?)",
        ),
        (
            MessageFilter {
                status: Some(QueueStatus::Accepted),
                from_ms: Some(1),
                ..MessageFilter::default()
            },
            "queue_status_message (status=? AND message_id>? AND message_id<?)",
        ),
    ];
    for (f, index) in cases {
        let plans = w.read(|c| query_plans(c, &f));
        let text = plans.join(" | ");
        assert!(text.contains(index), "{f:?} must be driven by {index}: {text}");
        assert!(!text.contains("TEMP B-TREE"), "{f:?} must not sort: {text}");
        assert!(
            !text.contains("SCAN q") && !text.contains("SCAN p"),
            "{f:?} must look up, not scan, the joined tables: {text}"
        );
    }
}

/// A destination prefix whose range holds no more than the budget is driven by that range of
/// `message_destination`: counted in the covering index, its ids sorted (the only sort, inside the
/// range's subquery), then its rows read newest first; never a scan of the message table.
#[test]
fn a_destination_prefix_is_driven_by_its_range_of_the_destination_index() {
    let w = world();
    mixed(&w);
    for f in [
        MessageFilter {
            destination: Some("+33*".into()),
            from_ms: Some(1),
            channel: Some(IntakeChannel::Csv),
            ..MessageFilter::default()
        },
        MessageFilter {
            destination: Some("+3361234*".into()),
            ..MessageFilter::default()
        },
        MessageFilter {
            destination: Some("+336*".into()),
            status: Some(QueueStatus::Accepted),
            cursor: Some(cursor::encode("messages", 5)),
            ..MessageFilter::default()
        },
    ] {
        let plans = w.read(|c| query_plans(c, &f));
        let text = plans.join(" | ");
        let range = "SEARCH m USING COVERING INDEX message_destination (destination>? AND destination<?)";
        assert_eq!(text.matches(range).count(), 2, "{f:?}: the count, then the ids: {text}");
        assert_eq!(text.matches("TEMP B-TREE").count(), 1, "{f:?}: one sort: {text}");
        let rows = text.find("SCAN d").expect("the sorted ids drive the rows");
        assert!(
            text.find("TEMP B-TREE").unwrap() < rows,
            "{f:?}: the ids are sorted, not the rows: {text}"
        );
        assert!(
            !text.contains("SCAN m") && !text.contains("SCAN q") && !text.contains("SCAN p"),
            "{f:?} scans nothing but its range: {text}"
        );
    }
}

/// A prefix that matches a few old messages among many newer ones lists them on the first page,
/// and one whose many matches are all older than the budget reaches still gives a page that is
/// not empty; either way every match comes once, in order.
#[test]
fn a_prefix_finds_old_matches_behind_many_newer_messages_on_the_first_page() {
    let w = world();
    let rare: Vec<i64> = (0..3)
        .map(|i| w.add(new_message(&format!("+3365999000{i}"), "old", MessageKind::Otp)))
        .collect();
    let many: Vec<i64> = (0..15)
        .map(|i| w.add(new_message(&format!("+3365888{i:04}"), "old", MessageKind::Bulk)))
        .collect();
    for i in 0..40 {
        w.add(new_message(&format!("+3361000{i:04}"), "new", MessageKind::Bulk));
    }
    let pages = |f: &MessageFilter| {
        let mut f = f.clone();
        let mut pages = Vec::new();
        loop {
            let page = w.read(|c| list_with_budget(c, &f, 10));
            pages.push((page.items.iter().map(|m| m.id).collect::<Vec<_>>(), page.scan_limited));
            match page.next_cursor {
                Some(c) => f.cursor = Some(c),
                None => return pages,
            }
        }
    };
    let newest_first = |ids: &[i64]| ids.iter().rev().copied().collect::<Vec<_>>();

    let f = MessageFilter {
        destination: Some("+3365999*".into()),
        ..MessageFilter::default()
    };
    assert_eq!(
        pages(&f),
        vec![(newest_first(&rare), false)],
        "all three at once, nothing more to scan"
    );

    let f = MessageFilter {
        destination: Some("+3365888*".into()),
        ..MessageFilter::default()
    };
    let ordered = newest_first(&many);
    assert_eq!(
        pages(&f),
        vec![(ordered.clone(), false)],
        "the newest ten messages hold none: the range's newest make the page instead"
    );
    let f = MessageFilter {
        kind: Some(MessageKind::Bulk),
        ..f
    };
    assert_eq!(
        pages(&f),
        vec![(ordered[..10].to_vec(), true), (ordered[10..].to_vec(), false)],
        "with another filter to check, the range's newest ten (the budget), then the rest"
    );

    // With another filter, the range's ids still lead: every match once.
    let f = MessageFilter {
        destination: Some("+33659*".into()),
        kind: Some(MessageKind::Otp),
        ..MessageFilter::default()
    };
    assert_eq!(
        pages(&f).into_iter().flat_map(|p| p.0).collect::<Vec<_>>(),
        newest_first(&rare)
    );
    let f = MessageFilter {
        destination: Some("+33658*".into()),
        limit: Some(4),
        ..MessageFilter::default()
    };
    assert_eq!(
        pages(&f).into_iter().flat_map(|p| p.0).collect::<Vec<_>>(),
        newest_first(&many)
    );
    let f = MessageFilter {
        destination: Some("+33*".into()),
        kind: Some(MessageKind::Otp),
        ..MessageFilter::default()
    };
    let got = pages(&f);
    assert_eq!(
        got.iter().flat_map(|p| p.0.clone()).collect::<Vec<_>>(),
        newest_first(&rare)
    );
    assert!(
        got.iter().any(|(_, limited)| *limited),
        "a dense prefix keeps to its budget: {got:?}"
    );
    let nothing = MessageFilter {
        destination: Some("+4*".into()),
        ..MessageFilter::default()
    };
    assert_eq!(pages(&nothing), vec![(vec![], false)], "an empty range answers at once");
    let counted = w.read(|c| {
        count_messages(
            c,
            &MessageFilter {
                destination: Some("+3365888*".into()),
                ..MessageFilter::default()
            },
        )
    });
    assert_eq!(counted, 15);
}

#[test]
fn a_date_range_stays_exact_after_the_clock_was_set_back() {
    let w = world();
    let (t1, t2) = mixed(&w);
    let dates = |w: &World| {
        let facts = facts(w);
        for (from, to) in [
            (Some(t1), Some(t2)),
            (Some(t2), None),
            (None, Some(t1)),
            (Some(t1 - 1_000_000), None),
        ] {
            let f = MessageFilter {
                from_ms: from,
                to_ms: to,
                ..MessageFilter::default()
            };
            assert_eq!(w.all_ids(&f, 4), expected(&facts, &f), "{f:?}");
        }
    };
    let backwards = |w: &World| -> i64 {
        w.read(|c| {
            Ok(c.query_row(
                "SELECT coalesce(max(n), 0) FROM view_count WHERE scope = 'clock' AND value = 'backwards'",
                [],
                |r| r.get(0),
            )?)
        })
    };
    assert_eq!(backwards(&w), 0, "creation times have followed ids so far");
    dates(&w);

    // A message stamped before the second batch (the clock was set back), written after all.
    w.write(move |tx| {
        tx.sql_for_tests().execute(
            "INSERT INTO message (created_at, channel, destination_raw, destination, body, encoding, segments, kind,
                 priority, registered_delivery, connection)
             VALUES (?1, 'api', '+33600000000', '+33600000000', 'late clock', 'gsm7', 1, 'otp', 5, 1, 'sandbox')",
            [t2 - 1],
        )?;
        let id = tx.sql_for_tests().last_insert_rowid();
        tx.count_for_tests(Delta::Created { id, created_at: t2 - 1 });
        tx.sql_for_tests().execute(
            "INSERT INTO queue (message_id, status, priority, next_attempt_at, updated_at)
             VALUES (?1, 'queued', 5, 0, 0)",
            [id],
        )?;
        tx.count_for_tests(Delta::Queue {
            status: QueueStatus::Queued,
            n: 1,
        });
        Ok(())
    });
    assert_eq!(backwards(&w), 1, "the step back is noticed");
    dates(&w);
    let between = MessageFilter {
        from_ms: Some(t1),
        to_ms: Some(t2),
        ..MessageFilter::default()
    };
    assert_eq!(
        w.page(&between).items[0].preview,
        "late clock",
        "a message stamped inside the range is listed even though its id is outside it"
    );
}

#[test]
fn an_export_writes_every_match_in_rows_that_follow_the_header_and_the_count_agrees() {
    let w = world();
    let (t1, _) = mixed(&w);
    let facts = facts(&w);
    let filters = [
        MessageFilter::default(),
        MessageFilter {
            status: Some(QueueStatus::Accepted),
            ..MessageFilter::default()
        },
        MessageFilter {
            q: Some("order".into()),
            from_ms: Some(t1),
            ..MessageFilter::default()
        },
        MessageFilter {
            state: Some(DeliveryState::Pending),
            kind: Some(MessageKind::Otp),
            ..MessageFilter::default()
        },
    ];
    for filter in filters {
        let want = expected(&facts, &filter);
        assert_eq!(
            w.read(|c| count_messages(c, &filter)),
            want.len() as u64,
            "count of {filter:?}"
        );
        let mut f = MessageFilter {
            limit: Some(4),
            ..filter.clone()
        };
        let mut rows = Vec::new();
        loop {
            let page = w.read(|c| export_page(c, &f));
            rows.extend(page.rows);
            match page.next_cursor {
                Some(c) => f.cursor = Some(c),
                None => break,
            }
        }
        assert!(
            rows.iter().all(|r| r.len() == EXPORT_COLUMNS.len()),
            "every row fits the header"
        );
        let ids: Vec<i64> = rows.iter().map(|r| r[0].parse().unwrap()).collect();
        assert_eq!(ids, want, "the export of {filter:?} holds every match once");
    }

    let col = |name: &str| EXPORT_COLUMNS.iter().position(|c| *c == name).unwrap();
    let accepted = w.read(|c| {
        export_page(
            c,
            &MessageFilter {
                state: Some(DeliveryState::Delivered),
                limit: Some(1),
                ..MessageFilter::default()
            },
        )
    });
    let row = &accepted.rows[0];
    let id: i64 = row[col("id")].parse().unwrap();
    let d = w.detail(id);
    assert_eq!(row[col("body")], d.message.body, "the full text, not the preview");
    assert_eq!(row[col("provider_message_ids")], d.queue.provider_message_ids.join(" "));
    assert_eq!(
        row[col("accepted_at")],
        crate::clock::format_rfc3339(d.queue.accepted_at_ms.unwrap())
    );
    assert_eq!(row[col("state")], "delivered");
    assert_eq!(row[col("status")], "accepted");
    assert_eq!(
        row[col("created_at")],
        crate::clock::format_rfc3339(d.message.created_at_ms)
    );
    let failed = w.read(|c| {
        export_page(
            c,
            &MessageFilter {
                status: Some(QueueStatus::Failed),
                limit: Some(1),
                ..MessageFilter::default()
            },
        )
    });
    assert!(
        failed.rows[0][col("last_error")].contains("ESME_RINVDSTADR"),
        "{:?}",
        failed.rows[0]
    );
}

// ---- Exceptions ----

#[test]
fn the_exception_queue_shows_each_exception_with_its_evidence_and_guesses_nothing() {
    let w = world();
    let m = w.add(new_message("+33612345678", "hello", MessageKind::Transactional));
    w.accept(m, "X1");
    let first = w.dlr("X1", "DELIVRD");
    let second = w.dlr("X1", "EXPIRED");
    let stray = w.dlr("NO-SUCH-ID", "DELIVRD");
    let unsure = w.add(new_message("+33612345670", "hi", MessageKind::Otp));
    w.submit(unsure, SubmitResult::Timeout { written_at: None });

    let conflict = w.open_exception(ExceptionKind::ConflictingFinal);
    let uncorrelated = w.open_exception(ExceptionKind::Uncorrelated);
    let unknown = w.open_exception(ExceptionKind::OutcomeUnknown);

    let d = w.read(|c| exception_detail(c, conflict, 0)).unwrap();
    assert_eq!(d.exception.message_id, Some(m));
    assert_eq!(d.exception.destination.as_deref(), Some("+33612345678"));
    assert_eq!(d.message.as_ref().map(|s| s.id), Some(m));
    let roles: Vec<(&str, Option<i64>)> = d
        .evidence
        .iter()
        .map(|e| (e.role.as_str(), e.receipt.as_ref().map(|r| r.id)))
        .collect();
    assert_eq!(
        roles,
        vec![
            ("materialised_final", Some(first.receipt_id)),
            ("conflicting_final", Some(second.receipt_id))
        ],
        "both finals side by side"
    );
    assert_eq!(
        d.evidence[1].receipt.as_ref().unwrap().reported_state,
        Some(DeliveryState::Expired)
    );

    let d = w.read(|c| exception_detail(c, uncorrelated, 0)).unwrap();
    assert!(d.message.is_none(), "no message is guessed for an uncorrelated receipt");
    let r = d.evidence[0].receipt.as_ref().unwrap();
    assert_eq!(r.id, stray.receipt_id);
    assert_eq!((r.correlation, r.message_id), (Some(Correlation::None), None));
    assert_eq!(r.fields.message_id_raw.as_deref(), Some("NO-SUCH-ID"));

    let d = w.read(|c| exception_detail(c, unknown, 0)).unwrap();
    assert_eq!(d.message.as_ref().map(|s| s.status), Some(QueueStatus::OutcomeUnknown));
    let a = d.evidence[0].attempt.as_ref().expect("the unanswered attempt");
    assert_eq!(
        (d.evidence[0].role.as_str(), a.outcome),
        ("unanswered", AttemptOutcome::Timeout)
    );
    assert!(d.evidence[0].receipt.is_none());

    assert!(w.read(|c| exception_detail(c, 9_999, 0)).is_none());

    // Pages, newest first, by status and kind.
    let list = |f: ExceptionFilter| w.read(move |c| list_exceptions(c, &f));
    let all = list(ExceptionFilter::default());
    assert_eq!(
        all.items.iter().map(|e| e.id).collect::<Vec<_>>(),
        vec![unknown, uncorrelated, conflict]
    );
    let first_page = list(ExceptionFilter {
        limit: Some(2),
        ..ExceptionFilter::default()
    });
    assert_eq!(first_page.items.len(), 2);
    let rest = list(ExceptionFilter {
        limit: Some(2),
        cursor: first_page.next_cursor.clone(),
        ..ExceptionFilter::default()
    });
    assert_eq!(rest.items.iter().map(|e| e.id).collect::<Vec<_>>(), vec![conflict]);
    assert!(rest.next_cursor.is_none());
    w.resolve(Resolution {
        exception_id: uncorrelated,
        action: Action::Dismiss,
        note: "test traffic from the provider".into(),
        actor: "ann".into(),
    });
    let open = list(ExceptionFilter {
        status: Some(ExceptionStatus::Open),
        ..ExceptionFilter::default()
    });
    assert_eq!(
        open.items.iter().map(|e| e.id).collect::<Vec<_>>(),
        vec![unknown, conflict]
    );
    let dismissed = list(ExceptionFilter {
        status: Some(ExceptionStatus::Dismissed),
        kind: Some(ExceptionKind::Uncorrelated),
        ..ExceptionFilter::default()
    });
    assert_eq!(
        dismissed.items[0].resolution_note.as_deref(),
        Some("test traffic from the provider")
    );
    let by_kind = list(ExceptionFilter {
        kind: Some(ExceptionKind::OutcomeUnknown),
        ..ExceptionFilter::default()
    });
    assert_eq!(by_kind.items.iter().map(|e| e.id).collect::<Vec<_>>(), vec![unknown]);
    let bad = w
        .store
        .reader()
        .read_blocking(|c| {
            list_exceptions(
                c,
                &ExceptionFilter {
                    cursor: Some(cursor::encode("messages", 3)),
                    ..ExceptionFilter::default()
                },
            )
        })
        .unwrap_err();
    assert!(matches!(bad, ViewError::InvalidCursor { list: "exceptions" }));
}

#[test]
fn an_attached_receipt_and_its_exception_show_on_the_message() {
    let w = world();
    let m = w.add(new_message("+33612345678", "hello", MessageKind::Transactional));
    w.accept(m, "REAL");
    let stray = w.dlr("TYPO", "DELIVRD");
    let ex = w.open_exception(ExceptionKind::Uncorrelated);
    w.resolve(Resolution {
        exception_id: ex,
        action: Action::Attach {
            message_id: m,
            mismatches_seen: true,
        },
        note: "the provider confirmed the id was mistyped".into(),
        actor: "ann".into(),
    });
    let d = w.detail(m);
    assert_eq!(
        d.receipts.iter().map(|r| r.id).collect::<Vec<_>>(),
        vec![stray.receipt_id]
    );
    assert_eq!(d.receipts[0].correlated_by.as_deref(), Some("operator"));
    assert_eq!(d.exceptions.iter().map(|e| e.id).collect::<Vec<_>>(), vec![ex]);
    assert_eq!(d.state.state, DeliveryState::Delivered);
    let e = w.read(|c| exception_detail(c, ex, 0)).unwrap();
    assert_eq!(
        e.message.map(|s| s.id),
        Some(m),
        "once attached, the exception shows the message it was attached to"
    );
}

// ---- Dashboard and audit ----

type Counts = Vec<(String, i64)>;

#[test]
fn the_dashboard_counts_agree_with_the_tables_as_they_change() {
    let w = world();
    mixed(&w);
    // Change some statuses and states after the fact.
    let queued = w.add(new_message("+33612345678", "later", MessageKind::Otp));
    w.accept(queued, "LATE1");
    w.dlr("LATE1", "ENROUTE");
    w.dlr("LATE1", "DELIVRD");

    let now = crate::clock::Clock::system().now_ms();
    let d = w.read(|c| dashboard_at(c, now, 120));
    let (by_status, by_state, open, total): (Counts, Counts, Counts, i64) = w.read(|c| {
        let group = |sql: &str| -> Result<Vec<(String, i64)>, ViewError> {
            let mut s = c.prepare(sql)?;
            let rows = s.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
            Ok(rows.collect::<Result<_, _>>()?)
        };
        Ok((
            group("SELECT status, count(*) FROM queue GROUP BY status")?,
            group(
                "SELECT coalesce(p.state, 'pending'), count(*) FROM message m
                     LEFT JOIN projection p ON p.message_id = m.id GROUP BY 1",
            )?,
            group("SELECT kind, count(*) FROM exception WHERE status = 'open' GROUP BY kind")?,
            c.query_row("SELECT count(*) FROM message", [], |r| r.get(0))?,
        ))
    });
    let count_of = |pairs: &[(String, i64)], key: &str| pairs.iter().find(|(k, _)| k == key).map_or(0, |p| p.1);
    for q in &d.queue {
        assert_eq!(q.count, count_of(&by_status, q.status.as_str()), "queue {}", q.status);
    }
    assert_eq!(d.queue.len(), QueueStatus::ALL.len(), "every status is listed");
    for s in &d.states {
        assert_eq!(s.count, count_of(&by_state, s.state.as_str()), "state {}", s.state);
    }
    for e in &d.open_exceptions {
        assert_eq!(e.count, count_of(&open, e.kind.as_str()), "open {}", e.kind);
    }
    assert_eq!(d.messages_total, total);
    assert_eq!(d.created_last_24h, total);
    assert_eq!(d.open_exceptions_total, open.iter().map(|p| p.1).sum::<i64>());
    assert!(d.open_exceptions_total > 0 && count_of(&by_state, "delivered") > 0);

    // "Today" starts at local midnight.
    let offset = 120 * 60_000;
    assert_eq!((d.today_start_ms + offset) % 86_400_000, 0);
    assert!(d.today_start_ms <= now && now - d.today_start_ms < 86_400_000);
    let tomorrow = w.read(|c| dashboard_at(c, d.today_start_ms + 86_400_000 + 1, 120));
    assert_eq!(tomorrow.created_today, 0, "nothing was created tomorrow");
}

#[test]
fn the_audit_log_pages_newest_first() {
    let w = world();
    let ids: Vec<i64> = (0..5)
        .map(|i| w.add(new_message("+33612345678", &format!("m{i}"), MessageKind::Bulk)))
        .collect();
    for &id in &ids {
        w.write(move |tx| {
            queue::cancel(tx, id, "ann", "customer called").map_err(|e| StoreError::Corrupt(e.to_string()))
        });
    }
    let first = w.read(|c| audit_log(c, None, Some(2)));
    assert_eq!(first.items.len(), 2);
    assert_eq!(first.items[0].subject_id, Some(ids[4]), "newest first");
    assert_eq!(
        (first.items[0].actor.as_str(), &first.items[0].action),
        ("ann", &RecordedAction::Known(AuditAction::MessageCancel))
    );
    assert_eq!(first.items[0].note.as_deref(), Some("customer called"));
    let mut cursor = first.next_cursor.clone();
    let mut subjects: Vec<i64> = first.items.iter().filter_map(|e| e.subject_id).collect();
    while let Some(c) = cursor {
        let page = w.read(|conn| audit_log(conn, Some(&c), Some(2)));
        subjects.extend(page.items.iter().filter_map(|e| e.subject_id));
        cursor = page.next_cursor;
    }
    let mut expected = ids.clone();
    expected.reverse();
    assert_eq!(subjects, expected, "every entry once, newest first");

    let d = w.detail(ids[0]);
    let last = d.timeline.last().unwrap();
    assert_eq!(last.kind, TimelineKind::Audit);
    assert_eq!(last.summary, "ann cancelled the message: \"customer called\".");
}

// ---- Shapes ----

#[test]
fn views_speak_snake_case_milliseconds_and_typescript_numbers() {
    let w = world();
    let id = w.add(new_message("+33612345678", "hello", MessageKind::Otp));
    let json = serde_json::to_value(w.detail(id)).unwrap();
    for path in [
        "/message/created_at_ms",
        "/message/valid_until_ms",
        "/message/scheduled_at_ms",
        "/queue/next_attempt_at_ms",
        "/state/rules_version",
        "/timeline/0/at_ms",
    ] {
        assert!(json.pointer(path).is_some(), "{path} is missing from {json}");
    }
    let f: MessageFilter =
        serde_json::from_value(serde_json::json!({ "status": "outcome_unknown", "limit": 10 })).unwrap();
    assert_eq!(
        (f.status, f.limit, f.cursor),
        (Some(QueueStatus::OutcomeUnknown), Some(10), None)
    );

    use ts_rs::TS;
    for decl in [
        MessageSummary::decl(),
        MessageFilter::decl(),
        MessagePage::decl(),
        MessageDetail::decl(),
        MessageRecord::decl(),
        QueueView::decl(),
        StateView::decl(),
        OperatorDecision::decl(),
        AttemptView::decl(),
        ReceiptView::decl(),
        TimelineEntry::decl(),
        ExceptionSummary::decl(),
        ExceptionDetail::decl(),
        ExceptionPage::decl(),
        EvidenceItem::decl(),
        Dashboard::decl(),
        AuditEntry::decl(),
        AuditPage::decl(),
    ] {
        assert!(!decl.contains("bigint"), "TypeScript gets numbers, not bigint: {decl}");
    }
}

// ---- Charts (activity) ----

mod charts {
    use rusqlite::params;

    use super::*;
    use crate::clock::from_civil;
    use crate::receipts::project;
    use crate::receipts::rules::{Projection, Rule};
    use crate::store::checks;
    use crate::store::tables::NewReceipt;

    const MIN: i64 = 60_000;
    const DAY: i64 = 86_400_000;

    mod report_tests;

    /// 2026-11-02 10:00:00 UTC: the start of a minute, an hour and (minus ten hours) a day.
    fn t0() -> i64 {
        from_civil(2026, 11, 2, 10, 0, 0)
    }

    /// Rows written at chosen times, so buckets and latencies are known exactly: messages,
    /// attempts and logical events with plain SQL (the schema's triggers keep the attempts'
    /// totals; a message records its own, as intake does), receipts through the receipt log and
    /// projections through `project::save`, which record theirs as the engine's own writes do.
    struct Rows<'t, 'c> {
        tx: &'t mut WriteTx<'c>,
        next: i64,
    }

    impl Rows<'_, '_> {
        fn message(&mut self, at: i64, status: &str) -> i64 {
            self.next += 1;
            let id = self.next;
            self.tx
                .sql_for_tests()
                .execute(
                    "INSERT INTO message (id, created_at, channel, destination_raw, destination, body, encoding,
                         segments, kind, priority, registered_delivery, connection)
                     VALUES (?1, ?2, 'api', '+33612345678', '+33612345678', 'hi', 'gsm7', 1, 'transactional', 15, 1,
                         'sandbox')",
                    params![id, at],
                )
                .unwrap();
            self.tx.count_for_tests(Delta::Created { id, created_at: at });
            self.tx.report_changed_for_tests(id);
            self.tx
                .sql_for_tests()
                .execute(
                    "INSERT INTO queue (message_id, status, priority, next_attempt_at, lease_owner, updated_at)
                     VALUES (?1, ?2, 15, ?3, CASE WHEN ?2 = 'sending' THEN 'test' END, ?3)",
                    params![id, status, at],
                )
                .unwrap();
            self.tx.count_for_tests(Delta::Queue {
                status: status.parse().unwrap(),
                n: 1,
            });
            id
        }

        fn attempt(&mut self, m: i64, no: i64, at: i64, responded: Option<i64>, outcome: &str) -> i64 {
            self.tx.report_changed_for_tests(m);
            self.tx.count_for_tests(Delta::Tried {
                created_at: at,
                outcome: outcome.parse().unwrap(),
                n: 1,
            });
            let c = self.tx.sql_for_tests();
            c.execute(
                "INSERT INTO attempt (message_id, attempt_no, connection, created_at, sent_at, responded_at,
                         provider_message_id, provider_id_norm, outcome)
                     VALUES (?1, ?2, 'sandbox', ?3, ?3, ?4, ?5, ?5, ?6)",
                params![m, no, at, responded, format!("P{m}"), outcome],
            )
            .unwrap();
            let id = c.last_insert_rowid();
            if outcome == "accepted" {
                // As `decisions::record_accepted` keeps the last accepted submit on the queue row.
                c.execute(
                    "UPDATE queue SET accepted_attempt_id = ?2, accepted_at = coalesce(?3, ?4) WHERE message_id = ?1",
                    params![m, id, responded, at],
                )
                .unwrap();
            }
            id
        }

        /// A report received at `at`; a new logical event for `m` unless `repeat_of` names one.
        fn receipt(&mut self, m: Option<i64>, stat: &str, kind: ReceiptKind, at: i64, repeat_of: Option<i64>) -> i64 {
            let rid = self
                .tx
                .receipts()
                .append(&NewReceipt {
                    received_at: at,
                    connection: "sandbox".into(),
                    raw: vec![0],
                    kind: Some(kind),
                    parser_version: 1,
                    fields: crate::receipts::fields::ReceiptFields {
                        stat: crate::receipts::parse::Stat::from_token(stat),
                        ..Default::default()
                    },
                    ..NewReceipt::default()
                })
                .unwrap();
            let kind = kind.as_str();
            let event = match repeat_of {
                Some(e) => e,
                None => {
                    self.tx
                        .sql_for_tests()
                        .execute(
                            "INSERT INTO logical_event (connection, dedup_key, key_source, stat, receipt_kind,
                                 first_receipt_id, created_at, correlation, message_id)
                             VALUES ('sandbox', ?1, 'fingerprint', ?2, ?3, ?4, ?5,
                                 CASE WHEN ?6 IS NULL THEN 'none' ELSE 'matched' END, ?6)",
                            params![format!("k{rid}"), stat, kind, rid, at, m],
                        )
                        .unwrap();
                    self.tx.sql_for_tests().last_insert_rowid()
                }
            };
            self.tx
                .sql_for_tests()
                .execute(
                    "INSERT INTO receipt_outcome (receipt_id, logical_event_id, is_repeat, processed_at)
                     VALUES (?1, ?2, ?3, ?4)",
                    params![rid, event, repeat_of.is_some(), at],
                )
                .unwrap();
            event
        }

        /// Stores a message's projection in place of the one it has.
        fn project(&mut self, m: i64, state: DeliveryState, rule: Rule, supporting: &[i64], no_receipt: bool) {
            let before = project::stored(self.tx.sql_for_tests(), m).unwrap();
            let after = Projection {
                state,
                rule,
                supporting: supporting.to_vec(),
                no_receipt,
                ..Projection::default()
            };
            project::save(self.tx, m, before.as_ref(), &after).unwrap();
        }

        fn set_status(&mut self, m: i64, status: &str) {
            let before: String = self
                .tx
                .sql_for_tests()
                .query_row("SELECT status FROM queue WHERE message_id = ?1", [m], |r| r.get(0))
                .unwrap();
            self.tx
                .sql_for_tests()
                .execute("UPDATE queue SET status = ?2 WHERE message_id = ?1", params![m, status])
                .unwrap();
            self.tx.report_changed_for_tests(m);
            for (status, n) in [(before.as_str(), -1), (status, 1)] {
                self.tx.count_for_tests(Delta::Queue {
                    status: status.parse().unwrap(),
                    n,
                });
            }
        }
    }

    /// The latencies of the 19 first finals in minute 2 (the last is kept as 120 s: two digits).
    const LATENCIES: [i64; 19] = [
        250, 1_000, 2_000, 3_000, 4_000, 5_000, 6_000, 7_000, 8_000, 9_000, 10_000, 11_000, 12_000, 13_000, 14_000,
        15_000, 16_000, 17_000, 123_456,
    ];

    /// Submits and receipts in minutes 0-2 after t0, and the outcomes of two days' messages.
    fn seed(tx: &mut WriteTx<'_>) {
        let t0 = t0();
        let mut rows = Rows { tx, next: 0 };
        // Minute 0: 19 accepted submits; their first finals all arrive at 2:30.
        let finals_at = t0 + 2 * MIN + 30_000;
        let mut first_event = None;
        for latency in LATENCIES {
            let m = rows.message(t0 + 1_000, "accepted");
            rows.attempt(m, 1, t0 + 1_000, Some(finals_at - latency), "accepted");
            let e = rows.receipt(Some(m), "DELIVRD", ReceiptKind::Receipt, finals_at, None);
            rows.project(m, DeliveryState::Delivered, Rule::FirstFinal, &[e], false);
            first_event.get_or_insert(e);
        }
        // Minute 1: refused, throttled then accepted, no answer; one still waiting for its answer.
        let refused = rows.message(t0 + MIN, "failed");
        rows.attempt(refused, 1, t0 + MIN + 1_000, Some(t0 + MIN + 1_040), "permanent");
        let retried = rows.message(t0 + MIN, "accepted");
        rows.attempt(retried, 1, t0 + MIN + 2_000, Some(t0 + MIN + 2_040), "throttled");
        rows.attempt(retried, 2, t0 + MIN + 3_000, Some(t0 + MIN + 3_040), "accepted");
        let e = rows.receipt(
            Some(retried),
            "ENROUTE",
            ReceiptKind::Intermediate,
            t0 + MIN + 9_000,
            None,
        );
        rows.project(retried, DeliveryState::Enroute, Rule::Intermediate, &[e], false);
        let unanswered = rows.message(t0 + MIN, "outcome_unknown");
        let a = rows.attempt(unanswered, 1, t0 + MIN + 4_000, None, "pending");
        rows.tx
            .sql_for_tests()
            .execute("UPDATE attempt SET outcome = 'timeout' WHERE id = ?1", [a])
            .unwrap();
        rows.tx.count_for_tests(Delta::Tried {
            created_at: t0 + MIN + 4_000,
            outcome: AttemptOutcome::Timeout,
            n: 1,
        });
        let waiting = rows.message(t0 + MIN, "sending");
        rows.attempt(waiting, 1, t0 + MIN + 5_000, None, "pending");
        // Minute 2: a repeat of a final (counted as received, not as a final), and an incoming SMS
        // (not a receipt at all).
        rows.receipt(
            Some(1),
            "DELIVRD",
            ReceiptKind::Receipt,
            t0 + 2 * MIN + 40_000,
            first_event,
        );
        rows.receipt(None, "", ReceiptKind::Mo, t0 + 2 * MIN + 41_000, None);

        // Outcomes of messages created earlier today (at 08:00) and yesterday.
        let today = t0 - 2 * 3_600_000;
        let failed = rows.message(today, "accepted");
        let e = rows.receipt(Some(failed), "UNDELIV", ReceiptKind::Receipt, today + 5_000, None);
        rows.project(failed, DeliveryState::Undeliverable, Rule::FirstFinal, &[e], false);
        let expired = rows.message(today, "accepted");
        let e = rows.receipt(Some(expired), "EXPIRED", ReceiptKind::Receipt, today + 5_000, None);
        rows.project(expired, DeliveryState::Expired, Rule::FirstFinal, &[e], false);
        rows.message(today, "failed");
        let late = rows.message(today, "accepted");
        rows.attempt(late, 1, today, Some(today + 40), "accepted");
        rows.project(late, DeliveryState::Pending, Rule::NoReport, &[], true);
        let e = rows.receipt(Some(late), "DELIVRD", ReceiptKind::Receipt, today + 7_000_040, None);
        rows.project(late, DeliveryState::Delivered, Rule::FirstFinal, &[e], false);
        let overdue = rows.message(today, "accepted");
        rows.project(overdue, DeliveryState::Pending, Rule::NoReport, &[], true);
        let decided = rows.message(today, "outcome_unknown");
        rows.project(decided, DeliveryState::Delivered, Rule::OperatorDecision, &[], false);
        let retry = rows.message(today, "failed");
        rows.set_status(retry, "queued");
        let cancelled = rows.message(today, "queued");
        rows.set_status(cancelled, "cancelled");
        let yesterday = rows.message(today - DAY, "accepted");
        let e = rows.receipt(
            Some(yesterday),
            "DELIVRD",
            ReceiptKind::Receipt,
            today - DAY + 3_000,
            None,
        );
        rows.project(yesterday, DeliveryState::Delivered, Rule::FirstFinal, &[e], false);
    }

    fn seeded() -> World {
        let w = world();
        w.write(|tx| {
            seed(tx);
            Ok(())
        });
        w
    }

    #[test]
    fn latencies_are_kept_to_two_significant_digits_and_percentiles_are_nearest_rank() {
        use super::super::activity::percentile;
        use crate::store::totals::latency_bin;
        let bins: Vec<i64> = [0, 7, 99, 123, 999, 1_234, 12_345, 123_456, 1_234_567, 98_765_432]
            .into_iter()
            .map(latency_bin)
            .collect();
        assert_eq!(
            bins,
            [0, 7, 99, 120, 990, 1_200, 12_000, 120_000, 1_200_000, 98_000_000]
        );
        assert_eq!(percentile(&[], 50), None, "no samples, no percentile");
        assert_eq!(percentile(&[(5, 1)], 95), Some(5));
        let h = [(10, 4), (20, 5), (30, 1)];
        assert_eq!(percentile(&h, 50), Some(20), "the 5th of 10 samples");
        assert_eq!(percentile(&h, 40), Some(10), "the 4th of 10 samples");
        assert_eq!(percentile(&h, 95), Some(30), "the 10th of 10 samples");
    }

    #[test]
    fn the_pace_counts_what_will_be_sent_and_the_submits_accepted_this_minute_and_the_last() {
        let w = seeded();
        let now = t0() + MIN + 30_000;
        let (tomorrow, in_an_hour) = (now + 24 * 60 * MIN, now + 60 * MIN);
        w.write(move |tx| {
            let mut rows = Rows { tx, next: 1_000 };
            rows.message(t0(), "held");
            // Queued, but not due yet: scheduled for tomorrow, and a retry in an hour.
            rows.message(tomorrow, "queued");
            rows.message(in_an_hour, "queued");
            Ok(())
        });
        let p = w.read(|c| pace_counts(c, now));
        let d = w.read(|c| dashboard_at(c, now, 0));
        let count = |status: QueueStatus| d.queue.iter().find(|q| q.status == status).unwrap().count;
        assert_eq!(
            p.due + p.scheduled,
            count(QueueStatus::Queued) + count(QueueStatus::Sending),
            "the dashboard's queued and sending are the pace's due and scheduled; a held message waits for a person"
        );
        assert_eq!((p.due, p.scheduled, count(QueueStatus::Held)), (2, 2, 1));
        assert_eq!(p.next_scheduled_at_ms, Some(in_an_hour), "the first of them");
        assert_eq!(
            (p.accepted_previous_minute, p.accepted_this_minute),
            (19, 1),
            "minute 0's accepted submits, and minute 1's so far (a throttled try is not one)"
        );
        let tomorrow_at = w.read(|c| pace_counts(c, tomorrow));
        assert_eq!(
            (tomorrow_at.due, tomorrow_at.scheduled, tomorrow_at.next_scheduled_at_ms),
            (4, 0, None),
            "at its time a scheduled message is due"
        );
        let later = w.read(|c| pace_counts(c, t0() + 5 * MIN));
        assert_eq!((later.accepted_previous_minute, later.accepted_this_minute), (0, 0));
    }

    #[test]
    fn the_hour_window_counts_each_minute_apart() {
        let w = seeded();
        let now = t0() + 2 * MIN + 45_000;
        let a = w.read(|c| activity_at(c, ActivityWindow::Hour, now));
        assert_eq!((a.bucket_ms, a.buckets.len()), (MIN, 60));
        assert_eq!(a.to_ms, t0() + 3 * MIN, "the window ends with the current minute");
        assert_eq!(a.from_ms, t0() + 3 * MIN - 60 * MIN);
        for (i, b) in a.buckets.iter().enumerate() {
            assert_eq!(
                b.start_ms,
                a.from_ms + i as i64 * MIN,
                "buckets are consecutive minutes"
            );
        }
        let [m0, m1, m2] = [&a.buckets[57], &a.buckets[58], &a.buckets[59]];
        assert_eq!(m0.start_ms, t0());
        assert_eq!(
            (m0.accepted, m0.refused, m0.unknown, m0.receipts, m0.finals),
            (19, 0, 0, 0, 0),
            "submits count in the minute they were written, not when answered"
        );
        assert_eq!(
            (m1.accepted, m1.refused, m1.unknown, m1.receipts, m1.finals),
            (1, 2, 1, 1, 0),
            "throttled and permanent are refused; a timeout is unknown; a pending attempt counts nowhere; \
             an intermediate is a receipt but not a final"
        );
        assert_eq!(
            (m2.accepted, m2.refused, m2.unknown, m2.receipts, m2.finals),
            (0, 0, 0, 20, 19),
            "a repeat is a receipt received but not a second final; an incoming SMS is not a receipt"
        );
        assert_eq!((m2.latency_p50_ms, m2.latency_p95_ms), (Some(9_000), Some(120_000)));
        assert_eq!(
            (m1.latency_p50_ms, m1.latency_p95_ms),
            (None, None),
            "no finals, no latency"
        );
        // 09:56:40, in the hour window's 54th minute: the final of a message sent at 08:00.
        let late = &a.buckets[53];
        assert_eq!(late.start_ms, t0() - 4 * MIN);
        assert_eq!(
            (late.receipts, late.finals, late.latency_p95_ms),
            (1, 1, Some(7_000_000))
        );
        let rest: i64 = a.buckets[..57]
            .iter()
            .map(|b| b.accepted + b.refused + b.unknown + b.receipts + b.finals)
            .sum();
        assert_eq!(rest, 2, "nothing else happened earlier in the hour");
    }

    #[test]
    fn the_day_and_month_windows_sum_the_same_events_by_hour_and_by_day() {
        let w = seeded();
        let now = t0() + 2 * MIN + 45_000;
        let day = w.read(|c| activity_at(c, ActivityWindow::Day, now));
        assert_eq!((day.bucket_ms, day.buckets.len()), (3_600_000, 24));
        let h10 = day.buckets[23];
        assert_eq!(h10.start_ms, t0());
        assert_eq!(
            (h10.accepted, h10.refused, h10.unknown, h10.receipts, h10.finals),
            (20, 2, 1, 21, 19)
        );
        assert_eq!((h10.latency_p50_ms, h10.latency_p95_ms), (Some(9_000), Some(120_000)));
        let h08 = day.buckets[21];
        assert_eq!(
            (h08.accepted, h08.receipts, h08.finals),
            (1, 2, 0),
            "08:00: the late message's accepted submit, two finals without an accepted submit"
        );
        // The late message's final came at 09:56:40, 7,000 s after its submit: 7.0e6 ms.
        let h09 = day.buckets[22];
        assert_eq!((h09.receipts, h09.finals, h09.latency_p50_ms), (1, 1, Some(7_000_000)));

        let month = w.read(|c| activity_at(c, ActivityWindow::Month, now));
        assert_eq!((month.bucket_ms, month.buckets.len()), (DAY, 30));
        let today = month.buckets[29];
        assert_eq!(today.start_ms, t0() - 10 * 3_600_000, "days start at UTC midnight");
        assert_eq!(
            (
                today.accepted,
                today.refused,
                today.unknown,
                today.receipts,
                today.finals
            ),
            (21, 2, 1, 24, 20)
        );
        assert_eq!(
            (today.latency_p50_ms, today.latency_p95_ms),
            (Some(9_000), Some(120_000)),
            "the 10th and 19th of the day's 20 latencies"
        );
        assert_eq!(
            (month.buckets[28].receipts, month.buckets[28].finals),
            (1, 0),
            "yesterday's final had no accepted submit to measure from"
        );
    }

    #[test]
    fn outcomes_by_day_follow_each_message_to_where_it_stands_now() {
        let w = seeded();
        let now = t0() + 2 * MIN + 45_000;
        let a = w.read(|c| activity_at(c, ActivityWindow::Hour, now));
        assert_eq!(a.days.len(), OUTCOME_DAYS);
        let today = a.days[29];
        assert_eq!(today.day_ms, t0() - 10 * 3_600_000);
        assert_eq!(
            today,
            DayOutcomes {
                day_ms: today.day_ms,
                created: 19 + 4 + 8,
                // The 19 of minute 0, and the one whose final came after the no-receipt deadline.
                delivered: 20,
                failed: 1,
                expired: 1,
                no_receipt: 1,
                // Failed in the queue (twice: one of minute 1, one of 08:00) and the cancelled one;
                // the one an operator retried is pending again.
                not_sent: 3,
                decided: 1,
                // Minute 1's retried (enroute), unanswered and sending; the retried one of 08:00.
                pending: 4,
            }
        );
        assert_eq!(
            (a.days[28].created, a.days[28].delivered, a.days[28].pending),
            (1, 1, 0)
        );
        assert!(
            a.days[..28].iter().all(|d| *d
                == DayOutcomes {
                    day_ms: d.day_ms,
                    ..DayOutcomes::default()
                }),
            "nothing was created before yesterday"
        );
    }

    /// The statements that fill the totals of an existing database when version 5 is applied
    /// must agree with what the triggers and the writer keep.
    #[test]
    fn upgrading_an_existing_database_computes_the_same_totals_as_are_kept() {
        let w = seeded();
        let (kept, recomputed) = w.write(|tx| {
            Ok((
                checks::totals_stored(tx.sql_for_tests())?,
                checks::totals_recomputed(tx.sql_for_tests())?,
            ))
        });
        assert!(kept.len() > 40, "the fixture fills the totals");
        assert_eq!(
            kept, recomputed,
            "the totals kept as rows were written must equal the ones recomputed from the rows"
        );
    }

    /// The engine's own write paths (intake, the dispatcher's records, receipt ingestion) feed
    /// the totals.
    #[test]
    fn the_engines_writes_feed_the_charts() {
        let w = world();
        let sent = w.add(new_message("+33612345678", "one", MessageKind::Transactional));
        let refused = w.add(new_message("+33612345679", "two", MessageKind::Transactional));
        w.add(new_message("+33612345670", "three", MessageKind::Transactional));
        w.accept(sent, "AB12");
        w.refuse(refused, 0x0B);
        let (submitted_at, responded_at, created_at): (i64, i64, i64) = w.read(|c| {
            Ok(c.query_row(
                "SELECT a.created_at, a.responded_at, m.created_at FROM attempt a JOIN message m ON m.id = a.message_id
                 WHERE a.message_id = ?1",
                [sent],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )?)
        });
        let received_at = responded_at + 4_200;
        let got = w
            .ingest
            .smpp_blocking(SmppReceived {
                connection: CONN.into(),
                esm_class: Some(4),
                short_message: receipt_text("AB12", "DELIVRD").into_bytes(),
                received_at,
                ..SmppReceived::default()
            })
            .unwrap();
        assert!(
            matches!(got.outcome, crate::receipts::ingest::Outcome::Applied { .. }),
            "the receipt is applied: {got:?}"
        );

        let a = w.read(|c| activity_at(c, ActivityWindow::Day, received_at));
        let total = |f: fn(&ActivityBucket) -> i64| a.buckets.iter().map(f).sum::<i64>();
        assert_eq!(
            [
                total(|b| b.accepted),
                total(|b| b.refused),
                total(|b| b.unknown),
                total(|b| b.receipts)
            ],
            [1, 1, 0, 1]
        );
        let at = |t: i64| {
            a.buckets
                .iter()
                .find(|b| b.start_ms <= t && t < b.start_ms + a.bucket_ms)
                .unwrap()
        };
        assert_eq!(at(submitted_at).accepted, 1, "the submit counts when it was written");
        let b = at(received_at);
        assert_eq!(
            (b.receipts, b.finals, b.latency_p50_ms, b.latency_p95_ms),
            (1, 1, Some(4_200), Some(4_200)),
            "latency runs from the accepted submit's answer to the receipt's arrival"
        );
        let day = a
            .days
            .iter()
            .find(|d| d.day_ms == created_at - created_at % DAY)
            .expect("today is among the days");
        assert_eq!(
            (day.created, day.delivered, day.not_sent, day.pending),
            (3, 1, 1, 1),
            "one reported delivered, one refused for good, one still queued"
        );
    }
}

// ---- Candidates ----

#[test]
fn a_receipt_that_matched_nothing_and_a_try_whose_outcome_is_unknown_show_each_other_with_every_fact() {
    use super::CandidateField;
    let w = world();
    let held = w.add(new_message(
        "+33612345678",
        "Your code is 4821, valid 5 minutes",
        MessageKind::Transactional,
    ));
    w.submit(held, SubmitResult::Timeout { written_at: None });
    let other = w.add(new_message(
        "+33699999999",
        "Something else",
        MessageKind::Transactional,
    ));
    w.submit(other, SubmitResult::Timeout { written_at: None });
    // Submitted within the minute, the handset and the text echo of the held message.
    let (y, mo, d, h, mi, _) = crate::clock::civil(crate::clock::Clock::system().now_ms());
    let text = format!(
        "id:GHOST1 sub:001 dlvrd:001 submit date:{:02}{mo:02}{d:02}{h:02}{mi:02} done date:{:02}{mo:02}{d:02}{h:02}{mi:02} stat:DELIVRD err:000 text:Your code is 4821, v",
        y % 100,
        y % 100
    );
    w.smpp(&text, vec![], None);
    let uncorrelated = w.open_exception(ExceptionKind::Uncorrelated);

    let d = w.read(|c| exception_detail(c, uncorrelated, 0)).unwrap();
    assert_eq!(
        d.candidates.iter().map(|c| c.attempt.message_id).collect::<Vec<_>>(),
        vec![other, held],
        "every try whose outcome is unknown on the connection, newest first; none chosen"
    );
    let facts = |m: i64| {
        d.candidates
            .iter()
            .find(|c| c.attempt.message_id == m)
            .unwrap()
            .facts
            .iter()
            .map(|f| (f.field, f.agrees))
            .collect::<Vec<_>>()
    };
    assert_eq!(
        facts(held),
        vec![
            (CandidateField::SubmitTime, true),
            (CandidateField::Text, true),
            (CandidateField::Destination, true)
        ]
    );
    assert_eq!(
        facts(other),
        vec![
            (CandidateField::SubmitTime, true),
            (CandidateField::Text, false),
            (CandidateField::Destination, false)
        ]
    );
    let unknown = w.read(|c| {
        c.query_row(
            "SELECT id FROM exception WHERE kind = 'outcome_unknown' AND message_id = ?1",
            [held],
            |r| r.get::<_, i64>(0),
        )
        .map_err(|e| ViewError::Store(e.into()))
    });
    let d = w.read(|c| exception_detail(c, unknown, 0)).unwrap();
    assert_eq!(
        d.candidates
            .iter()
            .map(|c| c.receipt.fields.message_id_raw.clone())
            .collect::<Vec<_>>(),
        vec![Some("GHOST1".to_owned())],
        "and the other way round"
    );
    assert_eq!(d.message.map(|m| m.id), Some(held));
}
