//! The figures of every run made into one table (median, min and max over the runs; each figure
//! beside its baseline measured in the same run, and their ratio), printed, written between the
//! markers at the head of docs/benchmarks.md.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::context::Context;
use super::outputs::VIEWS_WANTED;

pub use super::rows::{Baseline, Unit, ROWS};

/// Every figure of every run: `values[key][run]` (None where that run did not give it).
#[derive(Debug, Default)]
pub struct Samples {
    pub runs: usize,
    pub values: BTreeMap<String, Vec<Option<f64>>>,
    /// (run from 1, benchmark, what went wrong)
    pub failures: Vec<(usize, String, String)>,
}

impl Samples {
    pub fn new(runs: usize) -> Samples {
        Samples {
            runs,
            ..Samples::default()
        }
    }

    pub fn add(&mut self, run: usize, key: &str, value: f64) {
        let runs = self.runs;
        let v = self.values.entry(key.to_owned()).or_insert_with(|| vec![None; runs]);
        v[run] = Some(value);
    }

    fn of(&self, key: &str) -> Vec<f64> {
        self.values
            .get(key)
            .map_or_else(Vec::new, |v| v.iter().flatten().copied().collect())
    }

    /// figure / baseline, run by run, where both were measured.
    fn ratios(&self, key: &str, baseline: &str) -> Vec<f64> {
        let (Some(a), Some(b)) = (self.values.get(key), self.values.get(baseline)) else {
            return Vec::new();
        };
        a.iter()
            .zip(b)
            .filter_map(|(a, b)| Some(a.as_ref()? / b.as_ref()?))
            .collect()
    }
}

/// Median, min and max.
fn spread(mut v: Vec<f64>) -> Option<(f64, f64, f64)> {
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    let n = v.len();
    let median = if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    };
    Some((median, v[0], v[n - 1]))
}

/// 1234567.8 → "1,234,568".
fn thousands(v: f64) -> String {
    let digits = format!("{:.0}", v.abs());
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    if v < 0.0 {
        out.insert(0, '-');
    }
    out
}

pub fn format(v: f64, unit: Unit) -> String {
    match unit {
        Unit::PerSec => thousands(v),
        Unit::Ms if v >= 100.0 => format!("{} ms", thousands(v)),
        Unit::Ms => format!("{v:.2} ms"),
        Unit::Us => format!("{v:.1} µs"),
        Unit::Count => format!("{v:.2}"),
        Unit::Bytes => thousands(v),
        Unit::Mib => format!("{v:.1} MiB"),
    }
}

/// The rows the views benchmark gave, and one "missing" row for each wanted kind it gave none of.
fn views_rows(s: &Samples) -> Vec<(String, Option<String>, Unit)> {
    let mut rows: Vec<(String, Option<String>, Unit)> = s
        .values
        .keys()
        .filter_map(|k| {
            let label = k.strip_prefix("views.")?;
            let (label, what) = label
                .strip_suffix(".median_ms")
                .map(|l| (l, "median"))
                .or_else(|| label.strip_suffix(".p99_ms").map(|l| (l, "p99")))?;
            Some((format!("Reads: {label} ({what})"), Some(k.clone()), Unit::Ms))
        })
        .collect();
    for wanted in VIEWS_WANTED {
        if !rows.iter().any(|(label, ..)| label.to_lowercase().contains(wanted)) {
            rows.push((
                format!("Reads: {wanted} (not printed by the views benchmark)"),
                None,
                Unit::Ms,
            ));
        }
    }
    rows
}

/// One line of the table.
fn table_line(s: &Samples, label: &str, key: Option<&str>, unit: Unit, baseline: Option<Baseline>) -> String {
    let Some((median, min, max)) = key.and_then(|k| spread(s.of(k))) else {
        return format!("| {label} | missing | | | | |\n");
    };
    let (base, ratio) = match (key, baseline) {
        (Some(k), Some((b, name))) => {
            let base = spread(s.of(b)).map_or("missing".into(), |(m, ..)| format!("{} ({name})", format(m, unit)));
            let ratio =
                spread(s.ratios(k, b)).map_or("missing".into(), |(m, lo, hi)| format!("{m:.3} ({lo:.3}–{hi:.3})"));
            (base, ratio)
        }
        _ => (String::new(), String::new()),
    };
    format!(
        "| {label} | {} | {} | {} | {base} | {ratio} |\n",
        format(median, unit),
        format(min, unit),
        format(max, unit)
    )
}

/// The table, with what it is about above it: the rows of the figures `shown` accepts.
pub fn table(s: &Samples, ctx: &Context, sizes: &str, shown: impl Fn(&str) -> bool) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "Commit `{}`, {} UTC, {}; load average {} at the start, {} at the end. \
         {} run(s) of each benchmark: median, min and max over the runs; a ratio is the figure divided by \
         its baseline of the same run (median, min–max). Sizes: {sizes}.\n",
        ctx.commit,
        ctx.date,
        ctx.machine(),
        ctx.load_start,
        ctx.load_end,
        s.runs
    );
    out.push_str("| figure | median | min | max | baseline (median) | ratio to baseline |\n");
    out.push_str("|---|---|---|---|---|---|\n");
    let views_at = ROWS
        .iter()
        .position(|r| r.key.starts_with("start."))
        .unwrap_or(ROWS.len());
    for (i, r) in ROWS.iter().enumerate() {
        if i == views_at && shown("views.") {
            for (label, key, unit) in views_rows(s) {
                out.push_str(&table_line(s, &label, key.as_deref(), unit, None));
            }
        }
        if shown(r.key) {
            out.push_str(&table_line(s, r.label, Some(r.key), r.unit, r.baseline));
        }
    }
    for (run, bench, why) in &s.failures {
        let _ = writeln!(out, "\nRun {run}, {bench}: FAILED: {why}");
    }
    out
}

pub const BEGIN: &str =
    "<!-- bench:begin: written by `cargo xtask bench`; edits between these markers are replaced -->";
pub const END: &str = "<!-- bench:end -->";

/// The document with `block` between its markers; without markers, the block goes before its
/// first second-level heading (after the title and its paragraph).
pub fn with_head_block(doc: &str, block: &str) -> String {
    let framed = format!("{BEGIN}\n{block}{END}\n");
    if let (Some(start), Some(end)) = (doc.find("<!-- bench:begin"), doc.find(END)) {
        if start < end {
            let after = &doc[end + END.len()..];
            return format!("{}{framed}{}", &doc[..start], after.strip_prefix('\n').unwrap_or(after));
        }
    }
    let at = doc.find("\n## ").map_or(doc.len(), |i| i + 1);
    format!("{}{framed}\n{}", &doc[..at], &doc[at..])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn medians_and_ratios_are_taken_over_the_runs() {
        let mut s = Samples::new(3);
        for (run, (a, b)) in [(100.0, 1000.0), (300.0, 1000.0), (200.0, 500.0)]
            .into_iter()
            .enumerate()
        {
            s.add(run, "dispatch.batch.per_s", a);
            s.add(run, "smpp_raw.per_s", b);
        }
        assert_eq!(spread(s.of("dispatch.batch.per_s")), Some((200.0, 100.0, 300.0)));
        assert_eq!(
            spread(s.ratios("dispatch.batch.per_s", "smpp_raw.per_s")),
            Some((0.3, 0.1, 0.4))
        );
        assert_eq!(spread(vec![1.0, 4.0]), Some((2.5, 1.0, 4.0)));
        assert_eq!(spread(Vec::new()), None);
    }

    #[test]
    fn a_figure_no_run_gave_is_missing_not_zero() {
        let mut s = Samples::new(1);
        s.add(0, "views.dashboard.median_ms", 2.5);
        let line = table_line(&s, "x", Some("parse.smpp_per_s"), Unit::PerSec, None);
        assert!(line.contains("missing"), "{line}");
        let rows = views_rows(&s);
        assert!(rows
            .iter()
            .any(|(l, k, _)| l.contains("dashboard (median)") && k.is_some()));
        assert!(
            rows.iter().any(|(l, k, _)| l.contains("prefix") && k.is_none()),
            "{rows:?}"
        );
    }

    #[test]
    fn numbers_are_written_for_people() {
        assert_eq!(format(1_234_567.8, Unit::PerSec), "1,234,568");
        assert_eq!(format(999.0, Unit::PerSec), "999");
        assert_eq!(format(2.345, Unit::Ms), "2.35 ms");
        assert_eq!(format(1234.0, Unit::Ms), "1,234 ms");
    }

    #[test]
    fn the_head_block_replaces_the_last_one_and_keeps_the_history() {
        let doc = "# Benchmarks\n\nIntro.\n\n## Receipt parser\n\nold figures\n";
        let once = with_head_block(doc, "table 1\n");
        assert_eq!(
            once,
            format!("# Benchmarks\n\nIntro.\n\n{BEGIN}\ntable 1\n{END}\n\n## Receipt parser\n\nold figures\n")
        );
        let twice = with_head_block(&once, "table 2\n");
        assert_eq!(twice, once.replace("table 1", "table 2"));
        assert!(twice.ends_with("## Receipt parser\n\nold figures\n"));
    }
}
