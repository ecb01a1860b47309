//! `GET /api/v1/metrics`: the engine's metrics in the Prometheus text format
//! ([`Service::metrics`](smsdesk_engine::service::Service::metrics)), for a key with the scope
//! `metrics` or an admin. Outside the operations' catalogue because its answer is text, not JSON.

use axum::extract::State;
use axum::http::header;
use axum::response::{IntoResponse, Response};

use super::auth::{check, Credential};
use super::{AppState, Failure};
use smsdesk_engine::access::Access;
use smsdesk_engine::api::ApiError;
use smsdesk_engine::service::ServiceError;

/// The metrics for the server's monitoring, in the Prometheus text format (0.0.4): messages by
/// queue status and delivery state, submits and their answers by connection and command status,
/// receipts by stat, the receipt latency histogram, the oldest due message's age, each bind's
/// link, the writer's commit time histogram, the database's size, open exceptions by kind and the
/// alerts firing.
///
/// Needs: scope `metrics`, or the admin role.
#[utoipa::path(get, path = "/api/v1/metrics", tag = "alerts",
    responses(
        (status = 200, description = "The metrics, as Prometheus scrapes them",
            content_type = "text/plain; version=0.0.4", body = String),
        (status = 401, body = ApiError),
        (status = 403, description = "`forbidden`: the caller lacks the `metrics` scope (or the admin role)", body = ApiError),
    ))]
pub async fn scrape(credential: Credential, State(s): State<AppState>) -> Result<Response, Failure> {
    check(Access::Metrics, "metrics", &credential.caller)?;
    let text = s.ctx.service.metrics().await.map_err(ServiceError::from)?;
    Ok((
        [(header::CONTENT_TYPE, smsdesk_engine::alerts::metrics::CONTENT_TYPE)],
        text,
    )
        .into_response())
}
