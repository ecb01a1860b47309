//! Who is calling: every route but health needs an API key (`Authorization: Bearer sdk_…`, or an
//! `X-Api-Key` header) or the operator token. A missing, unknown or revoked key gets 401 before
//! anything is read or written.

use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum::http::{header, StatusCode};

use super::{AppState, Failure};
use smsdesk_engine::apikeys::{same_secret, Caller};

/// A request whose caller was recognised.
pub struct Authenticated(pub Caller);

/// A recognised caller with the credential it presented, for long requests that must notice a
/// revocation while they run (the event stream).
pub struct Credential {
    pub caller: Caller,
    pub key: String,
}

/// A request from the operator (the command line on this computer); key management needs it.
pub struct Operator(pub Caller);

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

impl FromRequestParts<AppState> for Operator {
    type Rejection = Failure;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, Self::Rejection> {
        match caller(parts, state).await? {
            Caller::Operator => Ok(Operator(Caller::Operator)),
            Caller::Key { .. } => Err(Failure::new(
                StatusCode::FORBIDDEN,
                "forbidden",
                "API keys are managed by the operator (the desktop app or `smsdesk api-key`), not with an API key",
            )),
        }
    }
}
