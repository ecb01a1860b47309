//! Backups and restores through the real binary: a backup taken while `smsdesk serve` sends
//! thousands of messages to the sandbox and takes their receipts, restored into a new data
//! directory; and every refusal of `smsdesk restore`.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::support::{count, post_json, run, start, Running};
use rusqlite::{Connection, OpenFlags};

fn operator_token(r: &Running) -> String {
    std::fs::read_to_string(r.data_dir.join("operator.token"))
        .unwrap()
        .trim()
        .to_owned()
}

fn stop(mut r: Running) {
    r.signal("TERM");
    let status = r.wait(Duration::from_secs(60));
    assert!(status.success(), "{}", r.stderr());
}

/// Posts batches of 100 messages until `stop`, recording the id of every message whose 201 came.
fn keep_posting(url: String, token: String, accepted: Arc<Mutex<Vec<i64>>>, stop: Arc<AtomicBool>) {
    let mut n = 0u32;
    while !stop.load(Ordering::SeqCst) && n < 100 {
        let messages: Vec<_> = (0..100)
            .map(|i| {
                serde_json::json!({
                    "destination": format!("+336123456{:02}", i % 5),
                    "text": format!("load {n}-{i}"),
                    "kind": "bulk",
                })
            })
            .collect();
        let answer = post_json(
            &url,
            "/api/v1/messages/batch",
            &token,
            &serde_json::json!({ "messages": messages }),
        );
        assert_eq!(answer.status, 201, "{}", answer.body);
        let ids = answer.json()["messages"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["id"].as_i64().unwrap())
            .collect::<Vec<_>>();
        accepted.lock().unwrap().extend(ids);
        n += 1;
    }
}

#[test]
fn a_backup_taken_under_load_restores_to_a_database_that_passes_rebuild_check_and_holds_every_message_answered_before_it(
) {
    let tmp = tempfile::tempdir().unwrap();
    let (data, fresh) = (tmp.path().join("data"), tmp.path().join("fresh"));
    let r = start(&data, &["serve", "--http-port", "0"], &[]);
    let (accepted, halt) = (Arc::new(Mutex::new(Vec::new())), Arc::new(AtomicBool::new(false)));
    let load = {
        let (url, token, accepted, halt) = (r.url.clone(), operator_token(&r), accepted.clone(), halt.clone());
        std::thread::spawn(move || keep_posting(url, token, accepted, halt))
    };
    // Under way: messages handed in, and receipts coming back for the first ones.
    let db = data.join("smsdesk.db");
    let started = Instant::now();
    while accepted.lock().unwrap().len() < 2_000 || count(&db, "SELECT count(*) FROM receipt") == 0 {
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "the load did not get going:\n{}",
            r.stderr()
        );
        assert!(!load.is_finished(), "the load stopped early");
        std::thread::sleep(Duration::from_millis(20));
    }
    let answered_before: Vec<i64> = accepted.lock().unwrap().clone();
    let copy = tmp.path().join("under-load.db");
    let (code, out, err) = run(&data, &["backup", copy.to_str().unwrap()]);
    halt.store(true, Ordering::SeqCst);
    load.join().unwrap();
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("Backup written to") && out.contains("checked"), "{out}");
    stop(r);

    let (code, out, err) = run(&fresh, &["restore", copy.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(out.contains("Restored into"), "{out}");
    let (code, out, err) = run(&fresh, &["rebuild", "--check"]);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(out.contains("every one equals the stored state"), "{out}");

    let restored = fresh.join("smsdesk.db");
    let c = Connection::open_with_flags(&restored, OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
    let mut present = c.prepare("SELECT 1 FROM message WHERE id = ?1").unwrap();
    let missing: Vec<i64> = answered_before
        .iter()
        .copied()
        .filter(|id| !present.exists([id]).unwrap())
        .collect();
    assert!(
        missing.is_empty(),
        "{} answered messages missing, first {:?}",
        missing.len(),
        &missing[..missing.len().min(5)]
    );
    assert!(
        count(&restored, "SELECT count(*) FROM receipt") > 0,
        "receipts were arriving when it was taken"
    );
}

/// A copy of `data`'s database, with a fault of `kind`, next to it.
fn damaged_copy(data: &Path, name: &str, kind: &str) -> std::path::PathBuf {
    let copy = data.with_file_name(name);
    let (code, _, err) = run(data, &["backup", copy.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    match kind {
        "corrupted" => {
            let mut bytes = std::fs::read(&copy).unwrap();
            let len = bytes.len();
            for b in &mut bytes[len / 3..len / 3 + 16_384] {
                *b = 0xa5;
            }
            std::fs::write(&copy, bytes).unwrap();
        }
        "newer" => {
            let c = Connection::open(&copy).unwrap();
            c.execute(
                "INSERT INTO schema_migration VALUES (999, 'from the future', 'x', 0)",
                [],
            )
            .unwrap();
        }
        _ => unreachable!(),
    }
    copy
}

#[test]
fn restore_refuses_a_corrupted_copy_a_newer_schema_and_a_running_instance_and_changes_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    for i in 0..20 {
        let (code, _, err) = run(&data, &["send", "--to", "+33612345600", "--text", &format!("kept {i}")]);
        assert_eq!(code, 0, "{err}");
    }
    let db = data.join("smsdesk.db");

    let corrupted = damaged_copy(&data, "corrupted.db", "corrupted");
    let (code, _, err) = run(&data, &["restore", corrupted.to_str().unwrap()]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("corrupted.db") && err.contains("Nothing was restored"),
        "{err}"
    );

    let newer = damaged_copy(&data, "newer.db", "newer");
    let (code, _, err) = run(&data, &["restore", newer.to_str().unwrap()]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("schema version 999, newer than this smsdesk knows"),
        "{err}"
    );

    let good = tmp.path().join("good.db");
    assert_eq!(run(&data, &["backup", good.to_str().unwrap()]).0, 0);
    let r = start(&data, &["serve", "--http-port", "0"], &[]);
    let (code, _, err) = run(&data, &["restore", good.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("running") && err.contains("Nothing was restored"), "{err}");
    stop(r);

    assert_eq!(
        count(&db, "SELECT count(*) FROM message"),
        20,
        "every refusal left the database alone"
    );
    assert!(
        !data.join("backups").exists()
            || std::fs::read_dir(data.join("backups")).unwrap().all(|e| !e
                .unwrap()
                .file_name()
                .to_string_lossy()
                .contains("before-restore")),
        "nothing was kept aside: nothing was replaced"
    );
}

#[test]
fn restore_keeps_the_database_it_replaces_with_what_its_wal_holds() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    assert_eq!(run(&data, &["send", "--to", "+33612345600", "--text", "first"]).0, 0);
    let copy = tmp.path().join("one.db");
    assert_eq!(run(&data, &["backup", copy.to_str().unwrap()]).0, 0);
    assert_eq!(run(&data, &["send", "--to", "+33612345600", "--text", "second"]).0, 0);

    let (code, out, err) = run(&data, &["restore", copy.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}\n{err}");
    let kept: Vec<_> = std::fs::read_dir(data.join("backups"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("smsdesk-before-restore-")
        })
        .collect();
    assert_eq!(kept.len(), 1, "{out}");
    assert!(out.contains(&kept[0].display().to_string()), "says where: {out}");
    assert_eq!(
        count(&kept[0], "SELECT count(*) FROM message"),
        2,
        "the replaced database, whole"
    );
    assert_eq!(
        count(&data.join("smsdesk.db"), "SELECT count(*) FROM message"),
        1,
        "the backup, in place"
    );
    let (code, _, err) = run(&data, &["status", "1"]);
    assert_eq!(code, 0, "the restored database opens: {err}");
}
