//! The API's routes over [`Service`](smsdesk_engine::service::Service): each reads its request, calls the
//! service, and answers JSON. Every refusal is an [`ApiError`](smsdesk_engine::api::ApiError) with a stable
//! code; no route answers before what it reports is committed.

use axum::body::Bytes;
use axum::extract::{FromRequest, FromRequestParts, Path, Query, Request, State};
use axum::http::request::Parts;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::de::DeserializeOwned;
use serde::Deserialize;

use super::auth::{Authenticated, Operator};
use super::{AppState, Failure};
use smsdesk_engine::api::ApiError;
use smsdesk_engine::apikeys::{ApiKeyInfo, CreatedApiKey, NewApiKey};
use smsdesk_engine::domain::IntakeChannel;
use smsdesk_engine::intake::{FieldError, SubmitMessage, SubmittedMessage};
use smsdesk_engine::service::{Answer, MessageAction, ResolveRequest, SubmitBatch, SubmittedBatch};
use smsdesk_engine::views;

/// A JSON body, refused with an [`ApiError`] naming the field when it does not fit.
pub struct JsonBody<T>(pub T);

impl<T: DeserializeOwned, S: Send + Sync> FromRequest<S> for JsonBody<T> {
    type Rejection = Failure;

    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        let bytes = Bytes::from_request(req, state).await.map_err(|e| {
            let status = e.status();
            if status == StatusCode::PAYLOAD_TOO_LARGE {
                Failure::new(
                    status,
                    "too_large",
                    "the request body is larger than this server accepts (http.max_body_kib)",
                )
            } else {
                Failure::new(status, "bad_request", e.body_text())
            }
        })?;
        parse_json(&bytes).map(JsonBody)
    }
}

/// Reads a JSON document into `T`: bad JSON is 400, a document of the wrong shape is 422 with
/// the path of the offending field.
pub fn parse_json<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, Failure> {
    let value: serde_json::Value = serde_json::from_slice(bytes).map_err(|e| {
        Failure::new(
            StatusCode::BAD_REQUEST,
            "bad_json",
            format!("the body is not valid JSON: {e}"),
        )
    })?;
    serde_path_to_error::deserialize(value).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner().to_string();
        // Unknown and missing fields are named by serde itself; others by their path.
        let field = if path == "." {
            inner
                .split('`')
                .nth(1)
                .map(str::to_owned)
                .unwrap_or_else(|| "body".into())
        } else {
            path
        };
        let code = if inner.starts_with("unknown field") {
            "unknown_field"
        } else if inner.starts_with("missing field") {
            "required"
        } else {
            "invalid_type"
        };
        let mut f = Failure::new(StatusCode::UNPROCESSABLE_ENTITY, "invalid", format!("{field}: {inner}"));
        f.body.errors = vec![FieldError {
            field,
            code: code.into(),
            message: inner,
        }];
        f
    })
}

/// Query parameters, refused with an [`ApiError`] when they do not fit.
pub struct QueryParams<T>(pub T);

impl<T: DeserializeOwned, S: Send + Sync> FromRequestParts<S> for QueryParams<T> {
    type Rejection = Failure;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        Query::<T>::from_request_parts(parts, state)
            .await
            .map(|Query(q)| QueryParams(q))
            .map_err(|e| Failure::new(StatusCode::UNPROCESSABLE_ENTITY, "invalid", e.body_text()))
    }
}

/// A numeric id in the path.
pub struct Id(pub i64);

impl<S: Send + Sync> FromRequestParts<S> for Id {
    type Rejection = Failure;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        let Path(raw) = Path::<String>::from_request_parts(parts, state)
            .await
            .map_err(|e| Failure::new(StatusCode::BAD_REQUEST, "bad_request", e.body_text()))?;
        raw.parse::<i64>()
            .ok()
            .filter(|n| *n > 0)
            .map(Id)
            .ok_or_else(|| Failure::new(StatusCode::NOT_FOUND, "not_found", format!("`{raw}` is not an id")))
    }
}

fn idempotency_key(headers: &HeaderMap) -> Result<Option<String>, Failure> {
    match headers.get("idempotency-key") {
        None => Ok(None),
        Some(v) => v.to_str().map(|s| Some(s.trim().to_owned())).map_err(|_| {
            Failure::new(
                StatusCode::BAD_REQUEST,
                "bad_request",
                "Idempotency-Key must be printable ASCII",
            )
        }),
    }
}

fn created<T>(answer: Answer<T>) -> Response {
    let mut r = (StatusCode::CREATED, answer.body).into_response();
    let h = r.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    if answer.replayed {
        h.insert("idempotent-replayed", HeaderValue::from_static("true"));
    }
    r
}

/// Hands in one message.
#[utoipa::path(post, path = "/api/v1/messages", tag = "messages",
    request_body = SubmitMessage,
    params(("Idempotency-Key" = Option<String>, Header, min_length = 1, max_length = 255, pattern = "^[!-~]([ -~]{0,253}[!-~])?$", description = "Makes a repeat of this request return the first answer instead of a second message")),
    responses(
        (status = 201, description = "Committed: it is in the queue", body = SubmittedMessage),
        (status = 400, description = "Not JSON, or a bad Idempotency-Key", body = ApiError),
        (status = 401, description = "No valid API key", body = ApiError),
        (status = 409, description = "A request with this Idempotency-Key is still being processed", body = ApiError),
        (status = 413, description = "Body too large", body = ApiError),
        (status = 422, description = "Invalid fields, or the Idempotency-Key was used with another body", body = ApiError),
    ))]
pub async fn submit(
    Authenticated(caller): Authenticated,
    State(s): State<AppState>,
    headers: HeaderMap,
    JsonBody(req): JsonBody<SubmitMessage>,
) -> Result<Response, Failure> {
    let key = idempotency_key(&headers)?;
    let answer = s.ctx.service.submit(&caller, channel(&caller), req, key).await?;
    Ok(created(answer))
}

/// Hands in several messages: all are committed, or none (field errors name the message index).
#[utoipa::path(post, path = "/api/v1/messages/batch", tag = "messages",
    request_body = SubmitBatch,
    params(("Idempotency-Key" = Option<String>, Header, min_length = 1, max_length = 255, pattern = "^[!-~]([ -~]{0,253}[!-~])?$", description = "As for a single message")),
    responses(
        (status = 201, description = "All committed", body = SubmittedBatch),
        (status = 400, description = "Not JSON, or a bad Idempotency-Key", body = ApiError),
        (status = 401, body = ApiError), (status = 409, body = ApiError), (status = 413, body = ApiError),
        (status = 422, description = "Invalid fields (nothing was written)", body = ApiError),
    ))]
pub async fn submit_batch(
    Authenticated(caller): Authenticated,
    State(s): State<AppState>,
    headers: HeaderMap,
    JsonBody(req): JsonBody<SubmitBatch>,
) -> Result<Response, Failure> {
    let key = idempotency_key(&headers)?;
    let answer = s.ctx.service.submit_batch(&caller, channel(&caller), req, key).await?;
    Ok(created(answer))
}

fn channel(caller: &smsdesk_engine::apikeys::Caller) -> IntakeChannel {
    match caller {
        smsdesk_engine::apikeys::Caller::Key { .. } => IntakeChannel::Api,
        smsdesk_engine::apikeys::Caller::Operator => IntakeChannel::Cli,
    }
}

/// Checks messages as a submit would and writes nothing: each one's normalised number, encoding
/// and parts, or every invalid field (the compose form's counter, a CSV import's preview).
#[utoipa::path(post, path = "/api/v1/messages/preview", tag = "messages",
    request_body = SubmitBatch,
    responses(
        (status = 200, description = "One row per message, in order", body = smsdesk_engine::service::Preview),
        (status = 400, description = "Not JSON", body = ApiError),
        (status = 401, body = ApiError), (status = 413, body = ApiError),
        (status = 422, description = "Not a batch, or too many messages", body = ApiError),
    ))]
pub async fn preview(
    _: Authenticated,
    State(s): State<AppState>,
    JsonBody(req): JsonBody<SubmitBatch>,
) -> Result<Json<smsdesk_engine::service::Preview>, Failure> {
    Ok(Json(s.ctx.service.preview(&req)?))
}

/// Messages, newest first, filtered; follow `next_cursor` for the next page.
#[utoipa::path(get, path = "/api/v1/messages", tag = "messages",
    params(views::MessageFilter),
    responses((status = 200, body = views::MessagePage), (status = 401, body = ApiError), (status = 422, body = ApiError)))]
pub async fn list_messages(
    _: Authenticated,
    State(s): State<AppState>,
    QueryParams(f): QueryParams<views::MessageFilter>,
) -> Result<Json<views::MessagePage>, Failure> {
    Ok(Json(s.ctx.service.list_messages(f).await?))
}

/// One message: its computed state with the rule behind it, flags, attempts, receipts and timeline.
#[utoipa::path(get, path = "/api/v1/messages/{id}", tag = "messages",
    params(("id" = i64, Path)),
    responses((status = 200, body = views::MessageDetail), (status = 401, body = ApiError), (status = 404, body = ApiError)))]
pub async fn message(
    _: Authenticated,
    State(s): State<AppState>,
    Id(id): Id,
) -> Result<Json<views::MessageDetail>, Failure> {
    Ok(Json(s.ctx.service.message(id).await?))
}

/// Sends a message again now. When its last try was accepted or its outcome is unknown, it may
/// arrive twice: that needs `confirm_duplicate: true`.
#[utoipa::path(post, path = "/api/v1/messages/{id}/retry", tag = "messages",
    params(("id" = i64, Path)), request_body = MessageAction,
    responses((status = 204, description = "Queued again"), (status = 400, description = "Not JSON", body = ApiError),
        (status = 401, body = ApiError), (status = 404, body = ApiError),
        (status = 409, description = "Not allowed now, or confirmation required", body = ApiError),
        (status = 422, description = "Invalid fields", body = ApiError)))]
pub async fn retry(
    Authenticated(caller): Authenticated,
    State(s): State<AppState>,
    Id(id): Id,
    JsonBody(a): JsonBody<MessageAction>,
) -> Result<StatusCode, Failure> {
    s.ctx.service.retry(&caller, id, a).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// Takes a message that has not been sent out of the queue.
#[utoipa::path(post, path = "/api/v1/messages/{id}/cancel", tag = "messages",
    params(("id" = i64, Path)), request_body = MessageAction,
    responses((status = 204, description = "Cancelled"), (status = 400, description = "Not JSON", body = ApiError),
        (status = 401, body = ApiError), (status = 404, body = ApiError), (status = 409, body = ApiError),
        (status = 422, description = "Invalid fields", body = ApiError)))]
pub async fn cancel(
    Authenticated(caller): Authenticated,
    State(s): State<AppState>,
    Id(id): Id,
    JsonBody(a): JsonBody<MessageAction>,
) -> Result<StatusCode, Failure> {
    s.ctx.service.cancel(&caller, id, a).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// The exception queue.
#[utoipa::path(get, path = "/api/v1/exceptions", tag = "exceptions",
    params(views::ExceptionFilter),
    responses((status = 200, body = views::ExceptionPage), (status = 401, body = ApiError), (status = 422, body = ApiError)))]
pub async fn list_exceptions(
    _: Authenticated,
    State(s): State<AppState>,
    QueryParams(f): QueryParams<views::ExceptionFilter>,
) -> Result<Json<views::ExceptionPage>, Failure> {
    Ok(Json(s.ctx.service.list_exceptions(f).await?))
}

/// One exception with its evidence.
#[utoipa::path(get, path = "/api/v1/exceptions/{id}", tag = "exceptions",
    params(("id" = i64, Path)),
    responses((status = 200, body = views::ExceptionDetail), (status = 401, body = ApiError), (status = 404, body = ApiError)))]
pub async fn exception(
    _: Authenticated,
    State(s): State<AppState>,
    Id(id): Id,
) -> Result<Json<views::ExceptionDetail>, Failure> {
    Ok(Json(s.ctx.service.exception(id).await?))
}

/// Resolves an exception with a decision and a note (audited; the evidence never changes).
#[utoipa::path(post, path = "/api/v1/exceptions/{id}/resolve", tag = "exceptions",
    params(("id" = i64, Path)), request_body = ResolveRequest,
    responses((status = 204, description = "Resolved"), (status = 400, description = "Not JSON", body = ApiError),
        (status = 401, body = ApiError), (status = 404, body = ApiError),
        (status = 409, body = ApiError), (status = 422, body = ApiError)))]
pub async fn resolve(
    Authenticated(caller): Authenticated,
    State(s): State<AppState>,
    Id(id): Id,
    JsonBody(r): JsonBody<ResolveRequest>,
) -> Result<StatusCode, Failure> {
    s.ctx.service.resolve(&caller, id, r).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// The SMPP connection and its link state now (with the last error and since when).
#[utoipa::path(get, path = "/api/v1/connection", tag = "overview",
    responses((status = 200, body = smsdesk_engine::service::ConnectionStatus), (status = 401, body = ApiError)))]
pub async fn connection(
    _: Authenticated,
    State(s): State<AppState>,
) -> Result<Json<smsdesk_engine::service::ConnectionStatus>, Failure> {
    Ok(Json(s.ctx.service.connection_status()?))
}

/// Queue depth, states and open exceptions at a glance.
#[utoipa::path(get, path = "/api/v1/dashboard", tag = "overview",
    responses((status = 200, body = views::Dashboard), (status = 401, body = ApiError)))]
pub async fn dashboard(_: Authenticated, State(s): State<AppState>) -> Result<Json<views::Dashboard>, Failure> {
    Ok(Json(s.ctx.service.dashboard().await?))
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ActivityQuery {
    /// `hour` (the last 60 minutes, by minute; the default), `day` (24 hours, by hour) or `month`
    /// (30 days, by day).
    pub window: Option<views::ActivityWindow>,
}

/// Submits, receipts and receipt latency over time, and outcomes by day for the last 30 days
/// (UTC buckets).
#[utoipa::path(get, path = "/api/v1/dashboard/activity", tag = "overview", params(ActivityQuery),
    responses((status = 200, body = views::Activity), (status = 401, body = ApiError), (status = 422, body = ApiError)))]
pub async fn activity(
    _: Authenticated,
    State(s): State<AppState>,
    QueryParams(q): QueryParams<ActivityQuery>,
) -> Result<Json<views::Activity>, Failure> {
    Ok(Json(s.ctx.service.activity(q.window.unwrap_or_default()).await?))
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct Page {
    /// From a previous page's `next_cursor`.
    pub cursor: Option<String>,
    /// Rows per page, 1 to 500 (50 when not given).
    #[param(minimum = 1, maximum = 500)]
    pub limit: Option<u32>,
}

/// Every operator action and automatic decision, newest first.
#[utoipa::path(get, path = "/api/v1/audit", tag = "overview", params(Page),
    responses((status = 200, body = views::AuditPage), (status = 401, body = ApiError), (status = 422, body = ApiError)))]
pub async fn audit_log(
    _: Authenticated,
    State(s): State<AppState>,
    QueryParams(p): QueryParams<Page>,
) -> Result<Json<views::AuditPage>, Failure> {
    Ok(Json(s.ctx.service.audit_log(p.cursor, p.limit).await?))
}

/// API keys (operator only).
#[utoipa::path(get, path = "/api/v1/keys", tag = "keys",
    responses((status = 200, body = Vec<ApiKeyInfo>), (status = 401, body = ApiError), (status = 403, body = ApiError)))]
pub async fn list_keys(_: Operator, State(s): State<AppState>) -> Result<Json<Vec<ApiKeyInfo>>, Failure> {
    Ok(Json(s.ctx.service.list_keys().await?))
}

/// Creates an API key (operator only). The key is in this answer and nowhere else.
#[utoipa::path(post, path = "/api/v1/keys", tag = "keys", request_body = NewApiKey,
    responses((status = 201, body = CreatedApiKey), (status = 400, description = "Not JSON", body = ApiError),
        (status = 401, body = ApiError), (status = 403, body = ApiError), (status = 422, body = ApiError)))]
pub async fn create_key(
    Operator(caller): Operator,
    State(s): State<AppState>,
    JsonBody(new): JsonBody<NewApiKey>,
) -> Result<(StatusCode, Json<CreatedApiKey>), Failure> {
    Ok((StatusCode::CREATED, Json(s.ctx.service.create_key(&caller, new).await?)))
}

/// Revokes an API key at once (operator only).
#[utoipa::path(post, path = "/api/v1/keys/{id}/revoke", tag = "keys", params(("id" = i64, Path)),
    responses((status = 204, description = "Revoked"), (status = 401, body = ApiError), (status = 403, body = ApiError),
        (status = 404, body = ApiError), (status = 409, body = ApiError)))]
pub async fn revoke_key(
    Operator(caller): Operator,
    State(s): State<AppState>,
    Id(id): Id,
) -> Result<StatusCode, Failure> {
    s.ctx.service.revoke_key(&caller, id).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// Brings the desktop window to the front (operator only). A second start of the app asks this of
/// the running one instead of opening a second window on the same data; 409 `no_window` when the
/// instance runs headless.
#[utoipa::path(post, path = "/api/v1/window/show", tag = "overview",
    responses((status = 204, description = "The window was asked to come to the front"), (status = 401, body = ApiError),
        (status = 403, body = ApiError), (status = 409, description = "No window: the instance runs headless", body = ApiError)))]
pub async fn show_window(_: Operator, State(s): State<AppState>) -> Result<StatusCode, Failure> {
    s.ctx.service.show_window()?;
    Ok(StatusCode::NO_CONTENT)
}

/// Every setting as saved, where each comes from (default, file, environment variable) and when
/// a change to it applies (operator only). Secrets are never in it.
#[utoipa::path(get, path = "/api/v1/settings", tag = "settings",
    responses((status = 200, body = smsdesk_engine::settings::SettingsView), (status = 401, body = ApiError), (status = 403, body = ApiError),
        (status = 409, description = "The config file no longer loads", body = ApiError)))]
pub async fn settings(
    Operator(caller): Operator,
    State(s): State<AppState>,
) -> Result<Json<smsdesk_engine::settings::SettingsView>, Failure> {
    Ok(Json(s.ctx.service.settings(&caller)?))
}

/// Saves changed settings into smsdesk.toml (the password into the OS keyring or encrypted) and
/// applies what may change while running; every invalid field is named and nothing is written
/// (operator only, audited).
#[utoipa::path(patch, path = "/api/v1/settings", tag = "settings", request_body = smsdesk_engine::settings::SettingsUpdate,
    responses((status = 200, body = smsdesk_engine::settings::SettingsSaved), (status = 400, description = "Not JSON", body = ApiError),
        (status = 401, body = ApiError), (status = 403, body = ApiError),
        (status = 409, description = "The config file no longer loads", body = ApiError),
        (status = 413, body = ApiError), (status = 422, description = "Invalid fields (nothing was written)", body = ApiError)))]
pub async fn update_settings(
    Operator(caller): Operator,
    State(s): State<AppState>,
    JsonBody(req): JsonBody<smsdesk_engine::settings::SettingsUpdate>,
) -> Result<Json<smsdesk_engine::settings::SettingsSaved>, Failure> {
    Ok(Json(s.ctx.service.update_settings(&caller, req).await?))
}

/// Binds once to an SMPP server with the given, unsaved, settings and unbinds: bound, refused
/// (with the status's name), unreachable or timed out, within seconds (operator only).
#[utoipa::path(post, path = "/api/v1/settings/test-connection", tag = "settings", request_body = smsdesk_engine::settings::ConnectionTest,
    responses((status = 200, body = smsdesk_engine::settings::ConnectionTestResult), (status = 400, description = "Not JSON", body = ApiError),
        (status = 401, body = ApiError), (status = 403, body = ApiError), (status = 413, body = ApiError),
        (status = 422, description = "Invalid fields", body = ApiError)))]
pub async fn test_connection(
    Operator(caller): Operator,
    State(s): State<AppState>,
    JsonBody(req): JsonBody<smsdesk_engine::settings::ConnectionTest>,
) -> Result<Json<smsdesk_engine::settings::ConnectionTestResult>, Failure> {
    Ok(Json(s.ctx.service.test_connection(&caller, req).await?))
}
