//! Who is calling, and whether they may: an API key (`Authorization: Bearer sdk_…` or an
//! `X-Api-Key` header), the operator token of the command line on this computer, or a person's
//! browser session (the `smsdesk_session` cookie, with `X-CSRF-Token` on every request that
//! changes something). A missing, unknown, revoked or expired credential gets 401 before
//! anything is read or written; one the operation does not allow gets 403.

use axum::extract::{FromRequestParts, Request};
use axum::http::request::Parts;
use axum::http::{header, Method};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::{AppState, Failure};
use smsdesk_engine::access::Access;
use smsdesk_engine::access::Caller;
use smsdesk_engine::accounts::session::{csrf_token, COOKIE};
use smsdesk_engine::api::ErrorCode;
use smsdesk_engine::operations::Spec;
use smsdesk_engine::tokens::same_secret;

/// The header a signed-in browser sends its session's CSRF token in.
pub const CSRF_HEADER: &str = "x-csrf-token";

/// A recognised caller with the credential it presented, for requests that must notice a
/// revocation while they run (the event stream) or name their session (sign-out, `me`).
#[derive(Clone)]
pub struct Credential {
    pub caller: Caller,
    pub presented: Presented,
}

/// What a request presented.
#[derive(Clone)]
pub enum Presented {
    /// An API key or the operator token.
    Bearer(String),
    /// A browser session's cookie.
    Session(String),
}

impl Credential {
    /// The CSRF token of the session presented, if it was one.
    pub fn csrf_token(&self) -> Option<String> {
        match &self.presented {
            Presented::Session(token) => Some(csrf_token(token)),
            Presented::Bearer(_) => None,
        }
    }
}

/// The caller of an operation, as its access check let it through (see [`guard`]).
pub struct Allowed(pub Caller);

/// The bearer credential presented, if any.
fn bearer(parts: &Parts) -> Option<String> {
    if let Some(v) = parts.headers.get(header::AUTHORIZATION).and_then(|v| v.to_str().ok()) {
        let (scheme, rest) = v.trim().split_once(' ')?;
        return scheme.eq_ignore_ascii_case("bearer").then(|| rest.trim().to_owned());
    }
    parts
        .headers
        .get("x-api-key")
        .and_then(|v| v.to_str().ok())
        .map(|v| v.trim().to_owned())
}

/// The session cookie presented, if any.
pub fn session_cookie(parts: &Parts) -> Option<String> {
    parts
        .headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|c| c.trim().split_once('='))
        .find(|(name, _)| *name == COOKIE)
        .map(|(_, value)| value.trim().to_owned())
}

/// Whether a credential is still valid (not revoked or expired since it was checked).
pub async fn still_valid(state: &AppState, c: &Credential) -> bool {
    match (&c.caller, &c.presented) {
        (Caller::Local { .. }, _) => true,
        (_, Presented::Bearer(key)) => matches!(state.ctx.service.authenticate(key.clone()).await, Ok(Some(_))),
        (_, Presented::Session(token)) => matches!(state.ctx.service.session_caller(token).await, Ok(Some(_))),
    }
}

/// Recognises the credential a request presents.
pub async fn credential(parts: &Parts, state: &AppState) -> Result<Credential, Failure> {
    if let Some(key) = bearer(parts) {
        let caller = if same_secret(&key, &state.ctx.operator_token) {
            Caller::command_line()
        } else {
            match state.ctx.service.authenticate(key.clone()).await? {
                Some(caller) => caller,
                None => return Err(Failure::unauthorized("unknown or revoked API key")),
            }
        };
        return Ok(Credential {
            caller,
            presented: Presented::Bearer(key),
        });
    }
    let Some(token) = session_cookie(parts) else {
        return Err(Failure::unauthorized(
            "sign in, or send an API key as `Authorization: Bearer <key>` (an admin creates one)",
        ));
    };
    let Some(caller) = state.ctx.service.session_caller(&token).await? else {
        return Err(Failure::unauthorized("the session ended: sign in again"));
    };
    if !matches!(parts.method, Method::GET | Method::HEAD | Method::OPTIONS) {
        let sent = parts
            .headers
            .get(CSRF_HEADER)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("");
        if !same_secret(sent, &csrf_token(&token)) {
            return Err(Failure::new(
                ErrorCode::CsrfTokenMissing,
                "this request changes something and lacks the session's X-CSRF-Token header (GET /api/v1/me gives it)",
            ));
        }
    }
    Ok(Credential {
        caller,
        presented: Presented::Session(token),
    })
}

impl FromRequestParts<AppState> for Credential {
    type Rejection = Failure;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, Self::Rejection> {
        if let Some(c) = parts.extensions.get::<Credential>() {
            return Ok(c.clone());
        }
        credential(parts, state).await
    }
}

impl<S: Send + Sync> FromRequestParts<S> for Allowed {
    type Rejection = Failure;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Self::Rejection> {
        // Only a route behind `guard` has it: anything else is a routing mistake of ours.
        parts
            .extensions
            .get::<Credential>()
            .map(|c| Allowed(c.caller.clone()))
            .ok_or_else(|| {
                tracing::error!(path = %parts.uri.path(), "an operation's handler runs without its access check");
                Failure::new(ErrorCode::Internal, "this route has no access check")
            })
    }
}

/// Refuses `caller` an operation of `access` it may not call (403 naming what it lacks).
pub fn check(access: Access, name: &str, caller: &Caller) -> Result<(), Failure> {
    if caller.may(access) {
        return Ok(());
    }
    let needs = match access {
        Access::Public | Access::Any => "a credential",
        Access::Send => "the `send` scope",
        Access::ReadMessages => "the `read:own` or `read:all` scope",
        Access::ReadAll => "the `read:all` scope (or a person's account)",
        Access::Act => "the `act` scope with a read scope (or the operator role)",
        Access::Resolve => "the `act` and `read:all` scopes (or the operator role)",
        Access::Export => "the `export` scope with a read scope (or the operator role)",
        Access::ExportAll => "the `export` and `read:all` scopes (or the operator role)",
        Access::Admin => "the admin role",
        Access::Person => "a person's signed-in session",
        Access::Metrics => "the `metrics` scope (or the admin role)",
    };
    Err(Failure::new(
        ErrorCode::Forbidden,
        format!("`{name}` needs {needs}; {} does not have it", caller.actor()),
    ))
}

/// The access check in front of every operation of the catalogue: the caller must present a
/// valid credential (401 otherwise), and one the operation allows (403 otherwise). Runs before
/// the request's body is read; the handler gets the caller as [`Allowed`].
pub async fn guard(spec: &'static Spec, state: AppState, request: Request, next: Next) -> Response {
    let (mut parts, body) = request.into_parts();
    if spec.access != Access::Public {
        let credential = match credential(&parts, &state).await {
            Ok(c) => c,
            Err(refused) => return refused.into_response(),
        };
        if let Err(refused) = check(spec.access, spec.name, &credential.caller) {
            return refused.into_response();
        }
        parts.extensions.insert(credential);
    }
    next.run(Request::from_parts(parts, body)).await
}
