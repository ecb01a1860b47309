//! The inbox's search, on a real database file: words of a reply whatever their case and accents
//! (in Latin and Cyrillic letters), and numbers as the engine reads them.

use super::tables::inbox::{self, NewInboxMessage};
use super::views::{list_opt_outs, list_threads, InboxFilter, OptOutFilter};
use super::*;

fn temp_store() -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("smsdesk.db")).unwrap();
    (dir, store)
}

fn reply(store: &Store, phone: &'static str, text: &'static str) {
    store
        .writer()
        .write_blocking(move |tx| {
            inbox::insert(
                tx,
                &NewInboxMessage {
                    connection: "sandbox",
                    phone: Some(phone),
                    handset: phone,
                    recipient: None,
                    text,
                    alphabet: "ucs2",
                    parts: 1,
                    parts_received: 1,
                    received_at: 1_000,
                    completed_at: 1_000,
                    intent: None,
                },
            )
        })
        .unwrap();
}

/// The threads a search finds, in the inbox's order.
fn found(store: &Store, f: InboxFilter) -> Vec<String> {
    let page = store.reader().read_blocking(move |c| list_threads(c, &f)).unwrap();
    page.items.into_iter().map(|t| t.thread).collect()
}

fn words(q: &str) -> InboxFilter {
    InboxFilter {
        q: Some(q.into()),
        ..InboxFilter::default()
    }
}

fn number(n: &str) -> InboxFilter {
    InboxFilter {
        q: Some("as typed".into()),
        number: Some(n.into()),
        ..InboxFilter::default()
    }
}

#[test]
fn words_are_found_whatever_their_case_and_accents() {
    let (_dir, store) = temp_store();
    reply(&store, "+33612345601", "Arrêt, merci");
    reply(&store, "+79161234567", "СТОП");
    reply(&store, "+33612345602", "À demain, Ёлка");
    for (q, thread) in [
        ("arret", "+33612345601"),
        ("ARRÊT", "+33612345601"),
        ("  Arret ", "+33612345601"),
        ("стоп", "+79161234567"),
        ("Стоп", "+79161234567"),
        ("a demain", "+33612345602"),
        ("елка", "+33612345602"),
    ] {
        assert_eq!(found(&store, words(q)), vec![thread.to_owned()], "{q:?}");
    }
    assert_eq!(found(&store, words("arrete")), Vec::<String>::new(), "no such word");
}

#[test]
fn a_number_is_found_whole_by_its_beginning_or_by_digits_inside_it() {
    let (_dir, store) = temp_store();
    reply(&store, "+33612345601", "oui");
    reply(&store, "+33612345602", "non");
    let both = vec!["+33612345602".to_owned(), "+33612345601".to_owned()];
    assert_eq!(found(&store, number("+33612345601")), vec!["+33612345601".to_owned()]);
    assert_eq!(found(&store, number("+336123456*")), both);
    assert_eq!(found(&store, number("*2345")), both, "any part of the number");
    assert_eq!(found(&store, number("*5602")), vec!["+33612345602".to_owned()]);
    assert_eq!(found(&store, number("+44*")), Vec::<String>::new());
}

#[test]
fn the_opt_out_list_is_found_by_the_number_as_the_engine_reads_it() {
    let (_dir, store) = temp_store();
    store
        .writer()
        .write_blocking(|tx| {
            let kinds = [smsdesk_core::domain::MessageKind::Bulk];
            let entry = tables::opt_out::NewOptOut {
                phone: "+33612345601",
                kinds: &kinds,
                reason: tables::opt_out::Reason::Operator,
                note: None,
                inbox_message_id: None,
                by: "Olga",
            };
            tables::opt_out::add(tx, &entry)
        })
        .unwrap();
    let find = |n: &str| {
        let f = OptOutFilter {
            number: Some(n.into()),
            ..OptOutFilter::default()
        };
        let page = store.reader().read_blocking(move |c| list_opt_outs(c, &f)).unwrap();
        page.items.len()
    };
    assert_eq!(find("+33612345601"), 1);
    assert_eq!(find("+3361*"), 1);
    assert_eq!(find("*2345"), 1);
    assert_eq!(find("+33612345602"), 0);
}
