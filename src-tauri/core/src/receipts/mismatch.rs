//! Checks that a receipt's secondary facts fit the message it was matched to. They never decide a
//! match (only the provider's message id does); a misfit raises the mismatch flag, and an operator
//! attaching a receipt by hand sees every one first.

use serde::Serialize;

use super::echo;

/// What the receipt says besides its id.
#[derive(Debug, Clone, Default)]
pub struct ReceiptFacts {
    pub connection: String,
    /// deliver_sm source_addr: for a receipt, the handset the message went to.
    pub handset: Option<String>,
    /// The `text:` field: usually the first 20 characters of the message.
    pub text: Option<String>,
    /// The reported done date, normalised (`YYYY-MM-DDTHH:MM:SS`, in the connection's zone).
    pub done_ts: Option<String>,
}

/// What the message says.
#[derive(Debug, Clone, Default)]
pub struct MessageFacts {
    /// The connection the message was queued for, and any other its tries were written to: a
    /// message that went out on a backup connection has its receipts from there.
    pub connections: Vec<String>,
    pub destination: String,
    pub body: String,
    pub created_at: i64,
    /// How many parts it was sent in.
    pub segments: u32,
}

/// One fact that does not fit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Mismatch {
    pub field: &'static str,
    pub receipt: String,
    pub message: String,
}

/// Tolerance for clocks: a done date up to this long before the message was created still fits.
const CLOCK_SLACK_MS: i64 = 10 * 60_000;

pub fn check(r: &ReceiptFacts, m: &MessageFacts, timezone_minutes: i32) -> Vec<Mismatch> {
    let mut out = Vec::new();
    if !m.connections.contains(&r.connection) {
        out.push(Mismatch {
            field: "connection",
            receipt: r.connection.clone(),
            message: m.connections.join(", "),
        });
    }
    if let Some(handset) = r.handset.as_deref().filter(|h| !h.trim().is_empty()) {
        if !same_number(handset, &m.destination) {
            out.push(Mismatch {
                field: "destination",
                receipt: handset.into(),
                message: m.destination.clone(),
            });
        }
    }
    if let Some(text) = r.text.as_deref().map(str::trim).filter(|t| !t.is_empty()) {
        let n = text.chars().count();
        let prefix: String = m.body.chars().take(n).collect();
        // Only an echo that can be compared is (GSM-7 text, after an SMSC's lossy transforms); a
        // receipt for a part of a long message echoes the start of that part.
        if echo::comparable(&m.body) && !echo::fits(text, &m.body, m.segments > 1) {
            out.push(Mismatch {
                field: "text",
                receipt: text.into(),
                message: prefix,
            });
        }
    }
    if let Some(done) = r.done_ts.as_deref().and_then(|t| naive_to_utc_ms(t, timezone_minutes)) {
        if done + CLOCK_SLACK_MS < m.created_at {
            out.push(Mismatch {
                field: "time",
                receipt: r.done_ts.clone().unwrap_or_default(),
                message: format!("created at {} ms since epoch", m.created_at),
            });
        }
    }
    out
}

/// Two phone numbers are the same when their digits agree, allowing one to be written without
/// its country code (at least 6 trailing digits must agree).
fn same_number(a: &str, b: &str) -> bool {
    let digits = |s: &str| s.chars().filter(char::is_ascii_digit).collect::<String>();
    let (a, b) = (digits(a), digits(b));
    // International prefix (00) and national trunk prefix (0) aside, the subscriber digits must agree.
    let (a, b) = (a.trim_start_matches('0'), b.trim_start_matches('0'));
    if a.is_empty() || b.is_empty() {
        return true;
    }
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    short.len() >= 6 && long.ends_with(short)
}

/// `YYYY-MM-DDTHH:MM:SS` read in a zone `offset` minutes east of UTC, as milliseconds since epoch.
pub fn naive_to_utc_ms(ts: &str, offset_minutes: i32) -> Option<i64> {
    let b = ts.as_bytes();
    if b.len() != 19 || b[4] != b'-' || b[7] != b'-' || b[10] != b'T' || b[13] != b':' || b[16] != b':' {
        return None;
    }
    let n = |r: std::ops::Range<usize>| ts.get(r)?.parse::<i64>().ok();
    let (y, mo, d, h, mi, s) = (n(0..4)?, n(5..7)?, n(8..10)?, n(11..13)?, n(14..16)?, n(17..19)?);
    if !(1..=12).contains(&mo) || !(1..=31).contains(&d) || h > 23 || mi > 59 || s > 60 {
        return None;
    }
    let days = days_from_civil(y, mo, d);
    Some(((days * 86_400 + h * 3_600 + mi * 60 + s) - i64::from(offset_minutes) * 60) * 1_000)
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = if y >= 0 { y } else { y - 399 } / 400;
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The `text:` field of an Appendix B receipt text, if it has one.
pub fn receipt_text_field(raw: &str) -> Option<String> {
    let lower = raw.to_ascii_lowercase();
    let at = lower.find("text:")?;
    Some(raw[at + 5..].trim_end_matches('\0').to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn msg() -> MessageFacts {
        MessageFacts {
            connections: vec!["sandbox".into()],
            destination: "+33612345678".into(),
            body: "Your code is 1234".into(),
            created_at: naive_to_utc_ms("2026-11-29T12:00:00", 0).unwrap(),
            segments: 1,
        }
    }

    #[test]
    fn fitting_facts_raise_nothing() {
        let r = ReceiptFacts {
            connection: "sandbox".into(),
            handset: Some("0612345678".into()),
            text: Some("Your code is".into()),
            done_ts: Some("2026-11-29T12:01:00".into()),
        };
        assert_eq!(check(&r, &msg(), 0), vec![]);
    }

    #[test]
    fn each_misfit_is_named() {
        let r = ReceiptFacts {
            connection: "other".into(),
            handset: Some("+4915112345678".into()),
            text: Some("Hello".into()),
            done_ts: Some("2026-11-28T12:00:00".into()),
        };
        let fields: Vec<_> = check(&r, &msg(), 0).into_iter().map(|m| m.field).collect();
        assert_eq!(fields, vec!["connection", "destination", "text", "time"]);
    }

    #[test]
    fn a_receipt_from_any_connection_the_message_went_out_on_fits_and_from_no_other() {
        let sent_on_both = MessageFacts {
            connections: vec!["primary".into(), "backup".into()],
            ..msg()
        };
        let from = |connection: &str| ReceiptFacts {
            connection: connection.into(),
            ..ReceiptFacts::default()
        };
        assert_eq!(check(&from("backup"), &sent_on_both, 0), vec![]);
        assert_eq!(check(&from("primary"), &sent_on_both, 0), vec![]);
        assert_eq!(
            check(&from("third"), &sent_on_both, 0),
            vec![Mismatch {
                field: "connection",
                receipt: "third".into(),
                message: "primary, backup".into(),
            }]
        );
    }

    #[test]
    fn the_receipt_zone_is_applied_to_reported_times() {
        assert_eq!(naive_to_utc_ms("1970-01-01T03:00:00", 180), Some(0));
        assert_eq!(naive_to_utc_ms("2026-02-30T00:00:00x", 0), None);
        assert_eq!(naive_to_utc_ms("2000-03-01T00:00:00", 0), Some(951_868_800_000));
    }

    #[test]
    fn a_receipt_for_a_part_of_a_long_message_echoes_that_part_and_still_fits() {
        let long = MessageFacts {
            body: "Your appointment is confirmed. Bring your card. See you on Tuesday at 10:30.".into(),
            segments: 3,
            ..msg()
        };
        let part_two = ReceiptFacts {
            connection: "sandbox".into(),
            text: Some("Bring your card. See".into()),
            ..ReceiptFacts::default()
        };
        assert!(
            check(&part_two, &long, 0).is_empty(),
            "the echo of part 2 is not a misfit"
        );
        let whole = MessageFacts {
            segments: 1,
            ..long.clone()
        };
        assert_eq!(
            check(&part_two, &whole, 0).iter().map(|m| m.field).collect::<Vec<_>>(),
            vec!["text"],
            "a message sent whole is echoed from its start"
        );
        let other = ReceiptFacts {
            text: Some("Your parcel is here".into()),
            ..part_two
        };
        assert_eq!(
            check(&other, &long, 0).iter().map(|m| m.field).collect::<Vec<_>>(),
            vec!["text"]
        );
    }
}
