//! Figures read from what the benchmarks print. smsdesk-bench and the raw SQLite baseline print
//! `figure KEY VALUE` lines; the engine's benchmarks print sentences for people, read here by the
//! words around each number, so a reworded line is reported missing rather than misread.

/// A figure: its key (`dispatch.batch.per_s`, `views.dashboard.median_ms`) and its value.
pub type Figure = (String, f64);

/// The `figure KEY VALUE` lines of an output.
pub fn figure_lines(out: &str) -> Vec<Figure> {
    out.lines()
        .filter_map(|l| {
            let mut words = l.split_whitespace();
            (words.next()? == "figure").then_some(())?;
            let key = words.next()?;
            let value = words.next()?.parse::<f64>().ok()?;
            Some((key.to_owned(), value))
        })
        .collect()
}

/// The word before the first word of `line` that starts with `marker`, as a number.
fn number_before(line: &str, marker: &str) -> Option<f64> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let at = words.iter().position(|w| w.starts_with(marker))?;
    number(words.get(at.checked_sub(1)?)?)
}

/// The word after the first word of `line` equal to `marker`, as a number.
fn number_after(line: &str, marker: &str) -> Option<f64> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let at = words.iter().position(|w| *w == marker)?;
    number(words.get(at + 1)?)
}

/// A number as printed: thousands separators and trailing punctuation tolerated.
fn number(word: &str) -> Option<f64> {
    word.trim_end_matches([',', ';', ':', ')'])
        .replace(',', "")
        .parse()
        .ok()
}

/// `cargo bench --bench parse`: `smpp … N reports/s …` and `http … N reports/s …`.
pub fn parse_bench(out: &str) -> Vec<Figure> {
    out.lines()
        .filter_map(|l| {
            let kind = l.split_whitespace().next()?;
            matches!(kind, "smpp" | "http").then_some(())?;
            Some((format!("parse.{kind}_per_s"), number_before(l, "reports/s")?))
        })
        .collect()
}

/// `cargo bench --bench ingest`: receipts/s, the private memory peak and the writer's CPU time
/// per receipt.
pub fn ingest(out: &str) -> Vec<Figure> {
    let mut figures = Vec::new();
    for l in out.lines().filter(|l| l.starts_with("ingest:")) {
        if let Some(v) = number_before(l, "receipts/s") {
            figures.push(("ingest.per_s".to_owned(), v));
        }
        if let Some(v) = number_after(l, "(private") {
            figures.push(("ingest.private_peak_mib".to_owned(), v));
        }
        if l.contains("writer thread") {
            if let Some(v) = number_after(l, "thread") {
                figures.push(("ingest.writer_us".to_owned(), v));
            }
        }
    }
    figures
}

/// What the views benchmark measures that the table shows: its dashboard, prefix-search and report
/// rows, whatever else they say (`views: LABEL median X ms p99 Y ms (…)`).
pub const VIEWS_WANTED: &[&str] = &["dashboard", "prefix", "report", "text search"];

/// The views benchmark's rows whose label names one of [`VIEWS_WANTED`], as
/// `views.LABEL.median_ms` and `views.LABEL.p99_ms`.
pub fn views(out: &str) -> Vec<Figure> {
    let mut figures = Vec::new();
    for l in out.lines() {
        let Some(row) = l.strip_prefix("views:") else {
            continue;
        };
        let Some((label, times)) = row.split_once(" median ") else {
            continue;
        };
        let label = label.trim();
        let wanted = VIEWS_WANTED.iter().any(|w| label.to_lowercase().contains(w));
        let (Some(median), Some(p99)) = (
            times.split_whitespace().next().and_then(number),
            number_after(times, "p99"),
        ) else {
            continue;
        };
        if wanted {
            figures.push((format!("views.{label}.median_ms"), median));
            figures.push((format!("views.{label}.p99_ms"), p99));
        }
    }
    figures
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn figure_lines_are_read_and_anything_else_ignored() {
        let out = "figure dispatch.batch.per_s 5123.5\nsomething else\nfigure bad x\nfigure start.wal_left_bytes 0\n";
        assert_eq!(
            figure_lines(out),
            vec![
                ("dispatch.batch.per_s".to_owned(), 5123.5),
                ("start.wal_left_bytes".to_owned(), 0.0)
            ]
        );
    }

    #[test]
    fn the_engine_benchmarks_sentences_are_read_by_their_words() {
        let parse = "smpp     2000000 reports in   0.880 s:      2272727 reports/s (440 ns each)\n\
                     http      200000 reports in   0.358 s:       558294 reports/s (1791 ns each)\n";
        assert_eq!(
            parse_bench(parse),
            vec![
                ("parse.smpp_per_s".to_owned(), 2_272_727.0),
                ("parse.http_per_s".to_owned(), 558_294.0)
            ]
        );
        let ingest_out = "ingest: 1000000 receipts against 1000000 messages, 2048 in flight, synchronous=FULL, 12 transactions in all\n\
             ingest: 16.7 s, 59991 receipts/s, peak RSS 525 MiB (private 82 MiB), database 1286 MiB\n\
             ingest: writer thread 15.8 µs CPU per receipt (63291 receipts per writer CPU second), whole process 18.0 µs\n";
        assert_eq!(
            ingest(ingest_out),
            vec![
                ("ingest.per_s".to_owned(), 59_991.0),
                ("ingest.private_peak_mib".to_owned(), 82.0),
                ("ingest.writer_us".to_owned(), 15.8)
            ]
        );
    }

    #[test]
    fn only_the_wanted_views_rows_are_kept_whatever_their_exact_label() {
        let out = "views: 1000000 messages, pages of 50, reader pool, warm page cache\n\
             views: first page, no filter                          median    0.16 ms   p99    0.24 ms   (200 runs, up to 50 rows)\n\
             views: destination, prefix +3361*                     median    0.40 ms   p99    0.50 ms   (200 runs, up to 50 rows)\n\
             views: dashboard                                      median    2.45 ms   p99    2.69 ms   (200 runs, up to 9 rows)\n";
        assert_eq!(
            views(out),
            vec![
                ("views.destination, prefix +3361*.median_ms".to_owned(), 0.40),
                ("views.destination, prefix +3361*.p99_ms".to_owned(), 0.50),
                ("views.dashboard.median_ms".to_owned(), 2.45),
                ("views.dashboard.p99_ms".to_owned(), 2.69)
            ]
        );
        assert_eq!(views("views: peak RSS 600 MiB, database 1338 MiB\n"), vec![]);
    }
}
