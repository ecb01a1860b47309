//! Shared by the benchmarks.

/// The process's peak resident memory, in MiB (Linux; NaN elsewhere).
#[allow(dead_code)]
pub fn peak_rss_mib() -> f64 {
    status_mib("VmHWM:")
}

/// A `kB` line of /proc/self/status, in MiB (NaN when absent).
fn status_mib(field: &str) -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find(|l| l.starts_with(field))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|kb| kb.parse::<f64>().ok())
        .map_or(f64::NAN, |kb| kb / 1024.0)
}

#[allow(dead_code)]
/// User + system clock ticks in a /proc `stat` file's text (0 when unreadable).
fn stat_ticks(stat: &str) -> u64 {
    // Fields after the parenthesised command: state is field 3, utime 14, stime 15.
    let after = stat.rsplit_once(')').map_or("", |(_, rest)| rest);
    let fields: Vec<&str> = after.split_whitespace().collect();
    let num = |i: usize| fields.get(i).and_then(|f| f.parse::<u64>().ok()).unwrap_or(0);
    num(11) + num(12)
}

#[allow(dead_code)]
/// USER_HZ on Linux.
const TICKS_PER_SEC: f64 = 100.0;

#[allow(dead_code)] // not every benchmark reports it
/// CPU time (user + system, in seconds) used so far by this process's threads named `name`
/// (Linux; NaN elsewhere). Unlike wall time, it hardly moves when other work shares the machine.
pub fn thread_cpu_secs(name: &str) -> f64 {
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return f64::NAN;
    };
    let mut ticks = 0u64;
    for task in tasks.flatten() {
        let comm = std::fs::read_to_string(task.path().join("comm")).unwrap_or_default();
        if comm.trim_end() != name {
            continue;
        }
        ticks += stat_ticks(&std::fs::read_to_string(task.path().join("stat")).unwrap_or_default());
    }
    ticks as f64 / TICKS_PER_SEC
}

#[allow(dead_code)]
/// CPU time (user + system, in seconds) used so far by the whole process.
pub fn process_cpu_secs() -> f64 {
    stat_ticks(&std::fs::read_to_string("/proc/self/stat").unwrap_or_default()) as f64 / TICKS_PER_SEC
}

#[allow(dead_code)]
/// The process's private (anonymous) resident memory now, in MiB (Linux; NaN elsewhere). Unlike
/// VmHWM it leaves out the pages of files mapped into memory (the database, which SQLite maps),
/// which the kernel can drop at any time.
pub fn anon_rss_mib() -> f64 {
    status_mib("RssAnon:")
}

#[allow(dead_code)]
/// Samples [`anon_rss_mib`] every 50 ms on a thread of its own until stopped; [`AnonPeak::stop`]
/// gives the highest reading.
pub struct AnonPeak {
    stop: std::sync::mpsc::Sender<()>,
    thread: std::thread::JoinHandle<f64>,
}

#[allow(dead_code)]
impl AnonPeak {
    pub fn start() -> AnonPeak {
        let (stop, stopped) = std::sync::mpsc::channel::<()>();
        let thread = std::thread::spawn(move || {
            let mut peak = anon_rss_mib();
            while let Err(std::sync::mpsc::RecvTimeoutError::Timeout) =
                stopped.recv_timeout(std::time::Duration::from_millis(50))
            {
                peak = peak.max(anon_rss_mib());
            }
            peak.max(anon_rss_mib())
        });
        AnonPeak { stop, thread }
    }

    pub fn stop(self) -> f64 {
        let _ = self.stop.send(());
        self.thread.join().unwrap_or(f64::NAN)
    }
}

#[allow(dead_code)]
/// This process's write counters so far (Linux /proc/self/io; zeros elsewhere).
#[derive(Debug, Clone, Copy, Default)]
pub struct WriteCounters {
    /// write()-family calls.
    pub calls: u64,
    /// Bytes passed to them.
    pub bytes: u64,
    /// Bytes that reached the block layer.
    pub disk_bytes: u64,
}

#[allow(dead_code)]
impl WriteCounters {
    pub fn now() -> WriteCounters {
        let io = std::fs::read_to_string("/proc/self/io").unwrap_or_default();
        let field = |name: &str| {
            io.lines()
                .find_map(|l| l.strip_prefix(name))
                .and_then(|v| v.trim().parse::<u64>().ok())
                .unwrap_or(0)
        };
        WriteCounters {
            calls: field("syscw:"),
            bytes: field("wchar:"),
            disk_bytes: field("write_bytes:"),
        }
    }

    /// Per item of `n`, since `earlier`: "C write() calls, B KB passed to write(), D KB to disk".
    pub fn per_item(self, earlier: WriteCounters, n: usize) -> String {
        let n = n.max(1) as f64;
        format!(
            "{:.1} write() calls, {:.1} KB passed to write(), {:.1} KB to disk",
            (self.calls - earlier.calls) as f64 / n,
            (self.bytes - earlier.bytes) as f64 / n / 1024.0,
            (self.disk_bytes - earlier.disk_bytes) as f64 / n / 1024.0
        )
    }
}
