//! A progress bar on standard error for long command-line jobs (rebuild, export).

use std::io::{IsTerminal, Write};
use std::time::{Duration, Instant};

pub struct Progress {
    label: &'static str,
    total: u64,
    started: Instant,
    last: Option<Instant>,
    tty: bool,
}

impl Progress {
    pub fn new(label: &'static str, total: u64) -> Progress {
        Progress {
            label,
            total,
            started: Instant::now(),
            last: None,
            tty: std::io::stderr().is_terminal(),
        }
    }

    /// Shows `done` of the total, at most ten times a second (once every 5 s when not a terminal).
    pub fn set(&mut self, done: u64) {
        let every = if self.tty {
            Duration::from_millis(100)
        } else {
            Duration::from_secs(5)
        };
        if self.last.is_some_and(|t| t.elapsed() < every) && done < self.total {
            return;
        }
        self.last = Some(Instant::now());
        let line = render(self.label, done, self.total, self.started.elapsed());
        let mut err = std::io::stderr();
        let _ = if self.tty {
            write!(err, "\r{line}")
        } else {
            writeln!(err, "{line}")
        };
        let _ = err.flush();
    }

    pub fn finish(&mut self) {
        self.last = None;
        self.set(self.total);
        if self.tty {
            eprintln!();
        }
    }
}

fn render(label: &str, done: u64, total: u64, elapsed: Duration) -> String {
    const WIDTH: u64 = 30;
    let ratio = if total == 0 {
        1.0
    } else {
        done.min(total) as f64 / total as f64
    };
    let filled = (ratio * WIDTH as f64).round() as u64;
    let bar: String = (0..WIDTH).map(|i| if i < filled { '#' } else { '-' }).collect();
    let rate = done as f64 / elapsed.as_secs_f64().max(0.001);
    format!("{label} [{bar}] {:>3.0}% {done}/{total} ({rate:.0}/s)", ratio * 100.0)
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_bar_fills_with_progress() {
        let half = super::render("x", 50, 100, std::time::Duration::from_secs(1));
        assert!(
            half.starts_with("x [###############---------------]  50% 50/100"),
            "{half}"
        );
        let empty_total = super::render("x", 0, 0, std::time::Duration::from_secs(1));
        assert!(empty_total.contains("100%"), "{empty_total}");
    }
}
