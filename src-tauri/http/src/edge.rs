//! What every request goes through before its route: the `Host` check (a web page must not reach
//! the API by pointing a name of its own at this computer: DNS rebinding), the length of its
//! address, and, on the way out, every refusal as `{code, message}` JSON, also those the
//! framework makes itself (an unknown method, a timeout, a body too large, a bad path). And what
//! the routes that take a body from anyone (sign-in, the setup link) read of it: a little, soon.

use std::net::IpAddr;
use std::time::Duration;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{header, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::{AppState, Failure};
use smsdesk_engine::api::ErrorCode;

/// The longest request address (path and query) answered; longer ones get 414. Well below
/// hyper's own limit, whose answer is an empty 414.
pub const MAX_URI_BYTES: usize = 8 * 1024;

/// The largest body a route open to anyone reads (a name and a password are far smaller).
pub const MAX_OPEN_BODY_BYTES: usize = 16 * 1024;
/// How long such a route waits for its whole body: a person's browser sends it at once.
pub const OPEN_BODY_DEADLINE: Duration = Duration::from_secs(5);

/// Reads the body of a route open to anyone (no credential needed: sign-in, the setup link)
/// before the route does, at most [`MAX_OPEN_BODY_BYTES`] within [`OPEN_BODY_DEADLINE`]: a
/// client without any credential holds neither memory nor a connection with a large or slow
/// body. A declared length over the limit is refused from the head. While the body comes, the
/// connection counts as one without its headers: a full server may close it to make room.
pub async fn small_body(request: Request, next: Next) -> Response {
    let (parts, body) = request.into_parts();
    let ticket = parts.extensions.get::<std::sync::Arc<crate::gate::Ticket>>().cloned();
    let started = ticket.map(|t| {
        t.unfinished_again();
        Started(t)
    });
    let too_large = || {
        Failure::new(
            ErrorCode::TooLarge,
            format!("this route takes a body of at most {MAX_OPEN_BODY_BYTES} bytes"),
        )
        .into_response()
    };
    let declared = parts
        .headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok());
    if declared.is_some_and(|n| n > MAX_OPEN_BODY_BYTES as u64) {
        return too_large();
    }
    let read = tokio::time::timeout(OPEN_BODY_DEADLINE, axum::body::to_bytes(body, MAX_OPEN_BODY_BYTES)).await;
    drop(started);
    match read {
        Ok(Ok(bytes)) => next.run(Request::from_parts(parts, Body::from(bytes))).await,
        Ok(Err(_)) => too_large(),
        Err(_) => Failure::new(
            ErrorCode::RequestTimeout,
            format!(
                "the body did not arrive whole within {} s",
                OPEN_BODY_DEADLINE.as_secs()
            ),
        )
        .into_response(),
    }
}

/// Marks its connection started again when dropped: once the body is read, or given up.
struct Started(std::sync::Arc<crate::gate::Ticket>);

impl Drop for Started {
    fn drop(&mut self) {
        self.0.started();
    }
}

/// Refuses a request whose `Host` this server does not answer to, or whose address is too long.
pub async fn check(State(s): State<AppState>, request: Request, next: Next) -> Response {
    // A request names its host in its `Host` header, and may in its address too: each must be
    // one this server answers to. One without either (HTTP/1.0) comes from no browser.
    let header = request
        .headers()
        .get(header::HOST)
        .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned());
    let in_uri = request.uri().authority().map(|a| a.as_str().to_owned());
    if let Some(host) = header
        .into_iter()
        .chain(in_uri)
        .find(|h| !host_allowed(h, &s.ctx.allowed_hosts))
    {
        tracing::info!(%host, path = %request.uri().path(), "refused a request for a host this server does not answer to");
        return Failure::new(
            ErrorCode::HostNotAllowed,
            format!("this server does not answer to `{host}`: use its IP address, localhost, or a name in http.allowed_hosts"),
        )
        .into_response();
    }
    let length = request.uri().path_and_query().map_or(0, |p| p.as_str().len());
    if length > MAX_URI_BYTES {
        return Failure::new(
            ErrorCode::UriTooLong,
            format!("the request's address is {length} bytes long; this server takes at most {MAX_URI_BYTES}"),
        )
        .into_response();
    }
    next.run(request).await
}

/// `host[:port]` or `[v6]:port` without the port (and the brackets).
fn host_of(authority: &str) -> &str {
    let authority = authority.trim();
    let authority = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    if let Some(rest) = authority.strip_prefix('[') {
        return rest.split_once(']').map_or(rest, |(h, _)| h);
    }
    match authority.rsplit_once(':') {
        Some((h, port)) if port.chars().all(|c| c.is_ascii_digit()) => h,
        _ => authority,
    }
}

/// IP addresses cannot be rebound to another computer, and `localhost` names this one: both are
/// always answered, and the names the operator listed.
fn host_allowed(authority: &str, allowed: &[String]) -> bool {
    let host = host_of(authority);
    let name = host.trim_end_matches('.');
    host.parse::<IpAddr>().is_ok()
        || name.eq_ignore_ascii_case("localhost")
        || allowed.iter().any(|a| a.eq_ignore_ascii_case(name))
}

/// Gives a refusal made without our `{code, message}` body (by the framework: 405, 408, 413, a
/// path that does not parse) that body, with the code of its status; the framework's text, if
/// any, becomes the message.
pub async fn json_errors(request: Request, next: Next) -> Response {
    let (method, path) = (request.method().clone(), request.uri().path().to_owned());
    let response = next.run(request).await;
    let status = response.status();
    let is_json = response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"));
    if !(status.is_client_error() || status.is_server_error()) || is_json {
        return response;
    }
    let (mut parts, body) = response.into_parts();
    let text = axum::body::to_bytes(body, 4096)
        .await
        .map(|b| String::from_utf8_lossy(&b).trim().to_owned())
        .unwrap_or_default();
    let failure = failure_for(status, &method, &path, text);
    let fixed = failure.into_response();
    parts.status = fixed.status();
    parts.headers.remove(header::CONTENT_LENGTH);
    let (fixed_parts, fixed_body) = fixed.into_parts();
    parts.headers.extend(fixed_parts.headers);
    Response::from_parts(parts, Body::new(fixed_body))
}

fn failure_for(status: StatusCode, method: &Method, path: &str, text: String) -> Failure {
    let said = |fallback: String| if text.is_empty() { fallback } else { text.clone() };
    match status {
        StatusCode::NOT_FOUND => Failure::new(ErrorCode::NotFound, said(format!("nothing at {path}"))),
        StatusCode::METHOD_NOT_ALLOWED => Failure::new(
            ErrorCode::MethodNotAllowed,
            format!("{path} does not take {method} (the Allow header lists what it takes)"),
        ),
        StatusCode::REQUEST_TIMEOUT => Failure::new(
            ErrorCode::RequestTimeout,
            "the request was not answered in time (http.request_timeout_seconds): if it changed something, it may have been committed; send it again with the same Idempotency-Key",
        ),
        StatusCode::PAYLOAD_TOO_LARGE => Failure::new(
            ErrorCode::TooLarge,
            "the request body is larger than this server accepts (http.max_body_kib)",
        ),
        StatusCode::URI_TOO_LONG => Failure::new(ErrorCode::UriTooLong, said("the request's address is too long".into())),
        s if s.is_server_error() => {
            tracing::error!(status = %s, %path, error = %text, "a request failed without an answer of ours");
            Failure::new(ErrorCode::Internal, "something failed on our side (logged)")
        }
        _ => Failure::new(ErrorCode::BadRequest, said(format!("{method} {path} was refused ({status})"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ip_addresses_localhost_and_listed_names_are_answered_and_nothing_else() {
        let listed = vec!["desk.example.com".to_owned()];
        for ok in [
            "127.0.0.1:8470",
            "127.0.0.1",
            "[::1]:8470",
            "[::1]",
            "192.168.1.20:8470",
            "localhost:8470",
            "LOCALHOST.",
            "desk.example.com:8470",
            "Desk.Example.com",
        ] {
            assert!(host_allowed(ok, &listed), "{ok} must be answered");
        }
        for refused in [
            "evil.example",
            "evil.example:8470",
            "localhost.evil.example",
            "127.0.0.1.evil.example",
            "example.com",
            "",
        ] {
            assert!(!host_allowed(refused, &listed), "{refused} must be refused");
        }
    }
}
