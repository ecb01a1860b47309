//! The guardrails' settings as intake holds them (`[guardrails]` and the connections' prices),
//! apart from the checks in [`crate::guardrails`]: intake keeps them with its own rules.

use std::collections::HashMap;

use smsdesk_core::config::{Config, Prices};

/// What the guardrails need from the configuration (replaced whole when the settings change).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct GuardrailRules {
    /// Countries one-time codes may go to; None: any.
    pub otp_countries: Option<Vec<String>>,
    /// Countries any message may go to; None: any.
    pub countries: Option<Vec<String>>,
    /// One-time codes per number within `otp_window_ms` (0: no limit).
    pub otp_per_number: u32,
    pub otp_window_ms: i64,
    /// One-time codes per hour to numbers sharing their first 7 digits after the country code.
    pub otp_per_prefix_hour: u32,
    /// One-time codes per hour per API key.
    pub otp_per_key_hour: u32,
    /// 0: no hold.
    pub anomaly_factor: u32,
    pub anomaly_minimum: u32,
    pub currency: String,
    /// Millionths; 0: none.
    pub spend_day: i64,
    pub spend_month: i64,
    pub otp_exempt: bool,
    /// Each connection's prices.
    pub prices: HashMap<String, Prices>,
}

impl GuardrailRules {
    /// The rules `[guardrails]` and the connections' prices set.
    pub fn from_config(config: &Config) -> GuardrailRules {
        let g = &config.guardrails;
        let list = |c: &smsdesk_core::config::Countries| (!c.0.is_empty() && !c.is_any()).then(|| c.0.clone());
        let otp_countries = match (&g.otp_countries, &config.intake.default_region.0) {
            (c, _) if !c.0.is_empty() => list(c),
            // By default, codes go to the office's own country only.
            (_, Some(home)) => Some(vec![home.clone()]),
            (_, None) => None,
        };
        GuardrailRules {
            otp_countries,
            countries: list(&g.countries),
            otp_per_number: g.otp_per_number,
            otp_window_ms: i64::from(g.otp_window_minutes.0) * 60_000,
            otp_per_prefix_hour: g.otp_per_prefix_hour,
            otp_per_key_hour: g.otp_per_key_hour,
            anomaly_factor: g.anomaly_factor,
            anomaly_minimum: g.anomaly_minimum.0,
            currency: g.currency.0.clone(),
            spend_day: g.spend_day.0,
            spend_month: g.spend_month.0,
            otp_exempt: g.otp_exempt,
            prices: config
                .connection_list()
                .into_iter()
                .filter(|c| !c.smpp.prices.0.is_empty())
                .map(|c| (c.name, c.smpp.prices))
                .collect(),
        }
    }

    /// No guardrail at all (what intake had before them): for tests of other things.
    pub fn off() -> GuardrailRules {
        GuardrailRules {
            currency: "EUR".into(),
            otp_window_ms: 600_000,
            ..GuardrailRules::default()
        }
    }
}
