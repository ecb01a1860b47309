//! The submit_sm of one part of a message, built from what the dispatcher knows of it.

use rusmpp::pdus::SubmitSm;
use rusmpp::types::{EmptyOrFullCOctetString, OctetString};
use rusmpp::values::{DataCoding, EsmClass, Npi, RegisteredDelivery, Ton};

use crate::cstr;

/// One part of a message, as it goes out.
#[derive(Debug, Clone, Copy)]
pub struct Submit<'a> {
    /// The sender id (alphanumeric) or number it goes out from.
    pub source_addr: &'a str,
    /// The destination in E.164 (a leading `+` is dropped on the wire).
    pub destination: &'a str,
    /// The receipts asked for (registered_delivery).
    pub registered_delivery: u8,
    /// When it stops being worth delivering, in ms since the epoch (UTC), if ever.
    pub valid_until: Option<i64>,
    /// The SMPP data_coding of `octets`.
    pub data_coding: u8,
    /// The concatenation header of a part of a long message.
    pub udh: Option<[u8; 6]>,
    /// The encoded text of this part.
    pub octets: &'a [u8],
}

impl Submit<'_> {
    /// The PDU, with every field set explicitly (rusmpp's default esm_class is 0x08, a delivery
    /// acknowledgement, which a submit must not carry).
    pub fn pdu(&self) -> SubmitSm {
        let alphanumeric = self.source_addr.chars().any(|c| c.is_ascii_alphabetic());
        let (src_ton, src_npi) = if alphanumeric {
            (Ton::Alphanumeric, Npi::Unknown)
        } else {
            (Ton::International, Npi::Isdn)
        };
        let mut short_message = Vec::with_capacity(self.octets.len() + 6);
        short_message.extend(self.udh.iter().flatten());
        short_message.extend_from_slice(self.octets);
        let mut validity = self.valid_until.map(smpp_time).unwrap_or_default().into_bytes();
        validity.push(0);
        SubmitSm::builder()
            .source_addr_ton(src_ton)
            .source_addr_npi(src_npi)
            .source_addr(cstr(self.source_addr))
            .dest_addr_ton(Ton::International)
            .dest_addr_npi(Npi::Isdn)
            .destination_addr(cstr(self.destination.trim_start_matches('+')))
            .esm_class(EsmClass::from(if self.udh.is_some() { 0x40 } else { 0x00 }))
            .registered_delivery(RegisteredDelivery::from(self.registered_delivery))
            .validity_period(EmptyOrFullCOctetString::from_vec(validity).unwrap_or_default())
            .data_coding(DataCoding::from(self.data_coding))
            .short_message(OctetString::from_vec(short_message).unwrap_or_default())
            .build()
    }
}

/// SMPP absolute time `YYMMDDhhmmss000+` (UTC).
fn smpp_time(ms: i64) -> String {
    let (y, mo, d, h, mi, sec) = smsdesk_core::time::civil(ms);
    format!("{:02}{mo:02}{d:02}{h:02}{mi:02}{sec:02}000+", y % 100)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn part(source_addr: &str, udh: Option<[u8; 6]>, valid_until: Option<i64>) -> SubmitSm {
        Submit {
            source_addr,
            destination: "+33612345600",
            registered_delivery: 1,
            valid_until,
            data_coding: 0,
            udh,
            octets: b"hello",
        }
        .pdu()
    }

    #[test]
    fn a_submit_carries_no_delivery_acknowledgement_flag_and_sets_udhi_only_for_a_part() {
        let whole = part("smsdesk", None, None);
        assert_eq!(
            u8::from(whole.esm_class),
            0x00,
            "a plain submit's esm_class is 0, not rusmpp's 0x08"
        );
        assert_eq!(whole.short_message().as_ref(), b"hello");
        let udh = [0x05, 0x00, 0x03, 0x2A, 0x02, 0x01];
        let first = part("smsdesk", Some(udh), None);
        assert_eq!(
            u8::from(first.esm_class),
            0x40,
            "a part of a long message says its UDH is there"
        );
        assert_eq!(
            &first.short_message().as_ref()[..6],
            &udh,
            "the UDH comes before the text"
        );
    }

    #[test]
    fn the_sender_s_type_follows_its_letters_and_the_destination_loses_its_plus() {
        let named = part("Clinic", None, None);
        assert_eq!(named.source_addr_ton, Ton::Alphanumeric);
        let numbered = part("33612345699", None, None);
        assert_eq!(numbered.source_addr_ton, Ton::International);
        assert_eq!(numbered.source_addr_npi, Npi::Isdn);
        assert_eq!(named.destination_addr.to_string(), "33612345600");
    }

    #[test]
    fn a_validity_end_is_written_as_smpp_absolute_utc_time() {
        // 2026-12-06 03:53:39.250 UTC.
        let pdu = part("smsdesk", None, Some(1_796_529_219_250));
        assert_eq!(pdu.validity_period.to_string(), "261206035339000+");
        assert_eq!(
            part("smsdesk", None, None).validity_period.to_string(),
            "",
            "no validity: empty"
        );
        assert_eq!(smpp_time(0), "700101000000000+");
    }
}
