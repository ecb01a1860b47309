//! Receipt parsing throughput on one core: `parse_smpp` over a mix of realistic receipts
//! (Appendix B texts in their common variants, with and without receipt TLVs), then
//! `parse_http` over a few provider callbacks for reference. Prints receipts/s.
//!
//!   cargo bench -p smsdesk-engine --bench parse [-- N]     (default N = 2000000)

use std::hint::black_box;
use std::time::Instant;

use smsdesk_engine::receipts::parse::{parse_http, parse_smpp, tag, HttpReport, Parsed, SmppPdu, SmppReport, Tlv};

fn tlv(tag: u16, value: &[u8]) -> Tlv {
    Tlv {
        tag,
        value: value.to_vec(),
    }
}

struct Case {
    esm: Option<u8>,
    dc: Option<u8>,
    text: Vec<u8>,
    tlvs: Vec<Tlv>,
}

fn smpp_cases() -> Vec<Case> {
    let plain = |esm: u8, text: &str| Case {
        esm: Some(esm),
        dc: Some(0),
        text: text.as_bytes().to_vec(),
        tlvs: Vec::new(),
    };
    vec![
        plain(4, "id:0123456789 sub:001 dlvrd:001 submit date:1005232039 done date:1005242339 stat:DELIVRD err:000 text:This is a sample mes"),
        plain(4, "id:74e02ee1-4e2f-4a6e-a78b-4b247d756a22 sub:001 dlvrd:001 submit date:110206193041 done date:110206193110 stat:DELIVRD err:000 text:"),
        plain(4, "id:1010d937-8f43-4754-9dd8-6e987cda32fa sub:001 dlvrd:000 submit date:161008120127 done date:1610081500 stat:UNDELIV err:004 text:exampleMessage02"),
        plain(4, "id:2E179B310EDE971B2760C72B7F026E1B submit date:20110314181534 done date:20110314181741 stat:DELIVRD err:0"),
        plain(4, "id:4 sub:001 dlvrd:001 submit date:1006020051 done date:1006020051 stat:DELIVRD err:000 Text:Hello"),
        plain(0x44, "id:a29f6845555647139e5c8f3b817f2c9a sub:001 dlvrd:001 submit date:141023215253 done date:141023215259 stat:EXPIRED err:000 text:HOLA"),
        plain(4, "id:0512249005 sub:001 dlvrd:000 submit date:1609051327 done date:1609051337 stat:ENROUTE err:054 text:xxssxx"),
        Case {
            esm: Some(4),
            dc: Some(0),
            text: b"id:0059113978 sub:001 dlvrd:001 submit date:1002101730 done date:1002101731 stat:DELIVRD err:000 text:@$#!%&/:".to_vec(),
            tlvs: vec![
                tlv(0x000E, &[1]),
                tlv(0x0006, &[1]),
                tlv(tag::RECEIPTED_MESSAGE_ID, b"38601fa\0"),
                tlv(tag::MESSAGE_STATE, &[2]),
            ],
        },
        Case {
            esm: Some(4),
            dc: Some(0),
            text: b"id:1891273321 sub:001 dlvrd:001 submit date:1305050826 done date:1305050826 stat:UNDELIV err:021 text:DLVRD TO MOBILE".to_vec(),
            tlvs: vec![
                tlv(tag::RECEIPTED_MESSAGE_ID, b"1891273321\0"),
                tlv(tag::MESSAGE_STATE, &[5]),
                tlv(tag::NETWORK_ERROR_CODE, &[3, 0, 0x15]),
            ],
        },
    ]
}

fn http_cases() -> Vec<(&'static str, &'static str, &'static str, &'static str)> {
    vec![
        (
            "vonage",
            "application/json",
            "",
            r#"{"err-code":"0","message-timestamp":"2018-10-25 12:10:29","messageId":"0B00000127FDBC63","msisdn":"447547232824","network-code":"23410","price":"0.03330000","scts":"1810251310","status":"delivered","to":"Nexmo CLI"}"#,
        ),
        (
            "twilio",
            "application/x-www-form-urlencoded",
            "",
            "AccountSid=AC00000000000000000000000000000000&ApiVersion=2010-04-01&ErrorCode=30003&From=%2B15550000002&MessageSid=SM55555555555555555555555555555555&MessageStatus=undelivered&SmsSid=SM55555555555555555555555555555555&SmsStatus=undelivered&To=%2B15550000001",
        ),
        (
            "kannel",
            "",
            "id=ord-1001&type=1&answer=id%3A0123456789+sub%3A001+dlvrd%3A001+submit+date%3A1005232039+done+date%3A1005242339+stat%3ADELIVRD+err%3A000+text%3AHello",
            "",
        ),
    ]
}

fn run<F: FnMut(usize) -> usize>(label: &str, n: usize, mut f: F) {
    // Warm up caches and the allocator.
    let mut sink = 0usize;
    for i in 0..n / 20 {
        sink = sink.wrapping_add(f(i));
    }
    let start = Instant::now();
    for i in 0..n {
        sink = sink.wrapping_add(f(i));
    }
    let secs = start.elapsed().as_secs_f64();
    black_box(sink);
    println!(
        "{label:<6} {n:>9} reports in {secs:>7.3} s: {:>12.0} reports/s ({:.0} ns each)",
        n as f64 / secs,
        secs * 1e9 / n as f64
    );
}

fn touch(p: &Parsed) -> usize {
    p.raw.len() + p.message_id.as_ref().map_or(0, String::len) + usize::from(p.stat.is_some())
}

fn main() {
    let n: usize = std::env::args()
        .skip(1)
        .find(|a| !a.starts_with('-'))
        .and_then(|a| a.parse().ok())
        .unwrap_or(2_000_000);

    let smpp = smpp_cases();
    run("smpp", n, |i| {
        let c = &smpp[i % smpp.len()];
        let p = parse_smpp(black_box(&SmppReport {
            pdu: SmppPdu::DeliverSm,
            esm_class: c.esm,
            data_coding: c.dc,
            short_message: &c.text,
            tlvs: &c.tlvs,
        }));
        touch(&p)
    });

    let http = http_cases();
    run("http", (n / 10).max(1), |i| {
        let (provider, ct, query, body) = http[i % http.len()];
        let out = parse_http(black_box(&HttpReport {
            provider,
            method: "POST",
            content_type: Some(ct),
            query,
            body: body.as_bytes(),
        }));
        out.iter().map(touch).sum()
    });
}
