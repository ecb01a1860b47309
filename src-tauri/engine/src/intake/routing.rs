//! The route each message takes: the first of the settings' routes that matches it (see
//! `smsdesk_core::config::Route`). Its connection becomes the route's first, and its route is kept
//! on its queue row for the dispatcher to follow, failover included.

use crate::config::{Route, RouteInput};
use crate::messages::NewMessage;
use crate::said::FieldCode;

use super::{destination, FieldError};

/// Gives `m` its route and its route's first connection, by `routes` in order; `api_key` is the
/// name of the key that handed it in. No routes: it stays queued for the connection intake gave
/// it, without a route (as earlier versions queued).
pub fn route(m: &mut NewMessage, routes: &[Route], api_key: Option<&str>) -> Result<(), FieldError> {
    if routes.is_empty() {
        return Ok(());
    }
    // The country is read only when some route asks for it.
    let country = routes
        .iter()
        .any(|r| !r.countries.is_empty())
        .then(|| destination::country_of(&m.destination))
        .flatten();
    let input = RouteInput {
        destination: &m.destination,
        country: country.as_deref(),
        kind: m.kind,
        api_key,
    };
    let none = |why: String| {
        FieldError::new("destination", FieldCode::NoRoute, why)
            .with("destination", m.destination.clone())
            .with("kind", m.kind.as_str())
    };
    let Some(r) = routes.iter().find(|r| r.matches(&input)) else {
        return Err(none(format!(
            "no route takes a {} message to {}: add a route for it, or a last route without conditions \
             ([[routes]] in the settings)",
            m.kind.as_str(),
            m.destination
        )));
    };
    let Some(first) = r.connections.first() else {
        return Err(none(format!(
            "route {:?} takes this message, but every connection it lists is disabled",
            r.name
        )));
    };
    m.connection = first.clone();
    m.route = Some(r.name.clone());
    Ok(())
}
