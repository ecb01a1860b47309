//! The guardrails' rules, beside them: whose list refuses a country, and the rules the settings
//! make.

use smsdesk_core::access::KeyLimits;
use smsdesk_core::config::{Config, Countries, Region};
use smsdesk_core::domain::MessageKind::{Bulk, Otp, Transactional};

use super::countries::refused_by;
use super::GuardrailRules;

fn office(region: Option<&str>, otp: &[&str], any: &[&str]) -> GuardrailRules {
    let mut c = Config::default();
    c.intake.default_region = Region(region.map(str::to_owned));
    c.guardrails.otp_countries = Countries::of(otp);
    c.guardrails.countries = Countries::of(any);
    GuardrailRules::from_config(&c)
}

#[test]
fn codes_go_to_the_office_s_own_country_by_default_and_other_kinds_anywhere() {
    let r = office(Some("FR"), &[], &[]);
    assert_eq!(r.otp_countries, Some(vec!["FR".to_owned()]));
    assert_eq!(refused_by(&r, None, Otp, "FR"), None);
    assert_eq!(refused_by(&r, None, Otp, "GB"), Some("office"));
    assert_eq!(refused_by(&r, None, Transactional, "GB"), None);
    // A number whose country is not known is no country of a list.
    assert_eq!(refused_by(&r, None, Otp, ""), Some("office"));
    // No office country, no list: codes go anywhere.
    assert_eq!(refused_by(&office(None, &[], &[]), None, Otp, "GB"), None);
    assert_eq!(refused_by(&office(Some("FR"), &["*"], &[]), None, Otp, "GB"), None);
}

#[test]
fn a_key_narrows_the_office_s_lists_and_never_widens_them() {
    let r = office(Some("FR"), &["FR", "BE"], &["FR", "BE", "GB"]);
    let key = KeyLimits {
        countries: vec!["FR".into(), "RU".into()],
        otp_countries: vec!["BE".into()],
        ..KeyLimits::default()
    };
    assert_eq!(refused_by(&r, Some(&key), Transactional, "FR"), None);
    assert_eq!(refused_by(&r, Some(&key), Bulk, "GB"), Some("key"));
    // The office refuses RU, whatever the key says.
    assert_eq!(refused_by(&r, Some(&key), Transactional, "RU"), Some("office"));
    assert_eq!(refused_by(&r, Some(&key), Otp, "FR"), Some("key"));
    assert_eq!(
        refused_by(&r, Some(&key), Otp, "BE"),
        Some("key"),
        "BE is outside the key's countries"
    );
    let otp_only = KeyLimits {
        otp_countries: vec!["BE".into()],
        ..KeyLimits::default()
    };
    assert_eq!(refused_by(&r, Some(&otp_only), Otp, "BE"), None);
    assert_eq!(refused_by(&r, Some(&otp_only), Transactional, "GB"), None);
}

#[test]
fn prices_and_limits_come_from_the_connections_and_the_section() {
    let text = r#"
        [intake]
        default_region = "FR"
        [guardrails]
        spend_day = 12.5
        otp_exempt = true
        [connections.cheap]
        host = "a.example"
        [[connections.cheap.prices]]
        country = "FR"
        price = 0.04
        [connections.dear]
        host = "b.example"
    "#;
    let c = smsdesk_core::config::from_sources(std::path::Path::new("smsdesk.toml"), text, []).unwrap();
    let r = GuardrailRules::from_config(&c);
    assert_eq!(r.spend_day, 12_500_000);
    assert!(r.otp_exempt);
    assert_eq!(r.prices.len(), 1);
    assert_eq!(
        r.prices["cheap"].lookup("+33612345678", Some("FR")).map(|m| m.0),
        Some(40_000)
    );
    let wrong = text.replace("price = 0.04", "price = 0.04\n        currency = \"USD\"");
    let e = smsdesk_core::config::from_sources(std::path::Path::new("smsdesk.toml"), &wrong, []).unwrap_err();
    assert!(
        e.to_string().contains("connections.cheap.prices") && e.to_string().contains("USD"),
        "{e}"
    );
}
