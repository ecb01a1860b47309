//! `GET /api/v1/messages/export`: the filtered messages as a CSV file, streamed while the engine
//! writes it ([`Service::export_csv`](smsdesk_engine::service::Service::export_csv), the same writer as
//! `smsdesk export --csv`), with the number of rows to expect in `X-Total-Count` so that a client
//! can show its progress.

use std::io::Write;
use std::ops::ControlFlow;

use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{header, HeaderValue};
use axum::response::Response;
use tokio::sync::{mpsc, oneshot};
use utoipa::openapi::path::{Parameter, ParameterIn};
use utoipa::IntoParams;

use super::auth::{check, Credential};
use super::extract::QueryParams;
use super::{AppState, Failure};
use smsdesk_engine::access::Access;
use smsdesk_engine::api::ApiError;
use smsdesk_engine::api::ErrorCode;
use smsdesk_engine::views::MessageFilter;

/// Bytes gathered before they are handed to the connection.
const CHUNK: usize = 64 * 1024;
/// Chunks waiting for a slow client before the export waits for it.
const CHUNKS_IN_FLIGHT: usize = 4;

/// The list's paging parameters: an export has no pages, it writes every message selected.
const PAGING: [&str; 2] = ["cursor", "limit"];

/// What the export takes, as its description lists it: the message list's filters
/// ([`MessageFilter`], read from the query string as the list reads them) without its paging.
struct ExportParams;

impl IntoParams for ExportParams {
    fn into_params(parameter_in_provider: impl Fn() -> Option<ParameterIn>) -> Vec<Parameter> {
        MessageFilter::into_params(parameter_in_provider)
            .into_iter()
            .filter(|p| !PAGING.contains(&p.name.as_str()))
            .collect()
    }
}

/// Every message the filter selects, newest first, as CSV (UTF-8, a header line, RFC 4180
/// quoting; a cell a spreadsheet would run as a formula starts with `'`, and control characters
/// but tab and line breaks are U+FFFD). `X-Total-Count` is the number of messages the filter
/// selected when the export began.
///
/// Needs: scope `export` with a read scope (a key reading only its own messages exports its own),
/// or the operator or admin role.
#[utoipa::path(get, path = "/api/v1/messages/export", tag = "messages",
    params(ExportParams),
    responses(
        (status = 200, description = "The CSV file, one row per message after a header line (the columns of `smsdesk export --csv`)",
            content_type = "text/csv", body = String,
            headers(
                ("X-Total-Count" = u64, description = "How many messages the filter selected when the export began"),
                ("Content-Disposition" = String, description = "attachment; filename=\"messages-YYYYMMDD-HHMM.csv\" (UTC)"),
            )),
        (status = 401, body = ApiError),
        (status = 403, description = "`forbidden`: the caller lacks the `export` scope (or the operator role)", body = ApiError),
        (status = 422, body = ApiError),
    ))]
pub async fn export_messages(
    credential: Credential,
    State(s): State<AppState>,
    QueryParams(filter): QueryParams<MessageFilter>,
) -> Result<Response, Failure> {
    // The export pages through the messages itself; the service narrows the filter to what the
    // caller may read.
    let filter = MessageFilter {
        cursor: None,
        limit: None,
        ..filter
    };
    let caller = credential.caller;
    check(Access::Export, "export_messages", &caller)?;
    // A bulk read of every message it may read: the log says who made it.
    tracing::info!(actor = %caller.actor(), "exporting messages as CSV");
    let (chunks, body) = mpsc::channel::<Result<Bytes, std::io::Error>>(CHUNKS_IN_FLIGHT);
    let (started, total) = oneshot::channel::<u64>();
    let service = s.ctx.service.clone();
    let failed = chunks.clone();
    let export = tokio::spawn(async move {
        let mut started = Some(started);
        let result = service
            .export_csv(&caller, filter, ChunkWriter::new(chunks), move |p| {
                if let Some(s) = started.take() {
                    let _ = s.send(p.total);
                }
                ControlFlow::Continue(())
            })
            .await;
        match result {
            Ok(_) => Ok(()),
            Err(e) => {
                // Once the answer has begun, an error can only cut the body short: the client
                // sees a broken transfer, never a file that looks complete.
                let _ = failed.send(Err(std::io::Error::other(e.to_string()))).await;
                Err(e)
            }
        }
    });
    let total = match total.await {
        Ok(total) => total,
        // The export ended before it began writing: the filter, or the store, refused it.
        Err(_) => {
            return Err(match export.await {
                Ok(Err(e)) => e.into(),
                Ok(Ok(())) => Failure::new(ErrorCode::Internal, "the export wrote nothing"),
                Err(e) => Failure::new(ErrorCode::Internal, format!("the export failed: {e}")),
            })
        }
    };
    let stream = futures::stream::unfold(
        body,
        |mut body| async move { body.recv().await.map(|chunk| (chunk, body)) },
    );
    let mut response = Response::new(Body::from_stream(stream));
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/csv; charset=utf-8"),
    );
    headers.insert(
        header::CONTENT_DISPOSITION,
        HeaderValue::from_str(&format!(
            "attachment; filename=\"{}\"",
            file_name(s.ctx.service.clock().now_ms())
        ))
        .expect("a file name of digits is a valid header value"),
    );
    headers.insert("x-total-count", HeaderValue::from(total));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    Ok(response)
}

/// `messages-YYYYMMDD-HHMM.csv`, in UTC.
fn file_name(now_ms: i64) -> String {
    let (y, mo, d, h, mi, _) = smsdesk_engine::clock::civil(now_ms);
    format!("messages-{y:04}{mo:02}{d:02}-{h:02}{mi:02}.csv")
}

/// Hands what the export writes to the response body in chunks. Runs on the export's blocking
/// thread; when the client has gone, writing fails and the export stops.
struct ChunkWriter {
    buf: Vec<u8>,
    out: mpsc::Sender<Result<Bytes, std::io::Error>>,
}

impl ChunkWriter {
    fn new(out: mpsc::Sender<Result<Bytes, std::io::Error>>) -> ChunkWriter {
        ChunkWriter {
            buf: Vec::with_capacity(CHUNK),
            out,
        }
    }

    fn send(&mut self) -> std::io::Result<()> {
        if self.buf.is_empty() {
            return Ok(());
        }
        let chunk = Bytes::from(std::mem::replace(&mut self.buf, Vec::with_capacity(CHUNK)));
        self.out
            .blocking_send(Ok(chunk))
            .map_err(|_| std::io::Error::new(std::io::ErrorKind::BrokenPipe, "the client went away"))
    }
}

impl Write for ChunkWriter {
    fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
        self.buf.extend_from_slice(data);
        if self.buf.len() >= CHUNK {
            self.send()?;
        }
        Ok(data.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.send()
    }
}

#[cfg(test)]
mod tests {
    use super::file_name;

    #[test]
    fn the_file_is_named_for_the_minute_it_was_made_in_utc() {
        let ms = smsdesk_engine::clock::from_civil(2026, 11, 30, 9, 5, 59);
        assert_eq!(file_name(ms), "messages-20261130-0905.csv");
    }
}

/// What was spent over a period, per day, sender, connection and country, as CSV (UTF-8, a header
/// line `day,sender,connection,country,messages,parts,cost,currency`; a cell a spreadsheet would
/// run as a formula starts with `'`). The parameters of `GET /api/v1/reports/spend`.
///
/// Needs: the read:all scope, or any role.
#[utoipa::path(get, path = "/api/v1/reports/spend.csv", tag = "reports",
    params(smsdesk_engine::service::SpendQuery),
    responses(
        (status = 200, description = "The CSV file", content_type = "text/csv", body = String,
            headers(("Content-Disposition" = String, description = "attachment; filename=\"spend-YYYYMMDD-HHMM.csv\" (UTC)"))),
        (status = 401, body = ApiError),
        (status = 403, body = ApiError),
        (status = 422, description = "`invalid_filter`: a period that cannot be read", body = ApiError),
    ))]
pub async fn spend_csv(
    credential: Credential,
    State(s): State<AppState>,
    QueryParams(q): QueryParams<smsdesk_engine::service::SpendQuery>,
) -> Result<Response, Failure> {
    check(Access::ReadAll, "spend_report", &credential.caller)?;
    let csv = s.ctx.service.spend_report_csv(q).await?;
    let mut response = Response::new(Body::from(csv));
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/csv; charset=utf-8"),
    );
    let name = file_name(s.ctx.service.clock().now_ms()).replacen("messages-", "spend-", 1);
    headers.insert(
        header::CONTENT_DISPOSITION,
        HeaderValue::from_str(&format!("attachment; filename=\"{name}\""))
            .expect("a file name of digits is a valid header value"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    Ok(response)
}
