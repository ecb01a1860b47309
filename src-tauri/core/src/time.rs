//! Time in milliseconds since the Unix epoch, the unit every timestamp in smsdesk uses: the
//! [`Clock`] every part reads it from (the one place that reads the wall clock), calendar
//! arithmetic, and RFC 3339 text.

use std::fmt;
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

/// Where smsdesk reads the time, in ms since the Unix epoch: the wall clock in the product, or a
/// clock a test moves (one that follows tokio's paused time, so that waiting an hour for a retry
/// takes no time at all). One clock is handed to every part that reads the time (the store's
/// writer stamps each batch with it, the dispatcher decides what is due with it, the session
/// dates what it receives with it), so that they all agree on what "now" is.
#[derive(Clone, Default)]
pub struct Clock {
    read: Option<Arc<dyn Fn() -> i64 + Send + Sync>>,
    on_runtime: bool,
}

impl Clock {
    /// The wall clock.
    pub fn system() -> Clock {
        Clock::default()
    }

    /// A clock that reads `read` (a test's).
    pub fn from_fn(read: impl Fn() -> i64 + Send + Sync + 'static) -> Clock {
        Clock {
            read: Some(Arc::new(read)),
            on_runtime: false,
        }
    }

    /// A clock that reads `read`, which moves with the async runtime's time (paused in a test).
    /// The runtime moves a paused time on whenever it has nothing to do, so whoever waits on a
    /// thread of its own (the store's writer) must wait as runtime work ([`Clock::on_runtime`]).
    pub fn with_runtime(read: impl Fn() -> i64 + Send + Sync + 'static) -> Clock {
        Clock {
            read: Some(Arc::new(read)),
            on_runtime: true,
        }
    }

    /// Whether this clock moves with the async runtime's time.
    pub fn on_runtime(&self) -> bool {
        self.on_runtime
    }

    /// Now, in ms since the Unix epoch.
    pub fn now_ms(&self) -> i64 {
        match &self.read {
            None => wall_ms(),
            Some(read) => read(),
        }
    }
}

impl fmt::Debug for Clock {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match (&self.read, self.on_runtime) {
            (None, _) => "Clock::system",
            (Some(_), false) => "Clock::from_fn",
            (Some(_), true) => "Clock::with_runtime",
        })
    }
}

/// The wall clock's reading.
fn wall_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

/// A number in [0, 1) from the clock's low bits: enough to spread retries and reconnects apart,
/// which is all jitter is for.
pub fn jitter() -> f64 {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    f64::from(nanos % 1_000_000) / 1_000_000.0
}

/// The UTC calendar fields (year, month, day, hour, minute, second) of a time in ms since epoch
/// (Howard Hinnant's civil-from-days algorithm).
pub fn civil(ms: i64) -> (i64, i64, i64, i64, i64, i64) {
    let secs = ms.div_euclid(1000);
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let mo = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(mo <= 2);
    (y, mo, d, rem / 3_600, rem % 3_600 / 60, rem % 60)
}

/// Milliseconds since the epoch of a UTC calendar date and time: the inverse of [`civil`]
/// (Howard Hinnant's days-from-civil algorithm). Fields are not range-checked.
pub fn from_civil(y: i64, mo: i64, d: i64, h: i64, mi: i64, s: i64) -> i64 {
    let y = if mo <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let doy = (153 * ((mo + 9) % 12) + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    (days * 86_400 + h * 3_600 + mi * 60 + s) * 1_000
}

/// Why a text is not an RFC 3339 timestamp. The messages complete "… is not a timestamp: ".
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TimestampError {
    #[error("it has no UTC offset; add Z for UTC or an offset such as +02:00")]
    NoOffset,
    #[error("it has a date but no time")]
    NoTime,
    #[error("it is not written YYYY-MM-DDThh:mm:ss (optionally .fraction) followed by Z or an offset such as +02:00")]
    Malformed,
    #[error("its {0} is out of range")]
    OutOfRange(&'static str),
}

/// Reads an RFC 3339 timestamp ("2026-12-01T10:00:00Z", "2026-12-01T12:00:00.5+02:00") into
/// milliseconds since the epoch. The offset is required ("Z", or "+hh:mm"/"-hh:mm"); "T" may be
/// written "t" or a space, as RFC 3339 allows; fractional seconds beyond milliseconds are dropped;
/// a leap second (":60") counts as the next minute's first.
pub fn parse_rfc3339(text: &str) -> Result<i64, TimestampError> {
    fn number(b: &[u8], from: usize, len: usize) -> Option<i64> {
        let digits = b.get(from..from + len)?;
        digits
            .iter()
            .try_fold(0i64, |n, d| d.is_ascii_digit().then(|| n * 10 + i64::from(d - b'0')))
    }
    fn field(value: i64, range: std::ops::RangeInclusive<i64>, name: &'static str) -> Result<i64, TimestampError> {
        if range.contains(&value) {
            Ok(value)
        } else {
            Err(TimestampError::OutOfRange(name))
        }
    }
    let b = text.as_bytes();
    let (Some(y), Some(mo), Some(d)) = (number(b, 0, 4), number(b, 5, 2), number(b, 8, 2)) else {
        return Err(TimestampError::Malformed);
    };
    if b[4] != b'-' || b[7] != b'-' {
        return Err(TimestampError::Malformed);
    }
    if b.len() == 10 {
        return Err(TimestampError::NoTime);
    }
    let (Some(h), Some(mi), Some(s)) = (number(b, 11, 2), number(b, 14, 2), number(b, 17, 2)) else {
        return Err(TimestampError::Malformed);
    };
    if !matches!(b[10], b'T' | b't' | b' ') || b[13] != b':' || b[16] != b':' {
        return Err(TimestampError::Malformed);
    }
    let mut pos = 19;
    let mut millis = 0;
    if b.get(pos) == Some(&b'.') {
        let digits = b[pos + 1..].iter().take_while(|c| c.is_ascii_digit()).count();
        if digits == 0 {
            return Err(TimestampError::Malformed);
        }
        millis = b[pos + 1..pos + 1 + digits.min(3)]
            .iter()
            .chain(b"00".iter())
            .take(3)
            .fold(0, |n, d| n * 10 + i64::from(d - b'0'));
        pos += 1 + digits;
    }
    let offset_minutes = match &b[pos..] {
        [] => return Err(TimestampError::NoOffset),
        [b'Z' | b'z'] => 0,
        [sign @ (b'+' | b'-'), _, _, b':', _, _] => {
            let (Some(oh), Some(om)) = (number(b, pos + 1, 2), number(b, pos + 4, 2)) else {
                return Err(TimestampError::Malformed);
            };
            let minutes = field(oh, 0..=23, "offset hour")? * 60 + field(om, 0..=59, "offset minute")?;
            if *sign == b'-' {
                -minutes
            } else {
                minutes
            }
        }
        _ => return Err(TimestampError::Malformed),
    };
    let mo = field(mo, 1..=12, "month")?;
    let leap = y % 4 == 0 && (y % 100 != 0 || y % 400 == 0);
    let month_days = [31, if leap { 29 } else { 28 }, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][(mo - 1) as usize];
    let d = field(d, 1..=month_days, "day")?;
    let h = field(h, 0..=23, "hour")?;
    let mi = field(mi, 0..=59, "minute")?;
    let s = field(s, 0..=60, "second")?;
    Ok(from_civil(y, mo, d, h, mi, s) + millis - offset_minutes * 60_000)
}

/// A time in ms since the epoch as RFC 3339 in UTC: "2026-12-01T10:00:00Z", with ".123" before
/// the "Z" when it has milliseconds.
pub fn format_rfc3339(ms: i64) -> String {
    let (y, mo, d, h, mi, s) = civil(ms);
    let millis = ms.rem_euclid(1_000);
    if millis == 0 {
        format!("{y:04}-{mo:02}-{d:02}T{h:02}:{mi:02}:{s:02}Z")
    } else {
        format!("{y:04}-{mo:02}-{d:02}T{h:02}:{mi:02}:{s:02}.{millis:03}Z")
    }
}
#[cfg(test)]
mod tests {
    #[test]
    fn jitter_stays_in_its_range() {
        let j = super::jitter();
        assert!((0.0..1.0).contains(&j));
    }

    #[test]
    fn civil_fields_of_known_instants() {
        assert_eq!(super::civil(0), (1970, 1, 1, 0, 0, 0));
        assert_eq!(super::civil(1_795_979_115_800), (2026, 11, 29, 19, 5, 15));
        assert_eq!(super::civil(951_782_400_000), (2000, 2, 29, 0, 0, 0));
    }

    #[test]
    fn from_civil_inverts_civil() {
        for ms in [0, 951_782_400_000, 1_795_979_115_000, -86_400_000, 4_102_444_799_000] {
            let (y, mo, d, h, mi, s) = super::civil(ms);
            assert_eq!(
                super::from_civil(y, mo, d, h, mi, s),
                ms,
                "from_civil must invert civil at {ms}"
            );
        }
    }

    #[test]
    fn rfc3339_reads_utc_offsets_and_fractions() {
        use super::parse_rfc3339 as p;
        let t = 1_796_119_200_000; // 2026-12-01T10:00:00Z
        assert_eq!(p("2026-12-01T10:00:00Z"), Ok(t));
        assert_eq!(p("2026-12-01t10:00:00z"), Ok(t));
        assert_eq!(p("2026-12-01 10:00:00Z"), Ok(t));
        assert_eq!(p("2026-12-01T12:00:00+02:00"), Ok(t));
        assert_eq!(p("2026-12-01T05:30:00-04:30"), Ok(t));
        assert_eq!(p("2026-12-01T10:00:00-00:00"), Ok(t));
        assert_eq!(p("2026-12-01T10:00:00.5Z"), Ok(t + 500));
        assert_eq!(
            p("2026-12-01T10:00:00.123456789Z"),
            Ok(t + 123),
            "digits past ms are dropped"
        );
        assert_eq!(p("2024-02-29T00:00:00Z"), Ok(1_709_164_800_000));
    }

    #[test]
    fn rfc3339_refuses_what_is_not_one() {
        use super::{parse_rfc3339 as p, TimestampError as E};
        assert_eq!(p("2026-12-01T10:00:00"), Err(E::NoOffset));
        assert_eq!(p("2026-12-01T10:00:00.25"), Err(E::NoOffset));
        assert_eq!(p("2026-12-01"), Err(E::NoTime));
        assert_eq!(p("2026-12-01T10:00Z"), Err(E::Malformed), "seconds are required");
        assert_eq!(p("2026-12-01T10:00:00+0200"), Err(E::Malformed));
        assert_eq!(p("2026-12-01T10:00:00.Z"), Err(E::Malformed));
        assert_eq!(p("01/12/2026 10:00"), Err(E::Malformed));
        assert_eq!(p("tomorrow"), Err(E::Malformed));
        assert_eq!(p(""), Err(E::Malformed));
        assert_eq!(p("２０２６-12-01T10:00:00Z"), Err(E::Malformed));
        assert_eq!(p("2026-13-01T10:00:00Z"), Err(E::OutOfRange("month")));
        assert_eq!(p("2025-02-29T10:00:00Z"), Err(E::OutOfRange("day")));
        assert_eq!(p("2026-12-01T24:00:00Z"), Err(E::OutOfRange("hour")));
        assert_eq!(p("2026-12-01T10:00:00+24:00"), Err(E::OutOfRange("offset hour")));
    }

    #[test]
    fn rfc3339_formats_in_utc() {
        assert_eq!(super::format_rfc3339(1_796_119_200_000), "2026-12-01T10:00:00Z");
        assert_eq!(super::format_rfc3339(1_796_119_200_042), "2026-12-01T10:00:00.042Z");
        assert_eq!(
            super::parse_rfc3339(&super::format_rfc3339(1_796_119_200_042)),
            Ok(1_796_119_200_042)
        );
    }
}
