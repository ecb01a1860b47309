//! Unit tests for the tricky rules, and properties: no input makes the parser panic or lose the
//! raw report.

use proptest::prelude::*;

use super::*;

fn tlv(tag: u16, value: &[u8]) -> Tlv {
    Tlv {
        tag,
        value: value.to_vec(),
    }
}

fn smpp(esm: Option<u8>, text: &[u8], tlvs: &[Tlv]) -> Parsed {
    parse_smpp(&SmppReport {
        pdu: SmppPdu::DeliverSm,
        esm_class: esm,
        data_coding: None,
        short_message: text,
        tlvs,
    })
}

fn with_dc(dc: u8, text: &[u8], tlvs: &[Tlv]) -> Parsed {
    parse_smpp(&SmppReport {
        pdu: SmppPdu::DeliverSm,
        esm_class: Some(4),
        data_coding: Some(dc),
        short_message: text,
        tlvs,
    })
}

fn http(provider: &str, content_type: Option<&str>, query: &str, body: &str) -> Vec<Parsed> {
    parse_http(&HttpReport {
        provider,
        method: "POST",
        content_type,
        query,
        body: body.as_bytes(),
    })
}

const RECEIPT: &[u8] =
    b"id:0059113978 sub:001 dlvrd:001 submit date:1002101730 done date:1002101731 stat:DELIVRD err:000 text:hello";

// ----------------------------------------------------------------------------- TLV vs text

#[test]
fn tlv_id_wins_and_the_differing_text_id_is_kept() {
    let p = smpp(Some(4), RECEIPT, &[tlv(tag::RECEIPTED_MESSAGE_ID, b"38601fa\0")]);
    assert_eq!(p.message_id.as_deref(), Some("38601fa"));
    assert_eq!(p.text_id.as_deref(), Some("0059113978"));
}

#[test]
fn equal_ids_give_no_text_id() {
    let p = smpp(Some(4), RECEIPT, &[tlv(tag::RECEIPTED_MESSAGE_ID, b"0059113978\0")]);
    assert_eq!(p.message_id.as_deref(), Some("0059113978"));
    assert_eq!(p.text_id, None);
}

#[test]
fn ids_differing_only_in_case_or_zeros_are_still_different() {
    let p = smpp(
        Some(4),
        b"id:00abc stat:DELIVRD",
        &[tlv(tag::RECEIPTED_MESSAGE_ID, b"ABC")],
    );
    assert_eq!(p.message_id.as_deref(), Some("ABC"));
    assert_eq!(p.text_id.as_deref(), Some("00abc"), "no normalisation here");
}

#[test]
fn an_empty_or_nul_only_tlv_id_does_not_win() {
    for value in [&b""[..], b"\0", b" \0garbage"] {
        let p = smpp(Some(4), RECEIPT, &[tlv(tag::RECEIPTED_MESSAGE_ID, value)]);
        assert_eq!(p.message_id.as_deref(), Some("0059113978"), "{value:?}");
        assert_eq!(p.text_id, None);
    }
}

#[test]
fn tlv_message_state_wins_over_the_text_stat_which_stays_raw() {
    let p = smpp(Some(4), RECEIPT, &[tlv(tag::MESSAGE_STATE, &[6])]);
    assert_eq!(p.stat, Some(Stat::Acceptd));
    assert_eq!(p.stat_raw.as_deref(), Some("DELIVRD"));
    assert_eq!(p.message_state, Some(6));
    assert_eq!(p.kind, ReceiptKindOut::Intermediate);
}

#[test]
fn an_impossible_tlv_state_falls_back_to_the_text() {
    let p = smpp(Some(4), RECEIPT, &[tlv(tag::MESSAGE_STATE, &[42])]);
    assert_eq!(p.stat, Some(Stat::Delivrd));
    assert_eq!(p.message_state, Some(42));
    assert!(p.parse_error.unwrap().contains("42"));
}

#[test]
fn network_error_code_is_hex_and_not_err() {
    let p = smpp(
        Some(4),
        b"",
        &[
            tlv(tag::RECEIPTED_MESSAGE_ID, b"77\0"),
            tlv(tag::MESSAGE_STATE, &[5]),
            tlv(tag::NETWORK_ERROR_CODE, &[3, 0, 0x0b]),
        ],
    );
    assert_eq!(p.network_error_code.as_deref(), Some("03000b"));
    assert_eq!(p.err, None);
    assert_eq!(p.stat, Some(Stat::Undeliv));
    assert_eq!(p.kind, ReceiptKindOut::Receipt);
    assert_eq!(p.stat_raw, None, "the status came from a TLV only");
}

// ----------------------------------------------------------------------------- esm_class

#[test]
fn esm_class_decides_the_kind() {
    let cases: &[(Option<u8>, &[u8], ReceiptKindOut)] = &[
        (Some(0x04), RECEIPT, ReceiptKindOut::Receipt),
        (Some(0x44), RECEIPT, ReceiptKindOut::Receipt),
        (Some(0x24), RECEIPT, ReceiptKindOut::Receipt),
        (Some(0x20), RECEIPT, ReceiptKindOut::Intermediate),
        (Some(0x08), RECEIPT, ReceiptKindOut::Acknowledgement),
        (Some(0x10), RECEIPT, ReceiptKindOut::Acknowledgement),
        (Some(0x00), RECEIPT, ReceiptKindOut::Receipt),
        (None, RECEIPT, ReceiptKindOut::Receipt),
        (Some(0x00), b"Hello, how are you?", ReceiptKindOut::Mo),
        (Some(0x00), b"my id: 5 is fine", ReceiptKindOut::Mo),
        (Some(0x03), b"Hello", ReceiptKindOut::Mo),
        (Some(0x0C), b"Hello", ReceiptKindOut::Unparseable),
        (None, b"Hello", ReceiptKindOut::Unparseable),
        (Some(0x04), b"Hello", ReceiptKindOut::Unparseable),
        (Some(0x20), b"Hello", ReceiptKindOut::Unparseable),
        (Some(0x04), b"id:1 stat:ENROUTE", ReceiptKindOut::Intermediate),
        (Some(0x04), b"id:1 stat:ACCEPTD", ReceiptKindOut::Intermediate),
        (Some(0x04), b"id:1 stat:SCHEDLD", ReceiptKindOut::Intermediate),
        (Some(0x04), b"id:1 stat:UNKNOWN", ReceiptKindOut::Receipt),
        (Some(0x04), b"id:1", ReceiptKindOut::Receipt),
        (Some(0x04), b"stat:EXPIRED", ReceiptKindOut::Receipt),
    ];
    for (esm, text, kind) in cases {
        let p = smpp(*esm, text, &[]);
        assert_eq!(p.kind, *kind, "esm {esm:?} text {:?}", String::from_utf8_lossy(text));
    }
}

#[test]
fn esm_zero_with_receipt_tlvs_is_a_receipt() {
    let p = smpp(Some(0), b"362d9701 2", &[tlv(tag::MESSAGE_STATE, &[2])]);
    assert_eq!(p.kind, ReceiptKindOut::Receipt);
    assert_eq!(p.stat, Some(Stat::Delivrd));
}

#[test]
fn mo_and_unparseable_keep_the_text() {
    let p = smpp(Some(0), b"Caf\xe9 ok", &[]);
    assert_eq!(p.kind, ReceiptKindOut::Mo);
    assert_eq!(p.raw, "Caf\u{e9} ok");
    assert_eq!(p.parse_error, None);
    let p = smpp(Some(4), b"\x00\xff\x01", &[]);
    assert_eq!(p.kind, ReceiptKindOut::Unparseable);
    assert_eq!(p.raw, "\u{0}\u{ff}\u{1}");
    assert!(p.parse_error.is_some());
}

// ----------------------------------------------------------------------------- text variants

#[test]
fn vendor_status_words() {
    for (word, stat) in [
        ("DELIVERED", Stat::Delivrd),
        ("Success", Stat::Delivrd),
        ("UNDELIVERABLE", Stat::Undeliv),
        ("UNDELVRD", Stat::Undeliv),
        ("FAILED", Stat::Undeliv),
        ("delivery_failed", Stat::Undeliv),
        ("REJECTED", Stat::Rejectd),
        ("DND_REJECTED", Stat::Rejectd),
        ("Aborted", Stat::Rejectd),
        ("ACCEPTED", Stat::Acceptd),
        ("sent", Stat::Acceptd),
        ("ESME_ROK", Stat::Acceptd),
        ("ESME_RTHROTTLED", Stat::Rejectd),
        ("buffered", Stat::Enroute),
        ("pending", Stat::Enroute),
        ("delivrd", Stat::Delivrd),
    ] {
        assert_eq!(Stat::from_word(word), Some(stat), "{word}");
    }
    for word in ["BADSTAT", "FOOBAR", "", "0", "ESME_"] {
        assert_eq!(Stat::from_word(word), None, "{word}");
    }
    let p = smpp(Some(4), b"id:1 stat:FOOBAR", &[]);
    assert_eq!(p.stat, Some(Stat::Unknown));
    assert_eq!(p.stat_raw.as_deref(), Some("FOOBAR"));
    assert!(p.parse_error.unwrap().contains("FOOBAR"));
}

#[test]
fn placeholders_are_null_but_dates_are_kept_as_written() {
    let p = smpp(
        Some(4),
        b"id:9 sub:... dlvrd:null submit date:anydate done date: stat:DELIVRD err:... text:x",
        &[],
    );
    assert_eq!((p.sub, p.dlvrd, p.err), (None, None, None));
    assert_eq!(p.submit_date.as_deref(), Some("anydate"));
    assert_eq!(p.submit_ts, None);
    assert_eq!(p.done_date, None);
}

#[test]
fn dates_through_the_parser() {
    let cases = [
        ("1005232039", Some("2010-05-23T20:39:00")),
        ("100523203958", Some("2010-05-23T20:39:58")),
        ("201506201641", Some("2015-06-20T16:41:00")),
        ("20100523203958", Some("2010-05-23T20:39:58")),
        ("0000000000", None),
        ("1013012000", None),
    ];
    for (raw, ts) in cases {
        let text = format!("id:1 done date:{raw} stat:DELIVRD");
        let p = smpp(Some(4), text.as_bytes(), &[]);
        assert_eq!(p.done_date.as_deref(), Some(raw));
        assert_eq!(p.done_ts.as_deref(), ts, "{raw}");
    }
}

#[test]
fn garbage_around_the_fields() {
    let text =
        b"\x05\x00\x03\x01\x02\x01 junk id:AB12 ### sub:001 zz dlvrd:001 stat:DELIVRD err:000 extra:1 text:hi\0\0\0";
    let p = smpp(Some(4), text, &[]);
    assert_eq!(p.message_id.as_deref(), Some("AB12"));
    assert_eq!(p.sub.as_deref(), Some("001"));
    assert_eq!(p.stat, Some(Stat::Delivrd));
    assert_eq!(p.text.as_deref(), Some("hi"));
    assert_eq!(p.raw, latin1(text));
}

#[test]
fn udh_is_skipped_only_when_udhi_is_set() {
    let mut text = vec![5, 0, 3, 0x69, 1, 1];
    text.extend_from_slice(b"id:7 stat:DELIVRD");
    let p = smpp(Some(0x44), &text, &[]);
    assert_eq!(p.message_id.as_deref(), Some("7"));
    assert_eq!(p.raw.chars().count(), text.len(), "raw keeps the UDH");
    // 0x44 without a UDH: the text starts with `i` (0x69), no skip.
    let p = smpp(Some(0x44), b"id:8 stat:DELIVRD", &[]);
    assert_eq!(p.message_id.as_deref(), Some("8"));
}

// ----------------------------------------------------------------------------- encodings

fn utf16(s: &str) -> Vec<u8> {
    s.encode_utf16().flat_map(u16::to_be_bytes).collect()
}

#[test]
fn ucs2_is_decoded_before_parsing() {
    let octets = utf16("id:42 stat:DELIVRD err:000 text:Привет");
    let p = with_dc(8, &octets, &[]);
    assert_eq!(p.message_id.as_deref(), Some("42"));
    assert_eq!(p.text.as_deref(), Some("Привет"));
    assert_eq!(p.raw, "id:42 stat:DELIVRD err:000 text:Привет");
}

#[test]
fn ucs2_label_on_a_plain_text_falls_back() {
    let p = with_dc(8, RECEIPT, &[]);
    assert_eq!(p.message_id.as_deref(), Some("0059113978"));
    assert_eq!(p.raw, String::from_utf8_lossy(RECEIPT));
}

#[test]
fn utf16_without_the_label_is_recognised() {
    let octets = utf16("id:42 stat:UNDELIV");
    let p = with_dc(0, &octets, &[]);
    assert_eq!(p.stat, Some(Stat::Undeliv));
}

#[test]
fn odd_length_ucs2_keeps_every_octet_in_raw() {
    let mut octets = utf16("id:42 stat:UNDELIV");
    octets.push(0x41);
    let p = with_dc(8, &octets, &[]);
    assert_eq!(p.message_id.as_deref(), Some("42"));
    assert_eq!(p.raw.chars().count(), octets.len());
}

#[test]
fn message_payload_carries_the_text_when_short_message_is_empty() {
    let p = smpp(Some(4), b"", &[tlv(tag::MESSAGE_PAYLOAD, RECEIPT)]);
    assert_eq!(p.message_id.as_deref(), Some("0059113978"));
    assert_eq!(p.raw, String::from_utf8_lossy(RECEIPT));
    // short_message wins when both are there.
    let p = smpp(Some(4), b"id:1 stat:DELIVRD", &[tlv(tag::MESSAGE_PAYLOAD, RECEIPT)]);
    assert_eq!(p.message_id.as_deref(), Some("1"));
}

// ----------------------------------------------------------------------------- HTTP

#[test]
fn unknown_provider_is_unparseable_and_kept() {
    let out = http("nobody", Some("application/json"), "", "{\"a\":1}");
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].kind, ReceiptKindOut::Unparseable);
    assert_eq!(out[0].raw, "{\"a\":1}");
    assert!(out[0].parse_error.as_deref().unwrap().contains("nobody"));
}

#[test]
fn provider_names_are_forgiving() {
    for name in ["Nexmo", "VONAGE", " vonage "] {
        let out = http(name, None, "messageId=1&status=delivered", "");
        assert_eq!(out[0].message_id.as_deref(), Some("1"), "{name}");
        assert_eq!(out[0].raw, "messageId=1&status=delivered");
    }
    assert!(builtin_mapping("africas_talking").is_some());
    for p in BUILTIN_PROVIDERS {
        assert!(builtin_mapping(p).is_some(), "{p}");
    }
}

#[test]
fn a_configured_mapping_reads_nested_json_and_its_own_words() {
    let m: HttpMapping = serde_json::from_str(
        r#"{"message_id": ["report.ref"], "status": ["report.state"], "err": ["report.why"],
            "done_date": ["report.at"], "records": ["reports"],
            "status_words": [["ok", "DELIVRD"], ["nok", "UNDELIV"]]}"#,
    )
    .unwrap();
    let body = r#"{"reports": [{"report": {"ref": "A1", "state": "nok", "why": "", "at": "2024-03-18T12:06:00+01:00"}},
                              {"report": {"ref": "A2", "state": "ok"}}]}"#;
    let out = parse_http_with(
        &HttpReport {
            provider: "custom",
            method: "POST",
            content_type: Some("application/json"),
            query: "",
            body: body.as_bytes(),
        },
        &m,
    );
    assert_eq!(out.len(), 2);
    assert_eq!(out[0].message_id.as_deref(), Some("A1"));
    assert_eq!(out[0].stat, Some(Stat::Undeliv));
    assert_eq!(out[0].err, None, "empty err is null");
    assert_eq!(out[0].done_ts.as_deref(), Some("2024-03-18T11:06:00"));
    assert_eq!(out[0].batch_count, Some(2));
    assert_eq!(out[1].stat, Some(Stat::Delivrd));
    assert_eq!(out[1].batch_count, None);
}

#[test]
fn form_bodies_tolerate_bad_escapes_and_latin1() {
    let out = parse_http(&HttpReport {
        provider: "jasmin",
        method: "POST",
        content_type: Some("application/x-www-form-urlencoded"),
        query: "",
        body: b"id=x%zz%4&message_status=DELIVRD&text=caf%E9",
    });
    assert_eq!(out[0].message_id.as_deref(), Some("x%zz%4"));
    assert_eq!(out[0].text.as_deref(), Some("caf\u{e9}"));
    assert_eq!(out[0].stat, Some(Stat::Delivrd));
}

#[test]
fn empty_batch_and_bad_json_are_unparseable() {
    let out = http("infobip", Some("application/json"), "", r#"{"results": []}"#);
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].kind, ReceiptKindOut::Unparseable);
    let out = http(
        "infobip",
        Some("application/json"),
        "",
        r#"{"results": [{"messageId": "#,
    );
    assert_eq!(out[0].kind, ReceiptKindOut::Unparseable);
    assert!(out[0].parse_error.as_deref().unwrap().contains("JSON"));
}

// ----------------------------------------------------------------------------- Stat

#[test]
fn stat_tokens() {
    for (i, s) in Stat::ALL.iter().enumerate() {
        assert_eq!(Stat::from_message_state(i as u8), Some(*s));
        assert_eq!(s.message_state() as usize, i);
        assert_eq!(s.as_str().parse::<Stat>(), Ok(*s));
        assert_eq!(serde_json::to_string(s).unwrap(), format!("\"{}\"", s.as_str()));
    }
    assert_eq!(Stat::from_message_state(10), None);
    let finals: Vec<_> = Stat::ALL.iter().filter(|s| s.is_final()).collect();
    assert_eq!(
        finals,
        [
            &Stat::Delivrd,
            &Stat::Expired,
            &Stat::Deleted,
            &Stat::Undeliv,
            &Stat::Unknown,
            &Stat::Rejectd,
            &Stat::Skipped
        ]
    );
    assert!("BADSTAT".parse::<Stat>().is_err());
}

// ----------------------------------------------------------------------------- properties

fn arb_tlv() -> impl Strategy<Value = Tlv> {
    (
        prop_oneof![
            Just(tag::RECEIPTED_MESSAGE_ID),
            Just(tag::MESSAGE_STATE),
            Just(tag::NETWORK_ERROR_CODE),
            Just(tag::MESSAGE_PAYLOAD),
            any::<u16>(),
        ],
        proptest::collection::vec(any::<u8>(), 0..40),
    )
        .prop_map(|(tag, value)| Tlv { tag, value })
}

fn receiptish() -> impl Strategy<Value = Vec<u8>> {
    let piece = prop_oneof![
        Just(b"id:".to_vec()),
        Just(b" stat:".to_vec()),
        Just(b" text:".to_vec()),
        Just(b" submit date:".to_vec()),
        Just(b"done_date:".to_vec()),
        Just(b" err:".to_vec()),
        Just(b"DELIVRD".to_vec()),
        Just(b"201506201641".to_vec()),
        proptest::collection::vec(any::<u8>(), 0..8),
    ];
    proptest::collection::vec(piece, 0..20).prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn parse_smpp_never_panics_and_keeps_raw(
        text in prop_oneof![proptest::collection::vec(any::<u8>(), 0..300), receiptish()],
        esm in proptest::option::of(any::<u8>()),
        dc in proptest::option::of(prop_oneof![Just(0u8), Just(8u8), any::<u8>()]),
        tlvs in proptest::collection::vec(arb_tlv(), 0..5),
        data_sm in any::<bool>(),
    ) {
        let r = SmppReport {
            pdu: if data_sm { SmppPdu::DataSm } else { SmppPdu::DeliverSm },
            esm_class: esm,
            data_coding: dc,
            short_message: &text,
            tlvs: &tlvs,
        };
        let p = parse_smpp(&r);
        let content: &[u8] = if text.is_empty() {
            tlvs.iter().find(|t| t.tag == tag::MESSAGE_PAYLOAD).map_or(&[][..], |t| &t.value)
        } else {
            &text
        };
        let as_latin1 = latin1(content);
        let as_utf16: Vec<u8> = p.raw.encode_utf16().flat_map(u16::to_be_bytes).collect();
        prop_assert!(p.raw == as_latin1 || as_utf16 == content, "raw lost octets");
        if p.kind == ReceiptKindOut::Unparseable {
            prop_assert!(p.parse_error.is_some());
        }
        if p.text_id.is_some() {
            prop_assert!(p.message_id.is_some() && p.message_id != p.text_id);
        }
    }

    #[test]
    fn parse_http_never_panics_and_keeps_raw(
        provider in prop_oneof![
            Just("vonage"), Just("twilio"), Just("twilio-eventstreams"), Just("infobip"),
            Just("plivo"), Just("messagebird"), Just("sinch"), Just("kannel"), Just("jasmin"),
            Just("gatewayapi"), Just("gatewayapi-legacy"), Just("africastalking"),
            Just("tencent"), Just("nobody"),
        ],
        body in prop_oneof![
            proptest::collection::vec(any::<u8>(), 0..200),
            "[\\[\\]{}\":,a-z0-9 .=&%+-]{0,120}".prop_map(String::into_bytes),
        ],
        query in "[a-zA-Z0-9=&%+:._-]{0,80}",
        content_type in proptest::option::of(prop_oneof![
            Just("application/json"), Just("application/x-www-form-urlencoded"), Just("text/plain"),
        ]),
    ) {
        let out = parse_http(&HttpReport {
            provider,
            method: "POST",
            content_type,
            query: &query,
            body: &body,
        });
        prop_assert!(!out.is_empty());
        let expected_raw = if body.iter().all(u8::is_ascii_whitespace) {
            query.clone()
        } else {
            match std::str::from_utf8(&body) {
                Ok(s) => s.to_owned(),
                Err(_) => latin1(&body),
            }
        };
        for p in &out {
            prop_assert_eq!(&p.raw, &expected_raw);
        }
    }

    #[test]
    fn jsonl_answers_every_line(line in "[ -~]{0,200}") {
        let mut out = Vec::new();
        jsonl::run(format!("{line}\n").as_bytes(), &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        prop_assert_eq!(text.lines().count(), usize::from(!line.trim().is_empty()));
    }
}

// ----------------------------------------------------------------------------- where the id came from

#[test]
fn the_place_of_the_id_is_said_and_the_text_id_is_kept_for_the_agreement_check() {
    let tlv_won = smpp(Some(4), RECEIPT, &[tlv(tag::RECEIPTED_MESSAGE_ID, b"0059113978\0")]);
    assert_eq!(tlv_won.id_source, Some(crate::domain::IdSource::Tlv));
    assert_eq!(
        (tlv_won.text_id.as_deref(), tlv_won.text_id_seen.as_deref()),
        (None, Some("0059113978")),
        "equal as written: no text_id in the output, but the text's id is kept for the check"
    );
    let text_only = smpp(Some(4), RECEIPT, &[]);
    assert_eq!(text_only.id_source, Some(crate::domain::IdSource::Text));
    assert_eq!(text_only.text_id_seen, None);
    let from_http = &http(
        "vonage",
        Some("application/json"),
        "",
        r#"{"messageId":"V1","status":"delivered"}"#,
    )[0];
    assert_eq!(from_http.id_source, Some(crate::domain::IdSource::Http));
}

// ----------------------------------------------------------------------------- unreadable status

#[test]
fn a_status_word_nobody_knows_reads_as_unknown_and_says_it_could_not_be_read() {
    let q = smpp(Some(4), b"id:A1 stat:?? err:000", &[]);
    assert_eq!((q.stat, q.stat_unreadable), (Some(Stat::Unknown), true));
    let said = smpp(Some(4), b"id:A1 stat:UNKNOWN err:000", &[]);
    assert_eq!(
        (said.stat, said.stat_unreadable),
        (Some(Stat::Unknown), false),
        "UNKNOWN written out is the network's word"
    );
    let tlv_says = smpp(Some(4), b"id:A1 stat:FOOBAR", &[tlv(tag::MESSAGE_STATE, &[2])]);
    assert_eq!(
        (tlv_says.stat, tlv_says.stat_unreadable),
        (Some(Stat::Delivrd), false),
        "the message_state TLV says it all"
    );
    let http_odd = &http(
        "vonage",
        Some("application/json"),
        "",
        r#"{"messageId":"V1","status":"weird"}"#,
    )[0];
    assert_eq!((http_odd.stat, http_odd.stat_unreadable), (Some(Stat::Unknown), true));
    let kannel_unknown = &http("kannel", None, "id=K1&status=66", "")[0];
    assert_eq!(
        (kannel_unknown.stat, kannel_unknown.stat_unreadable),
        (Some(Stat::Unknown), false),
        "Kannel's documented 66 is the SMSC's UNKNOWN, not an unreadable word"
    );
}
