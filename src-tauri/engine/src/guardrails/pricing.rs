//! Each message priced at intake on every connection its route may send it on: the report's entry
//! then costs what the connection that takes it charges.

use super::GuardrailRules;
use crate::intake::IntakeRules;
use crate::messages::NewMessage;

/// The connections `n` may go out on: its route's, else the one it is queued for.
fn connections_of<'a>(n: &'a NewMessage, rules: &'a IntakeRules) -> Vec<&'a str> {
    let route = n
        .route
        .as_deref()
        .and_then(|r| rules.routes.iter().find(|x| x.name == r));
    let mut out: Vec<&str> = route
        .map(|r| r.connections.iter().map(String::as_str).collect())
        .unwrap_or_default();
    if !out.contains(&n.connection.as_str()) {
        out.insert(0, &n.connection);
    }
    out
}

/// Prices each message (`n.prices`) on its connections that have a price for its number.
pub fn price_each(news: &mut [NewMessage], rules: &IntakeRules) {
    let g: &GuardrailRules = &rules.guardrails;
    if g.prices.is_empty() {
        return;
    }
    for n in news.iter_mut() {
        let prices: Vec<(String, i64)> = connections_of(n, rules)
            .into_iter()
            .filter_map(|c| {
                let p = g.prices.get(c)?.lookup(&n.destination, n.country.as_deref())?;
                Some((c.to_owned(), p.0))
            })
            .collect();
        n.prices = prices;
    }
}

/// What `n` is expected to cost when it goes out on the connection it is queued for (millionths).
pub fn cost(n: &NewMessage) -> i64 {
    let price = n.prices.iter().find(|(c, _)| *c == n.connection).map_or(0, |(_, p)| *p);
    i64::from(n.segments) * price
}
