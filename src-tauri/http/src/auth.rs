//! Who is calling: every route but health needs an API key (`Authorization: Bearer sdk_…`, or an
//! `X-Api-Key` header) or the operator token. A missing, unknown or revoked key gets 401 before
//! anything is read or written.

use axum::extract::{FromRequestParts, Request};
use axum::http::header;
use axum::http::request::Parts;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::{AppState, Failure};
use smsdesk_engine::api::ErrorCode;
use smsdesk_engine::apikeys::{same_secret, Caller};
use smsdesk_engine::operations::{Access, Spec};

/// A request whose caller was recognised.
pub struct Authenticated(pub Caller);

/// A recognised caller with the credential it presented, for long requests that must notice a
/// revocation while they run (the event stream).
pub struct Credential {
    pub caller: Caller,
    pub key: String,
}

/// The caller of an operation, as its access check let it through (see [`guard`]).
pub struct Allowed(pub Caller);

/// The credential presented, if any.
fn presented(parts: &Parts) -> Option<String> {
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

async fn caller(parts: &Parts, state: &AppState) -> Result<Caller, Failure> {
    credential(parts, state).await.map(|c| c.caller)
}

/// Whether a credential is still valid (not revoked since it was checked).
pub async fn still_valid(state: &AppState, c: &Credential) -> bool {
    match c.caller {
        Caller::Operator => true,
        Caller::Key { .. } => matches!(state.ctx.service.authenticate(c.key.clone()).await, Ok(Some(_))),
    }
}

async fn credential(parts: &Parts, state: &AppState) -> Result<Credential, Failure> {
    let Some(key) = presented(parts) else {
        return Err(Failure::unauthorized(
            "this route needs an API key: send `Authorization: Bearer <key>` (create one with `smsdesk api-key create`)",
        ));
    };
    if same_secret(&key, &state.ctx.operator_token) {
        return Ok(Credential {
            caller: Caller::Operator,
            key,
        });
    }
    match state.ctx.service.authenticate(key.clone()).await {
        Ok(Some(caller)) => Ok(Credential { caller, key }),
        Ok(None) => Err(Failure::unauthorized("unknown or revoked API key")),
        Err(e) => Err(e.into()),
    }
}

impl FromRequestParts<AppState> for Authenticated {
    type Rejection = Failure;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, Self::Rejection> {
        caller(parts, state).await.map(Authenticated)
    }
}

impl FromRequestParts<AppState> for Credential {
    type Rejection = Failure;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, Self::Rejection> {
        credential(parts, state).await
    }
}

impl<S: Send + Sync> FromRequestParts<S> for Allowed {
    type Rejection = Failure;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Self::Rejection> {
        // Only a route behind `guard` has it: anything else is a routing mistake of ours.
        parts.extensions.get::<Caller>().cloned().map(Allowed).ok_or_else(|| {
            tracing::error!(path = %parts.uri.path(), "an operation's handler runs without its access check");
            Failure::new(ErrorCode::Internal, "this route has no access check")
        })
    }
}

/// The access check in front of every operation of the catalogue: the caller must present a
/// valid credential (401 otherwise), and one the operation allows (403 otherwise). Runs before
/// the request's body is read; the handler gets the caller as [`Allowed`].
pub async fn guard(spec: &'static Spec, state: AppState, request: Request, next: Next) -> Response {
    let (mut parts, body) = request.into_parts();
    let caller = match caller(&parts, &state).await {
        Ok(c) => c,
        Err(refused) => return refused.into_response(),
    };
    if !allows(spec.access, &caller) {
        return Failure::new(
            ErrorCode::Forbidden,
            format!(
                "`{}` is the operator's: use the desktop app or `smsdesk` on this computer, not an API key",
                spec.name
            ),
        )
        .into_response();
    }
    parts.extensions.insert(caller);
    next.run(Request::from_parts(parts, body)).await
}

/// Whether `access` lets `caller` in.
pub fn allows(access: Access, caller: &Caller) -> bool {
    match access {
        Access::Key => true,
        Access::Operator => matches!(caller, Caller::Operator),
    }
}
