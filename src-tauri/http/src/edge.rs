//! What every request goes through before its route: the `Host` check (a web page must not reach
//! the API by pointing a name of its own at this computer: DNS rebinding).

use std::net::IpAddr;

use axum::extract::{Request, State};
use axum::http::header;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::{AppState, Failure};
use smsdesk_engine::api::ErrorCode;

/// Refuses a request whose `Host` this server does not answer to.
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
