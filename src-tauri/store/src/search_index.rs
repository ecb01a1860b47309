//! The text-search index over messages (`message_fts`, migration 3), brought up to date once per
//! transaction: the writer calls [`catch_up`] just before it commits, so the messages of a
//! transaction are searchable exactly when they are committed.
//!
//! A trigger used to index each message as it was inserted. FTS5 writes out the terms it holds at
//! every savepoint, and the writer runs each operation in one, so that made a new segment of the
//! index (and a rewrite of its structure record) for every message handed in alone, which FTS5
//! then merged again: most of what an HTTP request cost the writer. Indexing the transaction's
//! messages in one statement writes one segment per transaction.
//!
//! `search_indexed.upto` (migration 13) is the highest message id in the index. Message ids only
//! grow (AUTOINCREMENT) and message rows are immutable, so the messages past it are exactly those
//! still to index, however they were inserted.

use rusqlite::Connection;

/// Indexes the messages inserted since the last commit that indexed any; does nothing (two
/// lookups) when there are none.
pub(crate) fn catch_up(conn: &Connection) -> rusqlite::Result<()> {
    let upto: i64 = conn
        .prepare_cached("SELECT upto FROM search_indexed WHERE id = 1")?
        .query_row([], |r| r.get(0))?;
    let last: i64 = conn
        .prepare_cached("SELECT coalesce(max(id), 0) FROM message")?
        .query_row([], |r| r.get(0))?;
    if last <= upto {
        return Ok(());
    }
    conn.prepare_cached(
        "INSERT INTO message_fts (rowid, body, client_ref)
         SELECT id, body, client_ref FROM message WHERE id > ?1 AND id <= ?2",
    )?
    .execute([upto, last])?;
    conn.prepare_cached("UPDATE search_indexed SET upto = ?1 WHERE id = 1")?
        .execute([last])?;
    Ok(())
}
