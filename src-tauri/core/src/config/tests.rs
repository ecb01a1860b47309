use std::path::Path;

use super::*;

fn env(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
}

#[test]
fn the_template_documents_every_setting_and_parses_to_the_defaults() {
    let t = template();
    for s in SECTIONS {
        assert!(
            t.contains(&format!("[{}]", s.name)),
            "section {} must be in the template",
            s.name
        );
        for k in s.keys {
            assert!(!k.doc.trim().is_empty(), "{}.{} must be documented", s.name, k.name);
            assert!(
                t.contains(&format!("# {} = ", k.name)),
                "{}.{} must be in the template",
                s.name,
                k.name
            );
            assert!(
                t.contains(&env_var(s.name, k.name)),
                "the template must name the environment variable"
            );
        }
    }
    // Uncommenting every line must give a valid file equal to the defaults.
    let uncommented: String = t
        .lines()
        .map(|l| match l.strip_prefix("# ") {
            Some(rest) if rest.contains(" = ") && !rest.starts_with('(') => rest,
            _ => l,
        })
        .collect::<Vec<_>>()
        .join("\n");
    let parsed = from_sources(Path::new("t.toml"), &uncommented, []).unwrap();
    assert_eq!(parsed, Config::default());
}

#[test]
fn a_bad_value_names_the_file_the_key_and_the_reason() {
    let err = from_sources(Path::new("/x/smsdesk.toml"), "[http]\nport = 70000\n", []).unwrap_err();
    let msg = err.to_string();
    assert!(
        msg.contains("/x/smsdesk.toml") && msg.contains("http.port") && msg.contains("out of range"),
        "{msg}"
    );

    let msg = from_sources(Path::new("f.toml"), "[http]\nbind = \"localhost:80\"\n", [])
        .unwrap_err()
        .to_string();
    assert!(msg.contains("http.bind") && msg.contains("not an IP address"), "{msg}");

    let msg = from_sources(Path::new("f.toml"), "[log]\nkeep_files = 0\n", [])
        .unwrap_err()
        .to_string();
    assert!(msg.contains("log.keep_files") && msg.contains("at least 1"), "{msg}");

    let msg = from_sources(Path::new("f.toml"), "[log]\nlevel = \"loud\"\n", [])
        .unwrap_err()
        .to_string();
    assert!(msg.contains("log.level"), "{msg}");

    let msg = from_sources(Path::new("f.toml"), "[http]\nport = \"80\"\n", [])
        .unwrap_err()
        .to_string();
    assert!(msg.contains("expected an integer"), "{msg}");
}

#[test]
fn unknown_sections_and_keys_are_refused() {
    let msg = from_sources(Path::new("f.toml"), "[htpp]\nport = 1\n", [])
        .unwrap_err()
        .to_string();
    assert!(
        msg.contains("htpp") && msg.contains("unknown section") && msg.contains("http"),
        "{msg}"
    );
    let msg = from_sources(Path::new("f.toml"), "[http]\nprot = 1\n", [])
        .unwrap_err()
        .to_string();
    assert!(msg.contains("http.prot") && msg.contains("port"), "{msg}");
    let msg = from_sources(Path::new("f.toml"), "http = 3\n", [])
        .unwrap_err()
        .to_string();
    assert!(msg.contains("must be a section"), "{msg}");
}

#[test]
fn syntax_errors_name_the_file() {
    let msg = from_sources(Path::new("/etc/s.toml"), "[http\n", [])
        .unwrap_err()
        .to_string();
    assert!(msg.contains("/etc/s.toml") && msg.contains("not valid TOML"), "{msg}");
}

#[test]
fn environment_overrides_win_over_the_file() {
    let c = from_sources(
        Path::new("f.toml"),
        "[http]\nport = 9000\n",
        env(&[
            ("SMSDESK_HTTP_PORT", "9100"),
            ("SMSDESK_LOG_LEVEL", "debug"),
            ("SMSDESK_HTTP_BIND", "0.0.0.0"),
        ]),
    )
    .unwrap();
    assert_eq!(c.http.port, 9100);
    assert_eq!(c.log.level, LogFilter("debug".into()));
    assert_eq!(c.http.bind.to_string(), "0.0.0.0");
}

#[test]
fn a_section_whose_name_starts_another_s_is_reached_by_its_own_variables() {
    let c = from_sources(
        Path::new("f.toml"),
        "",
        env(&[
            ("SMSDESK_SMPP_SERVER_ENABLED", "true"),
            ("SMSDESK_SMPP_SERVER_PORT", "2776"),
            ("SMSDESK_SMPP_PORT", "3550"),
        ]),
    )
    .unwrap();
    assert!(c.smpp_server.enabled);
    assert_eq!((c.smpp_server.port, c.smpp.port), (2776, 3550));
}

#[test]
fn bad_or_misspelt_environment_overrides_are_refused_and_foreign_ones_ignored() {
    let msg = from_sources(Path::new("f.toml"), "", env(&[("SMSDESK_HTTP_PORT", "abc")]))
        .unwrap_err()
        .to_string();
    assert!(msg.contains("SMSDESK_HTTP_PORT") && msg.contains("http.port"), "{msg}");
    let msg = from_sources(Path::new("f.toml"), "", env(&[("SMSDESK_HTTP_PROT", "1")]))
        .unwrap_err()
        .to_string();
    assert!(
        msg.contains("SMSDESK_HTTP_PROT") && msg.contains("SMSDESK_HTTP_PORT"),
        "{msg}"
    );
    let c = from_sources(
        Path::new("f.toml"),
        "",
        env(&[("SMSDESK_DATA_DIR", "/x"), ("PATH", "/bin")]),
    )
    .unwrap();
    assert_eq!(c, Config::default());
}

#[test]
fn retry_codes_versions_and_policies_are_read_and_checked() {
    let c = from_sources(
        Path::new("f.toml"),
        "[retry]\npermanent_codes = \"0x45, 11\"\ntransactional_on_unknown_outcome = \"resend\"\n[smpp]\ninterface_version = \"5.0\"\n",
        [],
    )
    .unwrap();
    assert_eq!(c.retry.permanent_codes, StatusCodes(vec![0x45, 11]));
    assert_eq!(c.retry.transactional_on_unknown_outcome, OnUnknownOutcome::Resend);
    assert_eq!(
        c.retry.otp_on_unknown_outcome,
        OnUnknownOutcome::Exception,
        "the default holds a person's decision"
    );
    assert_eq!(c.smpp.interface_version, SmppVersion(0x50));
    let msg = from_sources(Path::new("f.toml"), "[retry]\ntemporary_codes = \"0x14, soon\"\n", [])
        .unwrap_err()
        .to_string();
    assert!(msg.contains("retry.temporary_codes") && msg.contains("soon"), "{msg}");
    let msg = from_sources(Path::new("f.toml"), "[smpp]\ninterface_version = \"4\"\n", [])
        .unwrap_err()
        .to_string();
    assert!(msg.contains("3.4 or 5.0"), "{msg}");
}

#[test]
fn binds_and_their_mode_are_read_from_the_file_and_the_environment_and_a_count_past_16_is_refused() {
    let c = from_sources(
        Path::new("f.toml"),
        "[smpp]\nbind_mode = \"transmitter_receiver\"\nbinds = 2\n",
        env(&[]),
    )
    .unwrap();
    assert_eq!(
        (c.smpp.bind_mode, c.smpp.binds),
        (BindModeSetting::TransmitterReceiver, BindCount(2))
    );
    let c = from_sources(Path::new("f.toml"), "", env(&[("SMSDESK_SMPP_BINDS", "4")])).unwrap();
    assert_eq!(
        (c.smpp.bind_mode, c.smpp.binds),
        (BindModeSetting::Transceiver, BindCount(4)),
        "one transceiver unless told otherwise"
    );
    for (text, says) in [
        ("[smpp]\nbinds = 40\n", "from 1 to 16"),
        ("[smpp]\nbinds = 0\n", "from 1 to 16"),
        (
            "[smpp]\nbind_mode = \"receiver\"\n",
            "transceiver or transmitter_receiver",
        ),
    ] {
        let msg = from_sources(Path::new("f.toml"), text, env(&[]))
            .unwrap_err()
            .to_string();
        assert!(msg.contains("smpp.bind") && msg.contains(says), "{text}: {msg}");
    }
}

#[test]
fn a_file_of_version_0_1_with_one_deadline_in_hours_still_starts_and_the_new_settings_win() {
    let old = from_sources(Path::new("smsdesk.toml"), "[receipts]\ndeadline_hours = 12\n", env(&[])).unwrap();
    assert_eq!(
        (
            old.receipts.otp_deadline_minutes.0,
            old.receipts.transactional_deadline_minutes.0,
            old.receipts.bulk_deadline_minutes.0
        ),
        (15, 720, 720),
        "the hours become the transactional and bulk deadlines; a code keeps its own"
    );
    let both = from_sources(
        Path::new("smsdesk.toml"),
        "[receipts]\ntransactional_deadline_minutes = 90\ndeadline_hours = 12\n",
        env(&[]),
    )
    .unwrap();
    assert_eq!(
        both.receipts.transactional_deadline_minutes.0, 90,
        "the new setting wins"
    );
    let bad = from_sources(Path::new("smsdesk.toml"), "[receipts]\ndeadline_hours = 0\n", env(&[])).unwrap_err();
    assert!(bad.to_string().contains("receipts.deadline_hours"), "{bad}");
}

#[test]
fn receipt_requests_and_the_tlv_id_format_read_their_words() {
    let c = from_sources(
        Path::new("smsdesk.toml"),
        "[receipts]\notp_request = \"none\"\nbulk_request = \"final_and_intermediate\"\ntlv_id = \"hex\"\n",
        env(&[("SMSDESK_RECEIPTS_TRANSACTIONAL_REQUEST", "failure")]),
    )
    .unwrap();
    assert_eq!(
        [
            c.receipts.otp_request,
            c.receipts.transactional_request,
            c.receipts.bulk_request
        ]
        .map(ReceiptRequest::registered_delivery),
        [0, 2, 0x11]
    );
    assert_eq!(c.receipts.tlv_id, TlvIdBase::Base(IdBase::Hex));
    let e = from_sources(
        Path::new("smsdesk.toml"),
        "[receipts]\notp_request = \"always\"\n",
        env(&[]),
    )
    .unwrap_err();
    assert!(
        e.to_string().contains("none, final, failure, final_and_intermediate"),
        "{e}"
    );
}
