use crate::said::FieldCode;
use proptest::prelude::*;
use serde_json::json;

use super::*;
use crate::domain::IntakeChannel;

/// 2026-06-01T00:00:00Z
const NOW: i64 = 1_780_272_000_000;
const HOUR: i64 = 3_600_000;
const DAY: i64 = 24 * HOUR;

fn rules(region: Option<&str>) -> IntakeRules {
    IntakeRules::new("main", region)
}

fn msg(destination: &str, text: &str) -> SubmitMessage {
    SubmitMessage {
        destination: destination.into(),
        text: text.into(),
        ..SubmitMessage::default()
    }
}

fn ok(req: &SubmitMessage) -> NewMessage {
    validate(req, IntakeChannel::Api, &rules(Some("FR")), NOW)
        .unwrap_or_else(|e| panic!("{req:?} must be accepted, got {e:?}"))
}

fn errors(req: &SubmitMessage) -> Vec<(String, String)> {
    match validate(req, IntakeChannel::Api, &rules(Some("FR")), NOW) {
        Ok(m) => panic!("{req:?} must be refused, got {m:?}"),
        Err(e) => e.into_iter().map(|e| (e.field, e.code.as_str().to_owned())).collect(),
    }
}

fn only_error(req: &SubmitMessage) -> FieldError {
    let mut all = validate(req, IntakeChannel::Api, &rules(Some("FR")), NOW).expect_err("must be refused");
    assert_eq!(all.len(), 1, "exactly one field error expected: {all:?}");
    all.remove(0)
}

fn pair(field: &str, code: &str) -> (String, String) {
    (field.into(), code.into())
}

// --- destination ---

#[test]
fn international_numbers_in_any_common_format_become_e164() {
    for raw in [
        "+33612345678",
        "+33 6 12 34 56 78",
        "+33 (0)6 12 34 56 78",
        "+33-6-12-34-56-78",
        "+33.6.12.34.56.78",
        "+33\u{2011}6\u{2013}12\u{2010}34\u{2212}56 78",
        "  +33 6 12 34 56 78  ",
        "+33\u{a0}6\u{a0}12\u{a0}34\u{a0}56\u{a0}78",
    ] {
        assert_eq!(normalize_destination(raw, None), Ok("+33612345678".into()), "{raw:?}");
    }
    assert_eq!(
        normalize_destination("+7 912 345-67-89", None),
        Ok("+79123456789".into())
    );
    assert_eq!(
        normalize_destination("+44 7400 123456", Some("FR")),
        Ok("+447400123456".into())
    );
    assert_eq!(
        normalize_destination("+1 (201) 555-0123", None),
        Ok("+12015550123".into())
    );
}

#[test]
fn a_leading_00_is_the_international_prefix_with_or_without_a_region() {
    assert_eq!(normalize_destination("0033612345678", None), Ok("+33612345678".into()));
    assert_eq!(
        normalize_destination("00 33 6 12 34 56 78", Some("FR")),
        Ok("+33612345678".into())
    );
    assert_eq!(
        normalize_destination("0079123456789", Some("FR")),
        Ok("+79123456789".into())
    );
}

#[test]
fn national_numbers_are_read_in_the_default_region() {
    assert_eq!(
        normalize_destination("(06) 12-34-56-78", Some("FR")),
        Ok("+33612345678".into())
    );
    assert_eq!(
        normalize_destination("06 12 34 56 78", Some("FR")),
        Ok("+33612345678".into())
    );
    assert_eq!(
        normalize_destination("0612345678", Some("fr")),
        Ok("+33612345678".into()),
        "region case"
    );
    assert_eq!(
        normalize_destination("8 912 345-67-89", Some("RU")),
        Ok("+79123456789".into())
    );
    assert_eq!(
        normalize_destination("07400 123456", Some("GB")),
        Ok("+447400123456".into())
    );
}

#[test]
fn a_national_number_without_a_default_region_needs_a_country() {
    for region in [None, Some(""), Some("XX")] {
        let e = normalize_destination("06 12 34 56 78", region).unwrap_err();
        assert_eq!(
            (e.field.as_str(), e.code.as_str()),
            ("destination", "country_needed"),
            "{region:?}"
        );
        assert!(e.message.contains("internationally"), "{}", e.message);
        assert!(e.message.contains("intake.default_region"), "{}", e.message);
    }
    let e = normalize_destination("0612345678", Some("XX")).unwrap_err();
    assert!(
        e.message.contains("\"XX\""),
        "an unknown region is named: {}",
        e.message
    );
}

#[test]
fn known_region_needs_numbering_data() {
    assert_eq!(known_region("FR"), Some(phonenumber::country::FR));
    assert_eq!(known_region(" ru "), Some(phonenumber::country::RU));
    assert_eq!(known_region("XX"), None);
    assert_eq!(known_region(""), None);
}

#[test]
fn invalid_numbers_are_refused_as_invalid_number() {
    for raw in [
        "+33 6 12 34 56",          // too short for France
        "+33 6 12 34 56 78 90",    // too long for France
        "+999 612345678",          // no such country code
        "+33 6 12 34 56 7A",       // a letter
        "hello",                   // words
        "SMSDESK",                 // an alphanumeric address
        "36111",                   // a French short code
        "+3",                      // too few digits
        "33+612345678",            // + in the middle
        "++33612345678",           // + twice
        "+33 6 12 34 56 78 ext 9", // an extension
        "+1234567890123456789012", // more digits than any number has
        "tel:+33612345678",        // a URI
    ] {
        let e = normalize_destination(raw, Some("FR")).unwrap_err();
        assert_eq!(
            (e.field.as_str(), e.code.as_str()),
            ("destination", "invalid_number"),
            "{raw:?}: {}",
            e.message
        );
        let shown: String = raw.chars().take(10).collect();
        assert!(
            e.message.contains(&shown),
            "the message names the value {raw:?}: {}",
            e.message
        );
    }
}

#[test]
fn short_codes_are_refused_as_invalid_number_with_or_without_a_region() {
    for region in [None, Some("FR")] {
        let e = normalize_destination("36111", region).unwrap_err();
        assert_eq!(e.code, "invalid_number", "{region:?}");
        assert!(e.message.contains("short code"), "{}", e.message);
    }
}

#[test]
fn an_empty_destination_is_required() {
    for raw in ["", "   "] {
        let e = normalize_destination(raw, Some("FR")).unwrap_err();
        assert_eq!((e.field.as_str(), e.code.as_str()), ("destination", "required"));
    }
}

#[test]
fn the_raw_destination_is_kept_exactly_as_given() {
    let m = ok(&msg("  (06) 12-34-56-78 ", "hi"));
    assert_eq!(m.destination, "+33612345678");
    assert_eq!(m.destination_raw, "  (06) 12-34-56-78 ");
}

// --- text ---

#[test]
fn short_latin_text_is_one_gsm7_segment() {
    let m = ok(&msg("+33612345678", "Your order #123 has shipped. Café?"));
    assert_eq!((m.encoding.as_str(), m.segments), ("gsm7", 1));
    assert_eq!(m.body, "Your order #123 has shipped. Café?");
}

#[test]
fn cyrillic_text_is_ucs2() {
    let m = ok(&msg("+79123456789", "Привет"));
    assert_eq!((m.encoding.as_str(), m.segments), ("ucs2", 1));
}

#[test]
fn long_text_is_split_into_segments() {
    let m = ok(&msg("+33612345678", &"a".repeat(161)));
    assert_eq!((m.encoding.as_str(), m.segments), ("gsm7", 2));
    let m = ok(&msg("+33612345678", &"a".repeat(153 * 10)));
    assert_eq!(m.segments, 10, "exactly the limit is accepted");
    let m = ok(&msg("+79123456789", &"я".repeat(135)));
    assert_eq!((m.encoding.as_str(), m.segments), ("ucs2", 3));
}

#[test]
fn text_over_the_segment_limit_is_too_long_and_says_by_how_much() {
    let e = only_error(&msg("+33612345678", &"a".repeat(153 * 10 + 1)));
    assert_eq!((e.field.as_str(), e.code.as_str()), ("text", "too_long"));
    assert!(e.message.contains("11 SMS segments"), "{}", e.message);
    assert!(e.message.contains("at most 10"), "{}", e.message);
    // The screens word it from the code and its parameters, in the operator's language.
    let said: Vec<_> = e.params.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    assert_eq!(said, vec![("max", "10"), ("parts", "11")]);

    let text = format!("Noël {}", "a".repeat(700));
    let e = only_error(&msg("+33612345678", &text));
    assert!(
        e.message.contains("UCS-2 because of 'ë'"),
        "names why it is UCS-2: {}",
        e.message
    );

    let tight = IntakeRules {
        max_segments: 1,
        ..rules(Some("FR"))
    };
    let e = validate(&msg("+33612345678", &"a".repeat(161)), IntakeChannel::Csv, &tight, NOW).unwrap_err();
    assert_eq!((e[0].code.as_str(), e.len()), ("too_long", 1));
    assert!(e[0].message.contains("at most 1 are allowed"), "{}", e[0].message);
}

#[test]
fn empty_or_blank_text_is_required() {
    for text in ["", " ", "\n\t \r\n"] {
        let e = only_error(&msg("+33612345678", text));
        assert_eq!((e.field.as_str(), e.code.as_str()), ("text", "required"), "{text:?}");
    }
}

#[test]
fn control_characters_in_text_are_refused_but_line_breaks_and_tabs_are_not() {
    let e = only_error(&msg("+33612345678", "code\0 1234"));
    assert_eq!((e.field.as_str(), e.code.as_str()), ("text", "invalid_character"));
    assert!(
        e.message.contains("U+0000") && e.message.contains("character 5"),
        "{}",
        e.message
    );
    for bad in ["\u{1b}[31m", "a\u{7f}", "bell\u{7}", "a\u{85}"] {
        assert_eq!(
            only_error(&msg("+33612345678", bad)).code,
            FieldCode::InvalidCharacter,
            "{bad:?}"
        );
    }
    let m = ok(&msg("+33612345678", "line one\r\nline two\n"));
    assert_eq!(m.encoding, "gsm7");
    let m = ok(&msg("+33612345678", "col\tcol"));
    assert_eq!(m.encoding, "ucs2", "a tab is allowed but is not in the GSM alphabet");
}

// --- kind, priority, routing ---

#[test]
fn defaults_are_transactional_priority_5_and_the_rules_connection() {
    let m = validate(&msg("+33612345678", "hi"), IntakeChannel::Csv, &rules(None), NOW).unwrap();
    assert_eq!(m.kind, MessageKind::Transactional);
    assert_eq!(m.priority, crate::messages::DEFAULT_PRIORITY);
    assert_eq!(m.channel, IntakeChannel::Csv);
    assert_eq!(m.connection, "main");
    assert_eq!(m.registered_delivery, 1);
    assert_eq!(
        (m.valid_until, m.scheduled_at, m.ordering_key, m.client_ref),
        (None, None, None, None)
    );
    assert_eq!((m.api_key_id, m.idempotency), (None, None));
}

#[test]
fn kind_and_priority_are_carried_to_the_new_message() {
    let m = ok(&SubmitMessage {
        kind: Some(MessageKind::Otp),
        priority: Some(0),
        ..msg("+33612345678", "1234")
    });
    assert_eq!((m.kind, m.priority), (MessageKind::Otp, 0));
    assert_eq!(crate::messages::queue_priority(m.kind, m.priority), 0);
    let m = ok(&SubmitMessage {
        kind: Some(MessageKind::Bulk),
        priority: Some(9),
        ..msg("+33612345678", "sale")
    });
    assert_eq!((m.kind, m.priority), (MessageKind::Bulk, 9));
    assert_eq!(crate::messages::queue_priority(m.kind, m.priority), 29);
}

#[test]
fn every_one_time_code_has_a_validity_the_configured_one_when_none_is_given() {
    let m = ok(&SubmitMessage {
        kind: Some(MessageKind::Otp),
        ..msg("+33612345678", "1234")
    });
    assert_eq!(
        m.valid_until,
        Some(NOW + 5 * 60_000),
        "five minutes from its send time by default"
    );
    let short = IntakeRules {
        otp_validity_ms: 60_000,
        ..rules(None)
    };
    let m = validate(
        &SubmitMessage {
            kind: Some(MessageKind::Otp),
            ..msg("+33612345678", "1234")
        },
        IntakeChannel::Api,
        &short,
        NOW,
    )
    .unwrap();
    assert_eq!(m.valid_until, Some(NOW + 60_000));
    let given = ok(&SubmitMessage {
        kind: Some(MessageKind::Otp),
        validity_seconds: Some(120),
        ..msg("+33612345678", "1234")
    });
    assert_eq!(given.valid_until, Some(NOW + 120_000), "a given validity is kept");
    let other = ok(&msg("+33612345678", "Your parcel ships today"));
    assert_eq!(other.valid_until, None, "other kinds keep theirs: none unless given");
}

#[test]
fn each_kind_asks_for_the_receipt_the_connection_says() {
    let r = IntakeRules {
        registered_delivery: [0, 2, 0x11],
        ..rules(None)
    };
    let kind = |k| {
        validate(
            &SubmitMessage {
                kind: Some(k),
                ..msg("+33612345678", "1234")
            },
            IntakeChannel::Api,
            &r,
            NOW,
        )
        .unwrap()
        .registered_delivery
    };
    assert_eq!(
        [
            kind(MessageKind::Otp),
            kind(MessageKind::Transactional),
            kind(MessageKind::Bulk)
        ],
        [0, 2, 0x11]
    );
}

#[test]
fn priority_above_9_is_out_of_range() {
    let e = only_error(&SubmitMessage {
        priority: Some(10),
        ..msg("+33612345678", "hi")
    });
    assert_eq!((e.field.as_str(), e.code.as_str()), ("priority", "out_of_range"));
    assert!(
        e.message.contains("priority 10") && e.message.contains("0 (sent first) to 9"),
        "{}",
        e.message
    );
}

// --- times ---

#[test]
fn valid_until_is_read_as_rfc3339_into_ms() {
    let at = |t: &str| {
        ok(&SubmitMessage {
            valid_until: Some(t.into()),
            ..msg("+33612345678", "hi")
        })
        .valid_until
    };
    assert_eq!(at("2026-06-01T02:00:00Z"), Some(NOW + 2 * HOUR));
    assert_eq!(at("2026-06-01T04:00:00+02:00"), Some(NOW + 2 * HOUR));
    assert_eq!(at("2026-05-31T22:00:00-04:00"), Some(NOW + 2 * HOUR));
    assert_eq!(at("2026-06-01T02:00:00.250Z"), Some(NOW + 2 * HOUR + 250));
    assert_eq!(at("2026-06-01 02:00:00Z"), Some(NOW + 2 * HOUR));
}

#[test]
fn validity_seconds_counts_from_now_or_from_the_scheduled_time() {
    let m = ok(&SubmitMessage {
        validity_seconds: Some(600),
        ..msg("+33612345678", "hi")
    });
    assert_eq!(m.valid_until, Some(NOW + 600_000));
    let m = ok(&SubmitMessage {
        validity_seconds: Some(600),
        scheduled_at: Some("2026-06-02T00:00:00Z".into()),
        ..msg("+33612345678", "hi")
    });
    assert_eq!(
        (m.scheduled_at, m.valid_until),
        (Some(NOW + DAY), Some(NOW + DAY + 600_000))
    );
}

#[test]
fn timestamps_without_an_offset_or_malformed_are_invalid_time_with_an_example() {
    for (t, says) in [
        ("2026-06-01T02:00:00", "no UTC offset"),
        ("2026-06-01", "no time"),
        ("2026-06-01T02:00Z", "YYYY-MM-DDThh:mm:ss"),
        ("01/06/2026 02:00", "YYYY-MM-DDThh:mm:ss"),
        ("2026-06-01T02:00:00+0200", "YYYY-MM-DDThh:mm:ss"),
        ("2026-02-30T02:00:00Z", "day is out of range"),
        ("1780279200", "YYYY-MM-DDThh:mm:ss"),
    ] {
        for field in ["valid_until", "scheduled_at"] {
            let mut req = msg("+33612345678", "hi");
            if field == "valid_until" {
                req.valid_until = Some(t.into());
            } else {
                req.scheduled_at = Some(t.into());
            }
            let e = only_error(&req);
            assert_eq!((e.field.as_str(), e.code.as_str()), (field, "invalid_time"), "{t}");
            assert!(e.message.contains(says), "{t}: {}", e.message);
            assert!(
                e.message.contains("\"2026-12-01T10:00:00Z\""),
                "gives an example: {}",
                e.message
            );
            assert!(e.message.contains(&format!("{t:?}")), "names the value: {}", e.message);
        }
    }
}

#[test]
fn valid_until_in_the_past_or_now_is_in_past() {
    for t in ["2026-05-31T23:59:59Z", "2026-06-01T00:00:00Z", "2020-01-01T00:00:00Z"] {
        let e = only_error(&SubmitMessage {
            valid_until: Some(t.into()),
            ..msg("+33612345678", "hi")
        });
        assert_eq!((e.field.as_str(), e.code.as_str()), ("valid_until", "in_past"), "{t}");
        assert!(
            e.message.contains("2026-06-01T00:00:00Z"),
            "says what time it is: {}",
            e.message
        );
    }
}

#[test]
fn valid_until_before_the_scheduled_time_conflicts() {
    let e = only_error(&SubmitMessage {
        valid_until: Some("2026-06-01T12:00:00Z".into()),
        scheduled_at: Some("2026-06-02T00:00:00Z".into()),
        ..msg("+33612345678", "hi")
    });
    assert_eq!((e.field.as_str(), e.code.as_str()), ("valid_until", "conflict"));
    assert!(e.message.contains("expire before it is sent"), "{}", e.message);
}

#[test]
fn valid_until_and_validity_seconds_together_conflict_on_both_fields() {
    let req = SubmitMessage {
        valid_until: Some("2026-06-01T02:00:00Z".into()),
        validity_seconds: Some(60),
        ..msg("+33612345678", "hi")
    };
    assert_eq!(
        errors(&req),
        vec![pair("valid_until", "conflict"), pair("validity_seconds", "conflict")]
    );
}

#[test]
fn validity_seconds_zero_or_over_a_year_is_out_of_range() {
    for s in [0, 365 * 86_400 + 1, u32::MAX] {
        let e = only_error(&SubmitMessage {
            validity_seconds: Some(s),
            ..msg("+33612345678", "hi")
        });
        assert_eq!(
            (e.field.as_str(), e.code.as_str()),
            ("validity_seconds", "out_of_range"),
            "{s}"
        );
        assert!(e.message.contains(&format!("validity_seconds {s}")), "{}", e.message);
    }
    let m = ok(&SubmitMessage {
        validity_seconds: Some(365 * 86_400),
        ..msg("+33612345678", "hi")
    });
    assert_eq!(m.valid_until, Some(NOW + 365 * DAY));
}

#[test]
fn valid_until_more_than_a_year_after_sending_is_out_of_range() {
    let e = only_error(&SubmitMessage {
        valid_until: Some("2027-06-02T00:00:00Z".into()),
        ..msg("+33612345678", "hi")
    });
    assert_eq!((e.field.as_str(), e.code.as_str()), ("valid_until", "out_of_range"));
}

#[test]
fn scheduled_at_in_the_past_or_now_means_send_now() {
    for t in [
        "2026-06-01T00:00:00Z",
        "2026-05-01T00:00:00Z",
        "2000-01-01T00:00:00+05:00",
    ] {
        let m = ok(&SubmitMessage {
            scheduled_at: Some(t.into()),
            ..msg("+33612345678", "hi")
        });
        assert_eq!(m.scheduled_at, None, "{t}");
    }
    let m = ok(&SubmitMessage {
        scheduled_at: Some("2026-06-01T00:00:00.001Z".into()),
        ..msg("+33612345678", "hi")
    });
    assert_eq!(m.scheduled_at, Some(NOW + 1));
}

#[test]
fn a_past_scheduled_at_from_the_compose_form_is_refused_and_a_future_one_kept() {
    let compose = |t: &str| {
        validate(
            &SubmitMessage {
                scheduled_at: Some(t.into()),
                ..msg("+33612345678", "hi")
            },
            IntakeChannel::Compose,
            &rules(None),
            NOW,
        )
    };
    for t in ["2026-06-01T00:00:00Z", "2026-05-31T23:59:00+00:00"] {
        let e = compose(t).unwrap_err();
        assert_eq!(
            (e[0].field.as_str(), e[0].code.as_str()),
            ("scheduled_at", "in_past"),
            "{t}"
        );
        assert!(e[0].message.contains("has already passed"), "{}", e[0].message);
    }
    let later = compose("2026-06-01T09:30:00+02:00").expect("a time ahead is kept");
    assert_eq!(later.scheduled_at, Some(NOW + 7 * 3_600_000 + 30 * 60_000));
    assert_eq!(later.channel, IntakeChannel::Compose);
}

#[test]
fn scheduled_at_more_than_365_days_ahead_is_out_of_range() {
    let at = |t: &str| {
        validate(
            &SubmitMessage {
                scheduled_at: Some(t.into()),
                ..msg("+33612345678", "hi")
            },
            IntakeChannel::Api,
            &rules(None),
            NOW,
        )
    };
    assert_eq!(at("2027-06-01T00:00:00Z").unwrap().scheduled_at, Some(NOW + 365 * DAY));
    let e = at("2027-06-01T00:00:00.001Z").unwrap_err();
    assert_eq!(
        (e[0].field.as_str(), e[0].code.as_str()),
        ("scheduled_at", "out_of_range")
    );
    assert!(e[0].message.contains("365 days"), "{}", e[0].message);
}

// --- keys ---

#[test]
fn ordering_key_and_client_ref_are_kept_and_limited_in_characters() {
    let m = ok(&SubmitMessage {
        ordering_key: Some("é".repeat(128)),
        client_ref: Some("ref-42".into()),
        ..msg("+33612345678", "hi")
    });
    assert_eq!(m.ordering_key.as_deref().map(|k| k.chars().count()), Some(128));
    assert_eq!(m.client_ref.as_deref(), Some("ref-42"));

    let req = SubmitMessage {
        ordering_key: Some("k".repeat(129)),
        client_ref: Some("r".repeat(257)),
        ..msg("+33612345678", "hi")
    };
    assert_eq!(
        errors(&req),
        vec![pair("ordering_key", "too_long"), pair("client_ref", "too_long")]
    );
    let e = validate(&req, IntakeChannel::Api, &rules(None), NOW).unwrap_err();
    assert!(
        e[0].message.contains("129 characters") && e[0].message.contains("at most 128"),
        "{}",
        e[0].message
    );
    assert!(
        e[1].message.contains("257 characters") && e[1].message.contains("at most 256"),
        "{}",
        e[1].message
    );
}

#[test]
fn a_control_character_in_ordering_key_or_client_ref_is_refused_and_named() {
    // NUL, ESC, CR, LF, DEL and a C1 control: none belongs in a key that logs, lists, exports and
    // webhooks repeat.
    for bad in [
        "a\0b",
        "\u{1b}[31mred",
        "line\r\nbreak",
        "tab\there",
        "del\u{7f}",
        "c1\u{85}",
    ] {
        let req = SubmitMessage {
            ordering_key: Some(bad.into()),
            client_ref: Some(bad.into()),
            ..msg("+33612345678", "hi")
        };
        let e = validate(&req, IntakeChannel::Api, &rules(None), NOW).unwrap_err();
        assert_eq!(
            e.iter()
                .map(|e| (e.field.as_str(), e.code.as_str()))
                .collect::<Vec<_>>(),
            vec![
                ("ordering_key", "invalid_character"),
                ("client_ref", "invalid_character")
            ],
            "{bad:?}"
        );
        assert!(
            e[1].message.starts_with("client_ref holds the control character U+"),
            "{}",
            e[1].message
        );
    }
    let m = ok(&SubmitMessage {
        ordering_key: Some("order 7 · é — ok".into()),
        client_ref: Some("réf/42 (web)".into()),
        ..msg("+33612345678", "hi")
    });
    assert_eq!(
        m.client_ref.as_deref(),
        Some("réf/42 (web)"),
        "printable text is kept as given"
    );
}

#[test]
fn empty_ordering_key_and_client_ref_count_as_absent() {
    let m = ok(&SubmitMessage {
        ordering_key: Some(String::new()),
        client_ref: Some(String::new()),
        ..msg("+33612345678", "hi")
    });
    assert_eq!((m.ordering_key, m.client_ref), (None, None));
}

// --- all at once ---

#[test]
fn every_field_error_is_reported_at_once_in_field_order() {
    let req = SubmitMessage {
        destination: "06 12".into(),
        text: String::new(),
        kind: None,
        priority: Some(200),
        valid_until: Some("yesterday".into()),
        validity_seconds: None,
        scheduled_at: Some("2026-06-01T10:00:00".into()),
        ordering_key: Some("k".repeat(200)),
        client_ref: Some("r".repeat(300)),
        ..SubmitMessage::default()
    };
    assert_eq!(
        errors(&req),
        vec![
            pair("destination", "invalid_number"),
            pair("text", "required"),
            pair("priority", "out_of_range"),
            pair("scheduled_at", "invalid_time"),
            pair("valid_until", "invalid_time"),
            pair("ordering_key", "too_long"),
            pair("client_ref", "too_long"),
        ]
    );
    let no_region = validate(&msg("0612345678", "\0"), IntakeChannel::Cli, &rules(None), NOW).unwrap_err();
    assert_eq!(
        no_region
            .iter()
            .map(|e| (e.field.as_str(), e.code.as_str()))
            .collect::<Vec<_>>(),
        vec![("destination", "country_needed"), ("text", "invalid_character")]
    );
}

// --- serde, wire types ---

#[test]
fn unknown_fields_are_refused_by_name() {
    let err = serde_json::from_value::<SubmitMessage>(json!({
        "destination": "+33612345678", "text": "hi", "sender": "ACME"
    }))
    .unwrap_err();
    assert!(err.to_string().contains("unknown field `sender`"), "{err}");
}

#[test]
fn only_destination_is_required_in_json_and_a_message_without_text_or_template_is_refused() {
    let req: SubmitMessage = serde_json::from_value(json!({"destination": "+33612345678", "text": "hi"})).unwrap();
    assert_eq!(req, msg("+33612345678", "hi"));
    let req: SubmitMessage = serde_json::from_value(json!({
        "destination": "+33612345678", "text": "hi", "kind": "otp", "priority": 1, "valid_until": null,
        "validity_seconds": 300, "scheduled_at": null, "ordering_key": "a", "client_ref": "b"
    }))
    .unwrap();
    assert_eq!(
        (req.kind, req.priority, req.validity_seconds),
        (Some(MessageKind::Otp), Some(1), Some(300))
    );
    let bare: SubmitMessage = serde_json::from_value(json!({"destination": "+33612345678"})).unwrap();
    assert_eq!(
        errors(&bare),
        vec![pair("text", "required")],
        "text may be left out for a template only"
    );
    let err =
        serde_json::from_value::<SubmitMessage>(json!({"destination": "x", "text": "y", "kind": "spam"})).unwrap_err();
    assert!(err.to_string().contains("spam"), "{err}");
}

#[test]
fn submitted_message_echoes_the_new_message_as_queued() {
    let m = ok(&SubmitMessage {
        kind: Some(MessageKind::Otp),
        priority: Some(2),
        validity_seconds: Some(300),
        ordering_key: Some("order-7".into()),
        client_ref: Some("abc".into()),
        ..msg("06 12 34 56 78", "Привет")
    });
    let s = SubmittedMessage::new(41, &m, NOW);
    assert_eq!(
        serde_json::to_value(&s).unwrap(),
        json!({
            "id": 41, "status": "queued", "destination": "+33612345678", "destination_raw": "06 12 34 56 78",
            "encoding": "ucs2", "segments": 1, "kind": "otp", "priority": 2, "valid_until_ms": NOW + 300_000,
            "scheduled_at_ms": null, "ordering_key": "order-7", "client_ref": "abc", "created_at_ms": NOW
        })
    );
}

#[test]
fn typescript_types_use_numbers_and_optional_request_fields() {
    use ts_rs::TS;
    let submitted = SubmittedMessage::decl();
    assert!(
        submitted.contains("id: number") && submitted.contains("created_at_ms: number"),
        "{submitted}"
    );
    assert!(submitted.contains("valid_until_ms: number | null"), "{submitted}");
    assert!(!submitted.contains("bigint"), "{submitted}");
    let submit = SubmitMessage::decl();
    assert!(submit.contains("destination: string"), "{submit}");
    assert!(submit.contains("kind?: MessageKind | null"), "{submit}");
    let field = FieldError::decl();
    for part in [
        "field: string",
        "code: FieldCode",
        "params: Record<string, string>",
        "message: string",
    ] {
        assert!(field.contains(part), "{field}");
    }
}

// --- request hash ---

#[test]
fn request_hash_ignores_key_order_and_whitespace_but_not_values() {
    let a: serde_json::Value = serde_json::from_str(r#"{"text":"hi","destination":"+33612345678"}"#).unwrap();
    let b: serde_json::Value =
        serde_json::from_str("{ \"destination\" : \"+33612345678\",\n \"text\": \"hi\" }").unwrap();
    let c = json!({"destination": "+33612345678", "text": "hi!"});
    assert_eq!(request_hash(&a), request_hash(&b));
    assert_ne!(request_hash(&a), request_hash(&c));
    assert_ne!(
        request_hash(&json!([1, 2])),
        request_hash(&json!([2, 1])),
        "array order matters"
    );
}

#[test]
fn request_hash_is_sha256_hex_of_canonical_json() {
    assert_eq!(
        request_hash(&json!({})),
        "44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a"
    );
    assert_eq!(
        request_hash(&json!({"b": [true, null, "x"], "a": 1})),
        "eca8cfb31ab74533e1eb2f4c74d2d55dfe3c79ac704787e54be8647ea7777eb1",
        "sha256 of {{\"a\":1,\"b\":[true,null,\"x\"]}}"
    );
}

// --- robustness ---

fn any_text() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<String>(),
        "[+0-9 ()./-]{0,30}",
        "[0-9TZtz:.+ -]{0,40}",
        "\\PC{0,400}"
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn validate_never_panics(
        destination in any_text(),
        text in any_text(),
        valid_until in proptest::option::of(any_text()),
        scheduled_at in proptest::option::of(any_text()),
        ordering_key in proptest::option::of(any_text()),
        client_ref in proptest::option::of(any_text()),
        priority in proptest::option::of(any::<u8>()),
        validity_seconds in proptest::option::of(any::<u32>()),
        kind in proptest::option::of(proptest::sample::select(MessageKind::ALL)),
        region in proptest::option::of(proptest::sample::select(vec!["FR", "RU", "US", "GB", "XX", "AQ", "", "001"])),
        max_segments in 0u32..20,
        now in any::<i64>().prop_map(|n| n / 4),
    ) {
        let req = SubmitMessage {
            destination, text, kind, priority, valid_until, validity_seconds, scheduled_at, ordering_key, client_ref,
            ..SubmitMessage::default()
        };
        let rules = IntakeRules { max_segments, ..rules(region) };
        match validate(&req, IntakeChannel::Api, &rules, now) {
            Ok(m) => {
                prop_assert!(m.destination.starts_with('+'));
                prop_assert!(m.segments <= max_segments);
                prop_assert!(m.priority <= 9);
                let keys = m.client_ref.iter().chain(m.ordering_key.iter());
                prop_assert!(keys.clone().all(|k| !k.chars().any(char::is_control)), "{:?}", keys.collect::<Vec<_>>());
            }
            Err(errors) => prop_assert!(!errors.is_empty()),
        }
    }

    #[test]
    fn normalize_destination_never_panics_on_digit_strings(
        raw in "\\+?[0-9]{0,20}",
        region in proptest::option::of(proptest::sample::select(vec!["FR", "RU", "US", "GB", "DE", "IN", "BR", "AQ"])),
    ) {
        if let Ok(e164) = normalize_destination(&raw, region) {
            prop_assert!(e164.starts_with('+') && e164[1..].chars().all(|c| c.is_ascii_digit()), "{}", e164);
            prop_assert_eq!(normalize_destination(&e164, None), Ok(e164.clone()), "E.164 must read back as itself");
        }
    }
}

// --- templates ---

fn office() -> Templates {
    let template = |id: i64, name: &str, text: &str| smsdesk_core::template::Template {
        id,
        name: name.into(),
        text: text.into(),
        placeholders: smsdesk_core::template::placeholders(text),
        created_at_ms: 0,
        created_by: "Olga".into(),
    };
    Templates::new(vec![
        template(
            1,
            "Reminder",
            "Hello {name}, see you on {date}. {name}, bring your card",
        ),
        template(2, "Long", &format!("{{x}}{}", "y".repeat(1_590))),
    ])
}

fn by_template(name: &str, values: &[(&str, &str)]) -> SubmitMessage {
    SubmitMessage {
        destination: "+33612345678".into(),
        template: Some(name.into()),
        values: Some(values.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect()),
        ..SubmitMessage::default()
    }
}

fn with_templates(req: &SubmitMessage) -> Result<NewMessage, Vec<FieldError>> {
    validate_with(req, &office(), IntakeChannel::Api, &rules(Some("FR")), NOW)
}

#[test]
fn a_message_naming_a_template_is_sent_with_its_text_filled_with_the_values() {
    let m = with_templates(&by_template(
        "Reminder",
        &[("name", "Anna"), ("date", "Monday"), ("unused", "x")],
    ))
    .expect("every placeholder has a value");
    assert_eq!(m.body, "Hello Anna, see you on Monday. Anna, bring your card");
    assert_eq!(
        (m.encoding.as_str(), m.segments),
        ("gsm7", 1),
        "the filled text is planned"
    );
    let any_case = with_templates(&by_template(" reminder ", &[("name", "Anna"), ("date", "Monday")])).unwrap();
    assert_eq!(
        any_case.body, m.body,
        "the name is found whatever its case, as names are unique"
    );
}

#[test]
fn each_placeholder_without_a_value_is_named_and_the_message_refused() {
    let errors = with_templates(&by_template("Reminder", &[("name", "  ")])).unwrap_err();
    let named: Vec<(&str, FieldCode, Option<&str>)> = errors
        .iter()
        .map(|e| {
            (
                e.field.as_str(),
                e.code,
                e.params.get("placeholder").map(String::as_str),
            )
        })
        .collect();
    assert_eq!(
        named,
        vec![
            ("values", FieldCode::TemplateValueMissing, Some("name")),
            ("values", FieldCode::TemplateValueMissing, Some("date")),
        ],
        "a blank value is no value; each placeholder is named once, in order"
    );
    assert_eq!(errors[0].params.get("template").map(String::as_str), Some("Reminder"));
}

#[test]
fn an_unknown_template_is_refused_naming_it_beside_the_other_fields() {
    let mut req = by_template("Reminders", &[]);
    req.destination = "not a number".into();
    let errors = with_templates(&req).unwrap_err();
    assert_eq!(
        errors.iter().map(|e| (e.field.as_str(), e.code)).collect::<Vec<_>>(),
        vec![
            ("destination", FieldCode::InvalidNumber),
            ("template", FieldCode::UnknownTemplate)
        ]
    );
    assert_eq!(errors[1].params.get("name").map(String::as_str), Some("Reminders"));
    assert!(
        validate(
            &by_template("Reminder", &[("name", "A"), ("date", "B")]),
            IntakeChannel::Api,
            &rules(Some("FR")),
            NOW
        )
        .is_err_and(|e| e[0].code == FieldCode::UnknownTemplate),
        "without the office's templates, none is known"
    );
}

#[test]
fn a_text_beside_a_template_or_values_without_one_conflict() {
    let mut both = by_template("Reminder", &[("name", "A"), ("date", "B")]);
    both.text = "Hello".into();
    assert_eq!(
        with_templates(&both)
            .unwrap_err()
            .iter()
            .map(|e| (e.field.as_str(), e.code))
            .collect::<Vec<_>>(),
        vec![("text", FieldCode::Conflict), ("template", FieldCode::Conflict)]
    );
    let mut stray = msg("+33612345678", "Hello");
    stray.values = Some([("name".to_owned(), "A".to_owned())].into());
    assert_eq!(
        with_templates(&stray).unwrap_err()[0].field,
        "values",
        "values fill a template, and none is named"
    );
    stray.values = Some(Default::default());
    assert!(with_templates(&stray).is_ok(), "no values is no conflict");
    let mut blank = msg("+33612345678", "Hello");
    blank.template = Some("  ".into());
    assert_eq!(
        with_templates(&blank).unwrap().body,
        "Hello",
        "a blank template name is none"
    );
}

#[test]
fn a_filled_text_is_checked_as_any_text_is() {
    let errors = with_templates(&by_template("Long", &[("x", "€")])).unwrap_err();
    assert_eq!(
        errors.iter().map(|e| (e.field.as_str(), e.code)).collect::<Vec<_>>(),
        vec![("text", FieldCode::TooLong)],
        "the filled text takes more parts than allowed"
    );
    let errors = with_templates(&by_template("Reminder", &[("name", "A\u{0}"), ("date", "B")])).unwrap_err();
    assert_eq!(errors[0].code, FieldCode::InvalidCharacter);
}

#[test]
fn a_text_message_reads_as_it_did_before_templates() {
    let m = with_templates(&msg("+33612345678", "Plain {name} stays as written")).unwrap();
    assert_eq!(m.body, "Plain {name} stays as written");
    let json = serde_json::to_value(normalise(&msg("+33612345678", "Hi"), &m)).unwrap();
    assert!(
        json.get("template").is_none() && json.get("values").is_none(),
        "the fingerprint of a text message is unchanged: {json}"
    );
}

#[test]
fn intake_keeps_the_country_read_with_the_number_so_the_writer_need_not_read_it_again() {
    let country = |destination: &str| ok(&msg(destination, "hello")).country;
    assert_eq!(
        country("06 12 34 56 78").as_deref(),
        Some("FR"),
        "national, in the office's region"
    );
    assert_eq!(country("+7 916 123 45 67").as_deref(), Some("RU"));
    assert_eq!(
        country("+7 701 123 45 67").as_deref(),
        Some("KZ"),
        "one calling code, two countries"
    );
    assert_eq!(country("+44 20 7946 0958").as_deref(), Some("GB"));
}
