//! The office's message templates (schema version 17), on a real database file: saved with their
//! placeholders, listed by name, names unique whatever their case, deleted outright.

use super::tables::template::{self, TemplateError};
use super::*;

fn temp_store() -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("smsdesk.db")).unwrap();
    (dir, store)
}

fn save(store: &Store, name: &str, text: &str) -> Result<smsdesk_core::template::Template, TemplateError> {
    let (name, text) = (name.to_owned(), text.to_owned());
    store
        .writer()
        .write_blocking(move |tx| template::insert(tx, &name, &text, "Olga"))
}

fn names(store: &Store) -> Vec<String> {
    store
        .reader()
        .read_blocking(template::list)
        .unwrap()
        .into_iter()
        .map(|t| t.name)
        .collect()
}

#[test]
fn templates_are_saved_with_their_placeholders_and_listed_by_name() {
    let (_dir, store) = temp_store();
    let reminder = save(&store, "reminder", "Hello {name}, see you on {date}. {name}, bye").unwrap();
    save(&store, "Appointment", "See you at {time}").unwrap();
    save(&store, "code", "Your code: {code}").unwrap();
    assert_eq!(reminder.placeholders, ["name", "date"]);
    assert_eq!(reminder.created_by, "Olga");
    assert_eq!(
        names(&store),
        ["Appointment", "code", "reminder"],
        "by name, whatever the case"
    );
    let listed = store.reader().read_blocking(template::list).unwrap();
    let again = listed.iter().find(|t| t.id == reminder.id).unwrap();
    assert_eq!(again, &reminder, "read back as it was saved");
}

#[test]
fn a_name_is_taken_whatever_its_case_and_nothing_is_written() {
    let (_dir, store) = temp_store();
    save(&store, "Reminder", "a").unwrap();
    match save(&store, "REMINDER", "b") {
        Err(TemplateError::NameTaken(name)) => assert_eq!(name, "REMINDER"),
        other => panic!("a taken name must be refused: {other:?}"),
    }
    assert_eq!(names(&store), ["Reminder"]);
}

#[test]
fn a_template_is_deleted_once_and_answered_as_it_was() {
    let (_dir, store) = temp_store();
    let t = save(&store, "Shipped", "Your order {order} has shipped").unwrap();
    let id = t.id;
    let gone = store
        .writer()
        .write_blocking(move |tx| template::delete(tx, id))
        .unwrap();
    assert_eq!(gone, Some(t));
    let twice = store
        .writer()
        .write_blocking(move |tx| template::delete(tx, id))
        .unwrap();
    assert_eq!(twice, None, "there is nothing left to delete");
    assert!(names(&store).is_empty());
    save(&store, "Shipped", "the name is free again").unwrap();
}

#[test]
fn the_schema_refuses_an_empty_name_or_text() {
    let (_dir, store) = temp_store();
    assert!(save(&store, "", "text").is_err());
    assert!(save(&store, "name", "").is_err());
}

#[test]
fn templates_are_saved_listed_by_name_without_case_and_deleted_alike_on_both_stores() {
    crate::both_stores::on_both(|db| {
        let saved = crate::writer::write_for_tests(db, 1_000, |tx| {
            let b = template::insert(tx, "beta", "Hi {name}", "Olga").map_err(|e| match e {
                TemplateError::Store(e) => e,
                other => panic!("{other}"),
            })?;
            template::insert(tx, "Alpha", "Code {code}", "Olga").map_err(|_| StoreError::NoRow)?;
            Ok(b)
        })
        .unwrap();
        assert_eq!((saved.created_at_ms, saved.placeholders.len()), (1_000, 1));
        let taken = crate::writer::write_for_tests(db, 2_000, |tx| {
            Ok(matches!(
                template::insert(tx, "BETA", "x", "Olga"),
                Err(TemplateError::NameTaken(_))
            ))
        });
        assert!(taken.unwrap(), "names compare without case, {:?}", db.dialect());
        let listed: Vec<String> = template::list(&db).unwrap().into_iter().map(|t| t.name).collect();
        assert_eq!(listed, ["Alpha", "beta"]);
        let deleted = crate::writer::write_for_tests(db, 3_000, |tx| {
            let first = template::delete(tx, saved.id)?;
            assert_eq!(template::delete(tx, saved.id)?, None);
            Ok(first)
        })
        .unwrap();
        assert_eq!(deleted.map(|t| t.text).as_deref(), Some("Hi {name}"));
        assert_eq!(template::list(&db).unwrap().len(), 1);
    });
}
