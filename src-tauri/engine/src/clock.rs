//! Time is read through one function so that later rules can be driven by an injected clock.

use std::time::{SystemTime, UNIX_EPOCH};

/// Milliseconds since the Unix epoch, the unit every timestamp in the store uses.
pub fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
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

/// A number in [0, 1) from the clock's low bits: enough to spread retries and reconnects apart,
/// which is all jitter is for.
pub fn jitter() -> f64 {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    f64::from(nanos % 1_000_000) / 1_000_000.0
}

#[cfg(test)]
mod tests {
    #[test]
    fn civil_fields_of_known_instants() {
        assert_eq!(super::civil(0), (1970, 1, 1, 0, 0, 0));
        assert_eq!(super::civil(1_795_979_115_800), (2026, 11, 29, 19, 5, 15));
        assert_eq!(super::civil(951_782_400_000), (2000, 2, 29, 0, 0, 0));
    }

    #[test]
    fn jitter_stays_in_its_range() {
        let j = super::jitter();
        assert!((0.0..1.0).contains(&j));
    }
}
