//! Upgrades through the real binary: the database the previous release made (a committed fixture)
//! opens under this one with everything in it, a database of an older schema is backed up before
//! it is migrated, and a database newer than the binary is refused, untouched.
//!
//! The fixture is made by `make_the_upgrade_fixture` below (ignored; run it by name to make it
//! again, see tests/fixtures/upgrade/README.md).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::support::{count, post_json, run, run_with_input, start, Running};
use rusqlite::{Connection, OpenFlags};
use smsdesk_store::migrations;

const FIXTURE_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/fixtures/upgrade");

/// The databases earlier releases made, oldest first: before several connections (schema 13),
/// and the last with one `[smpp]` connection (schema 17).
fn fixtures() -> [PathBuf; 2] {
    ["smsdesk-0.1.0-schema13.db", "smsdesk-0.1.0-schema17.db"].map(|f| Path::new(FIXTURE_DIR).join(f))
}

fn fixture() -> PathBuf {
    fixtures()[0].clone()
}

/// What the upgrade must keep, counted in a database.
const KEPT: &[(&str, &str)] = &[
    ("messages", "SELECT count(*) FROM message"),
    ("receipts", "SELECT count(*) FROM receipt"),
    ("exceptions", "SELECT count(*) FROM exception"),
    (
        "open exceptions",
        "SELECT count(*) FROM exception WHERE status = 'open'",
    ),
    ("attempts", "SELECT count(*) FROM attempt"),
    ("api keys", "SELECT count(*) FROM api_key"),
    ("accounts", "SELECT count(*) FROM account"),
    ("audit rows", "SELECT count(*) FROM audit"),
];

fn counts(db: &Path) -> Vec<(&'static str, i64)> {
    KEPT.iter().map(|&(what, sql)| (what, count(db, sql))).collect()
}

#[test]
fn the_fixtures_of_the_previous_releases_open_with_every_message_receipt_and_exception_and_pass_rebuild_check() {
    for f in fixtures() {
        opens_with_everything(&f);
    }
}

fn opens_with_everything(fixture: &Path) {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    std::fs::create_dir_all(&data).unwrap();
    let db = data.join("smsdesk.db");
    std::fs::copy(fixture, &db).unwrap();
    let before = counts(&db);
    for (what, n) in &before {
        assert!(*n > 0, "the fixture holds {what}");
    }
    let fixture_schema = count(&db, "SELECT max(version) FROM schema_migration");

    let (code, out, err) = run(&data, &["rebuild", "--check"]);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(out.contains("every one equals the stored state"), "{out}");
    let csv = data.with_file_name("all.csv");
    let (code, _, err) = run(&data, &["export", "--csv", "-o", csv.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let rows = std::fs::read_to_string(&csv).unwrap().lines().count() as i64 - 1;
    assert_eq!(rows, before[0].1, "the export lists every message");
    let (code, out, err) = run(&data, &["status", "1"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("Message 1 to"), "{out}");

    assert_eq!(
        counts(&db),
        before,
        "every message, receipt and exception is still there"
    );
    let latest = i64::from(migrations::latest_version());
    assert_eq!(count(&db, "SELECT max(version) FROM schema_migration"), latest);
    let before_migration: Vec<_> = backups(&data, "smsdesk-before-v");
    if fixture_schema < latest {
        assert_eq!(before_migration.len(), 1, "a backup before the migration");
        assert_eq!(
            count(&before_migration[0], "SELECT max(version) FROM schema_migration"),
            fixture_schema
        );
    } else {
        assert!(before_migration.is_empty(), "nothing to migrate, nothing copied");
    }
}

/// smsdesk's backups in `data`'s backup folder whose names start with `prefix`.
fn backups(data: &Path, prefix: &str) -> Vec<PathBuf> {
    match std::fs::read_dir(data.join("backups")) {
        Ok(entries) => entries
            .map(|e| e.unwrap().path())
            .filter(|p| p.file_name().unwrap().to_string_lossy().starts_with(prefix))
            .collect(),
        Err(_) => Vec::new(),
    }
}

#[test]
fn a_database_of_an_older_schema_is_backed_up_before_it_is_migrated() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    std::fs::create_dir_all(&data).unwrap();
    let db = data.join("smsdesk.db");
    {
        let mut c = Connection::open(&db).unwrap();
        migrations::migrate_to(&mut c, 8, &smsdesk_engine::clock::Clock::system()).unwrap();
        c.execute(
            "INSERT INTO audit (at, actor, action) VALUES (1, 'system', 'made by an older smsdesk')",
            [],
        )
        .unwrap();
    }
    let r = start(&data, &["serve", "--http-port", "0"], &[]);
    let mut r = r;
    r.signal("TERM");
    assert!(r.wait(Duration::from_secs(30)).success(), "{}", r.stderr());

    let latest = migrations::latest_version();
    let copies = backups(&data, &format!("smsdesk-before-v{latest}-"));
    assert_eq!(
        copies.len(),
        1,
        "one copy before the migration: {:?}",
        backups(&data, "")
    );
    assert_eq!(
        count(&copies[0], "SELECT max(version) FROM schema_migration"),
        8,
        "as it was"
    );
    assert_eq!(
        count(
            &copies[0],
            "SELECT count(*) FROM audit WHERE action = 'made by an older smsdesk'"
        ),
        1
    );
    assert_eq!(
        count(&db, "SELECT max(version) FROM schema_migration"),
        i64::from(latest)
    );
    assert!(r.stderr().contains("database backed up before its migration"), "logged");
}

#[test]
fn a_database_newer_than_the_binary_is_refused_with_a_clear_message_and_left_untouched() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    std::fs::create_dir_all(&data).unwrap();
    let db = data.join("smsdesk.db");
    std::fs::copy(fixture(), &db).unwrap();
    Connection::open(&db)
        .unwrap()
        .execute(
            "INSERT INTO schema_migration VALUES (999, 'from the future', 'x', 0)",
            [],
        )
        .unwrap();
    let before = counts(&db);
    for args in [
        &["serve", "--http-port", "0"][..],
        &["status", "1"],
        &["rebuild", "--check"],
    ] {
        let (code, _, err) = run(&data, args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(
            err.contains("the database is at schema version 999, newer than this smsdesk knows")
                && err.contains("use a newer smsdesk"),
            "{args:?}: {err}"
        );
    }
    assert_eq!(counts(&db), before, "nothing in it changed");
    assert_eq!(
        count(&db, "SELECT max(version) FROM schema_migration"),
        999,
        "nothing was migrated"
    );
    assert!(
        backups(&data, "").is_empty(),
        "nothing to back up: nothing was migrated"
    );
}

/// What the previous release queued for its one connection goes out on it when `[smpp]` is kept
/// (the same name, no route); when the connections are named anew, the next start gives it a
/// route by the routes in force, and it goes out on that route's connection.
#[test]
fn a_message_queued_by_the_previous_release_goes_out_on_its_connection_or_on_the_route_it_is_given() {
    let queued = "SELECT count(*) FROM queue WHERE status = 'queued'";
    let sent_on = |db: &Path, connection: &str| {
        count(
            db,
            &format!(
                "SELECT count(*) FROM queue q JOIN attempt a ON a.id = q.accepted_attempt_id
                 WHERE q.message_id = (SELECT max(message_id) FROM queue) AND a.connection = '{connection}'"
            ),
        )
    };
    let cases = [
        (fixtures()[0].clone(), "", "sandbox", None),
        (
            fixtures()[0].clone(),
            "[connections.office]\nsandbox = true\n",
            "office",
            Some("default"),
        ),
        // The last release with one connection, its `[smpp]` section kept as it was.
        (
            fixtures()[1].clone(),
            "[smpp]\nsandbox = true\ntps = 50\n",
            "sandbox",
            None,
        ),
        (
            fixtures()[1].clone(),
            "[connections.office]\nsandbox = true\n",
            "office",
            Some("default"),
        ),
    ];
    for (fixture, config, connection, expected) in cases {
        let tmp = tempfile::tempdir().unwrap();
        let data = tmp.path().join("data");
        std::fs::create_dir_all(&data).unwrap();
        let db = data.join("smsdesk.db");
        std::fs::copy(&fixture, &db).unwrap();
        std::fs::write(data.join("smsdesk.toml"), config).unwrap();
        assert_eq!(
            count(&db, queued),
            1,
            "the fixture holds one message queued for \"sandbox\""
        );
        let mut r = start(&data, &["serve", "--http-port", "0"], &[]);
        let started = Instant::now();
        while sent_on(&db, connection) == 0 {
            assert!(
                started.elapsed() < Duration::from_secs(60),
                "not sent on {connection}:\n{}",
                r.stderr()
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        let route: Option<String> = Connection::open_with_flags(&db, OpenFlags::SQLITE_OPEN_READ_ONLY)
            .unwrap()
            .query_row(
                "SELECT route FROM queue WHERE message_id = (SELECT max(message_id) FROM queue)",
                [],
                |row| row.get(0),
            )
            .unwrap();
        assert_eq!(route.as_deref(), expected, "{config:?}");
        r.signal("TERM");
        assert!(r.wait(Duration::from_secs(30)).success());
        if route.is_some() {
            assert!(
                r.stderr().contains("given a route by the routes in force"),
                "{}",
                r.stderr()
            );
        }
    }
}

// ---- Making the fixture ----

/// Waits until `sql` counts at least `n` in `db`.
fn wait_for(r: &Running, db: &Path, sql: &str, n: i64) {
    let started = Instant::now();
    while count(db, sql) < n {
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "waited for {sql} >= {n}:\n{}",
            r.stderr()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Makes tests/fixtures/upgrade/smsdesk-<version>-schema<N>.db again, with the real binary and the
/// sandbox SMSC, and its README's counts:
/// `cargo test -p smsdesk --test e2e -- --ignored upgrade::make_the_upgrade_fixture`.
/// Rename the test above's `fixture()` when the version or the schema changed.
#[test]
#[ignore = "makes the committed fixture; run by name"]
fn make_the_upgrade_fixture() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let (code, _, err) = run(
        &data,
        &["api-key", "create", "--name", "website", "--scope", "send,read:own"],
    );
    assert_eq!(code, 0, "{err}");
    let (code, _, err) = run_with_input(
        &data,
        &["user", "add", "anna", "--role", "admin", "--password-stdin"],
        "fixture-password-anna\n",
    );
    assert_eq!(code, 0, "{err}");
    let env = [
        ("SMSDESK_RECEIPTS_UNCORRELATED_GRACE_SECONDS", "0"),
        ("SMSDESK_SMPP_RESPONSE_TIMEOUT_SECONDS", "2"),
    ];
    let r = start(&data, &["serve", "--http-port", "0"], &env);
    let token = std::fs::read_to_string(data.join("operator.token"))
        .unwrap()
        .trim()
        .to_owned();
    // Delivered, undeliverable, expired, rejected, delivered after ENROUTE, a duplicate receipt,
    // two conflicting finals (twice), a receipt for no message, refused for good, no answer.
    let endings = ["00", "01", "02", "03", "04", "05", "07", "07", "08", "13", "15"];
    let messages: Vec<_> = endings
        .iter()
        .map(|e| serde_json::json!({ "destination": format!("+336123456{e}"), "text": format!("fixture {e}") }))
        .collect();
    let answer = post_json(
        &r.url,
        "/api/v1/messages/batch",
        &token,
        &serde_json::json!({ "messages": messages }),
    );
    assert_eq!(answer.status, 201, "{}", answer.body);
    let db = data.join("smsdesk.db");
    wait_for(
        &r,
        &db,
        "SELECT count(*) FROM queue WHERE status NOT IN ('queued', 'sending')",
        endings.len() as i64,
    );
    let open = "SELECT count(*) FROM exception WHERE status = 'open'";
    wait_for(&r, &db, "SELECT count(DISTINCT kind) FROM exception WHERE kind IN ('conflicting_final', 'uncorrelated', 'outcome_unknown')", 3);
    wait_for(
        &r,
        &db,
        "SELECT count(*) FROM exception WHERE kind = 'conflicting_final'",
        2,
    );
    let first = |kind: &str| count(&db, &format!("SELECT min(id) FROM exception WHERE kind = '{kind}'"));
    for (id, body) in [
        (
            first("conflicting_final"),
            serde_json::json!({ "action": "choose_state", "state": "delivered", "note": "the customer confirmed" }),
        ),
        (
            first("uncorrelated"),
            serde_json::json!({ "action": "dismiss", "note": "not ours" }),
        ),
    ] {
        let done = post_json(&r.url, &format!("/api/v1/exceptions/{id}/resolve"), &token, &body);
        assert_eq!(done.status, 204, "{}", done.body);
    }
    assert!(count(&db, open) > 0, "some stay open");
    let mut r = r;
    r.signal("TERM");
    assert!(r.wait(Duration::from_secs(30)).success(), "{}", r.stderr());
    let (code, _, err) = run(
        &data,
        &["send", "--to", "+33612345600", "--text", "queued while stopped"],
    );
    assert_eq!(code, 0, "{err}");
    write_fixture(&db);
}

/// VACUUMs `db` into the fixture folder and writes its README with what it holds.
fn write_fixture(db: &Path) {
    let schema = count(db, "SELECT max(version) FROM schema_migration");
    let name = format!("smsdesk-{}-schema{schema}.db", env!("CARGO_PKG_VERSION"));
    let dest = Path::new(FIXTURE_DIR).join(&name);
    std::fs::create_dir_all(FIXTURE_DIR).unwrap();
    let _ = std::fs::remove_file(&dest);
    Connection::open(db)
        .unwrap()
        .execute("VACUUM INTO ?1", [dest.to_str().unwrap()])
        .unwrap();
    let c = Connection::open_with_flags(&dest, OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
    let grouped = |sql: &str| -> String {
        let mut s = c.prepare(sql).unwrap();
        let rows = s
            .query_map([], |r| {
                Ok(format!("{} {}", r.get::<_, i64>(1)?, r.get::<_, String>(0)?))
            })
            .unwrap();
        rows.map(Result::unwrap).collect::<Vec<_>>().join(", ")
    };
    let held = counts(&dest)
        .iter()
        .map(|(what, n)| format!("{n} {what}"))
        .collect::<Vec<_>>()
        .join(", ");
    let section = format!(
        "## `{name}`\n\n\
         {} bytes, made by smsdesk {} (schema version {schema}) with the real binary and the sandbox SMSC, by\n\
         `cargo test -p smsdesk --test e2e -- --ignored upgrade::make_the_upgrade_fixture` (tests/upgrade.rs): an API key and an\n\
         account made on the command line, eleven messages sent through `smsdesk serve` to the sandbox's scenarios\n\
         (delivered, UNDELIV, EXPIRED, REJECTD, ENROUTE then DELIVRD, a duplicate receipt, conflicting finals twice, a receipt\n\
         for no message, refused for good, no submit response), two exceptions resolved through the API, and one message\n\
         queued while smsdesk was stopped; then VACUUMed.\n\n\
         It holds {held}.\n\n\
         - queue: {}\n- states: {}\n- exceptions: {}\n\n",
        std::fs::metadata(&dest).unwrap().len(),
        env!("CARGO_PKG_VERSION"),
        grouped("SELECT status, count(*) FROM queue GROUP BY status ORDER BY status"),
        grouped("SELECT state, count(*) FROM projection GROUP BY state ORDER BY state"),
        grouped("SELECT kind || ' (' || status || ')', count(*) FROM exception GROUP BY kind, status ORDER BY kind, status"),
    );
    // This fixture's section is written anew; the others' are kept as they are.
    let file = Path::new(FIXTURE_DIR).join("README.md");
    let old = std::fs::read_to_string(&file).unwrap_or_default();
    let mut sections: Vec<String> = old
        .split("\n## ")
        .skip(1)
        .map(|s| format!("## {s}").trim_end().to_owned() + "\n\n")
        .filter(|s| !s.starts_with(&format!("## `{name}`")))
        .collect();
    sections.push(section);
    sections.sort();
    let readme = format!(
        "# Upgrade fixtures\n\n\
         Databases made by earlier releases. The upgrade test (tests/upgrade.rs) opens a copy of each with the current\n\
         binary and checks that all of it is still there. Keep each file as it is; a later release adds its own beside them.\n\n{}",
        sections.concat()
    );
    std::fs::write(Path::new(FIXTURE_DIR).join("README.md"), readme).unwrap();
}
