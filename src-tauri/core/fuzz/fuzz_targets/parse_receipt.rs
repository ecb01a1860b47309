//! Fuzzes the receipt parser: SMPP reports (octets, esm_class, data_coding, TLVs), HTTP
//! callbacks (every built-in provider, any body and query) and JSON lines for the driver.
//! Besides "never panics", it checks that `raw` always keeps the report.

#![no_main]

use libfuzzer_sys::fuzz_target;
use smsdesk_core::receipts::parse::{
    jsonl, parse_http, parse_smpp, HttpReport, SmppPdu, SmppReport, Tlv, BUILTIN_PROVIDERS,
};

const CONTENT_TYPES: [&str; 4] = [
    "application/json",
    "application/x-www-form-urlencoded",
    "text/plain",
    "",
];

fn latin1(b: &[u8]) -> String {
    b.iter().map(|&c| char::from(c)).collect()
}

/// Splits `data` into (header, rest) without panicking.
fn take(data: &[u8], n: usize) -> (&[u8], &[u8]) {
    data.split_at(n.min(data.len()))
}

fn smpp(data: &[u8]) {
    let (head, rest) = take(data, 4);
    let get = |i: usize| head.get(i).copied().unwrap_or(0);
    let esm_class = (get(0) & 1 == 1).then_some(get(1));
    let data_coding = match get(2) % 4 {
        0 => None,
        1 => Some(0),
        2 => Some(8),
        _ => Some(get(2)),
    };
    // The rest: short_message, then TLVs (tag u16, len u8, value) while octets remain.
    let (sm_len, rest) = take(rest, 1);
    let (short_message, mut rest) = take(rest, usize::from(sm_len.first().copied().unwrap_or(0)));
    let mut tlvs = Vec::new();
    while rest.len() >= 3 {
        let tag = u16::from_be_bytes([rest[0], rest[1]]);
        // Bias toward the tags the parser reads.
        let tag = match tag % 8 {
            0 => 0x001E,
            1 => 0x0427,
            2 => 0x0423,
            3 => 0x0424,
            _ => tag,
        };
        let len = usize::from(rest[2]);
        let (value, r) = take(&rest[3..], len);
        tlvs.push(Tlv {
            tag,
            value: value.to_vec(),
        });
        rest = r;
    }
    let p = parse_smpp(&SmppReport {
        pdu: if get(3) & 1 == 1 {
            SmppPdu::DataSm
        } else {
            SmppPdu::DeliverSm
        },
        esm_class,
        data_coding,
        short_message,
        tlvs: &tlvs,
    });
    let content: &[u8] = if short_message.is_empty() {
        tlvs.iter().find(|t| t.tag == 0x0424).map_or(&[][..], |t| &t.value)
    } else {
        short_message
    };
    let as_utf16: Vec<u8> = p.raw.encode_utf16().flat_map(u16::to_be_bytes).collect();
    assert!(p.raw == latin1(content) || as_utf16 == content, "raw lost octets");
    if p.kind == smsdesk_core::domain::ReceiptKind::Unparseable {
        assert!(p.parse_error.is_some());
    }
}

fn http(data: &[u8]) {
    let (head, rest) = take(data, 3);
    let get = |i: usize| head.get(i).copied().unwrap_or(0);
    let provider = match usize::from(get(0)) {
        i if i < BUILTIN_PROVIDERS.len() => BUILTIN_PROVIDERS[i],
        _ => "no-such-provider",
    };
    let content_type = CONTENT_TYPES[usize::from(get(1)) % CONTENT_TYPES.len()];
    let (query, body) = take(rest, usize::from(get(2)));
    let query = String::from_utf8_lossy(query);
    let out = parse_http(&HttpReport {
        provider,
        method: "POST",
        content_type: Some(content_type),
        query: &query,
        body,
    });
    assert!(!out.is_empty());
}

fn lines(data: &[u8]) {
    let mut out = Vec::new();
    jsonl::run(data, &mut out).expect("in-memory I/O does not fail");
    let expected = data
        .split(|&c| c == b'\n')
        .filter(|l| !String::from_utf8_lossy(l).trim().is_empty())
        .count();
    assert_eq!(out.iter().filter(|&&c| c == b'\n').count(), expected);
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    match mode % 3 {
        0 => smpp(rest),
        1 => http(rest),
        _ => lines(rest),
    }
});
