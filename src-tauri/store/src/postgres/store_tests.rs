//! The store opened on PostgreSQL: its writer (batches, a savepoint per operation, replies after
//! the commit) and its reader, against a real server.

use smsdesk_core::access::Role;
use smsdesk_core::time::Clock;

use crate::db::{pg_test, PgTarget};
use crate::tables::account;
use crate::{Entity, Store, StoreError};

#[test]
fn a_store_on_postgresql_writes_through_its_writer_and_reads_back_through_its_reader() {
    let database = pg_test::database();
    let store = Store::open_postgres(&PgTarget::new(&database.url, None).unwrap(), Clock::system()).unwrap();
    assert_eq!(store.migration().to_version, crate::migrations::latest_version());
    let mut changes = store.subscribe();
    let id = store
        .writer()
        .write_blocking(|tx| {
            let id = account::insert(tx, "ana", Role::Admin, "hash", "setup")?.expect("a new name");
            tx.changed(Entity::Message, id);
            Ok::<_, StoreError>(id)
        })
        .unwrap();
    let read = store.reader().read_blocking(|c| account::get(c, id)).unwrap().unwrap();
    assert_eq!((read.name.as_str(), read.role), ("ana", Role::Admin));
    assert_eq!(changes.try_recv().unwrap().id, id, "announced once committed");
    store.shutdown();
    // Opened again (another node, or a restart): the schema is found, nothing is lost.
    let again = Store::open_postgres(&PgTarget::new(&database.url, None).unwrap(), Clock::system()).unwrap();
    assert!(again.migration().applied.is_empty());
    assert_eq!(again.reader().read_blocking(account::counts).unwrap(), (1, 1));
    again.shutdown();
}

#[test]
fn an_operation_that_fails_in_a_batch_is_undone_alone_on_postgresql() {
    // The test's own database is made outside the runtime: the synchronous client may not run
    // on one of its threads (the store's writer and readers run on threads of their own).
    let database = pg_test::database();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(failing_operations_in_shared_batches(database.url.clone()));
}

async fn failing_operations_in_shared_batches(url: String) {
    let store =
        tokio::task::spawn_blocking(move || Store::open_postgres(&PgTarget::new(&url, None).unwrap(), Clock::system()))
            .await
            .unwrap()
            .unwrap();
    // Queued together, so that they share transactions: every other one fails half-way, after
    // writing. On PostgreSQL an error spoils the whole transaction but for its savepoint.
    let writes: Vec<_> = (0..40)
        .map(|i| {
            let writer = store.writer().clone();
            tokio::spawn(async move {
                writer
                    .write(move |tx| {
                        let name = format!("user{i}");
                        account::insert(tx, &name, Role::Viewer, "h", "test")?;
                        if i % 2 == 1 {
                            tx.db().execute("INSERT INTO no_such_table VALUES (1)", &[])?;
                        }
                        Ok::<_, StoreError>(i)
                    })
                    .await
            })
        })
        .collect();
    let mut failed = 0;
    for (i, w) in writes.into_iter().enumerate() {
        match w.await.unwrap() {
            Ok(n) => assert_eq!(n, i),
            Err(e) => {
                assert_eq!(i % 2, 1, "{e}");
                failed += 1;
            }
        }
    }
    assert_eq!(failed, 20);
    let reader = store.reader().clone();
    let names = reader
        .read(account::list)
        .await
        .unwrap()
        .into_iter()
        .map(|a| a.name)
        .collect::<Vec<_>>();
    assert_eq!(names.len(), 20, "{names:?}");
    assert!(names
        .iter()
        .all(|n| n.trim_start_matches("user").parse::<usize>().unwrap() % 2 == 0));
    let (stats_tx, stats_ops) = store.writer().stats();
    assert!(
        stats_tx < stats_ops,
        "operations shared transactions: {stats_tx} for {stats_ops}"
    );
    tokio::task::spawn_blocking(move || store.shutdown()).await.unwrap();
}

/// Ends every connection to the test's database but the caller's, as a server's restart ends them.
fn end_connections(database: &pg_test::TestDb) {
    let admin = crate::db::PgConn::connect(&pg_test::server_url()).unwrap();
    let name = database.url.rsplit('/').next().unwrap().to_owned();
    let ended: i64 = crate::db::Db::Postgres(&admin)
        .one(
            "SELECT count(*) FROM (SELECT pg_terminate_backend(pid) FROM pg_stat_activity
             WHERE datname = ?1 AND pid <> pg_backend_pid()) ended",
            &[&name],
        )
        .unwrap();
    assert!(
        ended >= 2,
        "the writer's and a reader's connections were ended ({ended})"
    );
}

#[test]
fn after_its_connections_are_ended_as_by_a_restart_the_store_writes_and_reads_on_new_ones() {
    let database = pg_test::database();
    let store = Store::open_postgres(&PgTarget::new(&database.url, None).unwrap(), Clock::system()).unwrap();
    let insert = |name: &'static str| {
        store
            .writer()
            .write_blocking(move |tx| account::insert(tx, name, Role::Viewer, "h", "test"))
    };
    insert("before").unwrap();
    assert_eq!(store.reader().read_blocking(account::counts).unwrap().0, 1);
    end_connections(&database);
    // Idle past the time a connection is trusted without asking: the next write and read find
    // their connections gone and go on new ones, losing nothing.
    std::thread::sleep(std::time::Duration::from_millis(1_100));
    insert("after").unwrap().expect("a new name");
    let names: Vec<String> = store
        .reader()
        .read_blocking(account::list)
        .unwrap()
        .into_iter()
        .map(|a| a.name)
        .collect();
    assert_eq!(names, ["after", "before"]);
    store.shutdown();
}
