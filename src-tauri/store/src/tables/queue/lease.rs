//! Leases on the queue as a sending node sees them: the messages left `sending` that nobody may
//! still be sending (a lease run out, the asker's own, a dead node's), and whether a lease is
//! still one's own, under the row's lock, before a try goes out.

use crate::db::{Db, Dialect};
use crate::writer::WriteTx;
use crate::Reads;
use crate::StoreError;

/// Messages left `sending` with no lease anyone may still be sending under: it ended by `now`, it
/// is `owner`'s (the dispatcher asking, which leaves out the ones it is still sending), or its
/// owner is among `dead` (nodes whose heartbeat stopped). A read.
pub fn stranded(conn: &impl Reads, now: i64, owner: &str, dead: &[String]) -> Result<Vec<i64>, StoreError> {
    stranded_where(conn.db(), "", now, owner, dead)
}

/// [`stranded`], read in the transaction that settles them, with their rows locked on
/// PostgreSQL: a node still sending one of them records its try first, or finds it is no longer
/// its own ([`leased_to`]).
pub fn stranded_locked(tx: &WriteTx<'_>, now: i64, owner: &str, dead: &[String]) -> Result<Vec<i64>, StoreError> {
    let lock = match tx.db().dialect() {
        Dialect::Postgres => " FOR UPDATE",
        Dialect::Sqlite => "",
    };
    stranded_where(tx.db(), lock, now, owner, dead)
}

fn stranded_where(db: Db<'_>, lock: &str, now: i64, owner: &str, dead: &[String]) -> Result<Vec<i64>, StoreError> {
    let rows: Vec<(i64, Option<String>, Option<i64>)> = db.query(
        &format!(
            "SELECT message_id, lease_owner, lease_until FROM queue WHERE status = 'sending' ORDER BY message_id{lock}"
        ),
        &[],
        |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
    )?;
    Ok(rows
        .into_iter()
        .filter(|(_, by, until)| {
            until.is_none_or(|u| u <= now)
                || by
                    .as_deref()
                    .is_none_or(|by| by == owner || dead.iter().any(|d| d == by))
        })
        .map(|(id, _, _)| id)
        .collect())
}

/// Whether message `message_id` is being sent under `owner`'s lease, its row locked until the
/// transaction ends on PostgreSQL: what a node checks in the transaction that records a try,
/// so that a message another node settled meanwhile (this one was thought dead) is never
/// written to the wire.
pub fn leased_to(tx: &WriteTx<'_>, message_id: i64, owner: &str) -> Result<bool, StoreError> {
    let lock = match tx.db().dialect() {
        Dialect::Postgres => " FOR UPDATE",
        Dialect::Sqlite => "",
    };
    let found: Option<i64> = tx.db().query_opt(
        &format!(
            "SELECT message_id FROM queue WHERE message_id = ?1 AND status = 'sending' AND lease_owner = ?2{lock}"
        ),
        &[&message_id, &owner],
        |r| r.get(0),
    )?;
    Ok(found.is_some())
}
