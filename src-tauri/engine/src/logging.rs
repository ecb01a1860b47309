//! Logging to standard error and to daily files in the data directory. RUST_LOG wins over the
//! configured level.
//!
//! Every event is one line, whatever its values hold: a value that came from a request (a
//! sign-in name, a path, a host) could otherwise end the line and write one of its own that
//! reads like smsdesk's ("... INFO ..."), or a terminal escape that recolours or hides what
//! follows. So every field's value and every message is written with its control characters
//! escaped as `\u{…}` ([`escaped`]): the line breaks, tabs, escapes and the Unicode marks that
//! reorder or break lines on screen.

mod escaped;

use std::path::Path;

use tracing_appender::non_blocking::WorkerGuard;
use tracing_subscriber::fmt::MakeWriter;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::registry::LookupSpan;
use tracing_subscriber::util::SubscriberInitExt;
use tracing_subscriber::{fmt, EnvFilter, Layer};

use crate::config::LogSettings;
pub use escaped::Escaped;

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
    let stderr = lines(std::io::stderr).with_target(false);
    let stderr = if journal {
        stderr.with_ansi(false).without_time().boxed()
    } else {
        stderr.boxed()
    }
    .with_filter(filter());
    let file = lines(file_writer).with_ansi(false).with_filter(filter());
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
        .with(lines(std::io::stderr).with_target(false).with_filter(filter))
        .try_init();
}

/// The log's layer, writing to `writer`: one line per event, every value escaped ([`Escaped`]).
pub fn lines<S, W>(writer: W) -> fmt::Layer<S, Escaped, fmt::format::Format, W>
where
    S: tracing::Subscriber + for<'a> LookupSpan<'a>,
    W: for<'w> MakeWriter<'w> + 'static,
{
    fmt::layer().fmt_fields(Escaped).with_writer(writer)
}
