//! A submit_sm read into a message: its destination, text (GSM, Latin-1 or UCS-2; the header of
//! a part skipped), kind (its service_type), receipt request and times; and the parts of a long
//! message (by UDH or SAR) held until the last one arrives.

use std::collections::HashMap;

use rusmpp::pdus::SubmitSm;

use crate::domain::MessageKind;
use crate::intake::SubmitMessage;
use rusmpp::CommandStatus;
use smsdesk_core::sms::decode::{decode, UserData};

/// How long the first part of a long message waits for the others.
pub(super) const PARTS_WAIT_MS: i64 = 60_000;
/// Parts of unfinished long messages one session may hold; beyond, a part is refused
/// ESME_RMSGQFUL (a client cannot fill the server's memory with first parts).
pub(super) const MAX_PARTS_HELD: usize = 1_000;

/// A submit_sm, read.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Read {
    pub message: SubmitMessage,
    /// registered_delivery's receipt bits.
    pub receipt: u8,
    /// The part of a long message this is: (reference, total, seq).
    pub part: Option<(u16, u8, u8)>,
}

/// Reads `submit` from an account that sends `kinds` (the first by default); `Err` is the
/// command_status to refuse it with.
pub(super) fn read(submit: &SubmitSm, kinds: &[MessageKind], now_ms: i64) -> Result<Read, CommandStatus> {
    let kind = kind(&submit.service_type.value().to_string(), kinds)?;
    let tlvs: Vec<_> = submit.tlvs().iter().map(smsdesk_smpp::raw_tlv).collect();
    let decoded = decode(&UserData {
        esm_class: Some(u8::from(submit.esm_class)),
        data_coding: Some(u8::from(submit.data_coding)),
        short_message: submit.short_message().as_ref(),
        tlvs: &tlvs,
    });
    let destination = address(&submit.destination_addr.to_string(), u8::from(submit.dest_addr_ton));
    if destination.is_empty() {
        return Err(CommandStatus::EsmeRinvdstadr);
    }
    let mut message = SubmitMessage {
        destination,
        text: decoded.text,
        kind: Some(kind),
        priority: Some(match u8::from(submit.priority_flag) {
            0 => 5,
            1 => 3,
            _ => 1,
        }),
        ..SubmitMessage::default()
    };
    let validity = time(&submit.validity_period.to_string(), now_ms).map_err(|_| CommandStatus::EsmeRinvexpiry)?;
    let scheduled =
        time(&submit.schedule_delivery_time.to_string(), now_ms).map_err(|_| CommandStatus::EsmeRinvsched)?;
    message.scheduled_at = scheduled.map(smsdesk_core::time::format_rfc3339);
    message.valid_until = validity.map(smsdesk_core::time::format_rfc3339);
    Ok(Read {
        message,
        receipt: u8::from(submit.registered_delivery) & 3,
        part: decoded.concat.map(|c| (c.reference, c.total, c.seq)),
    })
}

/// The kind a service_type asks for (SMPP gives it 5 characters): `OTP`, `TRANS` (or `TXN`) and
/// `BULK`; empty, or one of SMPP's own (`CMT`, `CPT`, `VMN`, `VMA`, `WAP`, `USSD`), is the
/// account's first kind. Refused when the account may not send it.
fn kind(service_type: &str, kinds: &[MessageKind]) -> Result<MessageKind, CommandStatus> {
    let word = service_type.trim().to_ascii_lowercase();
    let kind = match word.as_str() {
        "" | "cmt" | "cpt" | "vmn" | "vma" | "wap" | "ussd" => {
            kinds.first().copied().unwrap_or(MessageKind::Transactional)
        }
        "otp" => MessageKind::Otp,
        "bulk" => MessageKind::Bulk,
        "trans" | "txn" | "tr" => MessageKind::Transactional,
        _ => return Err(CommandStatus::EsmeRinvsertyp),
    };
    match kinds.contains(&kind) {
        true => Ok(kind),
        false => Err(CommandStatus::EsmeRinvsertyp),
    }
}

/// A destination as intake reads it: international (TON 1) gets its `+`; others are read with
/// the office's country.
fn address(addr: &str, ton: u8) -> String {
    let addr = addr.trim();
    match ton == 1 && !addr.starts_with('+') && !addr.is_empty() {
        true => format!("+{addr}"),
        false => addr.to_owned(),
    }
}

/// An SMPP time (`YYMMDDhhmmsstnnp`): absolute (`+`/`-`, quarter hours from UTC) or relative
/// (`R`); empty: none.
pub(super) fn time(text: &str, now_ms: i64) -> Result<Option<i64>, ()> {
    if text.is_empty() {
        return Ok(None);
    }
    let b = text.as_bytes();
    if b.len() != 16 || !b[..15].iter().all(u8::is_ascii_digit) {
        return Err(());
    }
    let n = |i: usize| i64::from(b[i] - b'0') * 10 + i64::from(b[i + 1] - b'0');
    let (yy, mo, dd, hh, mi, ss) = (n(0), n(2), n(4), n(6), n(8), n(10));
    match b[15] {
        b'R' => Ok(Some(
            now_ms + ((((yy * 365 + mo * 30 + dd) * 24 + hh) * 60 + mi) * 60 + ss) * 1000,
        )),
        sign @ (b'+' | b'-') => {
            if !(1..=12).contains(&mo) || !(1..=31).contains(&dd) || hh > 23 || mi > 59 || ss > 59 {
                return Err(());
            }
            let local = smsdesk_core::time::from_civil(2000 + yy, mo, dd, hh, mi, ss) + i64::from(b[12] - b'0') * 100;
            let offset = n(13) * 15 * 60_000;
            Ok(Some(if sign == b'+' { local - offset } else { local + offset }))
        }
        _ => Err(()),
    }
}

/// The parts of long messages waiting for the rest, on one session.
#[derive(Default)]
pub(super) struct Parts {
    waiting: HashMap<(String, u16), Waiting>,
}

/// The parts received of one long message: each one's sequence number and text, by its place.
struct Waiting {
    first_at: i64,
    total: u8,
    parts: HashMap<u8, (u32, String)>,
    read: Read,
}

/// A long message whose every part arrived: the message, and the submits to answer.
pub(super) struct Joined {
    pub read: Read,
    pub sequence_numbers: Vec<u32>,
}

impl Parts {
    /// Adds a part (submit `seq`); the whole message once its last part is in. A part that
    /// repeats a place already held replaces it (its earlier submit is answered with the rest).
    pub(super) fn add(&mut self, seq: u32, read: Read, now_ms: i64) -> Option<Joined> {
        let (reference, total, place) = read.part?;
        let key = (read.message.destination.clone(), reference);
        let waiting = self.waiting.entry(key.clone()).or_insert_with(|| Waiting {
            first_at: now_ms,
            total,
            parts: HashMap::new(),
            read: read.clone(),
        });
        waiting.parts.insert(place, (seq, read.message.text.clone()));
        if waiting.parts.len() < usize::from(waiting.total) {
            return None;
        }
        let done = self.waiting.remove(&key)?;
        let mut places: Vec<_> = done.parts.into_iter().collect();
        places.sort_by_key(|(place, _)| *place);
        let mut read = done.read;
        read.message.text = places.iter().map(|(_, (_, t))| t.as_str()).collect();
        read.part = None;
        Some(Joined {
            read,
            sequence_numbers: places.into_iter().map(|(_, (seq, _))| seq).collect(),
        })
    }

    /// The submits of the messages whose parts waited too long: refused, their parts forgotten.
    pub(super) fn expired(&mut self, now_ms: i64) -> Vec<u32> {
        let old: Vec<_> = self
            .waiting
            .iter()
            .filter(|(_, w)| now_ms - w.first_at > PARTS_WAIT_MS)
            .map(|(k, _)| k.clone())
            .collect();
        old.into_iter()
            .filter_map(|k| self.waiting.remove(&k))
            .flat_map(|w| w.parts.into_values().map(|(seq, _)| seq))
            .collect()
    }

    /// Parts held now.
    pub(super) fn held(&self) -> usize {
        self.waiting.values().map(|w| w.parts.len()).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn part(text: &str, reference: u16, total: u8, seq: u8) -> Read {
        Read {
            message: SubmitMessage {
                destination: "+33612345678".into(),
                text: text.into(),
                ..SubmitMessage::default()
            },
            receipt: 1,
            part: Some((reference, total, seq)),
        }
    }

    #[test]
    fn parts_are_joined_in_their_places_whatever_order_they_come_in() {
        let mut parts = Parts::default();
        assert!(parts.add(7, part("world", 9, 2, 2), 0).is_none());
        assert_eq!(parts.held(), 1);
        let joined = parts.add(8, part("hello ", 9, 2, 1), 0).expect("both parts in");
        assert_eq!(joined.read.message.text, "hello world");
        assert_eq!(joined.read.part, None);
        assert_eq!(joined.sequence_numbers, [8, 7], "answered in the parts' order");
        assert_eq!(parts.held(), 0);
    }

    #[test]
    fn parts_left_waiting_too_long_are_given_back_to_be_refused() {
        let mut parts = Parts::default();
        parts.add(3, part("a", 1, 3, 1), 0);
        parts.add(4, part("b", 1, 3, 2), 10);
        assert!(parts.expired(PARTS_WAIT_MS).is_empty(), "not yet");
        let mut late = parts.expired(PARTS_WAIT_MS + 1);
        late.sort();
        assert_eq!(late, [3, 4]);
        assert_eq!(parts.held(), 0);
    }

    #[test]
    fn smpp_times_read_absolute_with_their_offset_and_relative_from_now() {
        let now = 1_000_000;
        assert_eq!(time("", now), Ok(None));
        // 2 hours, 30 minutes relative.
        assert_eq!(time("000000023000000R", now), Ok(Some(now + 9_000_000)));
        // 2026-12-07 10:00:00 at UTC+1 (4 quarter hours) is 09:00 UTC.
        let at = smsdesk_core::time::from_civil(2026, 12, 7, 9, 0, 0);
        assert_eq!(time("261207100000004+", now), Ok(Some(at)));
        assert!(time("261307100000004+", now).is_err(), "month 13");
        assert!(time("26120710000000", now).is_err(), "too short");
        assert!(time("261207100000004x", now).is_err());
    }
}
