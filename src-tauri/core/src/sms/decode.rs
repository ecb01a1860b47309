//! What a received (mobile-originated) SMS says: the user data of a `deliver_sm`/`data_sm` turned
//! into text by its `data_coding`, and the part of a concatenated message it is, read from the user
//! data header or from the SAR TLVs.
//!
//! Read tolerantly, like receipts: nothing here refuses an input or panics. What could not be read
//! exactly (a reserved coding, an odd UCS-2 octet, a header that does not add up) is read the
//! nearest sensible way and said in [`Decoded::notes`], so a reply is never lost to a sender's or
//! an SMSC's mistake.

use serde::Serialize;

use super::encoding::gsm_char;
use crate::tlv::{tag, Tlv};

/// The SAR TLVs: the concatenation info of a part sent without a user data header.
mod sar {
    /// `sar_msg_ref_num`: 2 octets, the reference shared by all parts of one message.
    pub const MSG_REF_NUM: u16 = 0x020C;
    /// `sar_total_segments`: 1 octet, how many parts the message has.
    pub const TOTAL_SEGMENTS: u16 = 0x020E;
    /// `sar_segment_seqnum`: 1 octet, which part this is, from 1.
    pub const SEGMENT_SEQNUM: u16 = 0x020F;
}

/// The UDHI bit of `esm_class`: the user data starts with a header.
const UDHI: u8 = 0x40;

/// The GSM 03.38 escape septet: the next septet is read in the extension table.
const ESCAPE: u8 = 0x1B;

/// The parts of a received `deliver_sm`/`data_sm` its text is read from.
#[derive(Debug, Clone, Copy)]
pub struct UserData<'a> {
    /// `None` when unknown: then no user data header is looked for.
    pub esm_class: Option<u8>,
    /// `None` when unknown: read as 0, the SMSC default alphabet.
    pub data_coding: Option<u8>,
    pub short_message: &'a [u8],
    /// All the PDU's TLVs; `message_payload` and the SAR TLVs are read from them.
    pub tlvs: &'a [Tlv],
}

/// How the text's octets were read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Alphabet {
    /// GSM 03.38 default alphabet, one septet per octet, with its extension table.
    Gsm7,
    /// IA5 / ASCII, one character per octet.
    Ascii,
    /// ISO-8859-1, one character per octet: also what octets nothing better fits are read as.
    Latin1,
    /// UCS-2 / UTF-16 big-endian, surrogate pairs joined.
    Ucs2,
    /// Not text: the octets are shown in uppercase hex.
    Binary,
    /// Received as text, not as octets: an HTTP provider's message, already decoded by it.
    Text,
}

impl Alphabet {
    pub const fn as_str(self) -> &'static str {
        match self {
            Alphabet::Gsm7 => "gsm7",
            Alphabet::Ascii => "ascii",
            Alphabet::Latin1 => "latin1",
            Alphabet::Ucs2 => "ucs2",
            Alphabet::Binary => "binary",
            Alphabet::Text => "text",
        }
    }
}

/// Which part of a concatenated message a received part is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Concat {
    /// Shared by all parts of one message from one sender (an 8-bit reference is widened).
    pub reference: u16,
    /// How many parts the message has, at least 1.
    pub total: u8,
    /// Which part this is, from 1 to `total`.
    pub seq: u8,
}

impl Concat {
    /// The concatenation info, when it names a part of a whole; otherwise why it does not.
    fn checked(reference: u16, total: u8, seq: u8, source: &str) -> Result<Concat, String> {
        if total == 0 || seq == 0 || seq > total {
            Err(format!(
                "{source} says part {seq} of {total}: not read as a concatenated part"
            ))
        } else {
            Ok(Concat { reference, total, seq })
        }
    }
}

/// The text of a received part and what is known about it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decoded {
    /// The text as received: nothing trimmed, the header not included.
    pub text: String,
    pub alphabet: Alphabet,
    /// The part this is, when the header or the SAR TLVs say it is one of several.
    pub concat: Option<Concat>,
    /// What could not be read exactly (e.g. "odd number of octets in UCS-2 text"), each said
    /// once; empty when the text is exact.
    pub notes: Vec<String>,
}

/// Decodes the user data of a received `deliver_sm`/`data_sm`.
///
/// - The content is `short_message`, or `message_payload` when `short_message` is empty.
/// - With UDHI set in `esm_class` and a first octet that can be a header length, the user data
///   header is skipped; its concatenation element (IEI 0x00, 8-bit reference, or 0x08, 16-bit)
///   gives [`Decoded::concat`]; other elements are skipped. Without one, the three SAR TLVs do.
/// - `data_coding` (unknown: 0) decides the reading: 0x00 the SMSC default alphabet, read as
///   GSM 03.38 when every octet is a septet and as Latin-1 otherwise; 0x01 ASCII; 0x03 Latin-1;
///   0x08 UCS-2; 0x02 and 0x04 binary, shown as hex; the general data coding group (0x10..=0x3F)
///   and the message class group (0xF0..=0xFF) by their alphabet bits; anything else Latin-1,
///   noted.
pub fn decode(u: &UserData<'_>) -> Decoded {
    let mut notes = Vec::new();
    let content = content_of(u);
    let udhi = u.esm_class.is_some_and(|e| e & UDHI != 0);
    let (header, body) = split_udh(content, udhi, &mut notes);
    let concat = header
        .and_then(|h| udh_concat(h, &mut notes))
        .or_else(|| sar_concat(u.tlvs, &mut notes));
    let reading = reading_of(u.data_coding.unwrap_or(0), &mut notes);
    let (text, alphabet) = read(body, reading, &mut notes);
    Decoded {
        text,
        alphabet,
        concat,
        notes,
    }
}

/// Adds a note unless the same one is already there.
fn note(notes: &mut Vec<String>, msg: impl Into<String>) {
    let msg = msg.into();
    if !notes.contains(&msg) {
        notes.push(msg);
    }
}

/// The octets the text is in: `short_message`, or the first `message_payload` when it is empty.
fn content_of<'a>(u: &UserData<'a>) -> &'a [u8] {
    if !u.short_message.is_empty() {
        return u.short_message;
    }
    u.tlvs
        .iter()
        .find(|t| t.tag == tag::MESSAGE_PAYLOAD)
        .map_or(&[], |t| t.value.as_slice())
}

/// The user data header (without its length octet) and the text after it. Only with UDHI set and
/// a first octet that fits in the content; otherwise all of it is text.
fn split_udh<'a>(content: &'a [u8], udhi: bool, notes: &mut Vec<String>) -> (Option<&'a [u8]>, &'a [u8]) {
    if !udhi || content.is_empty() {
        return (None, content);
    }
    let len = usize::from(content[0]);
    if len >= content.len() {
        note(
            notes,
            "UDHI is set but the first octet is no header length: all of it read as text",
        );
        return (None, content);
    }
    let (header, body) = content[1..].split_at(len);
    (Some(header), body)
}

/// The information elements of a header, as (identifier, data). A last element longer than what
/// is left is noted and dropped.
fn elements<'a>(mut header: &'a [u8], notes: &mut Vec<String>) -> Vec<(u8, &'a [u8])> {
    let mut out = Vec::new();
    while let [iei, len, rest @ ..] = header {
        let len = usize::from(*len);
        if len > rest.len() {
            break;
        }
        out.push((*iei, &rest[..len]));
        header = &rest[len..];
    }
    if !header.is_empty() {
        note(
            notes,
            "the user data header ends inside an element: that element is ignored",
        );
    }
    out
}

/// The concatenation info of a header: its first well-formed concatenation element.
fn udh_concat(header: &[u8], notes: &mut Vec<String>) -> Option<Concat> {
    let mut found = None;
    for (iei, data) in elements(header, notes) {
        let read = match (iei, data) {
            (0x00, &[r, total, seq]) => Concat::checked(u16::from(r), total, seq, "the header"),
            (0x08, &[r0, r1, total, seq]) => Concat::checked(u16::from_be_bytes([r0, r1]), total, seq, "the header"),
            (0x00 | 0x08, _) => Err(format!(
                "concatenation element 0x{iei:02X} of {} octets: ignored",
                data.len()
            )),
            _ => continue,
        };
        match read {
            Ok(_) if found.is_some() => note(notes, "more than one concatenation element: the first is kept"),
            Ok(c) => found = Some(c),
            Err(e) => note(notes, e),
        }
    }
    found
}

/// The concatenation info of the SAR TLVs: all three are needed, each of its size.
fn sar_concat(tlvs: &[Tlv], notes: &mut Vec<String>) -> Option<Concat> {
    let first = |t: u16| tlvs.iter().find(|x| x.tag == t).map(|x| x.value.as_slice());
    let found = (
        first(sar::MSG_REF_NUM),
        first(sar::TOTAL_SEGMENTS),
        first(sar::SEGMENT_SEQNUM),
    );
    match found {
        (None, None, None) => None,
        (Some(&[r0, r1]), Some(&[total]), Some(&[seq])) => {
            Concat::checked(u16::from_be_bytes([r0, r1]), total, seq, "the SAR TLVs")
                .map_err(|e| note(notes, e))
                .ok()
        }
        _ => {
            note(
                notes,
                "SAR TLVs missing or of the wrong size (sar_msg_ref_num 2 octets, \
                 sar_total_segments and sar_segment_seqnum 1 each): not read as a concatenated part",
            );
            None
        }
    }
}

/// How `data_coding` says the octets are to be read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reading {
    /// GSM 03.38 when every octet is a septet, Latin-1 otherwise.
    DefaultAlphabet,
    Ascii,
    Latin1,
    Ucs2,
    Binary,
}

/// The reading `data_coding` asks for:
/// - 0x00 SMSC default alphabet, 0x01 IA5/ASCII, 0x03 Latin-1, 0x08 UCS-2, 0x02/0x04 binary;
/// - 0x10..=0x3F general data coding group: bits 3-2 give the alphabet (00 default, 01 8-bit
///   data, 10 UCS-2); compressed text (0x20) is shown as binary, never decompressed;
/// - 0xF0..=0xFF message class group: bit 2 set is 8-bit data, else the default alphabet;
/// - anything else (national codings, reserved values, the message waiting groups) is read as
///   Latin-1, with a note naming the value.
fn reading_of(dc: u8, notes: &mut Vec<String>) -> Reading {
    let unknown = |notes: &mut Vec<String>| {
        note(
            notes,
            format!("data_coding 0x{dc:02X} is not a coding read here: read as Latin-1"),
        );
        Reading::Latin1
    };
    match dc {
        0x00 => Reading::DefaultAlphabet,
        0x01 => Reading::Ascii,
        0x02 | 0x04 => Reading::Binary,
        0x03 => Reading::Latin1,
        0x08 => Reading::Ucs2,
        0x10..=0x3F if dc & 0x20 != 0 => {
            note(
                notes,
                format!("data_coding 0x{dc:02X} says the text is compressed: shown as hex"),
            );
            Reading::Binary
        }
        0x10..=0x3F => match (dc >> 2) & 0b11 {
            0b00 => Reading::DefaultAlphabet,
            0b01 => Reading::Binary,
            0b10 => Reading::Ucs2,
            _ => unknown(notes),
        },
        0xF0..=0xFF if dc & 0x04 != 0 => Reading::Binary,
        0xF0..=0xFF => Reading::DefaultAlphabet,
        _ => unknown(notes),
    }
}

/// The text of `octets` read as `reading` says, and the alphabet it was read in.
fn read(octets: &[u8], reading: Reading, notes: &mut Vec<String>) -> (String, Alphabet) {
    match reading {
        Reading::DefaultAlphabet if octets.iter().all(|&o| o < 0x80) => (gsm7(octets, notes), Alphabet::Gsm7),
        Reading::DefaultAlphabet => {
            note(
                notes,
                "octets of 0x80 and above in default-alphabet text: read as Latin-1",
            );
            (latin1(octets), Alphabet::Latin1)
        }
        Reading::Ascii => {
            if !octets.is_ascii() {
                note(notes, "octets of 0x80 and above in ASCII text: read as Latin-1");
            }
            (latin1(octets), Alphabet::Ascii)
        }
        Reading::Latin1 => (latin1(octets), Alphabet::Latin1),
        Reading::Ucs2 => (ucs2(octets, notes), Alphabet::Ucs2),
        Reading::Binary => (hex_upper(octets), Alphabet::Binary),
    }
}

/// GSM 03.38 septets, one per octet, as text. What 03.38 says a receiver shows is followed: an
/// escape to a further extension table (1B 1B) is a space, an escape before a septet the
/// extension table has no character for is that septet's basic character. An escape at the very
/// end is a space too. Each is noted.
fn gsm7(septets: &[u8], notes: &mut Vec<String>) -> String {
    let mut out = String::with_capacity(septets.len());
    let mut it = septets.iter().copied();
    while let Some(s) = it.next() {
        if s != ESCAPE {
            out.push(gsm_char(s, false).unwrap_or(char::REPLACEMENT_CHARACTER));
            continue;
        }
        let Some(e) = it.next() else {
            note(notes, "escape septet at the end of the text: read as a space");
            out.push(' ');
            break;
        };
        match (gsm_char(e, true), gsm_char(e, false)) {
            (Some(c), _) => out.push(c),
            (None, None) => {
                note(notes, "escape to a further extension table (1B 1B): read as a space");
                out.push(' ');
            }
            (None, Some(c)) => {
                note(
                    notes,
                    format!("escape before 0x{e:02X}, which has no extension character: read as `{c}`"),
                );
                out.push(c);
            }
        }
    }
    out
}

/// One character per octet (ISO-8859-1): lossless.
fn latin1(octets: &[u8]) -> String {
    octets.iter().map(|&o| char::from(o)).collect()
}

/// UTF-16 big-endian as text, surrogate pairs joined; a lone surrogate or an odd last octet is
/// U+FFFD, and noted.
fn ucs2(octets: &[u8], notes: &mut Vec<String>) -> String {
    let pairs = octets.chunks_exact(2);
    let odd = !pairs.remainder().is_empty();
    let units = pairs.map(|p| u16::from_be_bytes([p[0], p[1]]));
    let mut out = String::with_capacity(octets.len() / 2);
    for unit in char::decode_utf16(units) {
        out.push(unit.unwrap_or_else(|_| {
            note(notes, "invalid surrogate in UCS-2 text: read as U+FFFD");
            char::REPLACEMENT_CHARACTER
        }));
    }
    if odd {
        note(notes, "odd number of octets in UCS-2 text: the last read as U+FFFD");
        out.push(char::REPLACEMENT_CHARACTER);
    }
    out
}

/// Octets in uppercase hex, two digits each.
fn hex_upper(octets: &[u8]) -> String {
    octets.iter().map(|o| format!("{o:02X}")).collect()
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::sms::encoding::{concat_udh, split};

    fn tlv(tag: u16, value: &[u8]) -> Tlv {
        Tlv {
            tag,
            value: value.to_vec(),
        }
    }

    /// Decodes a short_message with no header and no TLVs.
    fn plain(data_coding: Option<u8>, octets: &[u8]) -> Decoded {
        decode(&UserData {
            esm_class: Some(0),
            data_coding,
            short_message: octets,
            tlvs: &[],
        })
    }

    /// Decodes a short_message that starts with a user data header.
    fn with_udh(data_coding: u8, octets: &[u8]) -> Decoded {
        decode(&UserData {
            esm_class: Some(UDHI),
            data_coding: Some(data_coding),
            short_message: octets,
            tlvs: &[],
        })
    }

    fn utf16be(s: &str) -> Vec<u8> {
        s.encode_utf16().flat_map(u16::to_be_bytes).collect()
    }

    #[test]
    fn default_alphabet_reads_gsm_septets_with_the_extension_table() {
        let d = plain(Some(0x00), &[0x00, 0x20, 0x1B, 0x65, 0x20, 0x09, 0x61, 0x0A]);
        assert_eq!(d.text, "@ € Ça\n");
        assert_eq!(d.alphabet, Alphabet::Gsm7);
        assert!(d.notes.is_empty());
        assert_eq!(d.concat, None);
    }

    #[test]
    fn unknown_data_coding_is_the_default_alphabet() {
        let d = plain(None, b"Stop");
        assert_eq!((d.text.as_str(), d.alphabet), ("Stop", Alphabet::Gsm7));
    }

    #[test]
    fn default_alphabet_with_high_octets_is_latin1() {
        let d = plain(Some(0x00), b"Arr\xEAt");
        assert_eq!((d.text.as_str(), d.alphabet), ("Arrêt", Alphabet::Latin1));
        assert_eq!(d.notes.len(), 1);
    }

    #[test]
    fn gsm_escape_without_an_extension_character_is_read_as_03_38_says() {
        let d = plain(Some(0x00), &[0x61, 0x1B]);
        assert_eq!(d.text, "a ");
        assert!(d.notes[0].contains("end"), "{:?}", d.notes);
        let d = plain(Some(0x00), &[0x1B, 0x1B, 0x61]);
        assert_eq!(d.text, " a");
        assert!(d.notes[0].contains("1B 1B"), "{:?}", d.notes);
        let d = plain(Some(0x00), &[0x1B, 0x41]);
        assert_eq!(d.text, "A");
        assert!(d.notes[0].contains("0x41"), "{:?}", d.notes);
    }

    #[test]
    fn ascii_is_one_character_per_octet() {
        let d = plain(Some(0x01), b"STOP @_$");
        assert_eq!((d.text.as_str(), d.alphabet), ("STOP @_$", Alphabet::Ascii));
        assert!(d.notes.is_empty());
        let d = plain(Some(0x01), b"caf\xE9");
        assert_eq!((d.text.as_str(), d.alphabet), ("café", Alphabet::Ascii));
        assert_eq!(d.notes.len(), 1);
    }

    #[test]
    fn latin1_is_one_character_per_octet() {
        let d = plain(Some(0x03), b"D\xE9sabonner \xA9");
        assert_eq!((d.text.as_str(), d.alphabet), ("Désabonner ©", Alphabet::Latin1));
        assert!(d.notes.is_empty());
    }

    #[test]
    fn binary_codings_are_uppercase_hex() {
        for dc in [0x02, 0x04, 0xF4, 0xF5, 0xF6, 0x14, 0x15] {
            let d = plain(Some(dc), &[0x00, 0xAB, 0x7F]);
            assert_eq!((d.text.as_str(), d.alphabet), ("00AB7F", Alphabet::Binary), "{dc:#04x}");
            assert!(d.notes.is_empty(), "{dc:#04x}");
        }
    }

    #[test]
    fn ucs2_reads_accents_cyrillic_and_surrogate_pairs() {
        for s in ["Arrêt", "СТОП", "ok 😀!"] {
            let d = plain(Some(0x08), &utf16be(s));
            assert_eq!((d.text.as_str(), d.alphabet), (s, Alphabet::Ucs2));
            assert!(d.notes.is_empty());
        }
        assert_eq!(utf16be("😀"), [0xD8, 0x3D, 0xDE, 0x00]);
    }

    #[test]
    fn ucs2_odd_octet_and_lone_surrogate_are_replaced_and_noted() {
        let d = plain(Some(0x08), &[0x00, 0x41, 0x00]);
        assert_eq!(d.text, "A\u{FFFD}");
        assert_eq!(d.notes.len(), 1);
        assert!(d.notes[0].contains("odd number of octets"));
        let d = plain(Some(0x08), &[0xD8, 0x3D, 0x00, 0x41, 0xDE, 0x00]);
        assert_eq!(d.text, "\u{FFFD}A\u{FFFD}");
        assert_eq!(d.notes.len(), 1, "each kind of problem is said once");
        assert!(d.notes[0].contains("invalid surrogate"));
    }

    #[test]
    fn text_is_kept_as_received() {
        let d = plain(Some(0x08), &utf16be("  stop \0"));
        assert_eq!(d.text, "  stop \0");
    }

    #[test]
    fn message_class_group_is_gsm_or_binary_by_bit_2() {
        for dc in [0xF0, 0xF1, 0xF2, 0xF3] {
            let d = plain(Some(dc), &[0x1B, 0x65]);
            assert_eq!((d.text.as_str(), d.alphabet), ("€", Alphabet::Gsm7), "{dc:#04x}");
        }
    }

    #[test]
    fn general_data_coding_group_reads_bits_3_and_2() {
        let d = plain(Some(0x10), &[0x00]);
        assert_eq!((d.text.as_str(), d.alphabet), ("@", Alphabet::Gsm7));
        let d = plain(Some(0x18), &utf16be("да"));
        assert_eq!((d.text.as_str(), d.alphabet), ("да", Alphabet::Ucs2));
        let d = plain(Some(0x38), &[0x12, 0x34]);
        assert_eq!((d.text.as_str(), d.alphabet), ("1234", Alphabet::Binary));
        assert!(d.notes[0].contains("compressed"));
        let d = plain(Some(0x1C), b"abc");
        assert_eq!((d.text.as_str(), d.alphabet), ("abc", Alphabet::Latin1));
        assert!(d.notes[0].contains("0x1C"));
    }

    #[test]
    fn other_codings_are_latin1_with_a_note_naming_them() {
        for dc in [0x05, 0x06, 0x07, 0x09, 0x0E, 0x40, 0xC0, 0xE0] {
            let d = plain(Some(dc), b"ab\xE9");
            assert_eq!((d.text.as_str(), d.alphabet), ("abé", Alphabet::Latin1));
            assert_eq!(
                d.notes,
                vec![format!(
                    "data_coding 0x{dc:02X} is not a coding read here: read as Latin-1"
                )]
            );
        }
    }

    #[test]
    fn udh_8_bit_reference_gives_the_part_and_is_skipped() {
        let d = with_udh(0x00, &[0x05, 0x00, 0x03, 0xA7, 0x03, 0x02, 0x61, 0x62]);
        assert_eq!(d.text, "ab");
        assert_eq!(
            d.concat,
            Some(Concat {
                reference: 0xA7,
                total: 3,
                seq: 2
            })
        );
        assert!(d.notes.is_empty());
    }

    #[test]
    fn udh_16_bit_reference_gives_the_part() {
        let mut sm = vec![0x06, 0x08, 0x04, 0x12, 0x34, 0x02, 0x01];
        sm.extend(utf16be("Стоп"));
        let d = with_udh(0x08, &sm);
        assert_eq!(d.text, "Стоп");
        assert_eq!(
            d.concat,
            Some(Concat {
                reference: 0x1234,
                total: 2,
                seq: 1
            })
        );
    }

    #[test]
    fn other_elements_before_the_concatenation_element_are_skipped() {
        // Application port addressing (0x05, 4 octets), then an 8-bit concatenation element.
        let sm = [
            0x0B, 0x05, 0x04, 0x0B, 0x84, 0x23, 0xF0, 0x00, 0x03, 0x09, 0x02, 0x02, 0x61,
        ];
        let d = with_udh(0x00, &sm);
        assert_eq!(d.text, "a");
        assert_eq!(
            d.concat,
            Some(Concat {
                reference: 9,
                total: 2,
                seq: 2
            })
        );
        assert!(d.notes.is_empty());
    }

    #[test]
    fn a_concatenation_element_naming_no_part_is_not_a_concat() {
        for (total, seq) in [(0, 1), (2, 0), (2, 3)] {
            let d = with_udh(0x00, &[0x05, 0x00, 0x03, 0x01, total, seq, 0x61]);
            assert_eq!((d.text.as_str(), d.concat), ("a", None));
            assert_eq!(d.notes.len(), 1, "{:?}", d.notes);
        }
    }

    #[test]
    fn a_header_that_does_not_add_up_is_noted() {
        // The length octet reaches past the content: no header, all text.
        let d = with_udh(0x00, &[0x05, 0x61]);
        assert_eq!((d.text.as_str(), d.concat), ("éa", None));
        assert_eq!(d.notes.len(), 1);
        // An element longer than the header: dropped.
        let d = with_udh(0x00, &[0x03, 0x00, 0x03, 0x01, 0x61]);
        assert_eq!((d.text.as_str(), d.concat), ("a", None));
        assert_eq!(d.notes.len(), 1);
        // A concatenation element of the wrong size.
        let d = with_udh(0x00, &[0x04, 0x00, 0x02, 0x01, 0x02, 0x61]);
        assert_eq!((d.text.as_str(), d.concat), ("a", None));
        assert!(d.notes[0].contains("2 octets"));
    }

    #[test]
    fn without_udhi_the_first_octet_is_text() {
        let d = plain(Some(0x00), &[0x05, 0x00, 0x03, 0x01, 0x02, 0x01, 0x61]);
        assert_eq!(d.concat, None);
        assert_eq!(d.text.chars().count(), 7);
    }

    #[test]
    fn sar_tlvs_give_the_part_when_there_is_no_header() {
        let tlvs = [
            tlv(sar::MSG_REF_NUM, &[0x01, 0x02]),
            tlv(sar::TOTAL_SEGMENTS, &[2]),
            tlv(sar::SEGMENT_SEQNUM, &[2]),
        ];
        let d = decode(&UserData {
            esm_class: Some(0),
            data_coding: Some(0),
            short_message: b"STOP",
            tlvs: &tlvs,
        });
        assert_eq!(
            d.concat,
            Some(Concat {
                reference: 0x0102,
                total: 2,
                seq: 2
            })
        );
        assert_eq!(d.text, "STOP");
        assert!(d.notes.is_empty());
    }

    #[test]
    fn sar_tlvs_need_all_three_of_the_right_size() {
        let partial = [tlv(sar::MSG_REF_NUM, &[0x01, 0x02]), tlv(sar::TOTAL_SEGMENTS, &[2])];
        let wrong_size = [
            tlv(sar::MSG_REF_NUM, &[0x01]),
            tlv(sar::TOTAL_SEGMENTS, &[2]),
            tlv(sar::SEGMENT_SEQNUM, &[1]),
        ];
        for tlvs in [&partial[..], &wrong_size[..]] {
            let d = decode(&UserData {
                esm_class: None,
                data_coding: None,
                short_message: b"x",
                tlvs,
            });
            assert_eq!(d.concat, None);
            assert_eq!(d.notes.len(), 1);
        }
    }

    #[test]
    fn the_header_wins_over_sar_tlvs() {
        let tlvs = [
            tlv(sar::MSG_REF_NUM, &[0x00, 0x09]),
            tlv(sar::TOTAL_SEGMENTS, &[4]),
            tlv(sar::SEGMENT_SEQNUM, &[4]),
        ];
        let d = decode(&UserData {
            esm_class: Some(UDHI),
            data_coding: Some(0),
            short_message: &[0x05, 0x00, 0x03, 0x07, 0x02, 0x01, 0x61],
            tlvs: &tlvs,
        });
        assert_eq!(
            d.concat,
            Some(Concat {
                reference: 7,
                total: 2,
                seq: 1
            })
        );
    }

    #[test]
    fn message_payload_is_read_when_short_message_is_empty() {
        let tlvs = [tlv(tag::MESSAGE_PAYLOAD, &utf16be("Отписаться"))];
        let d = decode(&UserData {
            esm_class: Some(0),
            data_coding: Some(0x08),
            short_message: &[],
            tlvs: &tlvs,
        });
        assert_eq!((d.text.as_str(), d.alphabet), ("Отписаться", Alphabet::Ucs2));
        let d = decode(&UserData {
            esm_class: Some(0),
            data_coding: Some(0x08),
            short_message: &utf16be("Да"),
            tlvs: &tlvs,
        });
        assert_eq!(d.text, "Да", "short_message wins when it has content");
    }

    #[test]
    fn nothing_at_all_is_an_empty_text() {
        let d = decode(&UserData {
            esm_class: Some(UDHI),
            data_coding: None,
            short_message: &[],
            tlvs: &[],
        });
        assert_eq!((d.text.as_str(), d.concat), ("", None));
        assert!(d.notes.is_empty());
    }

    #[test]
    fn alphabet_names_are_snake_case() {
        for a in [
            Alphabet::Gsm7,
            Alphabet::Ascii,
            Alphabet::Latin1,
            Alphabet::Ucs2,
            Alphabet::Binary,
        ] {
            assert_eq!(serde_json::to_value(a).unwrap(), serde_json::json!(a.as_str()));
        }
    }

    proptest! {
        #[test]
        fn what_is_sent_reads_back_the_same(
            text in prop_oneof![
                "[@£$¥èéùìòÇØøÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !\"#¤%&'()*+,\\-./0-9:;<=>?¡A-ZÄÖÑÜ§¿a-zäöñüà\n\r€^{}\\[\\]~|\\\\]{0,400}",
                "\\PC{0,300}",
            ],
        ) {
            let (encoding, parts) = split(&text);
            let total = parts.len();
            let mut joined = String::new();
            for (i, part) in parts.iter().enumerate() {
                let seq = i as u8 + 1;
                let (esm_class, short_message) = if total > 1 {
                    let mut sm = concat_udh(0x2A, seq, total as u8).to_vec();
                    sm.extend(&part.octets);
                    (0x40, sm)
                } else {
                    (0x00, part.octets.clone())
                };
                let d = decode(&UserData {
                    esm_class: Some(esm_class),
                    data_coding: Some(encoding.data_coding()),
                    short_message: &short_message,
                    tlvs: &[],
                });
                prop_assert!(d.notes.is_empty(), "{:?}", d.notes);
                prop_assert_eq!(d.alphabet.as_str(), encoding.as_str());
                let concat = (total > 1).then_some(Concat { reference: 0x2A, total: total as u8, seq });
                prop_assert_eq!(d.concat, concat);
                joined.push_str(&d.text);
            }
            prop_assert_eq!(joined, text);
        }

        #[test]
        fn any_user_data_decodes_without_panicking(
            esm_class in proptest::option::of(any::<u8>()),
            data_coding in proptest::option::of(any::<u8>()),
            short_message in proptest::collection::vec(any::<u8>(), 0..200),
        ) {
            let d = decode(&UserData { esm_class, data_coding, short_message: &short_message, tlvs: &[] });
            if let Some(c) = d.concat {
                prop_assert!(c.seq >= 1 && c.seq <= c.total);
            }
        }
    }
}
