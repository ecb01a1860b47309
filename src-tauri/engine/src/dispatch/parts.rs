//! Where each part of a long message stands, in words, for the exceptions that hold it.

use rusqlite::{params, Connection};

use crate::domain::AttemptOutcome;
use crate::store::StoreError;
use crate::store::Text;

/// One part's latest try in the message's current round of sending.
struct Part {
    segment_no: u32,
    outcome: Option<AttemptOutcome>,
    provider_id: Option<String>,
    error: Option<String>,
}

/// "Part 1 of 3: accepted (provider id "A1"). Part 2 of 3: ..." for a message of several parts;
/// None for a message of one.
pub fn describe(conn: &Connection, message_id: i64) -> Result<Option<String>, StoreError> {
    let (segments, round_from): (u32, i64) = conn
        .prepare_cached(
            "SELECT m.segments, coalesce(q.round_from, 0) FROM message m JOIN queue q ON q.message_id = m.id
             WHERE m.id = ?1",
        )?
        .query_row([message_id], |r| Ok((r.get(0)?, r.get(1)?)))?;
    if segments <= 1 {
        return Ok(None);
    }
    // An accepted try stands for its part whatever came after; else the latest try does.
    let tries: Vec<Part> = conn
        .prepare_cached(
            "SELECT segment_no, outcome, provider_message_id, error FROM attempt
             WHERE message_id = ?1 AND id > ?2 ORDER BY segment_no, outcome = 'accepted', id",
        )?
        .query_map(params![message_id, round_from], |r| {
            Ok(Part {
                segment_no: r.get(0)?,
                outcome: r.get::<_, Option<Text<_>>>(1)?.map(|t| t.0),
                provider_id: r.get(2)?,
                error: r.get(3)?,
            })
        })?
        .collect::<Result<_, _>>()?;
    let words = (1..=segments)
        .map(|n| {
            let state = match tries.iter().rev().find(|p| p.segment_no == n) {
                None => "not sent".to_owned(),
                Some(p) => match p.outcome {
                    Some(AttemptOutcome::Accepted) => format!(
                        "accepted (provider id {:?})",
                        p.provider_id.as_deref().unwrap_or_default()
                    ),
                    Some(AttemptOutcome::Timeout | AttemptOutcome::LinkLost | AttemptOutcome::Pending) => {
                        "written, answer never came (outcome unknown)".to_owned()
                    }
                    Some(AttemptOutcome::NotSent) | None => "not sent".to_owned(),
                    Some(_) => format!("refused: {}", p.error.as_deref().unwrap_or("no reason given")),
                },
            };
            format!("Part {n} of {segments}: {state}.")
        })
        .collect::<Vec<_>>()
        .join(" ");
    Ok(Some(words))
}
