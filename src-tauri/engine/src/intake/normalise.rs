//! A submitted message as intake reads it, for telling an equivalent repeat of a request from a
//! different one under the same idempotency key: defaults filled in (`kind` transactional,
//! `priority` 5), the destination in E.164, times as instants, and an empty `ordering_key` or
//! `client_ref` as absent. Two requests that intake would turn into the same message read the
//! same here, however they were spelled (a template and its values read as the text they fill);
//! any other difference (the text, a validity) still shows.

use serde::Serialize;

use super::SubmitMessage;
use crate::clock::parse_rfc3339;
use crate::domain::MessageKind;
use crate::messages::{NewMessage, DEFAULT_PRIORITY};

/// What a submitted message says, once read as intake reads it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Normalised {
    destination: String,
    text: String,
    kind: MessageKind,
    priority: u8,
    valid_until: Option<Time>,
    validity_seconds: Option<u32>,
    scheduled_at: Option<Time>,
    ordering_key: Option<String>,
    client_ref: Option<String>,
}

/// A time as an instant (ms since the epoch) when it reads as one; as written otherwise.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(untagged)]
enum Time {
    Ms(i64),
    Written(String),
}

/// `req` as intake read it, `new` being the message it validated to: only a message intake
/// accepted is compared, so its number (in E.164) and its text (a template's filled in) are not
/// worked out a second time here. A time that does not read as one is kept as written.
pub fn normalise(req: &SubmitMessage, new: &NewMessage) -> Normalised {
    let time = |t: &Option<String>| {
        t.as_deref()
            .map(|text| parse_rfc3339(text).map_or_else(|_| Time::Written(text.to_owned()), Time::Ms))
    };
    let present = |v: &Option<String>| v.clone().filter(|v| !v.is_empty());
    Normalised {
        destination: new.destination.clone(),
        text: new.body.clone(),
        kind: req.kind.unwrap_or(MessageKind::Transactional),
        priority: req.priority.unwrap_or(DEFAULT_PRIORITY),
        valid_until: time(&req.valid_until),
        validity_seconds: req.validity_seconds,
        scheduled_at: time(&req.scheduled_at),
        ordering_key: present(&req.ordering_key),
        client_ref: present(&req.client_ref),
    }
}
