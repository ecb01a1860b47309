//! How many tries a message had, as the list, the detail and a manual retry count them: every
//! try over every round of sending (an operator's retries start the queue's own count again, not
//! this one), a long message's most-tried part, and never a try the link did not write.

use super::tables::{attempt, message, queue};
use super::*;
use smsdesk_core::domain::{AttemptOutcome, IntakeChannel, MessageKind};
use smsdesk_core::message::NewMessage;

fn temp_store() -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("smsdesk.db")).unwrap();
    (dir, store)
}

fn new_message(store: &Store, text: &str) -> i64 {
    let m = NewMessage::text(
        IntakeChannel::Api,
        "+33612345613",
        text,
        MessageKind::Transactional,
        "sandbox",
    );
    store
        .writer()
        .write_blocking(move |tx| message::insert(tx, &m))
        .unwrap()
}

/// One try of part `segment`, ended as `outcome` (with ESME_RINVDSTADR when refused for good).
fn tried(store: &Store, id: i64, segment: u32, outcome: AttemptOutcome) {
    store
        .writer()
        .write_blocking(move |tx| {
            let a = attempt::begin_attempt(tx, id, segment, attempt::Wire::sandbox(), 1)?;
            let status = (outcome == AttemptOutcome::Permanent).then_some(0x0B);
            attempt::finish_attempt(tx, a.id, outcome, status, None, Some(tx.now_ms()))?;
            if outcome != AttemptOutcome::NotSent {
                queue::count_try(tx, id)?;
            }
            Ok::<_, StoreError>(())
        })
        .unwrap();
}

/// (the list's count, the queue's own count of this round, a retry's count)
fn counts(store: &Store, id: i64) -> (u32, u32, u32) {
    let d = store
        .reader()
        .read_blocking(move |c| views::message_detail(c, id))
        .unwrap()
        .unwrap();
    let facts = store
        .reader()
        .read_blocking(move |c| attempt::retry_facts(c, id))
        .unwrap()
        .unwrap();
    (d.summary.attempts, d.queue.attempts, facts.2)
}

#[test]
fn every_try_counts_across_an_operators_retry_but_not_one_never_written() {
    let (_dir, store) = temp_store();
    let id = new_message(&store, "hi");
    tried(&store, id, 1, AttemptOutcome::Permanent);
    assert_eq!(counts(&store, id), (1, 1, 1));
    store
        .writer()
        .write_blocking(move |tx| queue::queue_again(tx, id))
        .unwrap();
    tried(&store, id, 1, AttemptOutcome::NotSent);
    tried(&store, id, 1, AttemptOutcome::Permanent);
    assert_eq!(
        counts(&store, id),
        (2, 1, 2),
        "two tries went out (the second round's own count is 1); the one never written is none"
    );
}

#[test]
fn a_long_message_counts_its_most_tried_part() {
    let (_dir, store) = temp_store();
    let id = new_message(&store, &"x".repeat(200));
    tried(&store, id, 1, AttemptOutcome::Accepted);
    tried(&store, id, 2, AttemptOutcome::Throttled);
    tried(&store, id, 2, AttemptOutcome::Accepted);
    assert_eq!(counts(&store, id).0, 2, "part 2 was tried twice");
}

#[test]
fn the_last_try_refused_for_good_is_found_with_its_status() {
    let (_dir, store) = temp_store();
    let id = new_message(&store, "hi");
    let last = |store: &Store| {
        store
            .reader()
            .read_blocking(move |c| attempt::permanent_failure(c, id))
            .unwrap()
    };
    assert_eq!(last(&store), None, "no try yet");
    tried(&store, id, 1, AttemptOutcome::Permanent);
    assert_eq!(last(&store), Some(Some(0x0B)));
    tried(&store, id, 1, AttemptOutcome::NotSent);
    assert_eq!(last(&store), Some(Some(0x0B)), "a try never written changes nothing");
    tried(&store, id, 1, AttemptOutcome::Temporary);
    assert_eq!(last(&store), None, "the last try failed for now only");

    let long = new_message(&store, &"x".repeat(200));
    tried(&store, long, 1, AttemptOutcome::Permanent);
    tried(&store, long, 2, AttemptOutcome::Accepted);
    let check = |store: &Store| {
        store
            .reader()
            .read_blocking(move |c| attempt::permanent_failure(c, long))
            .unwrap()
    };
    assert_eq!(
        check(&store),
        Some(Some(0x0B)),
        "a part refused for good, though a later part was accepted"
    );
}

#[test]
fn a_messages_connections_are_the_queued_one_then_each_other_its_tries_were_written_to_once() {
    let (_dir, store) = temp_store();
    let id = new_message(&store, "Rendez-vous demain");
    let on = |connection: &'static str, outcome: AttemptOutcome| {
        store
            .writer()
            .write_blocking(move |tx| {
                let wire = attempt::Wire {
                    connection,
                    ..attempt::Wire::sandbox()
                };
                let a = attempt::begin_attempt(tx, id, 1, wire, 1)?;
                attempt::finish_attempt(tx, a.id, outcome, None, None, Some(tx.now_ms()))
            })
            .unwrap();
    };
    let connections = || {
        store
            .reader()
            .read_blocking(move |c| message::message_facts(c, id))
            .unwrap()
            .unwrap()
            .connections
    };
    assert_eq!(connections(), ["sandbox"], "before any try: the one it was queued for");
    on("backup", AttemptOutcome::Temporary);
    on("sandbox", AttemptOutcome::Timeout);
    on("backup", AttemptOutcome::Accepted);
    on("third", AttemptOutcome::NotSent);
    assert_eq!(
        connections(),
        ["sandbox", "backup"],
        "each once; a try never written names no connection"
    );
}
