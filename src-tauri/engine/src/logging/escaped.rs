//! [`Escaped`]: the log's field formatter. As tracing-subscriber's own (`name=value`, the message
//! first and bare, strings quoted), except that nothing a value holds can end the line or reach
//! the terminal as a control: control characters, and the Unicode marks that break lines or
//! reorder text on screen, are written as `\u{…}`.

use std::fmt::{self, Write as _};

use tracing::field::{Field, Visit};
use tracing_subscriber::field::RecordFields;
use tracing_subscriber::fmt::format::Writer;
use tracing_subscriber::fmt::FormatFields;

/// Formats an event's (or a span's) fields with every value escaped.
#[derive(Debug, Clone, Copy, Default)]
pub struct Escaped;

impl<'writer> FormatFields<'writer> for Escaped {
    fn format_fields<R: RecordFields>(&self, writer: Writer<'writer>, fields: R) -> fmt::Result {
        let mut visitor = Visitor {
            writer,
            first: true,
            result: Ok(()),
        };
        fields.record(&mut visitor);
        visitor.result
    }
}

struct Visitor<'w> {
    writer: Writer<'w>,
    first: bool,
    result: fmt::Result,
}

impl Visitor<'_> {
    fn field(&mut self, field: &Field, value: fmt::Arguments<'_>) {
        if self.result.is_err() || field.name().starts_with("log.") {
            return;
        }
        self.result = self.write(field, value);
        self.first = false;
    }

    fn write(&mut self, field: &Field, value: fmt::Arguments<'_>) -> fmt::Result {
        if !self.first {
            self.writer.write_char(' ')?;
        }
        if field.name() != "message" {
            let name = field.name().strip_prefix("r#").unwrap_or(field.name());
            if self.writer.has_ansi_escapes() {
                // Our own styling (as tracing-subscriber's: the name in italics, `=` dimmed), not
                // the value's: written as it is.
                write!(self.writer, "\x1b[3m{name}\x1b[0m\x1b[2m=\x1b[0m")?;
            } else {
                write!(self.writer, "{name}=")?;
            }
        }
        Escape(&mut self.writer).write_fmt(value)
    }
}

impl Visit for Visitor<'_> {
    fn record_str(&mut self, field: &Field, value: &str) {
        if field.name() == "message" {
            self.field(field, format_args!("{value}"));
        } else {
            self.field(field, format_args!("{value:?}"));
        }
    }

    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        self.field(field, format_args!("{value:?}"));
    }
}

/// Writes through to `W`, every character that could break the line or control a terminal
/// written as `\u{…}` instead.
struct Escape<'a, W: fmt::Write>(&'a mut W);

impl<W: fmt::Write> fmt::Write for Escape<'_, W> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        let mut rest = s;
        while let Some(at) = rest.find(escaped) {
            let c = rest[at..].chars().next().expect("found at a character");
            self.0.write_str(&rest[..at])?;
            write!(self.0, "\\u{{{:x}}}", u32::from(c))?;
            rest = &rest[at + c.len_utf8()..];
        }
        self.0.write_str(rest)
    }
}

/// Control characters (C0, DEL, C1: line breaks, tabs, terminal escapes), the Unicode line and
/// paragraph separators, and the marks that reorder text on screen (bidirectional controls).
fn escaped(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{2028}' | '\u{2029}' | '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}'
        )
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use tracing_subscriber::layer::SubscriberExt;

    /// What the log's layer writes, kept in memory.
    #[derive(Clone, Default)]
    struct Captured(Arc<Mutex<Vec<u8>>>);

    impl std::io::Write for Captured {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    fn logged(ansi: bool, log: impl FnOnce()) -> String {
        let captured = Captured::default();
        let out = captured.clone();
        let layer = crate::logging::lines(move || out.clone()).with_ansi(ansi);
        tracing::subscriber::with_default(tracing_subscriber::registry().with(layer), log);
        let bytes = captured.0.lock().unwrap().clone();
        String::from_utf8(bytes).unwrap()
    }

    /// A sign-in name that would write a line of its own, then hide what follows on a terminal
    /// (ESC [8m: concealed), return to the line's start and reverse what is shown after it.
    const FORGED: &str = "alice\n2026-03-01T08:00:00.000000Z  INFO smsdesk: admin signed in\x1b[8m\r\u{202e}x\t";

    #[test]
    fn a_value_from_a_request_cannot_forge_a_line_or_reach_the_terminal() {
        for ansi in [false, true] {
            let line = logged(ansi, || {
                tracing::info!(name = %FORGED, raw = FORGED, debug = ?FORGED, "a sign-in was refused");
                tracing::warn!("refused {FORGED} in the message too");
            });
            let lines: Vec<&str> = line.lines().collect();
            assert_eq!(lines.len(), 2, "one line per event, whatever the values hold:\n{line}");
            assert!(
                !lines
                    .iter()
                    .any(|l| l.contains("admin signed in") && !l.contains("alice")),
                "no line of a value's own:\n{line}"
            );
            // With colours on, the formatter's own escapes colour the level and the names;
            // without, there is none at all.
            assert!(
                !line.contains("\x1b[8m") && (ansi || !line.contains('\x1b')),
                "no terminal escape of a value's reaches the log (ansi {ansi}):\n{line:?}"
            );
            assert!(
                !line.chars().any(|c| c != '\n' && c != '\x1b' && super::escaped(c)),
                "no control character of a value's reaches the log (ansi {ansi}):\n{line:?}"
            );
            assert!(
                line.contains(r"alice\u{a}2026") && line.contains(r"\u{1b}[8m") && line.contains(r"\u{202e}"),
                "what was escaped stays readable: {line}"
            );
        }
    }

    #[test]
    fn plain_values_are_written_as_tracing_writes_them() {
        let line = logged(
            false,
            || tracing::info!(messages = 3, name = "alice", path = %"/api/v1/x", "sent"),
        );
        assert!(
            line.trim_end()
                .ends_with(r#"sent messages=3 name="alice" path=/api/v1/x"#),
            "{line}"
        );
    }
}
