//! How a text goes out as SMS: the GSM 03.38 default alphabet (with its extension table) when every
//! character has a place in it, UCS-2 otherwise; split into concatenated parts when it does not fit
//! one message. One function decides, for the counter the operator sees, the segment count stored
//! with the message and the octets the session sends, so they can never disagree.

use serde::{Deserialize, Serialize};

/// The alphabet a message is sent in (SMPP data_coding 0x00 or 0x08).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ts_rs::TS, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Encoding {
    /// GSM 03.38 default alphabet, one septet per character (two for the extension table),
    /// sent unpacked, one septet per octet.
    Gsm7,
    /// UCS-2 (UTF-16 big-endian), two octets per unit; characters outside the basic plane take two.
    Ucs2,
}

impl Encoding {
    pub const fn as_str(self) -> &'static str {
        match self {
            Encoding::Gsm7 => "gsm7",
            Encoding::Ucs2 => "ucs2",
        }
    }

    /// SMPP data_coding.
    pub const fn data_coding(self) -> u8 {
        match self {
            Encoding::Gsm7 => 0x00,
            Encoding::Ucs2 => 0x08,
        }
    }

    /// Units (septets or UTF-16 units) in one message on its own.
    pub const fn single_capacity(self) -> usize {
        match self {
            Encoding::Gsm7 => 160,
            Encoding::Ucs2 => 70,
        }
    }

    /// Units per part of a concatenated message (the 6-octet UDH takes the rest).
    pub const fn part_capacity(self) -> usize {
        match self {
            Encoding::Gsm7 => 153,
            Encoding::Ucs2 => 67,
        }
    }
}

/// The GSM 03.38 default alphabet, indexed by septet.
const BASIC: [char; 128] = [
    '@', '£', '$', '¥', 'è', 'é', 'ù', 'ì', 'ò', 'Ç', '\n', 'Ø', 'ø', '\r', 'Å', 'å', //
    'Δ', '_', 'Φ', 'Γ', 'Λ', 'Ω', 'Π', 'Ψ', 'Σ', 'Θ', 'Ξ', '\u{1b}', 'Æ', 'æ', 'ß', 'É', //
    ' ', '!', '"', '#', '¤', '%', '&', '\'', '(', ')', '*', '+', ',', '-', '.', '/', //
    '0', '1', '2', '3', '4', '5', '6', '7', '8', '9', ':', ';', '<', '=', '>', '?', //
    '¡', 'A', 'B', 'C', 'D', 'E', 'F', 'G', 'H', 'I', 'J', 'K', 'L', 'M', 'N', 'O', //
    'P', 'Q', 'R', 'S', 'T', 'U', 'V', 'W', 'X', 'Y', 'Z', 'Ä', 'Ö', 'Ñ', 'Ü', '§', //
    '¿', 'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', 'k', 'l', 'm', 'n', 'o', //
    'p', 'q', 'r', 's', 't', 'u', 'v', 'w', 'x', 'y', 'z', 'ä', 'ö', 'ñ', 'ü', 'à', //
];

/// The extension table: reached with the escape septet 0x1B.
const EXTENSION: [(char, u8); 10] = [
    ('\u{c}', 0x0A),
    ('^', 0x14),
    ('{', 0x28),
    ('}', 0x29),
    ('\\', 0x2F),
    ('[', 0x3C),
    ('~', 0x3D),
    (']', 0x3E),
    ('|', 0x40),
    ('€', 0x65),
];

const ESCAPE: u8 = 0x1B;

/// Marks an ASCII character the basic table has no place for.
const NO_SEPTET: u8 = 0xFF;

/// The basic table's septet of each ASCII character (`NO_SEPTET` where it has none): most texts
/// are ASCII, and this spares them a search of the table per character.
const ASCII_SEPTETS: [u8; 128] = {
    let mut table = [NO_SEPTET; 128];
    let mut septet = 0;
    while septet < BASIC.len() {
        let c = BASIC[septet] as u32;
        if c < 128 && septet != ESCAPE as usize && table[c as usize] == NO_SEPTET {
            table[c as usize] = septet as u8;
        }
        septet += 1;
    }
    table
};

/// The septets of one character in the default alphabet (one, or escape + one), if it has any.
fn gsm_septets(c: char) -> Option<([u8; 2], usize)> {
    if c.is_ascii() {
        let septet = ASCII_SEPTETS[c as usize];
        if septet != NO_SEPTET {
            return Some(([septet, 0], 1));
        }
    } else if let Some(i) = BASIC.iter().position(|&b| b == c) {
        return Some(([i as u8, 0], 1));
    }
    EXTENSION.iter().find(|(e, _)| *e == c).map(|(_, s)| ([ESCAPE, *s], 2))
}

/// The character a received septet stands for: from the basic table, or from the extension table
/// when `escaped` (it followed the escape septet). `None` where the table has no character: the
/// escape septet itself in the basic table, most septets in the extension table. The same tables
/// as [`split`] sends with, so what goes out reads back the same.
pub(crate) fn gsm_char(septet: u8, escaped: bool) -> Option<char> {
    if escaped {
        EXTENSION.iter().find(|(_, s)| *s == septet).map(|(c, _)| *c)
    } else {
        BASIC.get(usize::from(septet)).copied().filter(|_| septet != ESCAPE)
    }
}

/// How a text will be sent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS, utoipa::ToSchema)]
pub struct Plan {
    pub encoding: Encoding,
    /// Septets (GSM 7-bit) or UTF-16 units (UCS-2) in the whole text.
    #[ts(type = "number")]
    pub units: usize,
    pub segments: u32,
    /// Units still free in the last segment.
    #[ts(type = "number")]
    pub remaining_in_segment: usize,
    /// The first character outside the GSM 7-bit alphabet: what makes a text Unicode (UCS-2),
    /// halving what fits in a part; none for a GSM 7-bit text.
    #[serde(default)]
    #[ts(optional = nullable)]
    pub unicode_because: Option<String>,
}

/// One part as it goes into a submit_sm's short_message (without the UDH).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Part {
    pub octets: Vec<u8>,
    pub units: usize,
}

/// The alphabet `text` goes out in: GSM 7-bit when every character has a place in it.
fn encoding_of(text: &str) -> Encoding {
    if text.chars().all(|c| gsm_septets(c).is_some()) {
        Encoding::Gsm7
    } else {
        Encoding::Ucs2
    }
}

/// One character in `encoding`, already known to hold it: its octets (the first `.1` of `.0`) and
/// its units (septets or UTF-16 units).
fn symbol(c: char, encoding: Encoding) -> ([u8; 4], usize, usize) {
    match encoding {
        Encoding::Gsm7 => {
            // `encoding_of` chose GSM only when every character has septets; '?' otherwise.
            let (septets, n) = gsm_septets(c).unwrap_or(([0x3F, 0], 1));
            ([septets[0], septets[1], 0, 0], n, n)
        }
        Encoding::Ucs2 => {
            let mut units = [0u16; 2];
            let units = c.encode_utf16(&mut units);
            let mut octets = [0u8; 4];
            for (i, u) in units.iter().enumerate() {
                octets[2 * i..2 * i + 2].copy_from_slice(&u.to_be_bytes());
            }
            (octets, 2 * units.len(), units.len())
        }
    }
}

/// The units a part may hold: the whole text fits one message, or parts of `part_capacity`.
fn part_limit(text: &str, encoding: Encoding) -> usize {
    let total: usize = text.chars().map(|c| symbol(c, encoding).2).sum();
    if total <= encoding.single_capacity() {
        usize::MAX
    } else {
        encoding.part_capacity()
    }
}

/// Encodes a text and splits it into the parts it is sent as. A part never ends in the middle of an
/// escape sequence or a surrogate pair.
pub fn split(text: &str) -> (Encoding, Vec<Part>) {
    let encoding = encoding_of(text);
    let limit = part_limit(text, encoding);
    let mut parts = Vec::new();
    let mut current = Part {
        octets: Vec::with_capacity(text.len().min(2 * encoding.single_capacity())),
        units: 0,
    };
    for c in text.chars() {
        let (octets, len, n) = symbol(c, encoding);
        if current.units + n > limit {
            let fresh = Vec::with_capacity(current.octets.len());
            parts.push(std::mem::replace(
                &mut current,
                Part {
                    octets: fresh,
                    units: 0,
                },
            ));
        }
        current.octets.extend_from_slice(&octets[..len]);
        current.units += n;
    }
    parts.push(current);
    (encoding, parts)
}

/// The encoding, size and segment count of a text, as the operator's counter shows them: the
/// parts [`split`] makes, counted without encoding them.
pub fn plan(text: &str) -> Plan {
    let encoding = encoding_of(text);
    let limit = part_limit(text, encoding);
    let (mut units, mut segments, mut last) = (0, 1u32, 0);
    for c in text.chars() {
        let n = symbol(c, encoding).2;
        if last + n > limit {
            segments += 1;
            last = 0;
        }
        last += n;
        units += n;
    }
    let capacity = if segments == 1 {
        encoding.single_capacity()
    } else {
        encoding.part_capacity()
    };
    Plan {
        encoding,
        units,
        segments,
        remaining_in_segment: capacity - last,
        unicode_because: match encoding {
            Encoding::Gsm7 => None,
            Encoding::Ucs2 => text.chars().find(|c| gsm_septets(*c).is_none()).map(String::from),
        },
    }
}

/// The 6-octet concatenation header (IEI 0x00, 8-bit reference) of part `index` (from 1) of `total`.
pub fn concat_udh(reference: u8, index: u8, total: u8) -> [u8; 6] {
    [0x05, 0x00, 0x03, reference, total, index]
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    #[test]
    fn a_unicode_text_names_the_first_character_that_made_it_so() {
        assert_eq!(
            plan("Votre commande est prête 🙂").unicode_because.as_deref(),
            Some("ê")
        );
        assert_eq!(plan("See you 🙂").unicode_because.as_deref(), Some("🙂"));
        assert_eq!(
            plan("Réservation à 10€").unicode_because,
            None,
            "é, à and € are GSM 7-bit"
        );
    }

    #[test]
    fn plain_text_fits_one_gsm_message_up_to_160() {
        let p = plan(&"a".repeat(160));
        assert_eq!(
            (p.encoding, p.units, p.segments, p.remaining_in_segment),
            (Encoding::Gsm7, 160, 1, 0)
        );
        let p = plan(&"a".repeat(161));
        assert_eq!((p.segments, p.remaining_in_segment), (2, 153 * 2 - 161));
    }

    #[test]
    fn extension_characters_take_two_septets() {
        let p = plan("price: 10€ [approx]");
        assert_eq!((p.encoding, p.units), (Encoding::Gsm7, 22));
        let (_, parts) = split("€");
        assert_eq!(parts[0].octets, vec![0x1B, 0x65]);
    }

    #[test]
    fn accented_latin_in_the_alphabet_stays_gsm_and_others_switch_to_ucs2() {
        assert_eq!(plan("Café à Noel? Ça va: ÄÖÜ ß ñ").encoding, Encoding::Gsm7);
        assert_eq!(
            plan("Noël").encoding,
            Encoding::Ucs2,
            "ë is not in the GSM default alphabet"
        );
        let p = plan("Привет");
        assert_eq!((p.encoding, p.units, p.segments), (Encoding::Ucs2, 6, 1));
        assert_eq!(
            plan("ê").encoding,
            Encoding::Ucs2,
            "ê is not in the GSM default alphabet"
        );
        assert_eq!(plan(&"я".repeat(71)).segments, 2);
        assert_eq!(plan(&"я".repeat(134)).segments, 2);
        assert_eq!(plan(&"я".repeat(135)).segments, 3);
    }

    #[test]
    fn ucs2_is_big_endian_utf16_and_emoji_take_two_units() {
        let (enc, parts) = split("A😀");
        assert_eq!(enc, Encoding::Ucs2);
        assert_eq!(parts[0].octets, vec![0x00, 0x41, 0xD8, 0x3D, 0xDE, 0x00]);
        assert_eq!(parts[0].units, 3);
    }

    #[test]
    fn a_part_never_splits_an_escape_or_a_surrogate_pair() {
        // 152 plain septets then an extension character: the escape must not end part one.
        let text = format!("{}€{}", "a".repeat(152), "b".repeat(10));
        let (_, parts) = split(&text);
        assert_eq!(parts[0].units, 152);
        assert_eq!(&parts[1].octets[..2], &[0x1B, 0x65]);
        let text = format!("{}😀яяя", "я".repeat(66));
        let (_, parts) = split(&text);
        assert_eq!(
            parts[0].units, 66,
            "the emoji's two units move to the next part together"
        );
    }

    #[test]
    fn the_udh_names_part_and_total() {
        assert_eq!(concat_udh(7, 2, 3), [0x05, 0x00, 0x03, 7, 3, 2]);
    }

    proptest! {
        #[test]
        fn parts_reassemble_to_the_text_and_respect_capacity(text in "\\PC{0,400}") {
            let (enc, parts) = split(&text);
            let octets: Vec<u8> = parts.iter().flat_map(|p| p.octets.clone()).collect();
            let decoded = match enc {
                Encoding::Ucs2 => {
                    let units: Vec<u16> = octets.chunks(2).map(|c| u16::from_be_bytes([c[0], c[1]])).collect();
                    String::from_utf16(&units).unwrap()
                }
                Encoding::Gsm7 => {
                    let mut out = String::new();
                    let mut it = octets.iter();
                    while let Some(&s) = it.next() {
                        if s == ESCAPE {
                            let e = *it.next().unwrap();
                            out.push(EXTENSION.iter().find(|(_, x)| *x == e).unwrap().0);
                        } else {
                            out.push(BASIC[s as usize]);
                        }
                    }
                    out
                }
            };
            prop_assert_eq!(decoded, text.clone());
            let cap = if parts.len() == 1 { enc.single_capacity() } else { enc.part_capacity() };
            prop_assert!(parts.iter().all(|p| p.units <= cap));
            let p = plan(&text);
            prop_assert_eq!(p.segments as usize, parts.len());
            prop_assert_eq!(p.units, parts.iter().map(|p| p.units).sum::<usize>());
            prop_assert_eq!(p.remaining_in_segment, cap - parts.last().map_or(0, |p| p.units));
        }

        #[test]
        fn mostly_ascii_texts_plan_as_they_split(text in "[ -~\n€{}é\u{1F600}]{0,400}") {
            let (enc, parts) = split(&text);
            let p = plan(&text);
            prop_assert_eq!(p.encoding, enc);
            prop_assert_eq!(p.segments as usize, parts.len());
            prop_assert_eq!(p.units, parts.iter().map(|p| p.units).sum::<usize>());
        }
    }

    #[test]
    fn the_ascii_table_gives_each_character_the_septet_the_alphabet_gives_it() {
        for c in (0u8..128).map(char::from) {
            let searched = (c != '\u{1b}').then(|| BASIC.iter().position(|&b| b == c)).flatten();
            let tabled = Some(ASCII_SEPTETS[c as usize]).filter(|&s| s != NO_SEPTET);
            assert_eq!(tabled.map(usize::from), searched, "{c:?}");
        }
    }
}
