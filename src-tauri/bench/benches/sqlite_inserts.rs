//! The intake baseline: raw SQLite inserts on the same disk, with the durability smsdesk promises
//! (WAL, synchronous=FULL), BATCH rows per transaction: one table with the columns of a message
//! (the same destinations and texts the HTTP benchmarks send, about 120 bytes a row) and one
//! secondary index. No HTTP, no validation, no queue or idempotency rows: what the disk and SQLite
//! allow, which smsdesk's intake rate is divided by.
//!
//!   cargo bench -p smsdesk-bench --bench sqlite_inserts -- N BATCH DIR

use std::path::Path;
use std::time::Instant;

use rusqlite::{params, Connection};
use smsdesk_bench::figures::{figure, rate};
use smsdesk_bench::messages::{destination, text};

const SCHEMA: &str = "
    PRAGMA journal_mode = WAL;
    PRAGMA synchronous = FULL;
    CREATE TABLE message (
        id INTEGER PRIMARY KEY,
        created_at INTEGER NOT NULL,
        channel TEXT NOT NULL,
        destination_raw TEXT NOT NULL,
        destination TEXT NOT NULL,
        body TEXT NOT NULL,
        encoding TEXT NOT NULL,
        segments INTEGER NOT NULL,
        kind TEXT NOT NULL,
        priority INTEGER NOT NULL,
        registered_delivery INTEGER NOT NULL,
        connection TEXT NOT NULL
    );
    CREATE INDEX message_created ON message (created_at);
";

const INSERT: &str = "INSERT INTO message (created_at, channel, destination_raw, destination, body, encoding, segments,
         kind, priority, registered_delivery, connection)
     VALUES (?1, 'api', ?2, ?2, ?3, 'gsm7', 1, 'transactional', 15, 1, 'smsdesk')";

fn remove_database(path: &Path) {
    for suffix in ["", "-wal", "-shm"] {
        let mut p = path.as_os_str().to_owned();
        p.push(suffix);
        let _ = std::fs::remove_file(p);
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).filter(|a| a != "--bench").collect();
    let (Some(n), Some(batch), Some(dir)) = (
        args.first().and_then(|a| a.parse::<usize>().ok()),
        args.get(1).and_then(|a| a.parse::<usize>().ok()),
        args.get(2),
    ) else {
        eprintln!("usage: sqlite_inserts N BATCH DIR");
        std::process::exit(2);
    };
    std::fs::create_dir_all(dir).expect("the directory can be made");
    let path = Path::new(dir).join(format!("raw-inserts-{batch}.db"));
    remove_database(&path);
    let mut c = Connection::open(&path).expect("the database opens");
    c.execute_batch(SCHEMA).expect("the schema is made");
    // 1,700,000,000,000 ms: a plausible time; each row a millisecond later than the one before.
    let epoch: i64 = 1_700_000_000_000;
    let t = Instant::now();
    for from in (0..n).step_by(batch.max(1)) {
        let tx = c.transaction().expect("a transaction starts");
        {
            let mut insert = tx.prepare_cached(INSERT).expect("the insert prepares");
            for i in from..(from + batch).min(n) {
                insert
                    .execute(params![epoch + i as i64, destination(i), text(i)])
                    .expect("a row is inserted");
            }
        }
        tx.commit().expect("the transaction commits");
    }
    let elapsed = t.elapsed();
    drop(c);
    remove_database(&path);
    figure(&format!("sqlite.batch{batch}.per_s"), rate(n, elapsed));
    eprintln!(
        "sqlite_inserts: {n} rows, {batch} per transaction, WAL, synchronous=FULL: {:.2} s, {:.0} rows/s",
        elapsed.as_secs_f64(),
        rate(n, elapsed)
    );
}
