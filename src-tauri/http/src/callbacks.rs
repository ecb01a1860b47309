//! `POST /api/v1/callbacks/{provider}`: delivery reports from HTTP SMS providers.
//!
//! The provider must be configured (`[callbacks] providers`) and present its secret as
//! `?token=…`, an `X-Smsdesk-Token` header, or a Basic-auth password. The request is stored as
//! evidence (with the secret blanked out) and applied before the provider hears 2xx; a repeat is
//! stored too, de-duplicated, and answered the same way, so a provider that retries until it
//! gets 2xx is satisfied and nothing is counted twice.

use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{header, HeaderMap, Method, StatusCode, Uri};
use axum::Json;

use super::{AppState, Failure};
use smsdesk_engine::api::ErrorCode;
use smsdesk_engine::apikeys::same_secret;
use smsdesk_engine::receipts::ingest::HttpReceived;
use smsdesk_engine::receipts::parse::parse_form;
use smsdesk_engine::service::CallbackAnswer;

/// Query parameter and header that carry the provider's secret.
const TOKEN_PARAM: &str = "token";
const TOKEN_HEADER: &str = "x-smsdesk-token";

/// Receives one provider callback.
#[utoipa::path(method(get, post), path = "/api/v1/callbacks/{provider}", tag = "callbacks",
    params(("provider" = String, Path, description = "The provider's name in `[callbacks] providers`")),
    request_body(content = Option<String>, description = "The provider's report, JSON or form-encoded (or in the query string), exactly as it sends it"),
    security(("provider_token" = []), ("provider_token_header" = [])),
    responses(
        (status = 200, description = "Stored and applied", body = CallbackAnswer),
        (status = 401, description = "Wrong or missing secret: nothing stored", body = smsdesk_engine::api::ApiError),
        (status = 404, description = "No such provider configured", body = smsdesk_engine::api::ApiError),
    ))]
pub async fn receive(
    State(s): State<AppState>,
    Path(provider): Path<String>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Result<(StatusCode, Json<CallbackAnswer>), Failure> {
    // Read per request: providers added or removed in the settings count at once.
    let providers = s.ctx.service.callbacks();
    let Some(conf) = providers.0.get(&provider) else {
        return Err(Failure::new(
            ErrorCode::UnknownProvider,
            format!("no provider `{provider}` is configured in [callbacks] providers"),
        ));
    };
    let query = uri.query().unwrap_or("");
    let presented = token_from_query(query)
        .or_else(|| header_text(&headers, TOKEN_HEADER))
        .or_else(|| basic_password(&headers));
    if !presented.is_some_and(|t| same_secret(&t, &conf.secret)) {
        return Err(Failure::unauthorized("wrong or missing provider secret"));
    }
    let received = HttpReceived {
        provider: conf.preset.clone().unwrap_or_else(|| provider.clone()),
        connection: conf
            .connection
            .clone()
            .unwrap_or_else(|| s.ctx.service.connection_name()),
        method: method.to_string(),
        content_type: header_text(&headers, header::CONTENT_TYPE.as_str()),
        query: redact_query(query),
        headers: headers
            .iter()
            .filter(|(n, _)| *n != header::AUTHORIZATION && n.as_str() != TOKEN_HEADER)
            .map(|(n, v)| (n.to_string(), String::from_utf8_lossy(v.as_bytes()).into_owned()))
            .collect(),
        body: body.to_vec(),
        received_at: s.ctx.service.clock().now_ms(),
    };
    let stored = s.ctx.service.callback(received).await?;
    Ok((StatusCode::OK, Json(CallbackAnswer { received: stored.len() })))
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
