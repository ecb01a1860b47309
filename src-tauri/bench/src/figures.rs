//! The output the xtask reads, and the statistics of a run.

use std::time::Duration;

/// Prints one figure as the line `cargo xtask bench` collects: `figure KEY VALUE`.
pub fn figure(key: &str, value: f64) {
    println!("figure {key} {value}");
}

/// The `p`-th percentile (0–100) of sorted durations, in milliseconds (nearest rank).
pub fn percentile_ms(sorted: &[Duration], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1].as_secs_f64() * 1_000.0
}

/// A count per second over `elapsed`.
pub fn rate(count: usize, elapsed: Duration) -> f64 {
    count as f64 / elapsed.as_secs_f64().max(1e-9)
}

/// Says on standard error what the run is doing.
pub fn say(what: &str) {
    eprintln!("smsdesk-bench: {what}");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_take_the_nearest_rank() {
        let d: Vec<Duration> = (1..=100).map(Duration::from_millis).collect();
        assert_eq!(percentile_ms(&d, 50.0), 50.0);
        assert_eq!(percentile_ms(&d, 99.0), 99.0);
        assert_eq!(percentile_ms(&d, 100.0), 100.0);
        assert_eq!(percentile_ms(&d[..1], 99.0), 1.0);
        assert!(percentile_ms(&[], 50.0).is_nan());
    }
}
