//! A CSV export of every message a filter selects, from the rows of `export_page`: [`write_csv`]
//! writes the whole file; the command line, the HTTP API and the window all export through it.

use std::borrow::Cow;
use std::io::Write;
use std::ops::ControlFlow;

use crate::store::Connection;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::{count_messages, export_page, MessageFilter, ViewError, EXPORT_COLUMNS};

/// How far an export has come: rows written, of how many the filter selected when it began.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
pub struct ExportProgress {
    #[ts(type = "number")]
    pub done: u64,
    #[ts(type = "number")]
    pub total: u64,
}

/// Why an export stopped before its end.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ExportError {
    #[error(transparent)]
    Open(crate::store::StoreError),
    #[error(transparent)]
    View(#[from] ViewError),
    #[error("cannot write the export: {0}")]
    Write(#[source] std::io::Error),
    #[error("the export was cancelled")]
    Cancelled,
}

impl ExportError {
    /// The stable machine code the edges report (`{code, message}`).
    pub fn code(&self) -> &'static str {
        match self {
            ExportError::Open(_) => "cannot_open",
            ExportError::View(v) => v.code(),
            ExportError::Write(_) => "write_failed",
            ExportError::Cancelled => "cancelled",
        }
    }
}

impl From<csv::Error> for ExportError {
    fn from(e: csv::Error) -> Self {
        match e.into_kind() {
            csv::ErrorKind::Io(io) => ExportError::Write(io),
            other => ExportError::Write(std::io::Error::other(format!("{other:?}"))),
        }
    }
}

/// Rows per page an export reads at a time.
const EXPORT_PAGE: u32 = 500;

/// Writes every message `filter` selects as CSV to `out`: the header ([`EXPORT_COLUMNS`]), then
/// one row per message, newest first, in the cells of [`export_page`] (quoted where a cell holds a
/// comma, a quote or a line break), each made inert by [`inert_cell`] first. The filter's cursor
/// and limit are ignored.
///
/// `progress` is told the total before anything is written, then after every page; returning
/// [`ControlFlow::Break`] stops the export with [`ExportError::Cancelled`]. The total is counted
/// once at the start: a message whose status or state changes meanwhile may leave or enter the
/// rows, so `done` can end a little off it. Returns the rows written.
pub fn write_csv<W: Write>(
    c: &Connection,
    filter: &MessageFilter,
    out: W,
    mut progress: impl FnMut(ExportProgress) -> ControlFlow<()>,
) -> Result<u64, ExportError> {
    let mut filter = MessageFilter {
        cursor: None,
        limit: Some(EXPORT_PAGE),
        ..filter.clone()
    };
    let total = count_messages(c, &filter)?;
    if progress(ExportProgress { done: 0, total }).is_break() {
        return Err(ExportError::Cancelled);
    }
    let mut w = csv::Writer::from_writer(out);
    w.write_record(EXPORT_COLUMNS)?;
    let mut done = 0u64;
    loop {
        let page = export_page(c, &filter)?;
        for row in &page.rows {
            for cell in row {
                w.write_field(inert_cell(cell).as_bytes())?;
            }
            w.write_record(None::<&[u8]>)?;
        }
        done += page.rows.len() as u64;
        // Handed on page by page, so a reader sees rows while the export goes on.
        w.flush().map_err(ExportError::Write)?;
        if progress(ExportProgress { done, total }).is_break() {
            return Err(ExportError::Cancelled);
        }
        match page.next_cursor {
            Some(cursor) => filter.cursor = Some(cursor),
            None => break,
        }
    }
    w.flush().map_err(ExportError::Write)?;
    Ok(done)
}

/// [`write_csv`] from the database file at `database`, opened read-only: the command line's
/// export, which reads a stopped instance's file (or a running one's: reads never wait for its
/// writer). `Open` when the file cannot be opened.
pub fn export_file<W: Write>(
    database: &std::path::Path,
    filter: &MessageFilter,
    out: W,
    progress: impl FnMut(ExportProgress) -> ControlFlow<()>,
) -> Result<u64, ExportError> {
    let conn = crate::store::open_read_only(database).map_err(ExportError::Open)?;
    write_csv(&conn, filter, out, progress)
}

/// A cell as the export writes it, so that a spreadsheet opening the file runs nothing a sender
/// wrote (CSV injection): a cell starting with `=`, `+`, `-`, `@`, a tab or a carriage return gets
/// a leading `'`, unless it is wholly a whole number (`+33612345678`, `-5`), which a spreadsheet
/// reads as a number and cannot run; NUL and the other control characters (C0 and DEL) but tab,
/// line feed and carriage return become U+FFFD, so no reader is misled by what it cannot show.
pub fn inert_cell(cell: &str) -> Cow<'_, str> {
    let hidden = |c: char| (c.is_ascii_control()) && !matches!(c, '\t' | '\n' | '\r');
    let cell: Cow<'_, str> = if cell.contains(hidden) {
        Cow::Owned(cell.chars().map(|c| if hidden(c) { '\u{fffd}' } else { c }).collect())
    } else {
        Cow::Borrowed(cell)
    };
    let starts_formula = cell.starts_with(['=', '+', '-', '@', '\t', '\r']);
    if starts_formula && !whole_number(&cell) {
        Cow::Owned(format!("'{cell}"))
    } else {
        cell
    }
}

/// `^[+-]?[0-9]+$`
fn whole_number(cell: &str) -> bool {
    let digits = cell.strip_prefix(['+', '-']).unwrap_or(cell);
    !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
}

impl From<crate::store::StoreError> for ExportError {
    fn from(e: crate::store::StoreError) -> Self {
        ExportError::View(e.into())
    }
}

#[cfg(test)]
mod tests {
    use std::ops::ControlFlow;

    use super::*;
    use crate::domain::{IntakeChannel, MessageKind};
    use crate::messages::{self, NewMessage};
    use crate::store::Store;

    /// A store holding `n` messages, the first `otp` of them one-time codes.
    fn store_with(n: usize, otp: usize) -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("smsdesk.db")).unwrap();
        store
            .writer()
            .write_blocking(move |tx| {
                for i in 0..n {
                    let kind = if i < otp { MessageKind::Otp } else { MessageKind::Bulk };
                    let text = format!("message {i}, \"quoted\"\nsecond line");
                    messages::insert(
                        tx,
                        &NewMessage::text(IntakeChannel::Api, "+33612345600", &text, kind, "sandbox"),
                    )?;
                }
                Ok::<_, crate::store::StoreError>(())
            })
            .unwrap();
        (dir, store)
    }

    #[test]
    fn the_file_holds_the_header_and_every_selected_message_and_progress_hears_the_total_first() {
        let (_dir, store) = store_with(1_203, 1_201);
        let filter = MessageFilter {
            kind: Some(MessageKind::Otp),
            // Paging fields are the export's own business.
            cursor: Some("not a cursor".into()),
            limit: Some(3),
            ..MessageFilter::default()
        };
        let mut heard = Vec::new();
        let mut out = Vec::new();
        let done = store
            .reader()
            .read_blocking::<_, ExportError, _>(|c| {
                write_csv(c, &filter, &mut out, |p| {
                    heard.push(p);
                    ControlFlow::Continue(())
                })
            })
            .unwrap();
        assert_eq!(done, 1_201);
        assert_eq!(
            heard.first(),
            Some(&ExportProgress { done: 0, total: 1_201 }),
            "the total comes first"
        );
        assert_eq!(
            heard.last(),
            Some(&ExportProgress {
                done: 1_201,
                total: 1_201
            })
        );
        assert_eq!(heard.len(), 1 + 3, "then once per page of 500");
        let mut csv = csv::Reader::from_reader(out.as_slice());
        assert_eq!(csv.headers().unwrap().iter().collect::<Vec<_>>(), EXPORT_COLUMNS);
        let bodies: Vec<String> = csv.records().map(|r| r.unwrap()[8].to_owned()).collect();
        assert_eq!(bodies.len(), 1_201, "only the one-time codes");
        assert_eq!(
            bodies[0], "message 1200, \"quoted\"\nsecond line",
            "newest first, text as stored"
        );
    }

    #[test]
    fn a_break_from_progress_stops_the_export_as_cancelled() {
        let (_dir, store) = store_with(1_100, 0);
        let mut out = Vec::new();
        let result = store.reader().read_blocking::<_, ExportError, _>(|c| {
            write_csv(c, &MessageFilter::default(), &mut out, |p| {
                if p.done >= 500 {
                    ControlFlow::Break(())
                } else {
                    ControlFlow::Continue(())
                }
            })
        });
        assert!(matches!(result, Err(ExportError::Cancelled)), "{result:?}");
        assert_eq!(result.unwrap_err().code(), "cancelled");
        let rows = csv::Reader::from_reader(out.as_slice()).records().count();
        assert_eq!(rows, 500, "no page is read after the break");
    }

    /// Cells a spreadsheet would run as a formula, or that hide control characters, in every
    /// column a person or a program fills: text, client reference, raw destination, last error.
    #[test]
    fn hostile_cells_are_written_inert_and_numbers_stay_numbers() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("smsdesk.db")).unwrap();
        let hostile = [
            "=HYPERLINK(\"http://evil.example\",\"click\")",
            "+1+cmd|' /C calc'!A0",
            "-2+3",
            "@SUM(A1:A9)",
            "\t=1+1",
            "\r=1+1",
            "nul\0inside\u{1b}[31m and\u{7}bell",
        ];
        store
            .writer()
            .write_blocking(move |tx| {
                for (i, h) in hostile.iter().enumerate() {
                    let mut m = NewMessage::text(IntakeChannel::Api, "+33612345600", h, MessageKind::Bulk, "sandbox");
                    m.client_ref = Some((*h).to_owned());
                    m.destination_raw = if i == 0 { "+33612345600".into() } else { (*h).to_owned() };
                    let id = messages::insert(tx, &m)?;
                    tx.sql_for_tests().execute(
                        "UPDATE queue SET last_error = ?2 WHERE message_id = ?1",
                        rusqlite::params![id, h],
                    )?;
                }
                Ok::<_, crate::store::StoreError>(())
            })
            .unwrap();
        let mut out = Vec::new();
        store
            .reader()
            .read_blocking::<_, ExportError, _>(|c| {
                write_csv(c, &MessageFilter::default(), &mut out, |_| ControlFlow::Continue(()))
            })
            .unwrap();
        let mut csv = csv::Reader::from_reader(out.as_slice());
        let headers = csv.headers().unwrap().clone();
        let column = |name: &str| headers.iter().position(|h| h == name).unwrap();
        let rows: Vec<csv::StringRecord> = csv.records().map(Result::unwrap).collect();
        let inert = [
            "'=HYPERLINK(\"http://evil.example\",\"click\")",
            "'+1+cmd|' /C calc'!A0",
            "'-2+3",
            "'@SUM(A1:A9)",
            "'\t=1+1",
            "'\r=1+1",
            "nul\u{fffd}inside\u{fffd}[31m and\u{fffd}bell",
        ];
        for (row, want) in rows.iter().rev().zip(inert) {
            for name in ["body", "client_ref", "last_error"] {
                assert_eq!(
                    &row[column(name)],
                    want,
                    "{name} must not run as a formula nor hide control characters"
                );
            }
        }
        let first = rows.last().unwrap();
        assert_eq!(
            (&first[column("destination_raw")], &first[column("destination")]),
            ("+33612345600", "+33612345600"),
            "a phone number is a number, which a spreadsheet cannot run: left as it is"
        );
        assert_eq!(&rows[0][column("destination_raw")], inert[6]);
    }

    #[test]
    fn a_cell_is_made_inert_only_where_it_must() {
        for (cell, want) in [
            ("=1+1", "'=1+1"),
            ("+33612345678", "+33612345678"),
            ("-5", "-5"),
            ("+", "'+"),
            ("-1.5", "'-1.5"),
            ("+33 6 12", "'+33 6 12"),
            ("@x", "'@x"),
            ("\tx", "'\tx"),
            ("\rx", "'\rx"),
            ("\nx", "\nx"),
            ("a=1", "a=1"),
            ("ok\ttab\nline\r", "ok\ttab\nline\r"),
            ("\0=1", "\u{fffd}=1"),
            ("del\u{7f}", "del\u{fffd}"),
            ("é ü 😀", "é ü 😀"),
            ("", ""),
        ] {
            assert_eq!(inert_cell(cell), want, "{cell:?}");
        }
        assert!(matches!(inert_cell("plain text"), Cow::Borrowed(_)));
    }

    fn service(store: Store) -> crate::service::Service {
        let store = std::sync::Arc::new(store);
        let ingestor = crate::receipts::ingest::Ingestor::new(store.writer().clone(), Default::default());
        crate::service::Service::new(store, ingestor, crate::intake::IntakeRules::new("sandbox", None), 100)
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_file_export_writes_the_same_csv_and_a_cancelled_one_leaves_no_file() {
        let (dir, store) = tokio::task::spawn_blocking(|| store_with(700, 700)).await.unwrap();
        let service = service(store);
        let path = dir.path().join("out.csv");
        let done = service
            .export_csv_file(
                &crate::access::Caller::window(),
                MessageFilter::default(),
                path.clone(),
                |_| ControlFlow::Continue(()),
            )
            .await
            .unwrap();
        assert_eq!(done, 700);
        let reader = service.store().reader().clone();
        let same = tokio::task::spawn_blocking(move || {
            reader.read_blocking::<_, ExportError, _>(|c| {
                let mut out = Vec::new();
                write_csv(c, &MessageFilter::default(), &mut out, |_| ControlFlow::Continue(()))?;
                Ok(out)
            })
        })
        .await
        .unwrap()
        .unwrap();
        assert_eq!(
            std::fs::read(&path).unwrap(),
            same,
            "the file is the export, byte for byte"
        );

        let cancelled = service
            .export_csv_file(
                &crate::access::Caller::window(),
                MessageFilter::default(),
                path.clone(),
                |p| {
                    if p.done > 0 {
                        ControlFlow::Break(())
                    } else {
                        ControlFlow::Continue(())
                    }
                },
            )
            .await;
        assert!(
            matches!(
                cancelled,
                Err(crate::service::ServiceError::Export(ExportError::Cancelled))
            ),
            "{cancelled:?}"
        );
        assert!(!path.exists(), "a cancelled export leaves no half-written file");

        let nowhere = service
            .export_csv_file(
                &crate::access::Caller::window(),
                MessageFilter::default(),
                dir.path().join("no/such/dir.csv"),
                |_| ControlFlow::Continue(()),
            )
            .await;
        let message = nowhere.unwrap_err().to_string();
        assert!(
            message.contains("no/such/dir.csv"),
            "the error names the file: {message}"
        );
    }
}
