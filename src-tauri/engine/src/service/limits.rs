//! An API key's limits on what it hands in: where it may send, and how many messages per minute
//! and per day. Counted in the writer's transaction, so two requests at once cannot both slip
//! under a limit.

use super::ServiceError;
use crate::access::{Caller, KeyLimits};
use crate::messages::NewMessage;
use crate::store::tables::api_key;
use crate::store::WriteTx;

const MINUTE_MS: i64 = 60_000;
const DAY_MS: i64 = 24 * 3_600_000;

fn limits(caller: &Caller) -> Option<(i64, &KeyLimits)> {
    match caller {
        Caller::Key { id, limits, .. } if !limits.is_empty() => Some((*id, limits)),
        _ => None,
    }
}

/// Refuses messages to destinations outside the key's allowed prefixes, naming each one (and
/// its index in a batch).
pub fn check_destinations(caller: &Caller, news: &[NewMessage]) -> Result<(), ServiceError> {
    let Some((_, l)) = limits(caller) else {
        return Ok(());
    };
    let refused: Vec<String> = news
        .iter()
        .enumerate()
        .filter(|(_, n)| !l.allows_destination(&n.destination))
        .map(|(i, n)| match news.len() {
            1 => n.destination.clone(),
            _ => format!("messages[{i}] {}", n.destination),
        })
        .collect();
    if refused.is_empty() {
        return Ok(());
    }
    Err(ServiceError::DestinationNotAllowed(format!(
        "this API key may send only to numbers starting with {}: refused {}",
        l.destination_prefixes.join(", "),
        refused.join(", ")
    )))
}

/// Refuses `count` more messages when they would take the key past its limit per minute or per
/// day; says when to try again.
pub fn check_rate(tx: &WriteTx<'_>, caller: &Caller, count: usize) -> Result<(), ServiceError> {
    let Some((id, l)) = limits(caller) else {
        return Ok(());
    };
    let now = tx.now_ms();
    for (limit, window, what) in [(l.per_minute, MINUTE_MS, "minute"), (l.per_day, DAY_MS, "day")] {
        let Some(limit) = limit else { continue };
        let (sent, oldest) = api_key::sent_since(tx, id, now - window)?;
        if sent + count as u64 <= u64::from(limit) {
            continue;
        }
        // The window frees room as its oldest messages leave it.
        let retry_after_ms = oldest.map_or(window, |o| (o + window - now).max(1_000));
        let message = if count as u64 > u64::from(limit) {
            format!("this API key may hand in {limit} messages per {what}; this request holds {count}")
        } else {
            format!("this API key may hand in {limit} messages per {what} and handed in {sent}")
        };
        return Err(ServiceError::RateLimited {
            message,
            retry_after_secs: (retry_after_ms as u64).div_ceil(1000),
        });
    }
    Ok(())
}
