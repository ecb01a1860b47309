//! People: signing in and out from a browser (a session cookie), the setup link that creates the
//! first admin, and the accounts and sessions an admin manages. Sign-in, sign-out and setup are
//! HTTP's alone (the window is the local admin and never signs in); the rest are operations of
//! the engine's catalogue.

use std::net::{IpAddr, SocketAddr};

use axum::extract::{ConnectInfo, State};
use axum::http::request::Parts;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;

use super::auth::{Allowed, Credential};
use super::extract::{Id, JsonBody};
use super::{AppState, Failure};
use smsdesk_engine::access::{AccountInfo, Me, SessionInfo};
use smsdesk_engine::accounts::session::COOKIE;
use smsdesk_engine::accounts::{AccountChange, FirstAdmin, NewAccount, PasswordChange, SetupState, SignIn};
use smsdesk_engine::config::Networks;
use smsdesk_engine::service::{Origin, SignedIn};

/// Where a request comes from: the client's address, and the browser it says it is.
pub struct Peer(pub Origin);

/// The client's address: the peer's, or, when the peer is a trusted proxy, the last address its
/// `X-Forwarded-For` names that is not a trusted proxy itself (what comes before it is the
/// client's to write, and proves nothing).
pub fn client_address(parts: &Parts, trusted: &Networks) -> Option<IpAddr> {
    let peer = parts.extensions.get::<ConnectInfo<SocketAddr>>()?.0.ip().to_canonical();
    if !trusted.contains(peer) {
        return Some(peer);
    }
    let forwarded: Vec<IpAddr> = parts
        .headers
        .get_all("x-forwarded-for")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(|a| a.trim().parse::<IpAddr>().map(|ip| ip.to_canonical()))
        .collect::<Result<_, _>>()
        .unwrap_or_default();
    Some(
        forwarded
            .into_iter()
            .rev()
            .find(|ip| !trusted.contains(*ip))
            .unwrap_or(peer),
    )
}

impl axum::extract::FromRequestParts<AppState> for Peer {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(parts: &mut Parts, s: &AppState) -> Result<Self, Self::Rejection> {
        let address =
            client_address(parts, &s.ctx.trusted_proxies).map_or_else(|| "unknown".into(), |ip| ip.to_string());
        let user_agent: String = parts
            .headers
            .get(header::USER_AGENT)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .chars()
            .filter(|c| !c.is_control())
            .take(200)
            .collect();
        Ok(Peer(Origin { address, user_agent }))
    }
}

/// The session cookie: readable by no script, sent to this server only and never from another
/// site's page, `Secure` when the browser reached us over HTTPS (a TLS proxy in front).
fn cookie(value: &str, max_age_secs: u64, headers: &HeaderMap) -> HeaderValue {
    let https = headers
        .get("x-forwarded-proto")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|p| p.eq_ignore_ascii_case("https"));
    let secure = if https { "; Secure" } else { "" };
    HeaderValue::from_str(&format!(
        "{COOKIE}={value}; Path=/; HttpOnly; SameSite=Strict; Max-Age={max_age_secs}{secure}"
    ))
    .expect("a session cookie is printable ASCII")
}

fn signed_in(status: StatusCode, s: SignedIn, headers: &HeaderMap) -> Response {
    let mut r = (status, Json(s.me)).into_response();
    r.headers_mut()
        .insert(header::SET_COOKIE, cookie(&s.token, s.max_age_secs, headers));
    r.headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    r
}

/// Signs a person in: sets the session cookie and answers who they are (with the CSRF token).
#[utoipa::path(post, path = "/api/v1/session", tag = "accounts", security(()),
    request_body = SignIn,
    responses(
        (status = 200, description = "Signed in: the `smsdesk_session` cookie is set", body = Me),
        (status = 400, description = "`bad_json`: the body is not JSON", body = smsdesk_engine::api::ApiError),
        (status = 413, description = "`too_large`: over 16 KiB", body = smsdesk_engine::api::ApiError),
        (status = 422, description = "`invalid`: the body is not a name and a password", body = smsdesk_engine::api::ApiError),
        (status = 401, description = "`unauthorized`: wrong name or password (the same answer whether the name exists or not)", body = smsdesk_engine::api::ApiError),
        (status = 408, description = "`request_timeout`: the body did not arrive whole within 5 s", body = smsdesk_engine::api::ApiError),
        (status = 429, description = "`too_many_attempts`: too many failed sign-ins for this account from this address (or from many); `Retry-After` says when to try again", body = smsdesk_engine::api::ApiError),
        (status = 503, description = "`busy`: every password check is taken; nothing was checked; `Retry-After` says when to try again", body = smsdesk_engine::api::ApiError),
    ))]
pub async fn sign_in(
    State(s): State<AppState>,
    Peer(origin): Peer,
    headers: HeaderMap,
    JsonBody(req): JsonBody<SignIn>,
) -> Result<Response, Failure> {
    let done = s.ctx.service.sign_in(req, origin).await?;
    Ok(signed_in(StatusCode::OK, done, &headers))
}

/// Signs out: ends this browser's session and clears its cookie.
#[utoipa::path(delete, path = "/api/v1/session", tag = "accounts",
    responses(
        (status = 204, description = "Signed out"),
        (status = 401, body = smsdesk_engine::api::ApiError),
        (status = 403, description = "`csrf_token_missing`", body = smsdesk_engine::api::ApiError),
    ))]
pub async fn sign_out(
    State(s): State<AppState>,
    credential: Credential,
    headers: HeaderMap,
) -> Result<Response, Failure> {
    s.ctx.service.sign_out(&credential.caller).await?;
    let mut r = StatusCode::NO_CONTENT.into_response();
    r.headers_mut().insert(header::SET_COOKIE, cookie("", 0, &headers));
    Ok(r)
}

/// Whether the first admin may still be created with the setup link `smsdesk serve` printed.
#[utoipa::path(get, path = "/api/v1/setup", tag = "accounts", security(()),
    responses((status = 200, body = SetupState)))]
pub async fn setup_state(State(s): State<AppState>) -> Result<Json<SetupState>, Failure> {
    Ok(Json(s.ctx.service.setup_state().await?))
}

/// Creates the first admin with the setup link's token (valid 30 minutes, once, while no
/// account exists) and signs them in.
#[utoipa::path(post, path = "/api/v1/setup", tag = "accounts", security(()),
    request_body = FirstAdmin,
    responses(
        (status = 201, description = "The first admin exists and is signed in", body = Me),
        (status = 400, description = "`bad_json`: the body is not JSON", body = smsdesk_engine::api::ApiError),
        (status = 413, description = "`too_large`: over 16 KiB", body = smsdesk_engine::api::ApiError),
        (status = 408, description = "`request_timeout`: the body did not arrive whole within 5 s", body = smsdesk_engine::api::ApiError),
        (status = 503, description = "`busy`: every password check is taken; `Retry-After` says when to try again", body = smsdesk_engine::api::ApiError),
        (status = 403, description = "`setup_token_invalid`: unknown, used or expired link, or an account exists already", body = smsdesk_engine::api::ApiError),
        (status = 422, description = "`invalid`: name or password refused, or the country is none the numbering data knows (`unknown_country`) or is set otherwise by the environment", body = smsdesk_engine::api::ApiError),
    ))]
pub async fn first_admin(
    State(s): State<AppState>,
    Peer(origin): Peer,
    headers: HeaderMap,
    JsonBody(req): JsonBody<FirstAdmin>,
) -> Result<Response, Failure> {
    let done = s.ctx.service.first_admin(req, origin).await?;
    Ok(signed_in(StatusCode::CREATED, done, &headers))
}

pub async fn me(State(s): State<AppState>, credential: Credential) -> Json<Me> {
    Json(s.ctx.service.me(&credential.caller, credential.csrf_token()))
}

pub async fn list_accounts(State(s): State<AppState>) -> Result<Json<Vec<AccountInfo>>, Failure> {
    Ok(Json(s.ctx.service.list_accounts().await?))
}

pub async fn create_account(
    Allowed(caller): Allowed,
    State(s): State<AppState>,
    JsonBody(new): JsonBody<NewAccount>,
) -> Result<(StatusCode, Json<AccountInfo>), Failure> {
    Ok((
        StatusCode::CREATED,
        Json(s.ctx.service.create_account(&caller, new).await?),
    ))
}

pub async fn update_account(
    Allowed(caller): Allowed,
    State(s): State<AppState>,
    Id(id): Id,
    JsonBody(change): JsonBody<AccountChange>,
) -> Result<Json<AccountInfo>, Failure> {
    Ok(Json(s.ctx.service.update_account(&caller, id, change).await?))
}

pub async fn list_sessions(State(s): State<AppState>) -> Result<Json<Vec<SessionInfo>>, Failure> {
    Ok(Json(s.ctx.service.list_sessions().await?))
}

pub async fn revoke_session(
    Allowed(caller): Allowed,
    State(s): State<AppState>,
    Id(id): Id,
) -> Result<StatusCode, Failure> {
    s.ctx.service.revoke_session(&caller, id).await?;
    Ok(StatusCode::NO_CONTENT)
}

pub async fn change_password(
    Allowed(caller): Allowed,
    State(s): State<AppState>,
    Peer(origin): Peer,
    JsonBody(change): JsonBody<PasswordChange>,
) -> Result<StatusCode, Failure> {
    s.ctx.service.change_password(&caller, change, &origin.address).await?;
    Ok(StatusCode::NO_CONTENT)
}
