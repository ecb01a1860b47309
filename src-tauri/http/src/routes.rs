//! The API's routes over [`Service`](smsdesk_engine::service::Service): each reads its request, calls the
//! service, and answers JSON. Each handler is named for its operation in the engine's catalogue
//! (`smsdesk_engine::operations`), which holds its path, method, who may call it and its
//! description; the router puts each behind its access check. Every refusal is an [`ApiError`](smsdesk_engine::api::ApiError) with a stable
//! code; no route answers before what it reports is committed.

use axum::extract::State;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::Deserialize;

use super::auth::Allowed;
use super::extract::{Id, JsonBody, QueryParams};
use super::{AppState, Failure};
pub use crate::people::{
    change_password, create_account, list_accounts, list_sessions, me, revoke_session, update_account,
};
use smsdesk_engine::access::Caller;
use smsdesk_engine::api::ErrorCode;
use smsdesk_engine::apikeys::{ApiKeyInfo, CreatedApiKey, NewApiKey};
use smsdesk_engine::domain::IntakeChannel;
use smsdesk_engine::intake::SubmitMessage;
use smsdesk_engine::service::{Answer, MessageAction, ResolveRequest, SubmitBatch};
use smsdesk_engine::smpp_server::{CreatedSmppAccount, NewSmppAccount, SmppAccountInfo, SmppServerStatus};
use smsdesk_engine::views;

fn idempotency_key(headers: &HeaderMap) -> Result<Option<String>, Failure> {
    match headers.get("idempotency-key") {
        None => Ok(None),
        Some(v) => v
            .to_str()
            .map(|s| Some(s.trim().to_owned()))
            .map_err(|_| Failure::new(ErrorCode::BadRequest, "Idempotency-Key must be printable ASCII")),
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

/// The instance; where its data lives only for an admin.
pub async fn info(Allowed(caller): Allowed, State(s): State<AppState>) -> Json<smsdesk_engine::api::AppInfo> {
    match caller.is_admin() {
        true => Json((*s.ctx.info).clone()),
        false => Json(s.ctx.info.without_paths()),
    }
}

pub async fn submit_message(
    Allowed(caller): Allowed,
    State(s): State<AppState>,
    headers: HeaderMap,
    JsonBody(req): JsonBody<SubmitMessage>,
) -> Result<Response, Failure> {
    let key = idempotency_key(&headers)?;
    let answer = s.ctx.service.submit(&caller, channel(&caller, false), req, key).await?;
    Ok(created(answer))
}

pub async fn submit_batch(
    Allowed(caller): Allowed,
    State(s): State<AppState>,
    headers: HeaderMap,
    JsonBody(req): JsonBody<SubmitBatch>,
) -> Result<Response, Failure> {
    let key = idempotency_key(&headers)?;
    let answer = s
        .ctx
        .service
        .submit_batch(&caller, channel(&caller, true), req, key)
        .await?;
    Ok(created(answer))
}

/// The channel a request came in by: an integration's key, a person in a browser (its compose
/// form sends one message, its CSV import a batch), or the command line.
fn channel(caller: &Caller, batch: bool) -> IntakeChannel {
    match caller {
        Caller::Key { .. } => IntakeChannel::Api,
        Caller::Person { .. } if batch => IntakeChannel::Csv,
        Caller::Person { .. } => IntakeChannel::Compose,
        Caller::Local { .. } => IntakeChannel::Cli,
    }
}

pub async fn preview_messages(
    State(s): State<AppState>,
    JsonBody(req): JsonBody<SubmitBatch>,
) -> Result<Json<smsdesk_engine::service::Preview>, Failure> {
    Ok(Json(s.ctx.service.preview(&req).await?))
}

pub async fn list_messages(
    Allowed(caller): Allowed,
    State(s): State<AppState>,
    QueryParams(f): QueryParams<views::MessageFilter>,
) -> Result<Json<views::MessagePage>, Failure> {
    Ok(Json(s.ctx.service.list_messages(&caller, f).await?))
}

pub async fn message(
    Allowed(caller): Allowed,
    State(s): State<AppState>,
    Id(id): Id,
) -> Result<Json<views::MessageDetail>, Failure> {
    Ok(Json(s.ctx.service.message(&caller, id).await?))
}

pub async fn retry(
    Allowed(caller): Allowed,
    State(s): State<AppState>,
    Id(id): Id,
    JsonBody(a): JsonBody<MessageAction>,
) -> Result<StatusCode, Failure> {
    s.ctx.service.retry(&caller, id, a).await?;
    Ok(StatusCode::NO_CONTENT)
}

pub async fn cancel(
    Allowed(caller): Allowed,
    State(s): State<AppState>,
    Id(id): Id,
    JsonBody(a): JsonBody<MessageAction>,
) -> Result<StatusCode, Failure> {
    s.ctx.service.cancel(&caller, id, a).await?;
    Ok(StatusCode::NO_CONTENT)
}

pub async fn list_exceptions(
    State(s): State<AppState>,
    QueryParams(f): QueryParams<views::ExceptionFilter>,
) -> Result<Json<views::ExceptionPage>, Failure> {
    Ok(Json(s.ctx.service.list_exceptions(f).await?))
}

pub async fn exception(State(s): State<AppState>, Id(id): Id) -> Result<Json<views::ExceptionDetail>, Failure> {
    Ok(Json(s.ctx.service.exception(id).await?))
}

pub async fn compare_candidates(
    State(s): State<AppState>,
    Id(id): Id,
    JsonBody(asked): JsonBody<smsdesk_engine::service::CompareCandidates>,
) -> Result<Json<smsdesk_engine::service::CandidateComparison>, Failure> {
    Ok(Json(s.ctx.service.compare_candidates(id, asked).await?))
}

pub async fn resolve(
    Allowed(caller): Allowed,
    State(s): State<AppState>,
    Id(id): Id,
    JsonBody(r): JsonBody<ResolveRequest>,
) -> Result<StatusCode, Failure> {
    s.ctx.service.resolve(&caller, id, r).await?;
    Ok(StatusCode::NO_CONTENT)
}

pub async fn connection(State(s): State<AppState>) -> Result<Json<smsdesk_engine::service::ConnectionStatus>, Failure> {
    Ok(Json(s.ctx.service.connection_status().await?))
}

pub async fn connections(
    State(s): State<AppState>,
) -> Result<Json<Vec<smsdesk_engine::service::ConnectionStatus>>, Failure> {
    Ok(Json(s.ctx.service.connections_status().await?))
}

pub async fn command_connection(
    Allowed(caller): Allowed,
    State(s): State<AppState>,
    JsonBody(action): JsonBody<smsdesk_engine::service::ConnectionAction>,
) -> Result<StatusCode, Failure> {
    s.ctx.service.command_connection(&caller, action).await?;
    Ok(StatusCode::NO_CONTENT)
}

pub async fn dashboard(State(s): State<AppState>) -> Result<Json<views::Dashboard>, Failure> {
    Ok(Json(s.ctx.service.dashboard().await?))
}

pub async fn nodes(State(s): State<AppState>) -> Result<Json<Vec<smsdesk_engine::nodes::NodeView>>, Failure> {
    Ok(Json(s.ctx.service.nodes().await?))
}

pub async fn pace(State(s): State<AppState>) -> Result<Json<smsdesk_engine::pace::Pace>, Failure> {
    Ok(Json(s.ctx.service.pace().await?))
}

/// The activity's query: `?window=`, `hour` when not given.
#[derive(Debug, Deserialize)]
pub struct ActivityQuery {
    pub window: Option<views::ActivityWindow>,
}

pub async fn activity(
    State(s): State<AppState>,
    QueryParams(q): QueryParams<ActivityQuery>,
) -> Result<Json<views::Activity>, Failure> {
    Ok(Json(s.ctx.service.activity(q.window.unwrap_or_default()).await?))
}

pub async fn delivery_report(
    State(s): State<AppState>,
    QueryParams(q): QueryParams<views::ReportQuery>,
) -> Result<Json<views::DeliveryReport>, Failure> {
    Ok(Json(s.ctx.service.delivery_report(q).await?))
}

pub async fn guardrails(
    State(s): State<AppState>,
) -> Result<Json<smsdesk_engine::service::GuardrailsOverview>, Failure> {
    Ok(Json(s.ctx.service.guardrails_overview().await?))
}

pub async fn spend_report(
    State(s): State<AppState>,
    QueryParams(q): QueryParams<smsdesk_engine::service::SpendQuery>,
) -> Result<Json<smsdesk_engine::service::SpendReport>, Failure> {
    Ok(Json(s.ctx.service.spend_report(q).await?))
}

pub async fn privacy_overview(
    Allowed(caller): Allowed,
    State(s): State<AppState>,
) -> Result<Json<smsdesk_engine::service::privacy::PrivacyOverview>, Failure> {
    Ok(Json(s.ctx.service.privacy_overview(&caller).await?))
}

pub async fn run_retention(
    Allowed(caller): Allowed,
    State(s): State<AppState>,
) -> Result<Json<smsdesk_engine::privacy::RetentionRun>, Failure> {
    Ok(Json(s.ctx.service.run_retention(&caller).await?))
}

pub async fn erase_number(
    Allowed(caller): Allowed,
    State(s): State<AppState>,
    JsonBody(req): JsonBody<smsdesk_engine::service::privacy::EraseNumber>,
) -> Result<Json<smsdesk_engine::privacy::Erased>, Failure> {
    Ok(Json(s.ctx.service.erase_number(&caller, req).await?))
}

pub async fn subject_access(
    Allowed(caller): Allowed,
    State(s): State<AppState>,
    JsonBody(req): JsonBody<smsdesk_engine::service::privacy::SubjectRequest>,
) -> Result<Json<smsdesk_engine::service::privacy::SubjectAccess>, Failure> {
    Ok(Json(s.ctx.service.subject_access(&caller, req).await?))
}

pub async fn audit_log(
    State(s): State<AppState>,
    QueryParams(p): QueryParams<views::PageRequest>,
) -> Result<Json<views::AuditPage>, Failure> {
    Ok(Json(s.ctx.service.audit_log(p.cursor, p.limit).await?))
}

pub async fn list_keys(State(s): State<AppState>) -> Result<Json<Vec<ApiKeyInfo>>, Failure> {
    Ok(Json(s.ctx.service.list_keys().await?))
}

pub async fn create_key(
    Allowed(caller): Allowed,
    State(s): State<AppState>,
    JsonBody(new): JsonBody<NewApiKey>,
) -> Result<(StatusCode, Json<CreatedApiKey>), Failure> {
    Ok((StatusCode::CREATED, Json(s.ctx.service.create_key(&caller, new).await?)))
}

pub async fn revoke_key(
    Allowed(caller): Allowed,
    State(s): State<AppState>,
    Id(id): Id,
) -> Result<StatusCode, Failure> {
    s.ctx.service.revoke_key(&caller, id).await?;
    Ok(StatusCode::NO_CONTENT)
}

pub async fn smpp_server(State(s): State<AppState>) -> Result<Json<SmppServerStatus>, Failure> {
    Ok(Json(s.ctx.service.smpp_server().await?))
}

pub async fn list_smpp_accounts(State(s): State<AppState>) -> Result<Json<Vec<SmppAccountInfo>>, Failure> {
    Ok(Json(s.ctx.service.smpp_accounts().await?))
}

pub async fn create_smpp_account(
    Allowed(caller): Allowed,
    State(s): State<AppState>,
    JsonBody(new): JsonBody<NewSmppAccount>,
) -> Result<(StatusCode, Json<CreatedSmppAccount>), Failure> {
    Ok((
        StatusCode::CREATED,
        Json(s.ctx.service.create_smpp_account(&caller, new).await?),
    ))
}

pub async fn reset_smpp_password(
    Allowed(caller): Allowed,
    State(s): State<AppState>,
    Id(id): Id,
) -> Result<Json<CreatedSmppAccount>, Failure> {
    Ok(Json(s.ctx.service.reset_smpp_password(&caller, id).await?))
}

pub async fn show_window(State(s): State<AppState>) -> Result<StatusCode, Failure> {
    s.ctx.service.show_window()?;
    Ok(StatusCode::NO_CONTENT)
}

pub async fn settings(
    Allowed(caller): Allowed,
    State(s): State<AppState>,
) -> Result<Json<smsdesk_engine::settings::SettingsView>, Failure> {
    Ok(Json(s.ctx.service.settings(&caller)?))
}

pub async fn update_settings(
    Allowed(caller): Allowed,
    State(s): State<AppState>,
    JsonBody(req): JsonBody<smsdesk_engine::settings::SettingsUpdate>,
) -> Result<Json<smsdesk_engine::settings::SettingsSaved>, Failure> {
    Ok(Json(s.ctx.service.update_settings(&caller, req).await?))
}

pub async fn connection_settings(
    Allowed(caller): Allowed,
    State(s): State<AppState>,
) -> Result<Json<smsdesk_engine::settings::ConnectionsView>, Failure> {
    Ok(Json(s.ctx.service.connection_settings(&caller)?))
}

pub async fn update_connection_settings(
    Allowed(caller): Allowed,
    State(s): State<AppState>,
    JsonBody(req): JsonBody<smsdesk_engine::settings::ConnectionsUpdate>,
) -> Result<Json<smsdesk_engine::settings::SettingsSaved>, Failure> {
    Ok(Json(s.ctx.service.update_connection_settings(&caller, req).await?))
}

pub async fn test_connection(
    Allowed(caller): Allowed,
    State(s): State<AppState>,
    JsonBody(req): JsonBody<smsdesk_engine::settings::ConnectionTest>,
) -> Result<Json<smsdesk_engine::settings::ConnectionTestResult>, Failure> {
    Ok(Json(s.ctx.service.test_connection(&caller, req).await?))
}

pub async fn list_threads(
    State(s): State<AppState>,
    QueryParams(f): QueryParams<views::InboxFilter>,
) -> Result<Json<views::ThreadPage>, Failure> {
    Ok(Json(s.ctx.service.list_threads(f).await?))
}

pub async fn thread(
    State(s): State<AppState>,
    QueryParams(r): QueryParams<views::ThreadRequest>,
) -> Result<Json<views::ThreadView>, Failure> {
    Ok(Json(s.ctx.service.thread(r).await?))
}

pub async fn inbox_counts(State(s): State<AppState>) -> Result<Json<views::InboxCounts>, Failure> {
    Ok(Json(s.ctx.service.inbox_counts().await?))
}

pub async fn mark_read(
    Allowed(caller): Allowed,
    State(s): State<AppState>,
    JsonBody(m): JsonBody<smsdesk_engine::service::MarkRead>,
) -> Result<Json<views::InboxCounts>, Failure> {
    Ok(Json(s.ctx.service.mark_read(&caller, m).await?))
}

pub async fn list_opt_outs(
    State(s): State<AppState>,
    QueryParams(f): QueryParams<views::OptOutFilter>,
) -> Result<Json<views::OptOutPage>, Failure> {
    Ok(Json(s.ctx.service.list_opt_outs(f).await?))
}

pub async fn add_opt_out(
    Allowed(caller): Allowed,
    State(s): State<AppState>,
    JsonBody(req): JsonBody<smsdesk_engine::service::NewOptOut>,
) -> Result<Json<smsdesk_engine::service::OptOutAdded>, Failure> {
    Ok(Json(s.ctx.service.add_opt_out(&caller, req).await?))
}

pub async fn remove_opt_out(
    Allowed(caller): Allowed,
    State(s): State<AppState>,
    JsonBody(req): JsonBody<smsdesk_engine::service::RemoveOptOut>,
) -> Result<StatusCode, Failure> {
    s.ctx.service.remove_opt_out(&caller, req).await?;
    Ok(StatusCode::NO_CONTENT)
}

pub async fn import_opt_outs(
    Allowed(caller): Allowed,
    State(s): State<AppState>,
    JsonBody(req): JsonBody<smsdesk_engine::service::OptOutImport>,
) -> Result<Json<smsdesk_engine::service::OptOutImported>, Failure> {
    Ok(Json(s.ctx.service.import_opt_outs(&caller, req).await?))
}

pub async fn export_opt_outs(State(s): State<AppState>) -> Result<Json<smsdesk_engine::service::OptOutCsv>, Failure> {
    Ok(Json(s.ctx.service.export_opt_outs().await?))
}

pub async fn sandbox_reply(
    Allowed(caller): Allowed,
    State(s): State<AppState>,
    JsonBody(r): JsonBody<smsdesk_engine::service::SandboxReply>,
) -> Result<StatusCode, Failure> {
    s.ctx.service.sandbox_reply(&caller, r)?;
    Ok(StatusCode::NO_CONTENT)
}

pub async fn list_templates(
    State(s): State<AppState>,
) -> Result<Json<Vec<smsdesk_engine::service::Template>>, Failure> {
    Ok(Json(s.ctx.service.list_templates().await?))
}

pub async fn create_template(
    Allowed(caller): Allowed,
    State(s): State<AppState>,
    JsonBody(t): JsonBody<smsdesk_engine::service::NewTemplate>,
) -> Result<(StatusCode, Json<smsdesk_engine::service::Template>), Failure> {
    Ok((
        StatusCode::CREATED,
        Json(s.ctx.service.create_template(&caller, t).await?),
    ))
}

pub async fn delete_template(
    Allowed(caller): Allowed,
    State(s): State<AppState>,
    Id(id): Id,
) -> Result<StatusCode, Failure> {
    s.ctx.service.delete_template(&caller, id).await?;
    Ok(StatusCode::NO_CONTENT)
}

pub async fn alerts(
    State(s): State<AppState>,
) -> Result<Json<smsdesk_engine::alerts::overview::AlertsOverview>, Failure> {
    Ok(Json(s.ctx.service.alerts_overview().await?))
}

pub async fn acknowledge_alert(
    Allowed(caller): Allowed,
    State(s): State<AppState>,
    Id(id): Id,
    JsonBody(req): JsonBody<smsdesk_engine::alerts::overview::AcknowledgeAlert>,
) -> Result<StatusCode, Failure> {
    s.ctx.service.acknowledge_alert(&caller, id, req).await?;
    Ok(StatusCode::NO_CONTENT)
}

pub async fn test_alert(
    Allowed(caller): Allowed,
    State(s): State<AppState>,
    JsonBody(req): JsonBody<smsdesk_engine::alerts::overview::TestAlert>,
) -> Result<Json<smsdesk_engine::alerts::overview::TestAlertResult>, Failure> {
    Ok(Json(s.ctx.service.test_alert(&caller, req).await?))
}
