//! The daily summary: at `alerts.summary_hour` of the office's local time, the day before in
//! figures (messages by kind and outcome, the most frequent failures, exceptions, opt-outs,
//! alerts), e-mailed once. A day with nothing sent still gets one: its absence says the server
//! is down.

use jiff::civil::Date;
use jiff::tz::TimeZone;

use super::{lifecycle::RETRY_AFTER_MS, mail, words, AlertChannel, Alerting, NoticeKind, NoticeOutcome};
use crate::service::Service;
use crate::store::alert_facts;
use crate::store::tables::alert::{self, NewNotice};
use crate::store::StoreError;

/// The local day before the one `now_ms` falls in, once its summary is due (the summary hour has
/// come); with its start and end in ms.
pub fn due_day(now_ms: i64, hour: u8, tz: &TimeZone) -> Option<(String, i64, i64)> {
    let local = jiff::Timestamp::from_millisecond(now_ms).ok()?.to_zoned(tz.clone());
    if local.hour() < hour as i8 {
        return None;
    }
    let today: Date = local.date();
    let yesterday = today.yesterday().ok()?;
    let start = |d: Date| d.to_zoned(tz.clone()).ok().map(|z| z.timestamp().as_millisecond());
    Some((yesterday.to_string(), start(yesterday)?, start(today)?))
}

/// Sends the summary of the day before when it is due and was not sent.
pub async fn maybe_send(service: &Service, a: &Alerting, now_ms: i64) -> Result<(), StoreError> {
    if !a.alerts.daily_summary || !mail::ready(&a.smtp, &a.alerts.email_to) {
        return Ok(());
    }
    let Some((day, from, to)) = due_day(now_ms, a.alerts.summary_hour.0, &a.office.tz) else {
        return Ok(());
    };
    let store = service.store().clone();
    let d = day.clone();
    match store.reader().read(move |c| alert::summary_tried(c, &d)).await? {
        Some((NoticeOutcome::Sent, _)) => return Ok(()),
        Some((_, at)) if now_ms - at < RETRY_AFTER_MS => return Ok(()),
        _ => {}
    }
    let (figures, alerts) = store
        .reader()
        .read(move |c| {
            Ok::<_, StoreError>((
                alert_facts::day_figures(c, from, to)?,
                alert::fired_between(c, from, to)?,
            ))
        })
        .await?;
    let mail_text = words::summary(&a.office, &day, &figures, &alerts);
    let sent = mail::send(&a.smtp, &a.alerts.email_to, &mail_text).await;
    if let Err(e) = &sent {
        tracing::error!(day = %day, error = %e, "the daily summary could not be sent");
    }
    let notice = NewNotice {
        alert_id: None,
        kind: NoticeKind::Summary,
        channel: AlertChannel::Email,
        outcome: if sent.is_ok() {
            NoticeOutcome::Sent
        } else {
            NoticeOutcome::Failed
        },
        detail: Some(sent.unwrap_or_else(|e| e)),
        day: Some(day),
    };
    store.writer().write(move |tx| alert::notice(tx, &notice)).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_summary_of_the_day_before_is_due_from_its_hour_of_local_time() {
        let tz = TimeZone::get("Europe/Paris").unwrap();
        // 2026-12-06 07:59 in Paris (06:59 UTC): not yet.
        let before = jiff::civil::date(2026, 12, 6)
            .at(7, 59, 0, 0)
            .to_zoned(tz.clone())
            .unwrap();
        assert_eq!(due_day(before.timestamp().as_millisecond(), 8, &tz), None);
        let at = jiff::civil::date(2026, 12, 6)
            .at(8, 0, 0, 0)
            .to_zoned(tz.clone())
            .unwrap();
        let (day, from, to) = due_day(at.timestamp().as_millisecond(), 8, &tz).unwrap();
        assert_eq!(day, "2026-12-05");
        assert_eq!(to - from, 86_400_000);
        assert_eq!(
            from,
            jiff::civil::date(2026, 12, 5)
                .to_zoned(tz)
                .unwrap()
                .timestamp()
                .as_millisecond()
        );
    }
}
