//! Logging to standard error and to daily files in the data directory. RUST_LOG wins over the
//! configured level.

use std::path::Path;

use tracing_appender::non_blocking::WorkerGuard;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;
use tracing_subscriber::{fmt, EnvFilter, Layer};

use crate::config::LogSettings;

/// Keeps the file writer alive; dropping it flushes what is buffered.
pub struct LogGuard {
    _file: WorkerGuard,
}

/// Starts logging for this process. Returns an error string when the log folder is unusable;
/// logging to standard error still works then.
pub fn init(logs_dir: &Path, settings: &LogSettings) -> Result<LogGuard, String> {
    let filter = || {
        EnvFilter::try_from_default_env()
            .or_else(|_| EnvFilter::try_new(&settings.level.0))
            .unwrap_or_else(|_| EnvFilter::new("info"))
    };
    std::fs::create_dir_all(logs_dir).map_err(|e| format!("cannot create {}: {e}", logs_dir.display()))?;
    let appender = tracing_appender::rolling::Builder::new()
        .rotation(tracing_appender::rolling::Rotation::DAILY)
        .filename_prefix("smsdesk")
        .filename_suffix("log")
        .max_log_files(settings.keep_files.0 as usize)
        .build(logs_dir)
        .map_err(|e| format!("cannot write logs to {}: {e}", logs_dir.display()))?;
    let (file_writer, guard) = tracing_appender::non_blocking(appender);
    // Under systemd, standard error goes to the journal, which stamps each line itself and shows
    // colour codes as they are.
    let journal = to_journal();
    let stderr = fmt::layer().with_writer(std::io::stderr).with_target(false);
    let stderr = if journal {
        stderr.with_ansi(false).without_time().boxed()
    } else {
        stderr.boxed()
    }
    .with_filter(filter());
    let file = fmt::layer()
        .with_writer(file_writer)
        .with_ansi(false)
        .with_filter(filter());
    // A second init in one process (tests) keeps the first subscriber.
    let _ = tracing_subscriber::registry().with(stderr).with(file).try_init();
    Ok(LogGuard { _file: guard })
}

/// Whether standard error goes to systemd's journal (a service), where what is printed is kept
/// and read by more people than whoever started the process.
pub fn to_journal() -> bool {
    std::env::var_os("JOURNAL_STREAM").is_some()
}

/// Logging to standard error only, for commands that must not touch the data directory.
pub fn init_stderr_only() {
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("warn"));
    let _ = tracing_subscriber::registry()
        .with(
            fmt::layer()
                .with_writer(std::io::stderr)
                .with_target(false)
                .with_filter(filter),
        )
        .try_init();
}
