//! A message as handed in, before it is stored: what intake builds and the store writes.

use crate::domain::{IntakeChannel, MessageKind};

/// A message as handed to us, ready to be written.
#[derive(Debug, Clone)]
pub struct NewMessage {
    pub channel: IntakeChannel,
    pub destination_raw: String,
    /// E.164, normalised by intake.
    pub destination: String,
    pub body: String,
    pub encoding: String,
    pub segments: u32,
    pub kind: MessageKind,
    /// The connection it is queued for: its route's first (its primary).
    pub connection: String,
    /// The route that took it (config [[routes]], or "default"), kept on its queue row: a
    /// connection of that route sends it. None (as earlier versions queued): it goes out on
    /// `connection` alone.
    pub route: Option<String>,
    /// SMPP registered_delivery requested for it.
    pub registered_delivery: u8,
    pub client_ref: Option<String>,
    pub ordering_key: Option<String>,
    pub valid_until: Option<i64>,
    pub scheduled_at: Option<i64>,
    /// Urgency within its kind, 0 (first) to 9; one-time codes still go before transactional
    /// messages, and those before bulk ones, whatever their priority.
    pub priority: u8,
    /// The API key that handed it in, if one did.
    pub api_key_id: Option<i64>,
    /// Who handed it in, as named when they did: the person (the window's operator, or the
    /// account signed in from a browser) or the API key. None for rows written before this was
    /// recorded, and for messages made by the engine itself.
    pub submitted_by: Option<String>,
    /// The client's Idempotency-Key, with its scope and the hash of the request it came with.
    pub idempotency: Option<Idempotency>,
    /// The destination's country (two letters) as intake read it with the number, `Some("")`
    /// when the numbering data does not tell; None when it was not read, and the store reads it
    /// (for the delivery report), at a cost to the writer.
    pub country: Option<String>,
    /// What one part costs on each connection its route may send it on (millionths of the
    /// office's currency), priced at intake; empty where no price covers it.
    pub prices: Vec<(String, i64)>,
    /// The typographic characters smart encoding replaced in `body` (`sms::smart::to_stored`),
    /// None when it is sent as handed in.
    pub smart_replaced: Option<String>,
    /// Handed in over smsdesk's SMPP server: the receipt its client asked for
    /// (registered_delivery's low bits). None for every other way in.
    pub smpp_receipt: Option<u8>,
}

/// An idempotency key as recorded on the message it created.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Idempotency {
    pub scope: String,
    pub key: String,
    pub request_hash: String,
}

/// The within-kind priority a message gets when none is asked for.
pub const DEFAULT_PRIORITY: u8 = 5;

/// The queue's ordering value: kind first, then the message's own priority.
pub fn queue_priority(kind: MessageKind, priority: u8) -> i64 {
    kind.priority() * 10 + i64::from(priority.min(9))
}

impl NewMessage {
    /// A message with the encoding and segment count its text needs, a final receipt requested,
    /// sent as soon as possible.
    pub fn text(
        channel: IntakeChannel,
        destination: &str,
        body: &str,
        kind: MessageKind,
        connection: &str,
    ) -> NewMessage {
        let plan = crate::sms::encoding::plan(body);
        NewMessage {
            channel,
            destination_raw: destination.into(),
            destination: destination.into(),
            body: body.into(),
            encoding: plan.encoding.as_str().into(),
            segments: plan.segments,
            kind,
            connection: connection.into(),
            route: None,
            registered_delivery: 1,
            client_ref: None,
            ordering_key: None,
            valid_until: None,
            scheduled_at: None,
            priority: DEFAULT_PRIORITY,
            api_key_id: None,
            submitted_by: None,
            idempotency: None,
            country: None,
            prices: Vec::new(),
            smart_replaced: None,
            smpp_receipt: None,
        }
    }
}
