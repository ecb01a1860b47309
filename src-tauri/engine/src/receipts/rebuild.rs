//! Recomputes projections from the logs: for each message, fold what entered its projection (in
//! the order it was applied), with every event's facts re-derived from the stored receipts, and
//! compare with (or replace) the stored projection.

use crate::store::Reads;

use super::facts::event_facts;
use super::policy::ReceiptPolicy;
use super::project;
use super::rules::{fold, Input, RULES_VERSION};
use crate::domain::DeliveryState;
use crate::store::tables::projection;
use crate::store::{Store, StoreError, WriteTx};

pub use crate::store::tables::projection::{how_many as count, messages_after};

/// What one rebuild pass found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RebuildReport {
    pub messages: usize,
    /// Messages whose stored projection differed from the recomputed one.
    pub differing: Vec<i64>,
}

/// The inputs of a message's projection, rebuilt from the logs.
pub fn inputs(conn: &impl Reads, message_id: i64, policy: &ReceiptPolicy) -> Result<Vec<Input>, StoreError> {
    let rows = projection::input_rows(conn, message_id)?;
    let mut out = Vec::with_capacity(rows.len());
    for row in rows {
        let projection::InputRow {
            kind,
            logical_event_id: event,
            exception_id: exception,
            exception_kind: ex_kind,
            resolution,
        } = row;
        match (kind.as_str(), event, exception) {
            ("event", Some(e), _) => {
                if let Some(f) = event_facts(conn, e, message_id, policy)? {
                    out.push(Input::Event(f));
                }
            }
            ("deadline", _, Some(x)) => out.push(Input::Deadline { exception: x }),
            ("decision", _, Some(x)) => {
                let state = resolution
                    .as_deref()
                    .and_then(|r| r.strip_prefix("state:"))
                    .and_then(|s| s.parse::<DeliveryState>().ok());
                let kind = ex_kind.ok_or_else(|| StoreError::Corrupt(format!("decision on missing exception {x}")))?;
                out.push(Input::Decision {
                    exception: x,
                    kind,
                    state,
                });
            }
            _ => {
                return Err(StoreError::Corrupt(format!(
                    "projection input of message {message_id} is malformed"
                )))
            }
        }
    }
    Ok(out)
}

/// Rebuilds the projections of `messages`; with `write`, stores the recomputed ones that differ.
pub fn rebuild_batch(
    tx: &mut WriteTx<'_>,
    messages: &[i64],
    policy: &ReceiptPolicy,
    write: bool,
) -> Result<Vec<i64>, StoreError> {
    let settings = policy.rules();
    let mut differing = Vec::new();
    for &m in messages {
        let recomputed = fold(&inputs(&*tx, m, policy)?, settings);
        let row = project::stored(&*tx, m)?;
        let stored = row.as_ref().map(|r| r.fold.clone()).unwrap_or_default();
        if recomputed != stored {
            differing.push(m);
            if write {
                project::save(tx, m, row.as_ref(), &recomputed)?;
            }
        }
    }
    Ok(differing)
}

/// Puts on the work list of [`wanted`] every projection computed by rules older than these (its
/// `rules_version`): bumping [`RULES_VERSION`] makes the next start rebuild them from the evidence.
/// Returns how many were added.
pub fn older_rules(tx: &mut WriteTx<'_>) -> Result<usize, StoreError> {
    projection::want_rebuilt_before(tx, RULES_VERSION)
}

/// Rebuilds, from their evidence, the projections on the work list (`rebuild_wanted`: what a
/// migration or [`older_rules`] put there), at most `limit` in this transaction; returns how many
/// it looked at and how many changed.
pub fn wanted(tx: &mut WriteTx<'_>, policy: &ReceiptPolicy, limit: u32) -> Result<(usize, usize), StoreError> {
    let batch = projection::rebuild_wanted(tx, limit)?;
    let changed = rebuild_batch(tx, &batch, policy, true)?.len();
    // Those that came out the same are now these rules' too.
    projection::rebuilt(tx, &batch, RULES_VERSION)?;
    Ok((batch.len(), changed))
}

/// Compares the delivery report's sums with a recount from the messages (and with `write`,
/// replaces them by it); returns how many of its rows by hour differed.
pub fn report_sums(store: &Store, write: bool) -> Result<usize, StoreError> {
    store
        .writer()
        .write_blocking(move |tx| crate::store::reports::check(tx, write))
}

/// Rebuilds every projection, `batch` messages per transaction, reporting progress as
/// (done, total). With `write` false it only compares.
pub fn run(
    store: &Store,
    policy: &ReceiptPolicy,
    write: bool,
    mut progress: impl FnMut(usize, usize),
) -> Result<RebuildReport, StoreError> {
    const BATCH: u32 = 2_000;
    let total = store.reader().read_blocking(count)?;
    let mut report = RebuildReport::default();
    let mut after = 0;
    loop {
        let batch = store.reader().read_blocking(|c| messages_after(c, after, BATCH))?;
        let Some(&last) = batch.last() else { break };
        let (p, n) = (policy.clone(), batch.len());
        let differing = store
            .writer()
            .write_blocking(move |tx| rebuild_batch(tx, &batch, &p, write))?;
        report.differing.extend(differing);
        report.messages += n;
        after = last;
        progress(report.messages, total);
    }
    Ok(report)
}

#[cfg(test)]
mod tests {
    //! A database of schema 8 opened by this version: the migration, then the rebuild it asks for.

    use rusqlite::Connection;

    use crate::receipts::policy::ReceiptPolicy;
    use crate::store::migrations;
    use crate::store::pragmas::{self, Role};
    use crate::store::{Store, StoreError};

    /// Version 9 on a version 8 database: every row kept, a try's receipt request taken from its
    /// message, a one-time code queued without a validity given the default one, a long message
    /// marked accepted after its first part held for a person, and the projections of long messages
    /// listed for a rebuild by the new rules, which rolls their parts up.
    #[test]
    fn version_9_keeps_every_row_and_settles_what_earlier_versions_got_wrong_about_long_messages() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("smsdesk.db");
        {
            let mut c = Connection::open(&path).unwrap();
            pragmas::apply(&c, Role::Writer).unwrap();
            migrations::migrate_to(&mut c, 8, &crate::clock::Clock::system()).unwrap();
            // 1: two parts, each accepted, part 1 reported delivered and part 2 undeliverable (version
            // 1 of the rules saw a conflict); 2: an OTP still queued, no validity; 3: three parts
            // marked accepted after part 1, parts 2 and 3 never sent.
            c.execute_batch(
                "INSERT INTO message (id, created_at, channel, destination_raw, destination, body, encoding, segments,
                     kind, priority, registered_delivery, connection)
                 VALUES (1, 10, 'api', '+33600000001', '+33600000001', 'one', 'gsm7', 2, 'bulk', 3, 1, 'sandbox'),
                        (2, 20, 'api', '+33600000002', '+33600000002', '1234', 'gsm7', 1, 'otp', 0, 17, 'sandbox'),
                        (3, 30, 'api', '+33600000003', '+33600000003', 'three', 'gsm7', 3, 'bulk', 3, 1, 'sandbox');
                 INSERT INTO queue (message_id, status, priority, next_attempt_at, updated_at)
                 VALUES (1, 'accepted', 35, 0, 12), (2, 'queued', 0, 0, 20), (3, 'accepted', 35, 0, 32);
                 INSERT INTO attempt (id, message_id, attempt_no, segment_no, connection, created_at, responded_at,
                     provider_message_id, provider_id_norm, outcome)
                 VALUES (1, 1, 1, 1, 'sandbox', 11, 12, 'P1', 't:P1', 'accepted'),
                        (2, 1, 1, 2, 'sandbox', 11, 12, 'P2', 't:P2', 'accepted'),
                        (3, 3, 1, 1, 'sandbox', 31, 32, 'P3', 't:P3', 'accepted');
                 INSERT INTO receipt (id, received_at, source, connection, raw, raw_text, kind, parser_version,
                     message_id_raw, stat)
                 VALUES (1, 40, 'smpp_deliver_sm', 'sandbox', x'00', 'id:P1 stat:DELIVRD', 'receipt', 1, 'P1', 'DELIVRD'),
                        (2, 41, 'smpp_deliver_sm', 'sandbox', x'00', 'id:P2 stat:UNDELIV', 'receipt', 1, 'P2', 'UNDELIV');
                 INSERT INTO logical_event (id, connection, dedup_key, key_source, receipted_id_norm, stat, receipt_kind,
                     first_receipt_id, created_at, correlation, message_id, correlated_at, correlated_by)
                 VALUES (1, 'sandbox', 'k1', 'fingerprint', 't:P1', 'DELIVRD', 'receipt', 1, 40, 'matched', 1, 40, 'system'),
                        (2, 'sandbox', 'k2', 'fingerprint', 't:P2', 'UNDELIV', 'receipt', 2, 41, 'matched', 1, 41, 'system');
                 INSERT INTO receipt_outcome (receipt_id, logical_event_id, is_repeat, processed_at)
                 VALUES (1, 1, 0, 40), (2, 2, 0, 41);
                 INSERT INTO projection_input (message_id, kind, logical_event_id, applied_at)
                 VALUES (1, 'event', 1, 40), (1, 'event', 2, 41);
                 INSERT INTO projection (message_id, state, rule, supporting_json, flag_conflict, fold_json, rules_version,
                     updated_at)
                 VALUES (1, 'delivered', 'first_final', '[1]', 1,
                     '{\"state\":\"delivered\",\"rule\":\"first_final\",\"supporting\":[1],\"conflicting\":[2],\"conflict\":true}',
                     1, 41);",
            )
            .unwrap();
        }
        let store = Store::open(&path).unwrap();
        assert!(store.migration().applied.contains(&9));
        let read = |sql: &'static str| {
            store
                .reader()
                .read_blocking(move |c| {
                    let mut s = c.prepare(sql)?;
                    let n = s.column_count();
                    let rows = s
                        .query_map([], |r| {
                            (0..n)
                                .map(|i| r.get::<_, rusqlite::types::Value>(i))
                                .collect::<Result<Vec<_>, _>>()
                        })?
                        .collect::<Result<Vec<_>, _>>()?;
                    Ok::<_, StoreError>(rows)
                })
                .unwrap()
        };
        use rusqlite::types::Value::{Integer as I, Null, Text as T};
        assert_eq!(
            read("SELECT id, registered_delivery, outcome FROM attempt ORDER BY id"),
            vec![
                vec![I(1), I(1), T("accepted".into())],
                vec![I(2), I(1), T("accepted".into())],
                vec![I(3), I(1), T("accepted".into())]
            ],
            "every try kept, with its message's receipt request"
        );
        assert_eq!(
            read("SELECT message_id, expires_at FROM queue ORDER BY message_id"),
            vec![vec![I(1), Null], vec![I(2), I(20 + 300_000)], vec![I(3), Null]],
            "a code queued with no validity gets five minutes from its creation"
        );
        assert_eq!(
            read("SELECT q.status, x.kind, x.status FROM queue q JOIN exception x ON x.message_id = q.message_id"),
            vec![vec![
                T("outcome_unknown".into()),
                T("partly_sent".into()),
                T("open".into())
            ]],
            "the long message accepted after its first part is held for a person"
        );
        let (looked, changed) = store
            .writer()
            .write_blocking(|tx| super::wanted(tx, &ReceiptPolicy::default(), 100))
            .unwrap();
        assert_eq!((looked, changed), (1, 1));
        assert_eq!(
            read("SELECT state, rule, flag_conflict, rules_version FROM projection WHERE message_id = 1"),
            vec![vec![
                T("partially_delivered".into()),
                T("parts_final".into()),
                I(0),
                I(2)
            ]],
            "rebuilt by the new rules: delivered in part, and parts never conflict"
        );
        assert_eq!(
            read("SELECT count(*) FROM rebuild_wanted"),
            vec![vec![I(0)]],
            "the work list is emptied"
        );
        let integrity = read("PRAGMA integrity_check");
        assert_eq!(integrity, vec![vec![T("ok".into())]]);
    }
}
