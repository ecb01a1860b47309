//! Something unusual: when a country's one-time codes in the last hour exceed `anomaly_factor`
//! times its hourly average over the 7 days before (and at least `anomaly_minimum`), a new code
//! to it is stored but held (queue status `held`, exception `unusual_volume`) until a person
//! releases or cancels it: bots asking for codes to one country are stopped at the first burst
//! even when each stays under the per-number and per-prefix limits.

use std::collections::HashMap;
use std::sync::Mutex;

use smsdesk_core::domain::{ExceptionKind, MessageKind, QueueStatus};
use smsdesk_core::reasons::{QueueNote, QueueReason, QueueReasonCode};

use super::GuardrailRules;
use crate::audit::AuditAction;
use crate::messages::NewMessage;
use crate::said::{self, Summary, SummaryCode};
use crate::store::tables::guardrail::{self, GuardrailReason};
use crate::store::tables::{exception, queue, NewAudit};
use crate::store::{StoreError, WriteTx};

const HOUR_MS: i64 = 3_600_000;
/// The hours the usual rate is averaged over.
const BASELINE_HOURS: i64 = 7 * 24;

/// Each country's hourly average of one-time codes, worked out once an hour (a week of codes is
/// read then, not at every code).
#[derive(Debug, Default)]
pub struct Baselines(Mutex<HashMap<String, (i64, f64)>>);

impl Baselines {
    /// The hourly average of codes to `country` over the week before the last hour.
    fn average(&self, tx: &WriteTx<'_>, country: &str, now: i64) -> Result<f64, StoreError> {
        let hour = now - now.rem_euclid(HOUR_MS);
        if let Some((at, avg)) = self.0.lock().expect("baselines").get(country) {
            if *at == hour {
                return Ok(*avg);
            }
        }
        let until = now - HOUR_MS;
        let n = guardrail::otp_to_country(tx, country, until - BASELINE_HOURS * HOUR_MS, until)?;
        let avg = n as f64 / BASELINE_HOURS as f64;
        self.0
            .lock()
            .expect("baselines")
            .insert(country.to_owned(), (hour, avg));
        Ok(avg)
    }
}

/// A surge that holds a code: its country, the codes to it in the last hour (this one included)
/// and its usual hourly number.
#[derive(Debug, Clone, PartialEq)]
pub struct Surge {
    pub country: String,
    pub count: u64,
    pub average: f64,
}

/// For each message of the request (before it is written), the surge that holds it, if any.
pub fn surges(
    tx: &WriteTx<'_>,
    rules: &GuardrailRules,
    baselines: &Baselines,
    news: &[NewMessage],
) -> Result<Vec<Option<Surge>>, StoreError> {
    let now = tx.now_ms();
    let mut out = Vec::with_capacity(news.len());
    let mut earlier: HashMap<&str, u64> = HashMap::new();
    for n in news {
        let country = n.country.as_deref().unwrap_or("");
        if rules.anomaly_factor == 0 || n.kind != MessageKind::Otp || country.is_empty() {
            out.push(None);
            continue;
        }
        let before = earlier.entry(country).or_default();
        *before += 1;
        let count = guardrail::otp_to_country(tx, country, now - HOUR_MS, now + 1)? + *before;
        let average = baselines.average(tx, country, now)?;
        let unusual =
            count >= u64::from(rules.anomaly_minimum) && count as f64 > f64::from(rules.anomaly_factor) * average;
        out.push(unusual.then(|| Surge {
            country: country.to_owned(),
            count,
            average,
        }));
    }
    Ok(out)
}

/// Holds message `id` (just written, `n`) for a person, with its exception, audit line and count.
pub fn hold(tx: &mut WriteTx<'_>, id: i64, n: &NewMessage, surge: &Surge, sender: &str) -> Result<(), StoreError> {
    let average = format!("{:.1}", surge.average);
    let Surge { country, count, .. } = surge;
    let english = format!(
        "held: {count} one-time codes to {country} in the last hour, where {average} an hour is usual (the 7 days \
         before): release it if the surge is genuine, or cancel it"
    );
    let reason = QueueReason::new(QueueReasonCode::UnusualVolume)
        .with("country", country)
        .with("count", count)
        .with("average", &average);
    queue::set_status(
        tx,
        id,
        QueueStatus::Held,
        Some(&QueueNote::new(reason, english.clone())),
        None,
    )?;
    let params = said::params([
        ("country", country.clone()),
        ("count", count.to_string()),
        ("average", average.clone()),
    ]);
    exception::open(
        tx,
        &exception::NewException {
            kind: ExceptionKind::UnusualVolume,
            message_id: Some(id),
            logical_event_id: None,
            summary: Summary::new(SummaryCode::UnusualVolume, params, english),
        },
    )?;
    let details = serde_json::json!({
        "reason": "unusual_volume", "country": country, "count": count, "average": average,
        "sender": sender, "key": n.submitted_by,
    });
    tx.audit().append(&NewAudit {
        actor: "system".into(),
        action: AuditAction::MessageHoldUnusualVolume,
        subject_type: Some("message".into()),
        subject_id: Some(id),
        note: None,
        details_json: Some(details.to_string()),
    })?;
    guardrail::count(tx, GuardrailReason::UnusualVolume, country, sender, 1)
}
