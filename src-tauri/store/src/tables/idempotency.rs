//! The `idempotency` table: the answer given to the first request of each (scope, key), with the
//! hash of that request, so a repeat gets the same answer and a different request under the same
//! key is told apart.

use crate::writer::WriteTx;
use crate::Reads;
use crate::StoreError;

/// What the store knows about a key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Recorded {
    /// Never seen: process the request.
    New,
    /// Seen with the same request: answer this again.
    Replay { status: u16, body: String },
    /// Seen with a different request.
    Mismatch,
}

/// Looks a key up (run inside the write transaction that will record it, so two requests can not
/// both find it new): a request whose hash is any of `hashes` (the ways it may have been recorded)
/// is the same request.
pub fn lookup(conn: &impl Reads, scope: &str, key: &str, hashes: &[&str]) -> Result<Recorded, StoreError> {
    let found: Option<(String, u16, String)> = conn.db().query_opt(
        "SELECT request_hash, status, response_json FROM idempotency WHERE scope = ?1 AND key = ?2",
        &[&scope, &key],
        |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
    )?;
    Ok(match found {
        None => Recorded::New,
        Some((h, status, body)) if hashes.contains(&h.as_str()) => Recorded::Replay { status, body },
        Some(_) => Recorded::Mismatch,
    })
}

/// Stores the answer given to a key's first request.
pub fn record(
    tx: &mut WriteTx<'_>,
    scope: &str,
    key: &str,
    hash: &str,
    route: &str,
    status: u16,
    body: &str,
) -> Result<(), StoreError> {
    let now = tx.now_ms();
    tx.db().execute(
        "INSERT INTO idempotency (scope, key, request_hash, route, status, response_json, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        &[&scope, &key, &hash, &route, &status, &body, &now],
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lookup_tells_new_replay_and_mismatch_apart() {
        let dir = tempfile::tempdir().unwrap();
        let store = crate::Store::open(&dir.path().join("i.db")).unwrap();
        store
            .writer()
            .write_blocking(|tx| record(tx, "key:1", "k1", "h1", "messages", 201, "{\"id\":1}"))
            .unwrap();
        let r = |scope: &'static str, key: &'static str, hash: &'static str| {
            store
                .reader()
                .read_blocking(move |c| lookup(c, scope, key, &[hash]))
                .unwrap()
        };
        assert_eq!(
            r("key:1", "k1", "h1"),
            Recorded::Replay {
                status: 201,
                body: "{\"id\":1}".into()
            }
        );
        assert_eq!(r("key:1", "k1", "h2"), Recorded::Mismatch);
        assert_eq!(r("key:2", "k1", "h1"), Recorded::New);
        assert_eq!(r("key:1", "k2", "h1"), Recorded::New);
    }

    /// The one guard of a key's uniqueness (the message row's copy of the key has no index of its
    /// own since schema 20): a second record of the same scope and key is refused, whatever else
    /// its transaction wrote, so a repeat can never make a second message.
    #[test]
    fn a_key_is_recorded_once_and_a_second_record_undoes_its_transaction() {
        let dir = tempfile::tempdir().unwrap();
        let store = crate::Store::open(&dir.path().join("i.db")).unwrap();
        let writer = store.writer();
        writer
            .write_blocking(|tx| record(tx, "key:1", "k1", "h1", "messages", 201, "{}"))
            .unwrap();
        let again = writer.write_blocking(|tx| {
            tx.db()
                .execute("INSERT INTO view_count (scope, value, n) VALUES ('probe', 'x', 1)", &[])?;
            record(tx, "key:1", "k1", "h2", "messages", 201, "{}")
        });
        assert!(again.is_err(), "a second record of key:1/k1 was taken");
        let (records, probes): (i64, i64) = store
            .reader()
            .read_blocking(|c| {
                let n = |sql: &str| c.query_row(sql, [], |r| r.get::<_, i64>(0));
                Ok::<_, StoreError>((
                    n("SELECT count(*) FROM idempotency")?,
                    n("SELECT count(*) FROM view_count WHERE scope = 'probe'")?,
                ))
            })
            .unwrap();
        assert_eq!((records, probes), (1, 0));
    }

    #[test]
    fn a_key_answers_its_first_request_again_and_is_recorded_once_on_both_stores() {
        crate::both_stores::on_both(|db| {
            crate::writer::write_for_tests(db, 1_000, |tx| {
                assert_eq!(lookup(tx, "key:1", "k1", &["h1"])?, Recorded::New);
                record(tx, "key:1", "k1", "h1", "messages", 201, "{\"id\":1}")
            })
            .unwrap();
            assert_eq!(
                lookup(&db, "key:1", "k1", &["h0", "h1"]).unwrap(),
                Recorded::Replay {
                    status: 201,
                    body: "{\"id\":1}".into()
                },
                "{:?}",
                db.dialect()
            );
            assert_eq!(lookup(&db, "key:1", "k1", &["h2"]).unwrap(), Recorded::Mismatch);
            assert_eq!(lookup(&db, "key:2", "k1", &["h1"]).unwrap(), Recorded::New);
            let again =
                crate::writer::write_for_tests(db, 2_000, |tx| record(tx, "key:1", "k1", "h2", "messages", 201, "{}"));
            assert!(again.is_err(), "a second record of key:1/k1 was taken");
            let recorded: i64 = db.one("SELECT count(*) FROM idempotency", &[]).unwrap();
            assert_eq!(recorded, 1);
        });
    }
}
