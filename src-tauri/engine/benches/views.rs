//! The read models on a large database: N messages (a month of traffic: mostly accepted and
//! reported delivered, some failed, expired, cancelled, unknown or still queued; retries, repeats,
//! conflicts, uncorrelated receipts and their exceptions), written with plain SQL in big
//! transactions so the fixture takes seconds rather than the hours the real write path would.
//! Then every view is timed through the store's reader pool, as the API and UI call it, and the
//! median and 99th percentile of each are printed.
//!
//! With `today`, the same N messages are all created today (from UTC midnight to now; the last
//! ten minutes when the day is younger): what the dashboard's counts of the day cost when the day
//! is busy.
//!
//!   cargo bench -p smsdesk-engine --bench views [-- N [today]]     (default 1000000)

mod support;

use std::time::{Duration, Instant};

use rusqlite::{params, Connection};
use smsdesk_engine::domain::{DeliveryState, ExceptionStatus, IntakeChannel, MessageKind, QueueStatus};
use smsdesk_engine::receipts::rules::{Projection, Rule, RULES_VERSION};
use smsdesk_engine::views::{self, ActivityWindow, ExceptionFilter, MessageFilter, ViewError};
use smsdesk_store::{Store, Text};

fn now_ms() -> i64 {
    smsdesk_engine::clock::Clock::system().now_ms()
}

const DAY: i64 = 86_400_000;
const CONN: &str = "bench";

/// xorshift64*: the fixture is the same on every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

fn destination(n: u64) -> String {
    // 200,000 customers, French mobiles.
    format!("+336{:08}", (n % 200_000) * 499 % 100_000_000)
}

fn body(kind: MessageKind, i: usize, r: &mut Rng) -> (String, Option<String>) {
    match kind {
        MessageKind::Otp => (
            format!("Your login code is {:06}. It expires in 5 minutes.", r.below(1_000_000)),
            None,
        ),
        MessageKind::Transactional => {
            let order = 100_000 + i as u64 / 3;
            let text = match r.below(4) {
                0 => format!("Your order {order} has shipped and will arrive tomorrow."),
                1 => format!(
                    "Reminder: your appointment is on day {} at {}:00.",
                    1 + r.below(28),
                    8 + r.below(10)
                ),
                2 => format!("Parcel {order} is waiting for you at the locker on Rue Lafayette."),
                _ => format!("Votre commande {order} a été expédiée."),
            };
            (text, Some(format!("ORD-{order}")))
        }
        MessageKind::Bulk => (
            match r.below(3) {
                0 => "Spring sale: 20% off everything this weekend only. Reply STOP to opt out.".to_owned(),
                1 => "Our shop is closed on Monday for inventory. See you on Tuesday!".to_owned(),
                _ => "New arrivals in store now: come and see the summer collection.".to_owned(),
            },
            None,
        ),
    }
}

struct Seeder<'c> {
    c: &'c Connection,
    receipts: i64,
    events: i64,
    exceptions: i64,
    attempts: i64,
}

impl Seeder<'_> {
    #[allow(clippy::too_many_arguments)]
    fn attempt(
        &mut self,
        m: i64,
        no: u32,
        at: i64,
        status: Option<u32>,
        pid: Option<&str>,
        outcome: &str,
        error: Option<&str>,
    ) -> i64 {
        self.c
            .prepare_cached(
                "INSERT INTO attempt (message_id, attempt_no, segment_no, connection, session_id, sequence_number,
                     created_at, sent_at, responded_at, command_status, provider_message_id, provider_id_norm, outcome,
                     error)
                 VALUES (?1, ?2, 1, ?3, 'bench-1', ?4, ?5, ?5, ?6, ?7, ?8, lower(?8), ?9, ?10)",
            )
            .unwrap()
            .execute(params![
                m,
                no,
                CONN,
                m % 2_000_000_000,
                at,
                at + 40,
                status,
                pid,
                outcome,
                error
            ])
            .unwrap();
        self.attempts += 1;
        self.attempts
    }

    /// A receipt row and its outcome; a new logical event unless `repeat_of` names one.
    fn receipt(&mut self, m: Option<i64>, pid: &str, stat: &str, at: i64, repeat_of: Option<i64>) -> (i64, i64) {
        let text = format!(
            "id:{pid} sub:001 dlvrd:001 submit date:2605011200 done date:2605011201 stat:{stat} err:000 text:Your order"
        );
        let kind = if matches!(stat, "ENROUTE" | "ACCEPTD") {
            "intermediate"
        } else {
            "receipt"
        };
        self.c
            .prepare_cached(
                "INSERT INTO receipt (received_at, source, connection, session_id, sequence_number, source_addr,
                     destination_addr, raw, raw_text, esm_class, kind, parser_version, message_id_raw, stat, stat_raw,
                     err, sub, dlvrd, submit_date, done_date, submit_ts, done_ts)
                 VALUES (?1, 'smpp_deliver_sm', ?2, 'bench-1', ?3, '33612345678', 'SHOP', ?4, ?5, 4, ?6, 1, ?7, ?8, ?8,
                     '000', '001', '001', '2605011200', '2605011201', '2026-05-01T12:00:00', '2026-05-01T12:01:00')",
            )
            .unwrap()
            .execute(params![
                at,
                CONN,
                self.receipts % 2_000_000_000,
                text.as_bytes(),
                text,
                kind,
                pid,
                stat
            ])
            .unwrap();
        self.receipts += 1;
        let rid = self.receipts;
        let event = match repeat_of {
            Some(e) => e,
            None => {
                let (correlation, by) = if m.is_some() {
                    ("matched", Some("system"))
                } else {
                    ("none", None)
                };
                self.c
                    .prepare_cached(
                        "INSERT INTO logical_event (connection, dedup_key, key_source, receipted_id_norm, stat, err,
                             done_date, receipt_kind, first_receipt_id, created_at, correlation, message_id,
                             correlated_at, correlated_by)
                         VALUES (?1, ?2, 'fingerprint', lower(?3), ?4, '000', '2605011201', ?5, ?6, ?7, ?8, ?9,
                             CASE WHEN ?9 IS NULL THEN NULL ELSE ?7 END, ?10)",
                    )
                    .unwrap()
                    .execute(params![
                        CONN,
                        format!("fp1|t:{pid}|{stat}|{rid}"),
                        pid,
                        stat,
                        kind,
                        rid,
                        at,
                        correlation,
                        m,
                        by
                    ])
                    .unwrap();
                self.events += 1;
                self.events
            }
        };
        self.c
            .prepare_cached(
                "INSERT INTO receipt_outcome (receipt_id, logical_event_id, is_repeat, processed_at) VALUES (?1, ?2, ?3, ?4)",
            )
            .unwrap()
            .execute(params![rid, event, repeat_of.is_some(), at])
            .unwrap();
        if let (Some(m), None) = (m, repeat_of) {
            self.c
                .prepare_cached(
                    "INSERT INTO projection_input (message_id, kind, logical_event_id, applied_at) VALUES (?1, 'event', ?2, ?3)",
                )
                .unwrap()
                .execute(params![m, event, at])
                .unwrap();
        }
        (rid, event)
    }

    fn projection(&mut self, m: i64, p: &Projection, at: i64) {
        self.c
            .prepare_cached(
                "INSERT INTO projection (message_id, state, rule, supporting_json, flag_late, flag_conflict,
                     flag_no_receipt, flag_mismatch, flag_id_disagree, fold_json, rules_version, updated_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, 0, 0, ?8, ?9, ?10)",
            )
            .unwrap()
            .execute(params![
                m,
                Text(p.state),
                p.rule.as_str(),
                serde_json::to_string(&p.supporting).unwrap(),
                p.late,
                p.conflict,
                p.no_receipt,
                serde_json::to_string(p).unwrap(),
                RULES_VERSION,
                at
            ])
            .unwrap();
    }

    fn exception(&mut self, kind: &str, m: Option<i64>, event: Option<i64>, at: i64, summary: &str) -> i64 {
        self.c
            .prepare_cached(
                "INSERT INTO exception (kind, status, message_id, logical_event_id, summary, created_at)
                 VALUES (?1, 'open', ?2, ?3, ?4, ?5)",
            )
            .unwrap()
            .execute(params![kind, m, event, summary, at])
            .unwrap();
        self.exceptions += 1;
        self.exceptions
    }

    fn evidence(&mut self, x: i64, receipt: Option<i64>, attempt: Option<i64>, role: &str) {
        self.c
            .prepare_cached(
                "INSERT INTO exception_evidence (exception_id, receipt_id, attempt_id, role) VALUES (?1, ?2, ?3, ?4)",
            )
            .unwrap()
            .execute(params![x, receipt, attempt, role])
            .unwrap();
    }

    fn message(&mut self, i: usize, n: usize, (start, span): (i64, i64), r: &mut Rng) {
        let m = i as i64 + 1;
        let at = start + (i as i64) * span / n as i64;
        let kind = match r.below(10) {
            0 => MessageKind::Otp,
            1..=7 => MessageKind::Transactional,
            _ => MessageKind::Bulk,
        };
        let channel = match r.below(100) {
            0..=84 => IntakeChannel::Api,
            85..=94 => IntakeChannel::Csv,
            95..=98 => IntakeChannel::Compose,
            _ => IntakeChannel::Cli,
        };
        let (text, client_ref) = body(kind, i, r);
        let dest = destination(r.below(200_000));
        let priority = kind.priority() * 10 + 5;
        self.c
            .prepare_cached(
                "INSERT INTO message (id, created_at, channel, client_ref, destination_raw, destination, body, encoding,
                     segments, kind, priority, registered_delivery, connection)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?5, ?6, ?7, 1, ?8, ?9, 1, ?10)",
            )
            .unwrap()
            .execute(params![
                m,
                at,
                Text(channel),
                client_ref,
                dest,
                text,
                if text.is_ascii() { "gsm7" } else { "ucs2" },
                Text(kind),
                priority,
                CONN
            ])
            .unwrap();

        let roll = r.below(1000);
        let status = if i + 2_000 >= n {
            QueueStatus::Queued
        } else {
            match roll {
                0..=19 => QueueStatus::Failed,
                20..=29 => QueueStatus::Expired,
                30..=34 => QueueStatus::OutcomeUnknown,
                35..=39 => QueueStatus::Cancelled,
                _ => QueueStatus::Accepted,
            }
        };
        let mut tries = 0;
        let mut last_error: Option<String> = None;
        let pid = format!("{:X}", 0x5000_0000_u64 + m as u64);
        match status {
            QueueStatus::Accepted => {
                if r.below(100) < 3 {
                    self.attempt(
                        m,
                        1,
                        at,
                        Some(0x58),
                        None,
                        "throttled",
                        Some("ESME_RTHROTTLED (0x00000058)"),
                    );
                    tries += 1;
                }
                tries += 1;
                self.attempt(m, tries, at + 100, Some(0), Some(&pid), "accepted", None);
            }
            QueueStatus::Failed => {
                let error = "ESME_RINVDSTADR (0x0000000B): Invalid destination address (phone number)";
                self.attempt(m, 1, at, Some(0x0B), None, "permanent", Some(error));
                tries = 1;
                last_error = Some(error.to_owned());
            }
            QueueStatus::OutcomeUnknown => {
                let why = "no answer within the response timeout";
                let a = self.attempt(m, 1, at, None, None, "timeout", Some(why));
                tries = 1;
                last_error = Some(why.to_owned());
                let x = self.exception(
                    "outcome_unknown",
                    Some(m),
                    None,
                    at + 30_000,
                    "A submit was written but no answer came.",
                );
                self.evidence(x, None, Some(a), "unanswered");
            }
            QueueStatus::Expired => last_error = Some("its validity ended before it could be sent".to_owned()),
            QueueStatus::Cancelled => {
                last_error = Some("cancelled by an operator".to_owned());
                self.c
                    .prepare_cached(
                        "INSERT INTO audit (at, actor, action, subject_type, subject_id, note)
                         VALUES (?1, 'ann', 'message.cancel', 'message', ?2, 'customer called')",
                    )
                    .unwrap()
                    .execute(params![at + 1_000, m])
                    .unwrap();
            }
            _ => {}
        }
        self.c
            .prepare_cached(
                "INSERT INTO queue (message_id, status, priority, next_attempt_at, attempts, last_error, updated_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?4)",
            )
            .unwrap()
            .execute(params![m, Text(status), priority, at, tries, last_error])
            .unwrap();

        if status != QueueStatus::Accepted {
            return;
        }
        let later = at + 5_000 + r.below(60_000) as i64;
        let stat = match r.below(100) {
            0..=84 => "DELIVRD",
            85..=89 => "UNDELIV",
            90..=91 => "EXPIRED",
            92..=94 => "ENROUTE",
            _ => {
                // No receipt yet; half of those are past the deadline.
                if r.below(2) == 0 {
                    self.exception("no_receipt", Some(m), None, at + DAY, "No final receipt within 24 h.");
                    let p = Projection {
                        no_receipt: true,
                        ..Projection::default()
                    };
                    self.projection(m, &p, at + DAY);
                }
                return;
            }
        };
        let (rid, event) = self.receipt(Some(m), &pid, stat, later, None);
        let state = smsdesk_engine::receipts::rules::state_from_stat(stat.parse().expect("a status token"));
        let mut p = Projection {
            state,
            rule: if state.is_final() {
                Rule::FirstFinal
            } else {
                Rule::Intermediate
            },
            supporting: vec![event],
            ..Projection::default()
        };
        if r.below(100) == 0 {
            self.receipt(Some(m), &pid, stat, later + 2_000, Some(event));
        }
        if stat == "DELIVRD" && r.below(500) == 0 {
            let (rid2, event2) = self.receipt(Some(m), &pid, "UNDELIV", later + 9_000, None);
            p.conflicting = vec![event2];
            p.conflict = true;
            let x = self.exception(
                "conflicting_final",
                Some(m),
                None,
                later + 9_000,
                "Incompatible final receipts.",
            );
            self.evidence(x, Some(rid), None, "materialised_final");
            self.evidence(x, Some(rid2), None, "conflicting_final");
        }
        self.projection(m, &p, later);
        if r.below(1000) == 0 {
            let (stray, event) = self.receipt(None, "FFFFFFFF", "DELIVRD", later, None);
            let x = self.exception(
                "uncorrelated",
                None,
                Some(event),
                later,
                "No message has the provider id.",
            );
            self.evidence(x, Some(stray), None, "receipt");
        }
    }
}

/// When the fixture's messages are created: the last 30 days, or with `today` from UTC midnight
/// (at least the last ten minutes) to now.
fn times(today: bool) -> (i64, i64) {
    let now = now_ms();
    let span = match today {
        true => (now % DAY).max(10 * 60_000),
        false => 30 * DAY,
    };
    (now - span, span)
}

fn seed(path: &std::path::Path, n: usize, times: (i64, i64)) {
    let mut c = Connection::open(path).unwrap();
    c.execute_batch("PRAGMA journal_mode = WAL; PRAGMA synchronous = OFF; PRAGMA cache_size = -200000;")
        .unwrap();
    let mut r = Rng(0x9E37_79B9_7F4A_7C15);
    const CHUNK: usize = 50_000;
    let (mut receipts, mut events, mut exceptions, mut attempts) = (0, 0, 0, 0);
    for from in (0..n).step_by(CHUNK) {
        let tx = c.transaction().unwrap();
        let mut s = Seeder {
            c: &tx,
            receipts,
            events,
            exceptions,
            attempts,
        };
        for i in from..(from + CHUNK).min(n) {
            s.message(i, n, times, &mut r);
        }
        (receipts, events, exceptions, attempts) = (s.receipts, s.events, s.exceptions, s.attempts);
        tx.commit().unwrap();
    }
    // The engine keeps the dashboard's running totals as it writes, and indexes each
    // transaction's messages for text search as it commits; plain SQL leaves both to this.
    smsdesk_store::totals::refill(&c).unwrap();
    // And the delivery report's sums: what an existing database's upgrade to schema 26 computes.
    let t = Instant::now();
    smsdesk_store::reports::refill(&c).unwrap();
    let hours: i64 = c
        .query_row("SELECT count(*) FROM report_hour", [], |r| r.get(0))
        .unwrap();
    eprintln!(
        "views: report sums computed from {n} messages in {:.1} s ({hours} rows by hour)",
        t.elapsed().as_secs_f64()
    );
    c.execute_batch(
        "INSERT INTO message_fts (message_fts) VALUES ('rebuild');
         UPDATE search_indexed SET upto = (SELECT coalesce(max(id), 0) FROM message);",
    )
    .unwrap();
    c.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(())).unwrap();
    eprintln!("views: fixture has {attempts} attempts, {receipts} receipts, {exceptions} exceptions");
}

fn measure(name: &str, runs: usize, mut f: impl FnMut(usize) -> usize) {
    let mut rows = f(0);
    let mut times: Vec<Duration> = Vec::with_capacity(runs);
    for i in 0..runs {
        let t = Instant::now();
        rows = rows.max(f(i));
        times.push(t.elapsed());
    }
    times.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1_000.0;
    let median = times[runs / 2];
    let p99 = times[(runs * 99 / 100).min(runs - 1)];
    println!(
        "views: {name:<46} median {:>7.2} ms   p99 {:>7.2} ms   ({runs} runs, up to {rows} rows)",
        ms(median),
        ms(p99)
    );
}

/// The deadline sweep's search, once over the whole history (the frontier at 0, as a database
/// that never had one), then from the frontier the engine moves past what settled.
fn deadline_search(store: &Store, n: usize) {
    use smsdesk_engine::receipts::{deadline, policy::ReceiptPolicy};
    let reader = store.reader().clone();
    let search = || {
        let p = ReceiptPolicy::default();
        reader
            .read_blocking(move |c| deadline::due(c, now_ms(), &p, None, 1_000))
            .unwrap()
            .len()
    };
    // A running engine flags what is overdue once a minute: bring the fixture to that state, in
    // which a sweep finds nothing and has to read what it reads to be sure.
    let t = Instant::now();
    let mut flagged = 0;
    loop {
        let p = ReceiptPolicy::default();
        let now = now_ms();
        let due = reader
            .read_blocking(move |c| deadline::due(c, now, &p, None, 5_000))
            .unwrap();
        if due.is_empty() {
            break;
        }
        let p = ReceiptPolicy::default();
        flagged += store
            .writer()
            .write_blocking(move |tx| deadline::flag(tx, &due, now, &p))
            .unwrap();
    }
    println!(
        "views: {flagged} overdue messages flagged first, as a running engine would have ({:.1} s)",
        t.elapsed().as_secs_f64()
    );
    measure("deadline search, whole history", 3, |_| search());
    let t = Instant::now();
    let (mut frontier, mut steps) = (-1, 0);
    loop {
        let at = store
            .writer()
            .write_blocking(|tx| deadline::advance_frontier(tx, 50_000))
            .unwrap();
        steps += 1;
        if at == frontier {
            break;
        }
        frontier = at;
    }
    println!(
        "views: deadline frontier moved to {frontier} of {n} in {steps} steps of 50,000 ids, {:.0} ms in all",
        t.elapsed().as_secs_f64() * 1_000.0
    );
    measure("deadline search, from the frontier", 200, |_| search());
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).filter(|a| a != "--bench").collect();
    let n: usize = args.first().and_then(|a| a.parse().ok()).unwrap_or(1_000_000);
    let today = args.iter().any(|a| a == "today");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bench.db");
    // Create the schema (every migration, views included), then write the fixture directly.
    Store::open(&path).unwrap().shutdown();
    let t = Instant::now();
    seed(&path, n, times(today));
    let db_mib = std::fs::metadata(&path)
        .map(|m| m.len() as f64 / 1_048_576.0)
        .unwrap_or(0.0);
    eprintln!(
        "views: seeded {n} messages in {:.1} s ({db_mib:.0} MiB)",
        t.elapsed().as_secs_f64()
    );

    let store = Store::open(&path).unwrap();
    let reader = store.reader().clone();
    let list = |f: MessageFilter| -> usize {
        reader
            .read_blocking(move |c| views::list_messages(c, &f))
            .map(|p: views::MessagePage| p.items.len())
            .unwrap()
    };
    let filter = |edit: &dyn Fn(&mut MessageFilter)| {
        let mut f = MessageFilter::default();
        edit(&mut f);
        f
    };
    let mut r = Rng(42);
    let runs = 200;

    let created = match today {
        true => "all created today",
        false => "created over 30 days",
    };
    println!("views: {n} messages {created}, pages of 50, reader pool, warm page cache");
    measure("first page, no filter", runs, |_| list(MessageFilter::default()));
    let deep = {
        let mut f = MessageFilter::default();
        for _ in 0..20 {
            let c = reader.read_blocking(|c| views::list_messages(c, &f)).unwrap();
            f.cursor = c.next_cursor;
        }
        f
    };
    measure("21st page, no filter", runs, |_| list(deep.clone()));
    measure("status=failed", runs, |_| {
        list(filter(&|f| f.status = Some(QueueStatus::Failed)))
    });
    measure("status=outcome_unknown", runs, |_| {
        list(filter(&|f| f.status = Some(QueueStatus::OutcomeUnknown)))
    });
    measure("state=undeliverable", runs, |_| {
        list(filter(&|f| f.state = Some(DeliveryState::Undeliverable)))
    });
    measure("state=pending", runs, |_| {
        list(filter(&|f| f.state = Some(DeliveryState::Pending)))
    });
    measure("status=accepted, kind=otp", runs, |_| {
        list(filter(&|f| {
            f.status = Some(QueueStatus::Accepted);
            f.kind = Some(MessageKind::Otp);
        }))
    });
    measure("state=delivered, channel=cli (rare)", runs, |_| {
        list(filter(&|f| {
            f.state = Some(DeliveryState::Delivered);
            f.channel = Some(IntakeChannel::Cli);
        }))
    });
    measure("kind=bulk, created in one day, 2 weeks ago", runs, |_| {
        let to = now_ms() - 14 * DAY;
        list(filter(&|f| {
            f.kind = Some(MessageKind::Bulk);
            f.from_ms = Some(to - DAY);
            f.to_ms = Some(to);
        }))
    });
    measure("text \"order\", created in one day, 2 weeks ago", runs, |_| {
        let to = now_ms() - 14 * DAY;
        list(filter(&|f| {
            f.q = Some("order".to_owned());
            f.from_ms = Some(to - DAY);
            f.to_ms = Some(to);
        }))
    });
    // Words of the fixture's templates, each in many thousands of messages (in two languages),
    // then two of them together.
    let common = ["order", "appointment", "code", "expédiée"];
    measure("text search, common word", runs, |i| {
        let q = common[i % common.len()];
        list(filter(&|f| f.q = Some(q.to_owned())))
    });
    let pairs = [
        "reminder appointment",
        "sale weekend",
        "order shipped",
        "parcel lafayette",
    ];
    measure("text search, two words", runs, |i| {
        let q = pairs[i % pairs.len()];
        list(filter(&|f| f.q = Some(q.to_owned())))
    });
    measure("text search, two letters (worst case)", runs, |i| {
        let q = ["or", "sa", "co", "10"][i % 4];
        list(filter(&|f| f.q = Some(q.to_owned())))
    });
    measure("text search, one letter (a whole word)", runs, |i| {
        let q = ["s", "o", "a", "1"][i % 4];
        list(filter(&|f| f.q = Some(q.to_owned())))
    });
    measure("text search, rare word", runs, |i| {
        let q = format!("ORD-{}", 100_000 + (i * 1_607) % (n / 3).max(1));
        list(filter(&|f| f.q = Some(q.clone())))
    });
    measure("destination, exact", runs, |_| {
        let d = destination(r.below(200_000));
        list(filter(&|f| f.destination = Some(d.clone())))
    });
    measure("destination, prefix +3361* (10%)", runs, |_| {
        list(filter(&|f| f.destination = Some("+3361*".to_owned())))
    });
    measure("destination, prefix +33612* (1%)", runs, |_| {
        list(filter(&|f| f.destination = Some("+33612*".to_owned())))
    });
    measure("destination, prefix +3361234* (0.01%)", runs, |_| {
        list(filter(&|f| f.destination = Some("+3361234*".to_owned())))
    });
    measure("destination, rare prefix (~0.001%)", runs, |i| {
        let p = format!("+336{}*", 12_345 + (i % 50) * 1_717);
        list(filter(&|f| f.destination = Some(p.clone())))
    });
    measure("message detail", runs, |_| {
        let id = 1 + r.below(n as u64) as i64;
        reader
            .read_blocking(move |c| views::message_detail(c, id))
            .unwrap()
            .map_or(0, |d| d.attempts.len() + d.receipts.len() + d.timeline.len())
    });
    let conflicted: Vec<i64> = reader
        .read_blocking(|c| {
            let mut s = c.prepare("SELECT message_id FROM exception WHERE kind = 'conflicting_final' LIMIT 200")?;
            let ids = s.query_map([], |r| r.get(0))?.collect::<Result<Vec<i64>, _>>()?;
            Ok::<_, ViewError>(ids)
        })
        .unwrap();
    if !conflicted.is_empty() {
        measure("message detail, with a conflict", runs, |i| {
            let id = conflicted[i % conflicted.len()];
            reader
                .read_blocking(move |c| views::message_detail(c, id))
                .unwrap()
                .map_or(0, |d| d.timeline.len())
        });
    }
    measure("open exceptions, first page", runs, |_| {
        let f = ExceptionFilter {
            status: Some(ExceptionStatus::Open),
            ..ExceptionFilter::default()
        };
        reader
            .read_blocking(move |c| views::list_exceptions(c, &f))
            .unwrap()
            .items
            .len()
    });
    let exception_ids: Vec<i64> = reader
        .read_blocking(|c| {
            let mut s = c.prepare("SELECT id FROM exception ORDER BY random() LIMIT 200")?;
            let ids = s.query_map([], |r| r.get(0))?.collect::<Result<Vec<i64>, _>>()?;
            Ok::<_, ViewError>(ids)
        })
        .unwrap();
    measure("exception detail", runs, |i| {
        let id = exception_ids[i % exception_ids.len()];
        reader
            .read_blocking(move |c| views::exception_detail(c, id, 0))
            .unwrap()
            .map_or(0, |d| d.evidence.len())
    });
    measure("dashboard", runs, |_| {
        reader
            .read_blocking(move |c| views::dashboard_at(c, now_ms(), 0))
            .unwrap()
            .queue
            .len()
    });
    measure("dashboard, today from local midnight at +05:30", runs, |_| {
        reader
            .read_blocking(move |c| views::dashboard_at(c, now_ms(), 330))
            .unwrap()
            .queue
            .len()
    });
    let d = reader.read_blocking(|c| views::dashboard_at(c, now_ms(), 0)).unwrap();
    println!(
        "views: dashboard: {} messages, {} created today (UTC), {} in the last 24 h",
        d.messages_total, d.created_today, d.created_last_24h
    );
    for (by, days, step, name) in [
        ("country", 30, None, "report: 30 days by country"),
        ("connection", 30, None, "report: 30 days by connection"),
        (
            "connection,outcome",
            30,
            None,
            "report: 30 days by connection and outcome",
        ),
        (
            "sender",
            7,
            Some(views::ReportStep::Hour),
            "report: 7 days by sender, by hour",
        ),
    ] {
        let now = now_ms();
        let q = views::ReportQuery {
            from_ms: now - days * DAY,
            to_ms: now,
            by: Some(by.to_owned()),
            step,
            ..views::ReportQuery::default()
        };
        measure(name, runs, |_| {
            let q = q.clone();
            reader
                .read_blocking(move |c| views::delivery_report(c, &q))
                .unwrap()
                .groups
                .len()
        });
    }
    for (window, name) in [
        (ActivityWindow::Hour, "charts: last hour by minute"),
        (ActivityWindow::Day, "charts: last 24 h by hour"),
        (ActivityWindow::Month, "charts: last 30 days by day"),
    ] {
        measure(name, runs, |_| {
            let a = reader
                .read_blocking(move |c| views::activity_at(c, window, now_ms()))
                .unwrap();
            a.buckets.len() + a.days.len()
        });
    }
    let month = reader
        .read_blocking(|c| views::activity_at(c, ActivityWindow::Month, now_ms()))
        .unwrap();
    let total = |f: fn(&views::ActivityBucket) -> i64| month.buckets.iter().map(f).sum::<i64>();
    println!(
        "views: charts over 30 days: {} accepted, {} refused, {} unknown submits; {} receipts; {} finals; \
         outcomes of {} messages",
        total(|b| b.accepted),
        total(|b| b.refused),
        total(|b| b.unknown),
        total(|b| b.receipts),
        total(|b| b.finals),
        month.days.iter().map(|d| d.created).sum::<i64>()
    );
    deadline_search(&store, n);
    measure("audit log, first page", runs, |_| {
        reader
            .read_blocking(|c| views::audit_log(c, None, None))
            .unwrap()
            .items
            .len()
    });
    println!(
        "views: peak RSS {:.0} MiB, database {db_mib:.0} MiB",
        support::peak_rss_mib()
    );
    store.shutdown();
}
