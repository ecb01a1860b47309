//! What a benchmark table is about besides its figures: the commit, the date, the machine.

use std::path::Path;
use std::process::Command;
use std::time::{SystemTime, UNIX_EPOCH};

/// Where and when the figures were measured.
#[derive(Debug, Clone)]
pub struct Context {
    /// `git rev-parse --short HEAD`, with `+dirty` when tracked files differ from it (the
    /// benchmark document itself aside: this command writes it).
    pub commit: String,
    /// UTC, `YYYY-MM-DD HH:MM`.
    pub date: String,
    pub cores: usize,
    pub cpu_model: String,
    pub memory_gib: f64,
    /// The 1-minute load average when the runs started, and when they ended: other work on the
    /// machine shows in it.
    pub load_start: String,
    pub load_end: String,
}

impl Context {
    pub fn now(root: &Path) -> Context {
        Context {
            commit: commit(root),
            date: utc_now(),
            cores: std::thread::available_parallelism().map_or(0, |n| n.get()),
            cpu_model: cpu_model(),
            memory_gib: memory_gib(),
            load_start: load_average(),
            load_end: String::new(),
        }
    }

    /// "2 cores (AMD EPYC 7B13), 24 GiB".
    pub fn machine(&self) -> String {
        format!("{} cores ({}), {:.0} GiB", self.cores, self.cpu_model, self.memory_gib)
    }
}

fn git(root: &Path, args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).current_dir(root).output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_owned())
}

fn commit(root: &Path) -> String {
    let head = git(root, &["rev-parse", "--short", "HEAD"]).unwrap_or_else(|| "unknown".into());
    let changes = git(
        root,
        &[
            "status",
            "--porcelain",
            "--untracked-files=no",
            "--",
            ".",
            ":(exclude)docs/benchmarks.md",
        ],
    );
    match changes {
        Some(c) if c.is_empty() => head,
        _ => format!("{head}+dirty"),
    }
}

fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|t| {
            t.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, m)| m.trim().to_owned())
        })
        .unwrap_or_else(|| "unknown CPU".into())
}

fn memory_gib() -> f64 {
    std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|t| t.split_whitespace().nth(1).and_then(|kib| kib.parse::<f64>().ok()))
        .map_or(0.0, |kib| kib / 1024.0 / 1024.0)
}

pub fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|t| t.split_whitespace().next().map(str::to_owned))
        .unwrap_or_else(|| "?".into())
}

fn utc_now() -> String {
    let secs = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64);
    let (y, m, d) = civil_from_days(secs.div_euclid(86_400));
    let of_day = secs.rem_euclid(86_400);
    format!("{y:04}-{m:02}-{d:02} {:02}:{:02}", of_day / 3600, of_day % 3600 / 60)
}

/// The proleptic Gregorian date of a day counted from 1970-01-01 (Howard Hinnant's algorithm).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn days_become_dates() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(59), (1970, 3, 1));
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
        assert_eq!(civil_from_days(20_788), (2026, 12, 1));
        assert_eq!(civil_from_days(-1), (1969, 12, 31));
    }
}
