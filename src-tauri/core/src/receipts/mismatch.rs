//! Checks that a receipt's secondary facts fit the message it was matched to. They never decide a
//! match (only the provider's message id does); a misfit raises the mismatch flag, and an operator
//! attaching a receipt by hand sees every one first.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

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
    /// Once its handset and echo were redacted (retention, erasure), what comparing them with
    /// the message found just before: agrees (true), differs (false), or could not tell (None).
    /// The verdict is kept, so a rebuild from the redacted evidence flags what was flagged.
    pub handset_fit: Option<bool>,
    pub echo_fit: Option<bool>,
    /// Whether its content was redacted (then the two verdicts above stand in for it).
    pub redacted: bool,
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
    /// Whether its text, or its number, was redacted: a receipt that arrives afterwards cannot be
    /// compared on it.
    pub text_removed: bool,
    pub number_removed: bool,
}

/// A fact a receipt and a message are compared on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Fact {
    /// The connection the receipt came from against those the message went out on.
    Connection,
    /// The handset the receipt names against the message's destination.
    Destination,
    /// The receipt's text echo against the start of the message's text (or of one of its parts).
    Text,
    /// The receipt's done date against the time the message was created.
    Time,
}

impl Fact {
    pub const fn as_str(self) -> &'static str {
        match self {
            Fact::Connection => "connection",
            Fact::Destination => "destination",
            Fact::Text => "text",
            Fact::Time => "time",
        }
    }
}

/// What a comparison of one fact found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    Agrees,
    /// A misfit: it raises the mismatch flag, and an operator attaching the receipt by hand sees
    /// it first.
    Differs,
    /// Nothing to compare (see [`CannotTell`]); never a misfit.
    CannotTell,
}

/// Why a fact cannot be told.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum CannotTell {
    /// The receipt does not say (no handset, no `text:` echo, no done date).
    NotInReceipt,
    /// The message's text is UCS-2: SMSCs echo its raw UTF-16 bytes, which cannot be compared.
    NotComparable,
    /// The message's number or text was removed (retention or erasure) before the receipt came.
    Removed,
    /// The receipt says it in a form that cannot be read (a done date that is no date).
    Unreadable,
}

/// One fact of a receipt against a message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub struct FactCheck {
    pub fact: Fact,
    pub verdict: Verdict,
    /// Why it cannot be told, when it cannot.
    pub why: Option<CannotTell>,
    /// What the receipt says, as it says it (a done date in the connection's zone); none when it
    /// does not say.
    pub receipt: Option<String>,
    /// What the message says: its connections, its destination, the start of its text (as many
    /// characters as the echo has, else the 20 SMSCs usually echo), its creation time (RFC 3339,
    /// UTC).
    pub message: String,
    /// The time fact only: the receipt's done date read in the connection's zone, in ms since
    /// the epoch, when it reads as one.
    #[ts(type = "number | null")]
    pub receipt_ms: Option<i64>,
    /// The time fact only: when the message was created, in ms since the epoch.
    #[ts(type = "number | null")]
    pub message_ms: Option<i64>,
}

/// One fact that does not fit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Mismatch {
    pub field: &'static str,
    pub receipt: String,
    pub message: String,
}

/// Tolerance for clocks: a done date up to this long before the message was created still fits.
pub const CLOCK_SLACK_MS: i64 = 10 * 60_000;

/// How many characters of a text SMSCs usually echo in a receipt's `text:` field.
pub const ECHO_CHARS: usize = 20;

/// The facts of `r` that do not fit `m`: those [`compare`] finds differ.
pub fn check(r: &ReceiptFacts, m: &MessageFacts, timezone_minutes: i32) -> Vec<Mismatch> {
    compare(r, m, timezone_minutes)
        .into_iter()
        .filter(|f| f.verdict == Verdict::Differs)
        .map(|f| Mismatch {
            field: f.fact.as_str(),
            receipt: f.receipt.unwrap_or_default(),
            message: f.message,
        })
        .collect()
}

/// Every fact of `r` against `m`, in the order of [`Fact`]: each agrees, differs, or cannot be
/// told. The done date is read in a zone `timezone_minutes` east of UTC.
pub fn compare(r: &ReceiptFacts, m: &MessageFacts, timezone_minutes: i32) -> Vec<FactCheck> {
    let told = |fact, agrees: bool, receipt: &str, message: String| FactCheck {
        fact,
        verdict: if agrees { Verdict::Agrees } else { Verdict::Differs },
        why: None,
        receipt: Some(receipt.to_owned()),
        message,
        receipt_ms: None,
        message_ms: None,
    };
    let untold = |fact, why, receipt: Option<&str>, message: String| FactCheck {
        fact,
        verdict: Verdict::CannotTell,
        why: Some(why),
        receipt: receipt.map(str::to_owned),
        message,
        receipt_ms: None,
        message_ms: None,
    };
    let connection = told(
        Fact::Connection,
        m.connections.contains(&r.connection),
        &r.connection,
        m.connections.join(", "),
    );
    let kept = |fact, fit: Option<bool>, message: String| match fit {
        Some(agrees) => told(fact, agrees, "(removed)", message),
        None => untold(fact, CannotTell::NotInReceipt, None, message),
    };
    let destination = match r.handset.as_deref().filter(|h| !h.trim().is_empty()) {
        _ if r.redacted => kept(Fact::Destination, r.handset_fit, m.destination.clone()),
        Some(_) if m.number_removed => untold(Fact::Destination, CannotTell::Removed, None, m.destination.clone()),
        Some(handset) => told(
            Fact::Destination,
            same_number(handset, &m.destination),
            handset,
            m.destination.clone(),
        ),
        None => untold(Fact::Destination, CannotTell::NotInReceipt, None, m.destination.clone()),
    };
    let start = |n: usize| m.body.chars().take(n).collect::<String>();
    let text = match r.text.as_deref().map(str::trim).filter(|t| !t.is_empty()) {
        _ if r.redacted => kept(Fact::Text, r.echo_fit, start(ECHO_CHARS)),
        Some(_) if m.text_removed => untold(Fact::Text, CannotTell::Removed, None, String::new()),
        None => untold(Fact::Text, CannotTell::NotInReceipt, None, start(ECHO_CHARS)),
        // Only an echo that can be compared is (GSM-7 text, after an SMSC's lossy transforms).
        Some(echo) if !echo::comparable(&m.body) => untold(
            Fact::Text,
            CannotTell::NotComparable,
            Some(echo),
            start(echo.chars().count()),
        ),
        // A receipt for a part of a long message echoes the start of that part.
        Some(echo) => told(
            Fact::Text,
            echo::fits(echo, &m.body, m.segments > 1),
            echo,
            start(echo.chars().count()),
        ),
    };
    let created = crate::time::format_rfc3339(m.created_at);
    let time = match r.done_ts.as_deref() {
        None => untold(Fact::Time, CannotTell::NotInReceipt, None, created),
        Some(written) => match naive_to_utc_ms(written, timezone_minutes) {
            None => untold(Fact::Time, CannotTell::Unreadable, Some(written), created),
            Some(done) => FactCheck {
                receipt_ms: Some(done),
                ..told(Fact::Time, done + CLOCK_SLACK_MS >= m.created_at, written, created)
            },
        },
    };
    let time = FactCheck {
        message_ms: Some(m.created_at),
        ..time
    };
    vec![connection, destination, text, time]
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
            ..Default::default()
        }
    }

    #[test]
    fn fitting_facts_raise_nothing() {
        let r = ReceiptFacts {
            connection: "sandbox".into(),
            handset: Some("0612345678".into()),
            text: Some("Your code is".into()),
            done_ts: Some("2026-11-29T12:01:00".into()),
            ..Default::default()
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
            ..Default::default()
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

    fn verdicts(r: &ReceiptFacts, m: &MessageFacts) -> Vec<(Fact, Verdict, Option<CannotTell>)> {
        compare(r, m, 0)
            .into_iter()
            .map(|f| (f.fact, f.verdict, f.why))
            .collect()
    }

    #[test]
    fn every_fact_is_compared_and_each_agrees_with_both_values_given() {
        let r = ReceiptFacts {
            connection: "sandbox".into(),
            handset: Some("0612345678".into()),
            text: Some(" Your code is ".into()),
            done_ts: Some("2026-11-29T13:01:00".into()),
            ..Default::default()
        };
        let facts = compare(&r, &msg(), 60);
        assert!(
            facts.iter().all(|f| f.verdict == Verdict::Agrees && f.why.is_none()),
            "fitting facts all agree: {facts:?}"
        );
        let text = &facts[2];
        assert_eq!(
            (text.receipt.as_deref(), text.message.as_str()),
            (Some("Your code is"), "Your code is"),
            "the echo, trimmed, beside as many characters of the text"
        );
        let time = &facts[3];
        assert_eq!(
            time.receipt.as_deref(),
            Some("2026-11-29T13:01:00"),
            "as the receipt writes it"
        );
        assert_eq!(time.message, "2026-11-29T12:00:00Z");
        assert_eq!(
            time.receipt_ms,
            naive_to_utc_ms("2026-11-29T12:01:00", 0),
            "the done date is read in the connection's zone"
        );
        assert_eq!(time.message_ms, Some(msg().created_at));
    }

    #[test]
    fn each_misfit_differs_and_check_lists_exactly_those() {
        let r = ReceiptFacts {
            connection: "other".into(),
            handset: Some("+4915112345678".into()),
            text: Some("Hello".into()),
            done_ts: Some("2026-11-28T12:00:00".into()),
            ..Default::default()
        };
        let differs: Vec<Fact> = compare(&r, &msg(), 0)
            .into_iter()
            .filter(|f| f.verdict == Verdict::Differs)
            .map(|f| f.fact)
            .collect();
        assert_eq!(
            differs,
            vec![Fact::Connection, Fact::Destination, Fact::Text, Fact::Time]
        );
        let checked: Vec<&str> = check(&r, &msg(), 0).into_iter().map(|m| m.field).collect();
        assert_eq!(
            checked,
            differs.iter().map(|f| f.as_str()).collect::<Vec<_>>(),
            "check is the facts the comparison finds differ"
        );
    }

    #[test]
    fn a_done_date_just_within_the_clock_slack_still_agrees() {
        let at = |done: &str| ReceiptFacts {
            connection: "sandbox".into(),
            done_ts: Some(done.into()),
            ..ReceiptFacts::default()
        };
        assert_eq!(verdicts(&at("2026-11-29T11:50:00"), &msg())[3].1, Verdict::Agrees);
        assert_eq!(verdicts(&at("2026-11-29T11:49:59"), &msg())[3].1, Verdict::Differs);
    }

    #[test]
    fn what_the_receipt_does_not_say_cannot_be_told_and_is_no_misfit() {
        let bare = ReceiptFacts {
            connection: "sandbox".into(),
            handset: Some("  ".into()),
            text: Some(" ".into()),
            done_ts: None,
            ..Default::default()
        };
        assert_eq!(
            verdicts(&bare, &msg()),
            vec![
                (Fact::Connection, Verdict::Agrees, None),
                (Fact::Destination, Verdict::CannotTell, Some(CannotTell::NotInReceipt)),
                (Fact::Text, Verdict::CannotTell, Some(CannotTell::NotInReceipt)),
                (Fact::Time, Verdict::CannotTell, Some(CannotTell::NotInReceipt)),
            ]
        );
        let facts = compare(&bare, &msg(), 0);
        assert_eq!(facts[2].receipt, None, "no echo to show");
        assert_eq!(
            facts[2].message, "Your code is 1234",
            "the start of the text an echo would have"
        );
        let unreadable = ReceiptFacts {
            done_ts: Some("yesterday".into()),
            ..bare
        };
        assert_eq!(
            verdicts(&unreadable, &msg())[3],
            (Fact::Time, Verdict::CannotTell, Some(CannotTell::Unreadable))
        );
        assert_eq!(check(&unreadable, &msg(), 0), vec![]);
    }

    #[test]
    fn the_echo_of_a_ucs2_text_cannot_be_told_whatever_it_says() {
        let ucs2 = MessageFacts {
            body: "Votre commande est prête".into(),
            ..msg()
        };
        let r = ReceiptFacts {
            connection: "sandbox".into(),
            text: Some("\u{0}V\u{0}o\u{0}t".into()),
            ..ReceiptFacts::default()
        };
        assert_eq!(
            verdicts(&r, &ucs2)[2],
            (Fact::Text, Verdict::CannotTell, Some(CannotTell::NotComparable)),
            "a UCS-2 text is echoed as raw UTF-16: not compared"
        );
        assert!(
            check(&r, &ucs2, 0).is_empty(),
            "a text that cannot be told is no misfit"
        );
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
