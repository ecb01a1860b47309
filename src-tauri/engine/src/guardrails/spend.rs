//! Spend limits: what the office, and each API key, may spend in a day (the office's local day)
//! and in a calendar month, from the messages' estimated costs (parts times the price of their
//! connection). Checked in the writer's transaction with the request's own cost.

use jiff::tz::TimeZone;
use smsdesk_core::config::Money;
use smsdesk_core::domain::MessageKind;

use super::{error, field, pricing, GuardrailRules, Refusal};
use crate::access::KeyLimits;
use crate::messages::NewMessage;
use crate::said::FieldCode;
use crate::store::tables::guardrail::{self, GuardrailReason};
use crate::store::{StoreError, WriteTx};

/// Where the office's day and month that `now_ms` falls in start (ms), in time zone `tz`.
pub fn period_starts(now_ms: i64, tz: &TimeZone) -> (i64, i64) {
    let start = |d: jiff::civil::Date| {
        d.to_zoned(tz.clone())
            .map(|z| z.timestamp().as_millisecond())
            .unwrap_or(now_ms)
    };
    match jiff::Timestamp::from_millisecond(now_ms) {
        Ok(t) => {
            let today = t.to_zoned(tz.clone()).date();
            (start(today), start(today.first_of_month()))
        }
        Err(_) => (now_ms, now_ms),
    }
}

/// One limit: whose, over which period, how much.
struct Limit {
    whose: &'static str,
    period: &'static str,
    max: i64,
    since: i64,
    sender: Option<String>,
}

/// Refuses the request when its cost would take the office or the key past a spend limit (the
/// office's days in the system's time zone). Reads nothing when no limit is set.
pub fn check(
    tx: &WriteTx<'_>,
    rules: &GuardrailRules,
    key: Option<(i64, &KeyLimits)>,
    news: &[NewMessage],
) -> Result<Result<(), Refusal>, StoreError> {
    let amount = |a: &Option<String>| a.as_deref().and_then(|a| Money::parse(a).ok()).map_or(0, |m| m.0);
    let key_limited = key.is_some_and(|(_, l)| l.spend_day.is_some() || l.spend_month.is_some());
    if rules.spend_day == 0 && rules.spend_month == 0 && !key_limited {
        return Ok(Ok(()));
    }
    let (day, month) = period_starts(tx.now_ms(), &TimeZone::system());
    let sender = key.map(|(id, _)| format!("key:{id}"));
    let mut limits = vec![
        Limit {
            whose: "office",
            period: "day",
            max: rules.spend_day,
            since: day,
            sender: None,
        },
        Limit {
            whose: "office",
            period: "month",
            max: rules.spend_month,
            since: month,
            sender: None,
        },
    ];
    if let Some((_, l)) = key {
        limits.push(Limit {
            whose: "key",
            period: "day",
            max: amount(&l.spend_day),
            since: day,
            sender: sender.clone(),
        });
        limits.push(Limit {
            whose: "key",
            period: "month",
            max: amount(&l.spend_month),
            since: month,
            sender,
        });
    }
    limits.retain(|l| l.max > 0);
    if limits.is_empty() {
        return Ok(Ok(()));
    }
    // A one-time code may be let through (someone waits for it).
    let counted = |n: &&NewMessage| !(rules.otp_exempt && n.kind == MessageKind::Otp);
    let cost: i64 = news.iter().filter(counted).map(pricing::cost).sum();
    if cost == 0 {
        return Ok(Ok(()));
    }
    for l in limits {
        let spent = guardrail::spent_since(tx, l.since, l.sender.as_deref())?;
        if spent + cost > l.max {
            return Ok(Err(refusal(rules, news, &l, spent, cost)));
        }
    }
    Ok(Ok(()))
}

fn refusal(rules: &GuardrailRules, news: &[NewMessage], l: &Limit, spent: i64, cost: i64) -> Refusal {
    let currency = &rules.currency;
    let (max, spent_t, cost_t) = (Money(l.max).text(), Money(spent).text(), Money(cost).text());
    let whose = match l.whose {
        "office" => format!(
            "the office's spend limit per {} (guardrails.spend_{})",
            l.period, l.period
        ),
        _ => format!("this API key's spend limit per {}", l.period),
    };
    let message = format!(
        "{whose} is {max} {currency}: {spent_t} {currency} spent, and this request would cost {cost_t} {currency} \
         more (nothing was stored)"
    );
    let e = error(
        field(0, 1, if news.len() == 1 { "destination" } else { "messages" }),
        FieldCode::SpendLimit,
        message,
        &[
            ("limit", l.period.to_owned()),
            ("whose", l.whose.to_owned()),
            ("max", max),
            ("spent", spent_t),
            ("cost", cost_t),
            ("currency", currency.clone()),
        ],
    );
    let countries: Vec<String> = news.iter().map(|n| n.country.clone().unwrap_or_default()).collect();
    Refusal {
        reason: GuardrailReason::SpendLimit,
        errors: vec![e],
        retry_after_secs: None,
        details: serde_json::json!({
            "reason": "spend_limit", "limit": l.period, "whose": l.whose, "max": l.max, "spent": spent, "cost": cost,
        }),
        countries,
    }
}
