//! The start's check of the waiting messages' routes runs when the routes and connections in force
//! are not those it last ran under, and only then.

use std::path::Path;

use super::*;
use crate::store::StoreError;

fn config(route: &str) -> Config {
    let text = format!(
        "[connections.primary]\nhost = \"smpp.example.com\"\n\n[[routes]]\nname = \"{route}\"\nconnections = [\"primary\"]\n"
    );
    crate::config::from_sources(Path::new("smsdesk.toml"), &text, []).unwrap()
}

fn set_route(store: &Store, route: &'static str) {
    store
        .writer()
        .write_blocking(move |tx| {
            tx.sql_for_tests()
                .execute("UPDATE queue SET route = ?1 WHERE message_id = 1", [route])?;
            Ok::<_, StoreError>(())
        })
        .unwrap();
}

fn route(store: &Store) -> String {
    store
        .reader()
        .read_blocking(|c| {
            Ok::<_, StoreError>(c.query_row("SELECT route FROM queue WHERE message_id = 1", [], |r| r.get(0))?)
        })
        .unwrap()
}

#[test]
fn the_start_gives_waiting_messages_a_route_once_per_change_of_the_routes_in_force() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("smsdesk.db")).unwrap();
    store
        .writer()
        .write_blocking(|tx| {
            tx.sql_for_tests().execute_batch(
                "INSERT INTO message (id, created_at, channel, destination_raw, destination, body, encoding, segments,
                     kind, priority, registered_delivery, connection)
                 VALUES (1, 10, 'api', '+33600000001', '+33600000001', 'one', 'gsm7', 1, 'bulk', 3, 1, 'primary');
                 INSERT INTO queue (message_id, status, priority, next_attempt_at, updated_at, route)
                 VALUES (1, 'queued', 35, 0, 10, 'gone');",
            )?;
            Ok::<_, StoreError>(())
        })
        .unwrap();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let at_start = |c: &Config| rt.block_on(route_unrouted_at_start(store.writer(), c)).unwrap();

    // The first start checks: the route since removed is replaced.
    at_start(&config("everything"));
    assert_eq!(route(&store), "everything");

    // A start under the same routes does not read the waiting messages: a route the record says
    // cannot be there is not even found.
    set_route(&store, "gone");
    at_start(&config("everything"));
    assert_eq!(route(&store), "gone", "the same routes are not checked again");

    // Other routes are checked.
    at_start(&config("all"));
    assert_eq!(route(&store), "all");

    // A change while running checks at once, and leaves the record as it was, so that the next
    // start checks again (a message queued during the change by the old routes is found then).
    set_route(&store, "gone");
    rt.block_on(route_unrouted(store.writer(), &config("any"))).unwrap();
    assert_eq!(route(&store), "any");
    set_route(&store, "gone");
    at_start(&config("any"));
    assert_eq!(
        route(&store),
        "any",
        "the next start under the new routes checks once more"
    );
}
