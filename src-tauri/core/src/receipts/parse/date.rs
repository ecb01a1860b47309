//! Date normalisation to `YYYY-MM-DDTHH:MM:SS`.
//!
//! Rules (fixtures README):
//! - digits only: 10 = `YYMMDDhhmm`; 12 = `YYMMDDhhmmss` unless that is impossible and
//!   `YYYYMMDDhhmm` is valid (Jasmin #195 `201506201641`); 14 = `YYYYMMDDhhmmss`; two-digit
//!   years are 20YY. A 10-digit value that is no `YYMMDDhhmm` and a 13-digit value are taken as
//!   epoch seconds / milliseconds (UTC).
//! - a JSON number is epoch seconds (milliseconds when it is that large), UTC.
//! - ISO 8601 (`T` or space between date and time, optional fraction): with a zone (`Z`,
//!   `+hh:mm`, `+hhmm`, `+hh`) it is converted to UTC; without one it is kept as written (local).
//!   A `+` that became a space through form decoding (`…:57 00:00`) still counts as `+`.
//! - all-zero dates, impossible dates and anything else: `None`.

/// A calendar date and time, no zone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct DateTime {
    year: i64,
    month: u32,
    day: u32,
    hour: u32,
    minute: u32,
    second: u32,
}

impl DateTime {
    fn new(year: i64, month: u32, day: u32, hour: u32, minute: u32, second: u32) -> Option<Self> {
        let ok = (1..=12).contains(&month)
            && day >= 1
            && day <= days_in_month(year, month)
            && hour < 24
            && minute < 60
            && second < 60;
        ok.then_some(DateTime {
            year,
            month,
            day,
            hour,
            minute,
            second,
        })
    }

    /// `YYYY-MM-DDTHH:MM:SS`, written by hand: this runs twice per receipt.
    fn format(self) -> String {
        fn two(out: &mut String, v: u32) {
            out.push(char::from(b'0' + (v / 10 % 10) as u8));
            out.push(char::from(b'0' + (v % 10) as u8));
        }
        let mut out = String::with_capacity(19);
        let y = self.year.clamp(0, 9999) as u32;
        two(&mut out, y / 100);
        two(&mut out, y % 100);
        out.push('-');
        two(&mut out, self.month);
        out.push('-');
        two(&mut out, self.day);
        out.push('T');
        two(&mut out, self.hour);
        out.push(':');
        two(&mut out, self.minute);
        out.push(':');
        two(&mut out, self.second);
        out
    }

    fn to_epoch(self) -> i64 {
        days_from_civil(self.year, self.month, self.day) * 86_400
            + i64::from(self.hour) * 3600
            + i64::from(self.minute) * 60
            + i64::from(self.second)
    }

    fn from_epoch(secs: i64) -> Option<Self> {
        let days = secs.div_euclid(86_400);
        let rem = secs.rem_euclid(86_400);
        let (year, month, day) = civil_from_days(days);
        if !(1..=9999).contains(&year) {
            return None;
        }
        DateTime::new(
            year,
            month,
            day,
            (rem / 3600) as u32,
            (rem % 3600 / 60) as u32,
            (rem % 60) as u32,
        )
    }
}

fn is_leap(year: i64) -> bool {
    (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
}

fn days_in_month(year: i64, month: u32) -> u32 {
    match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if is_leap(year) => 29,
        2 => 28,
        _ => 0,
    }
}

/// Days since 1970-01-01 (H. Hinnant's algorithm).
fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let m = i64::from(m);
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + i64::from(d) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

/// `n` ASCII digits at `b[at..]` as a number (caller checked they are digits).
fn num(b: &[u8], at: usize, n: usize) -> u32 {
    b[at..at + n]
        .iter()
        .fold(0u32, |acc, &c| acc * 10 + u32::from(c - b'0'))
}

fn plausible_year(y: i64) -> bool {
    (1970..=2199).contains(&y)
}

fn yymmdd(b: &[u8], with_seconds: bool) -> Option<DateTime> {
    let second = if with_seconds { num(b, 10, 2) } else { 0 };
    DateTime::new(
        2000 + i64::from(num(b, 0, 2)),
        num(b, 2, 2),
        num(b, 4, 2),
        num(b, 6, 2),
        num(b, 8, 2),
        second,
    )
}

fn yyyymmdd(b: &[u8], with_seconds: bool) -> Option<DateTime> {
    let year = i64::from(num(b, 0, 4));
    if !plausible_year(year) {
        return None;
    }
    let second = if with_seconds { num(b, 12, 2) } else { 0 };
    DateTime::new(year, num(b, 4, 2), num(b, 6, 2), num(b, 8, 2), num(b, 10, 2), second)
}

fn epoch_seconds(secs: i64) -> Option<String> {
    // Between 1970-01-02 and 2199: anything else is not a plausible report time.
    if !(86_400..7_258_118_400).contains(&secs) {
        return None;
    }
    DateTime::from_epoch(secs).map(DateTime::format)
}

/// Normalises a receipt date token (SMPP text; HTTP fields that copy it).
pub(crate) fn normalise(raw: &str) -> Option<String> {
    let t = raw.trim_matches(|c: char| c.is_ascii_whitespace() || c == '\0');
    let b = t.as_bytes();
    if b.is_empty() {
        return None;
    }
    if b.iter().all(u8::is_ascii_digit) {
        return match b.len() {
            10 => yymmdd(b, false).map(DateTime::format),
            12 => yymmdd(b, true).or_else(|| yyyymmdd(b, false)).map(DateTime::format),
            14 => yyyymmdd(b, true).map(DateTime::format),
            _ => None,
        };
    }
    iso(b)
}

/// Like [`normalise`], for HTTP field values: 10 digits that are no `YYMMDDhhmm` and 13 digits
/// are epoch seconds / milliseconds (Kannel's `%T`, millisecond timestamps).
pub(crate) fn normalise_lenient(raw: &str) -> Option<String> {
    if let Some(ts) = normalise(raw) {
        return Some(ts);
    }
    let t = raw.trim();
    if !t.bytes().all(|c| c.is_ascii_digit()) || t.bytes().all(|c| c == b'0') {
        return None;
    }
    match t.len() {
        10 => epoch_seconds(t.parse().ok()?),
        13 => epoch_seconds(t.parse::<i64>().ok()? / 1000),
        _ => None,
    }
}

/// Normalises a JSON number that carries a time: epoch seconds, or milliseconds when larger.
pub(crate) fn normalise_number(raw: &str) -> Option<String> {
    let t = raw.trim();
    let v: f64 = t.parse().ok()?;
    if !v.is_finite() || v < 0.0 {
        return None;
    }
    let secs = if v >= 1e11 { v / 1000.0 } else { v };
    epoch_seconds(secs.trunc() as i64)
}

/// ISO 8601 / SQL-ish date-time with optional fraction and zone.
fn iso(b: &[u8]) -> Option<String> {
    let digits = |at: usize, n: usize| -> Option<u32> {
        let s = b.get(at..at + n)?;
        s.iter().all(u8::is_ascii_digit).then(|| num(b, at, n))
    };
    let year = i64::from(digits(0, 4)?);
    if !plausible_year(year) || !matches!(b.get(4), Some(b'-' | b'/')) {
        return None;
    }
    let sep = b[4];
    let month = digits(5, 2)?;
    if b.get(7) != Some(&sep) {
        return None;
    }
    let day = digits(8, 2)?;
    if !matches!(b.get(10), Some(b'T' | b't' | b' ')) {
        return None;
    }
    let hour = digits(11, 2)?;
    if b.get(13) != Some(&b':') {
        return None;
    }
    let minute = digits(14, 2)?;
    let mut i = 16;
    let mut second = 0;
    if b.get(i) == Some(&b':') {
        second = digits(17, 2)?;
        i = 19;
    }
    if matches!(b.get(i), Some(b'.' | b',')) {
        i += 1;
        let start = i;
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        if i == start {
            return None;
        }
    }
    let dt = DateTime::new(year, month, day, hour, minute, second)?;
    let offset = zone(&b[i..])?;
    match offset {
        None => Some(dt.format()),
        Some(off) => DateTime::from_epoch(dt.to_epoch() - off).map(DateTime::format),
    }
}

/// Parses what follows the time: `Ok(None)` = no zone, `Some(Some(secs))` = UTC offset.
#[allow(clippy::option_option)]
fn zone(rest: &[u8]) -> Option<Option<i64>> {
    let rest = trim_end(rest);
    if rest.is_empty() {
        return Some(None);
    }
    if rest.eq_ignore_ascii_case(b"z") || rest.eq_ignore_ascii_case(b" utc") || rest == b" GMT" {
        return Some(Some(0));
    }
    let (sign, digits) = match rest[0] {
        b'+' => (1, &rest[1..]),
        b'-' => (-1, &rest[1..]),
        // A `+` decoded to a space by form decoding.
        b' ' if rest.len() > 1 && rest[1].is_ascii_digit() => (1, &rest[1..]),
        _ => return None,
    };
    let all_digits = |s: &[u8]| s.iter().all(u8::is_ascii_digit);
    let (h, m) = match digits.len() {
        2 if all_digits(digits) => (num(digits, 0, 2), 0),
        4 if all_digits(digits) => (num(digits, 0, 2), num(digits, 2, 2)),
        5 if digits[2] == b':' && all_digits(&digits[..2]) && all_digits(&digits[3..]) => {
            (num(digits, 0, 2), num(digits, 3, 2))
        }
        _ => return None,
    };
    if h > 14 || m > 59 {
        return None;
    }
    Some(Some(sign * (i64::from(h) * 3600 + i64::from(m) * 60)))
}

fn trim_end(b: &[u8]) -> &[u8] {
    let mut end = b.len();
    while end > 0 && (b[end - 1] == b'\0' || b[end - 1] == b'\r' || b[end - 1] == b'\n') {
        end -= 1;
    }
    // Trailing spaces only when something else precedes them (a lone space is the `+` case).
    while end > 1 && b[end - 1] == b' ' && !b[end - 2].is_ascii_digit() {
        end -= 1;
    }
    if end > 0 && b[..end].iter().all(|&c| c == b' ') {
        return &b[..0];
    }
    &b[..end]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn receipt_digit_dates() {
        assert_eq!(normalise("1005232039").as_deref(), Some("2010-05-23T20:39:00"));
        assert_eq!(normalise("110206193041").as_deref(), Some("2011-02-06T19:30:41"));
        // Jasmin #195: YYMMDDhhmmss impossible (month 15), YYYYMMDDhhmm valid.
        assert_eq!(normalise("201506201641").as_deref(), Some("2015-06-20T16:41:00"));
        // Valid both ways: YYMMDDhhmmss wins.
        assert_eq!(normalise("200101010030").as_deref(), Some("2020-01-01T01:00:30"));
        assert_eq!(normalise("20110314181534").as_deref(), Some("2011-03-14T18:15:34"));
        assert_eq!(normalise("0000000000"), None);
        assert_eq!(normalise("000000000000"), None);
        assert_eq!(normalise("anydate"), None);
        assert_eq!(normalise(""), None);
        assert_eq!(normalise("1002301730"), None, "30 February does not exist");
        assert_eq!(normalise("2002291200").as_deref(), Some("2020-02-29T12:00:00"));
        assert_eq!(normalise("2102291200"), None, "2021 is no leap year");
        assert_eq!(normalise("2500151230"), None, "month 00 (larvitsmpp's off-by-one)");
        // In HTTP fields, ten digits that are no YYMMDDhhmm are epoch seconds.
        assert_eq!(normalise("1450000000"), None);
        assert_eq!(normalise_lenient("1450000000").as_deref(), Some("2015-12-13T09:46:40"));
        assert_eq!(
            normalise_lenient("1450000000000").as_deref(),
            Some("2015-12-13T09:46:40")
        );
        assert_eq!(normalise_lenient("1810251310").as_deref(), Some("2018-10-25T13:10:00"));
        assert_eq!(normalise_lenient("0000000000"), None);
    }

    #[test]
    fn iso_dates() {
        assert_eq!(
            normalise("2019-11-09T16:00:00.000+0000").as_deref(),
            Some("2019-11-09T16:00:00")
        );
        assert_eq!(
            normalise("2019-11-09T16:00:00.000+0200").as_deref(),
            Some("2019-11-09T14:00:00")
        );
        assert_eq!(
            normalise("2019-12-31T23:30:00-01:00").as_deref(),
            Some("2020-01-01T00:30:00")
        );
        assert_eq!(
            normalise("2022-08-30T08:16:08.930Z").as_deref(),
            Some("2022-08-30T08:16:08")
        );
        assert_eq!(normalise("2015-10-17 08:03:04").as_deref(), Some("2015-10-17T08:03:04"));
        assert_eq!(
            normalise("2023-01-01 12:00:00.123456").as_deref(),
            Some("2023-01-01T12:00:00")
        );
        // `+00:00` whose `+` became a space in a query string.
        assert_eq!(
            normalise("2017-09-01T10:00:05 00:00").as_deref(),
            Some("2017-09-01T10:00:05")
        );
        assert_eq!(normalise("2017-09-01T10:00:05+05:30x"), None);
        assert_eq!(normalise("2017-13-01T10:00:05"), None);
    }

    #[test]
    fn epoch_numbers() {
        assert_eq!(normalise_number("1450000000").as_deref(), Some("2015-12-13T09:46:40"));
        assert_eq!(
            normalise_number("1450000000123").as_deref(),
            Some("2015-12-13T09:46:40")
        );
        assert_eq!(normalise_number("-5"), None);
        assert_eq!(normalise_number("nan"), None);
    }

    #[test]
    fn civil_round_trip() {
        for days in [-1000, 0, 1, 59, 60, 365, 10_957, 18_262, 100_000] {
            let (y, m, d) = civil_from_days(days);
            assert_eq!(days_from_civil(y, m, d), days);
        }
    }
}
