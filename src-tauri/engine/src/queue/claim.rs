//! Claiming due messages under a lease, and giving one back untried.

use crate::domain::QueueStatus;
use crate::reasons::QueueNote;
use crate::store::tables::queue::{self, parts_accepted, Claimed};
use crate::store::{StoreError, WriteTx};

/// Claims up to `limit` messages that are due, under a lease held by `owner` until
/// `now + lease_ms`: OTPs first, then transactional, then bulk; within a priority, the earliest
/// due; never one past its validity; and never a message whose ordering key has an earlier message
/// still queued, sending (a long message stays so until every part is accepted), or waiting for a
/// decision, so messages about one order never overtake each other (also across retries).
pub fn claim(
    tx: &mut WriteTx<'_>,
    owner: &str,
    now: i64,
    lease_ms: i64,
    limit: u32,
    serving: &queue::Serving,
) -> Result<Vec<Claimed>, StoreError> {
    let claimed = queue::due(tx, now, limit, serving)?;
    let mut out = Vec::with_capacity(claimed.len());
    for (mut c, segments) in claimed {
        if segments > 1 {
            c.parts_accepted = parts_accepted(tx, c.message_id)?;
            if c.parts_accepted.len() as u32 >= segments {
                // Nothing left to send (every part was accepted before it was queued again).
                queue::set_status(tx, c.message_id, QueueStatus::Accepted, None, None)?;
                continue;
            }
        }
        // The last word before a message goes out: a number that opted out while it waited (or
        // while an earlier try was on the wire) gets nothing more.
        if let Some(entry) = crate::optouts::blocks(&*tx, &c.destination, c.kind)? {
            let via = crate::queue_reason::OptOutVia::Due;
            crate::optouts::hold(tx, c.message_id, &c.destination, entry, via)?;
            continue;
        }
        queue::lease(tx, c.message_id, owner, now + lease_ms)?;
        out.push(c);
    }
    Ok(out)
}

/// A message claimed and not tried (no attempt recorded) goes back to the queue as it was, for
/// whichever connection claims it next; `why` is kept as its last word.
pub fn give_back(tx: &mut WriteTx<'_>, message_id: i64, why: &QueueNote) -> Result<(), StoreError> {
    if queue::status(&*tx, message_id)? == Some(QueueStatus::Sending) {
        queue::set_status(tx, message_id, QueueStatus::Queued, Some(why), None)?;
    }
    Ok(())
}
