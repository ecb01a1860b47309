//! `POST /api/v1/callbacks/{provider}`: delivery reports from HTTP SMS providers, and
//! `POST /api/v1/callbacks/{provider}/inbound`: the messages from handsets they pass on (see
//! [`inbound`](smsdesk_engine::receipts::parse::parse_inbound) for what each preset reads).
//!
//! The provider must be configured (`[callbacks] providers`) and present its secret as
//! `?token=…`, an `X-Smsdesk-Token` header, or a Basic-auth password. Both are checked from the
//! request's head, before a byte of its body is read, and an unknown provider is answered exactly
//! as a wrong secret (which it was is logged): a caller without the secret learns nothing, and
//! costs nothing but its head. The body may be at most `http.callback_max_body_kib`. The request
//! is stored as evidence (with every provider secret blanked out wherever it appears, see
//! [`scrub`](crate::scrub)) and applied (a message filed in the inbox) before the provider hears
//! 2xx; a repeat is stored too, de-duplicated, and answered the same way, so a provider that
//! retries until it gets 2xx is satisfied and nothing is counted (or filed) twice.

use axum::body::{Body, Bytes};
use axum::extract::{Path, Request, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use futures::StreamExt;

use super::scrub::{scrub, scrub_text};
use super::{AppState, Failure};
use smsdesk_engine::api::ErrorCode;
use smsdesk_engine::config::CallbackProviders;
use smsdesk_engine::receipts::ingest::{HttpReceived, Ingested};
use smsdesk_engine::receipts::parse::{inbound_ack, parse_form};
use smsdesk_engine::service::CallbackAnswer;
use smsdesk_engine::tokens::same_secret;

/// Query parameter and header that carry the provider's secret.
const TOKEN_PARAM: &str = "token";
const TOKEN_HEADER: &str = "x-smsdesk-token";

/// Headers that carry credentials: never kept, whatever they hold.
const CREDENTIAL_HEADERS: [&str; 3] = ["authorization", "proxy-authorization", TOKEN_HEADER];

/// Receives one provider callback.
#[utoipa::path(method(get, post), path = "/api/v1/callbacks/{provider}", tag = "callbacks",
    params(("provider" = String, Path, description = "The provider's name in `[callbacks] providers`")),
    request_body(content = Option<String>, description = "The provider's report, JSON or form-encoded (or in the query string), exactly as it sends it"),
    security(("provider_token" = []), ("provider_token_header" = [])),
    responses(
        (status = 200, description = "Stored and applied", body = CallbackAnswer),
        (status = 401, description = "`unauthorized`: no such provider, or a wrong or missing secret (the same answer for both): nothing read or stored", body = smsdesk_engine::api::ApiError),
        (status = 413, description = "`too_large`: the body is larger than `http.callback_max_body_kib`: nothing stored", body = smsdesk_engine::api::ApiError),
    ))]
pub async fn receive(
    State(s): State<AppState>,
    Path(provider): Path<String>,
    request: Request,
) -> Result<(StatusCode, Json<CallbackAnswer>), Failure> {
    let (_, stored) = store(&s, &provider, request, false).await?;
    Ok((StatusCode::OK, Json(CallbackAnswer { received: stored.len() })))
}

/// Receives messages from handsets that a provider posts (its inbound webhook): admitted, kept
/// and answered as its reports are, and filed in the inbox before the answer.
#[utoipa::path(method(get, post), path = "/api/v1/callbacks/{provider}/inbound", tag = "callbacks",
    params(("provider" = String, Path, description = "The provider's name in `[callbacks] providers`")),
    request_body(content = Option<String>, description = "The provider's message from a handset, JSON or form-encoded (or in the query string), exactly as it sends it"),
    security(("provider_token" = []), ("provider_token_header" = [])),
    responses(
        (status = 200, description = "Stored and filed in the inbox (a message posted again is stored, not filed twice). Jasmin is answered `ACK/Jasmin`, Kannel an empty body, Twilio and Plivo an empty `<Response></Response>`; the others this JSON", body = CallbackAnswer),
        (status = 401, description = "`unauthorized`: no such provider, or a wrong or missing secret (the same answer for both): nothing read or stored", body = smsdesk_engine::api::ApiError),
        (status = 413, description = "`too_large`: the body is larger than `http.callback_max_body_kib`: nothing stored", body = smsdesk_engine::api::ApiError),
    ))]
pub async fn receive_inbound(
    State(s): State<AppState>,
    Path(provider): Path<String>,
    request: Request,
) -> Result<Response, Failure> {
    let (preset, stored) = store(&s, &provider, request, true).await?;
    Ok(match inbound_ack(&preset) {
        Some((content_type, body)) => (StatusCode::OK, [(header::CONTENT_TYPE, content_type)], body).into_response(),
        None => (StatusCode::OK, Json(CallbackAnswer { received: stored.len() })).into_response(),
    })
}

/// Admits a provider's callback, reads it and hands it to the engine; once it is stored: the
/// preset that read it, and what became of each report or message in it.
async fn store(
    s: &AppState,
    provider: &str,
    request: Request,
    inbound: bool,
) -> Result<(String, Vec<Ingested>), Failure> {
    // Read per request: providers added or removed in the settings count at once.
    let providers = s.ctx.service.callbacks();
    let (parts, body) = request.into_parts();
    let query = parts.uri.query().unwrap_or("");
    let conf = admit(&providers, provider, query, &parts.headers)?;
    let body = read_body(body, &parts.headers, s.ctx.limits.max_callback_body_bytes).await?;
    let secrets: Vec<&str> = providers.0.values().map(|p| p.secret.trim()).collect();
    let preset = conf.preset.clone().unwrap_or_else(|| provider.to_owned());
    let received = HttpReceived {
        provider: preset.clone(),
        inbound,
        connection: conf
            .connection
            .clone()
            .unwrap_or_else(|| s.ctx.service.connection_name()),
        method: parts.method.to_string(),
        content_type: header_text(&parts.headers, header::CONTENT_TYPE.as_str()).map(|t| scrub_text(&t, &secrets)),
        query: scrub_text(&redact_query(query), &secrets),
        headers: parts
            .headers
            .iter()
            .filter(|(n, _)| !CREDENTIAL_HEADERS.contains(&n.as_str()))
            .map(|(n, v)| {
                (
                    n.to_string(),
                    scrub_text(&String::from_utf8_lossy(v.as_bytes()), &secrets),
                )
            })
            .collect(),
        body: scrub(&body, &secrets),
        received_at: s.ctx.service.clock().now_ms(),
    };
    Ok((preset, s.ctx.service.callback(received).await?))
}

/// The provider's entry, when it is configured and the head presents its secret. An unknown
/// provider and a wrong secret get the same answer, after the same work.
fn admit<'p>(
    providers: &'p CallbackProviders,
    provider: &str,
    query: &str,
    headers: &HeaderMap,
) -> Result<&'p smsdesk_engine::config::CallbackProvider, Failure> {
    /// Compared with when the provider is unknown, so that answer takes as long as the other.
    const NO_SECRET: &str = "no provider has this secret, it is only compared with";
    let conf = providers.0.get(provider);
    let presented = token_from_query(query)
        .or_else(|| header_text(headers, TOKEN_HEADER))
        .or_else(|| basic_password(headers));
    let expected = conf.map_or(NO_SECRET, |c| c.secret.as_str());
    let matches = presented.as_deref().is_some_and(|t| same_secret(t, expected));
    match conf {
        Some(conf) if matches => Ok(conf),
        _ => {
            let reason = match (conf, presented) {
                (None, _) => "no such provider is configured",
                (Some(_), None) => "no secret presented",
                (Some(_), Some(_)) => "wrong secret",
            };
            let name: String = provider.chars().take(64).collect();
            tracing::warn!(provider = %name, reason, "refused a provider callback");
            Err(Failure::unauthorized(
                "unknown provider, or a wrong or missing provider secret",
            ))
        }
    }
}

/// The body, when it is no larger than `limit`: a declared length over it is refused before a
/// byte is read, and reading stops as soon as the limit is passed.
async fn read_body(body: Body, headers: &HeaderMap, limit: usize) -> Result<Bytes, Failure> {
    let too_large = || {
        Failure::new(
            ErrorCode::TooLarge,
            format!(
                "a provider's report may be at most {} KiB (http.callback_max_body_kib)",
                limit / 1024
            ),
        )
    };
    let declared = header_text(headers, header::CONTENT_LENGTH.as_str()).and_then(|l| l.parse::<u64>().ok());
    if declared.is_some_and(|l| l > limit as u64) {
        return Err(too_large());
    }
    let mut chunks = body.into_data_stream();
    let mut read = Vec::new();
    while let Some(chunk) = chunks.next().await {
        let chunk = chunk.map_err(|e| {
            Failure::new(
                ErrorCode::BadRequest,
                format!("the report's body could not be read: {e}"),
            )
        })?;
        if read.len() + chunk.len() > limit {
            return Err(too_large());
        }
        read.extend_from_slice(&chunk);
    }
    Ok(Bytes::from(read))
}

fn header_text(headers: &HeaderMap, name: &str) -> Option<String> {
    headers
        .get(name)
        .and_then(|v| v.to_str().ok())
        .map(|v| v.trim().to_owned())
}

fn token_from_query(query: &str) -> Option<String> {
    parse_form(query)
        .into_iter()
        .find(|(k, _)| k == TOKEN_PARAM)
        .map(|(_, v)| v)
}

/// The query as received, with the secret's value blanked: evidence must not hold credentials.
fn redact_query(query: &str) -> String {
    query
        .split('&')
        .map(|pair| match pair.split_once('=') {
            Some((k, _)) if parse_form(k).first().is_some_and(|(name, _)| name == TOKEN_PARAM) => {
                format!("{k}=REDACTED")
            }
            _ => pair.to_owned(),
        })
        .collect::<Vec<_>>()
        .join("&")
}

fn basic_password(headers: &HeaderMap) -> Option<String> {
    let v = header_text(headers, header::AUTHORIZATION.as_str())?;
    let (scheme, data) = v.split_once(' ')?;
    if !scheme.eq_ignore_ascii_case("basic") {
        return None;
    }
    let decoded = base64_decode(data.trim())?;
    let text = String::from_utf8(decoded).ok()?;
    text.split_once(':').map(|(_, p)| p.to_owned())
}

fn base64_decode(s: &str) -> Option<Vec<u8>> {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = Vec::with_capacity(s.len() * 3 / 4);
    let (mut acc, mut bits) = (0u32, 0u32);
    for c in s.bytes().filter(|c| *c != b'=') {
        let v = ALPHABET.iter().position(|a| *a == c)? as u32;
        acc = (acc << 6) | v;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_token_is_found_in_the_query_and_blanked_from_the_evidence() {
        let q = "messageId=0B00&status=delivered&token=s%2Bcret";
        assert_eq!(token_from_query(q).as_deref(), Some("s+cret"));
        assert_eq!(redact_query(q), "messageId=0B00&status=delivered&token=REDACTED");
        assert_eq!(token_from_query("messageId=1"), None);
    }

    #[test]
    fn a_basic_auth_password_is_read() {
        let mut h = HeaderMap::new();
        // "vonage:long-secret-value" in base64.
        h.insert(
            header::AUTHORIZATION,
            "Basic dm9uYWdlOmxvbmctc2VjcmV0LXZhbHVl".parse().unwrap(),
        );
        assert_eq!(basic_password(&h).as_deref(), Some("long-secret-value"));
        h.insert(header::AUTHORIZATION, "Basic !!!".parse().unwrap());
        assert_eq!(basic_password(&h), None);
    }

    #[test]
    fn an_escaped_token_name_is_found_and_blanked_too() {
        let q = "t%6Fken=s3cret&x=%41";
        assert_eq!(token_from_query(q).as_deref(), Some("s3cret"));
        assert_eq!(redact_query(q), "t%6Fken=REDACTED&x=%41");
    }
}
