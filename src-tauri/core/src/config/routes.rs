//! A route (`[[routes]]`): which messages it takes, and the connections they go to.

use crate::domain::MessageKind;

/// One route: which messages (every criterion set must match), and the connections they go to.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Route {
    /// Its name, as the message's timeline shows it ("route 2" when the file gives none).
    pub name: String,
    /// Destination prefixes in international form ("+33", "+3361").
    pub prefixes: Vec<String>,
    /// Destination countries (two-letter codes).
    pub countries: Vec<String>,
    pub kinds: Vec<MessageKind>,
    /// Names of the API keys whose messages it takes (the operator's own have none).
    pub api_keys: Vec<String>,
    /// The primary connection, then the failover list, in order.
    pub connections: Vec<String>,
}

/// What a route looks at in a message.
#[derive(Debug, Clone, Copy)]
pub struct RouteInput<'a> {
    /// In international form, `+` first.
    pub destination: &'a str,
    /// The destination's country, when the number tells it.
    pub country: Option<&'a str>,
    pub kind: MessageKind,
    /// The name of the API key that handed it in.
    pub api_key: Option<&'a str>,
}

impl Route {
    pub fn matches(&self, m: &RouteInput<'_>) -> bool {
        let any = |set: &[String], f: &dyn Fn(&str) -> bool| set.is_empty() || set.iter().any(|v| f(v));
        any(&self.prefixes, &|p| m.destination.starts_with(p))
            && any(&self.countries, &|c| {
                m.country.is_some_and(|mc| mc.eq_ignore_ascii_case(c))
            })
            && (self.kinds.is_empty() || self.kinds.contains(&m.kind))
            && any(&self.api_keys, &|k| m.api_key == Some(k))
    }
}
