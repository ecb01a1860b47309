//! The route each message takes: the first of the settings' routes that matches it (see
//! `smsdesk_core::config::Route`). Its connection becomes the route's first, and its route is kept
//! on its queue row for the dispatcher to follow, failover included.

use crate::config::{Route, RouteInput};
use crate::domain::MessageKind;
use crate::messages::NewMessage;
use crate::said::FieldCode;

use super::FieldError;

/// Gives `m` its route and its route's first connection, by `routes` in order; `api_key` is the
/// name of the key that handed it in. No routes: it stays queued for the connection intake gave
/// it, without a route (as earlier versions queued).
pub fn route(m: &mut NewMessage, routes: &[Route], api_key: Option<&str>) -> Result<(), FieldError> {
    if routes.is_empty() {
        return Ok(());
    }
    let r = choose_route(routes, &m.destination, m.kind, api_key)?;
    // `choose_route` only answers a route with a connection.
    m.connection = r.connections[0].clone();
    m.route = Some(r.name.clone());
    Ok(())
}

/// The first of `routes` that takes a message of `kind` to `destination` (E.164) handed in by the
/// key named `api_key`, and that has a connection to send it on.
pub fn choose_route<'r>(
    routes: &'r [Route],
    destination: &str,
    kind: MessageKind,
    api_key: Option<&str>,
) -> Result<&'r Route, FieldError> {
    // The country is read only when some route asks for it.
    let country = routes
        .iter()
        .any(|r| !r.countries.is_empty())
        .then(|| smsdesk_core::country::country_of(destination))
        .flatten();
    let input = RouteInput {
        destination,
        country: country.as_deref(),
        kind,
        api_key,
    };
    let none = |why: String| {
        FieldError::new("destination", FieldCode::NoRoute, why)
            .with("destination", destination.to_owned())
            .with("kind", kind.as_str())
    };
    let Some(r) = routes.iter().find(|r| r.matches(&input)) else {
        return Err(none(format!(
            "no route takes a {} message to {destination}: add a route for it, or a last route without \
             conditions ([[routes]] in the settings)",
            kind.as_str()
        )));
    };
    if r.connections.is_empty() {
        return Err(none(format!(
            "route {:?} takes this message, but every connection it lists is disabled",
            r.name
        )));
    }
    Ok(r)
}
