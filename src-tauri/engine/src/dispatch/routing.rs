//! Which connection sends which messages, from moment to moment.
//!
//! Each route lists its connections: the primary, then the failover list. A connection serves a
//! route while every connection listed before it is passed over: disabled, its binds refused by
//! the provider, or not bound for longer than the failover grace (shorter for one-time codes).
//! So the messages waiting for a route go to its first connection that is up, or whose outage is
//! still young enough to wait for; they come back to the primary as soon as it is bound again.
//! A message pinned to a connection (see the queue) never moves, whatever the routes say.
//!
//! An operator's hold passes a connection over at once, like a refusal: draining, it claims
//! only what is pinned to it; disabled, its session is paused as well (see the service).

use std::collections::HashMap;
use std::sync::{Mutex, RwLock};

use tokio::sync::watch;

use crate::config::Config;
use crate::domain::{ConnectionHold, MessageKind};
use crate::queue::Serving;
use crate::smpp::session::LinkState;
use crate::store::tables::connection_hold::HoldRow;

/// The routes (their names and connections in order) and the graces, from the settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RouteTable {
    pub routes: Vec<(String, Vec<String>)>,
    pub grace_ms: i64,
    pub otp_grace_ms: i64,
}

impl RouteTable {
    /// No routes: each connection sends only what is pinned to it or was queued for it without
    /// a route.
    pub fn none() -> RouteTable {
        RouteTable {
            routes: Vec::new(),
            ..RouteTable::from_config(&Config::default())
        }
    }

    pub fn from_config(config: &Config) -> RouteTable {
        RouteTable {
            routes: config
                .route_list()
                .into_iter()
                .map(|r| (r.name, r.connections))
                .collect(),
            grace_ms: i64::from(config.routing.failover_grace_seconds.0) * 1_000,
            otp_grace_ms: i64::from(config.routing.otp_failover_grace_seconds.0) * 1_000,
        }
    }
}

/// How a connection stands for routing.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Standing {
    Up,
    /// Not bound since `since` (ms).
    Down {
        since: i64,
    },
    /// The provider refused its binds: passed over at once.
    Refused {
        name: String,
    },
    /// Disabled, or not a running connection.
    Off,
    /// Held by an operator.
    Held(ConnectionHold),
}

/// The links of the running connections, and when each was last seen leave its bound state.
pub struct Router {
    table: RouteTable,
    links: HashMap<String, watch::Receiver<LinkState>>,
    unbound_since: Mutex<HashMap<String, i64>>,
    holds: RwLock<HashMap<String, HoldRow>>,
}

impl Router {
    /// A router over `links` (the enabled connections' session states), started at `now`: a
    /// connection never bound counts as down since then.
    pub fn new(table: RouteTable, links: Vec<(String, watch::Receiver<LinkState>)>, now: i64) -> Router {
        let unbound_since = links.iter().map(|(name, _)| (name.clone(), now)).collect();
        Router {
            table,
            links: links.into_iter().collect(),
            unbound_since: Mutex::new(unbound_since),
            holds: RwLock::default(),
        }
    }

    /// Puts a hold on its connection, or lifts `connection`'s (None), from now on.
    pub fn set_hold(&self, connection: &str, hold: Option<HoldRow>) {
        let mut holds = self.holds.write().unwrap_or_else(|p| p.into_inner());
        match hold {
            Some(h) => holds.insert(connection.to_owned(), h),
            None => holds.remove(connection),
        };
    }

    /// The hold on `connection`, if any.
    pub fn hold(&self, connection: &str) -> Option<HoldRow> {
        self.holds
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .get(connection)
            .cloned()
    }

    /// What `connection` may claim at `now`: for each route listing it, all its messages, those
    /// of one-time codes only, or none (see the module documentation).
    pub fn serving(&self, connection: &str, now: i64) -> Serving {
        let mut routes = Vec::new();
        if self.hold(connection).is_some() {
            return Serving::queued_for(connection);
        }
        for (route, connections) in &self.table.routes {
            let Some(at) = connections.iter().position(|c| c == connection) else {
                continue;
            };
            let before: Vec<Standing> = connections[..at].iter().map(|c| self.standing(c, now)).collect();
            let passed = |grace: i64| before.iter().all(|s| passed_over(s, now, grace));
            if passed(self.table.grace_ms) {
                routes.push((route.clone(), false));
            } else if passed(self.table.otp_grace_ms) {
                routes.push((route.clone(), true));
            }
        }
        Serving {
            connection: connection.to_owned(),
            routes,
        }
    }

    /// Whether `connection` serves a message of `route` and `kind` now: it is not passed over
    /// itself (down past the grace, its binds refused), and every connection before it in the
    /// route is. One without a route stays on the connection it was queued for, always.
    pub fn takes(&self, route: Option<&str>, kind: MessageKind, connection: &str, now: i64) -> bool {
        let Some(route) = route else { return true };
        let grace = match kind {
            MessageKind::Otp => self.table.otp_grace_ms,
            _ => self.table.grace_ms,
        };
        if passed_over(&self.standing(connection, now), now, grace) {
            return false;
        }
        self.serving(connection, now)
            .routes
            .iter()
            .any(|(r, otp_only)| r == route && (!otp_only || kind == MessageKind::Otp))
    }

    /// Why a message of `route` goes out on `connection`, in words, when that is not the route's
    /// first connection (a failover); None when it is, or for a message without a route.
    pub fn why(&self, route: Option<&str>, connection: &str, now: i64) -> Option<String> {
        let (name, connections) = self.table.routes.iter().find(|(n, _)| Some(n.as_str()) == route)?;
        let at = connections.iter().position(|c| c == connection)?;
        if at == 0 {
            return None;
        }
        let reasons: Vec<String> = connections[..at]
            .iter()
            .map(|c| match self.standing(c, now) {
                Standing::Up => format!("{c} is up"),
                Standing::Down { since } => format!(
                    "{c} not bound since {} ({} s)",
                    crate::clock::format_rfc3339(since),
                    (now - since).max(0) / 1_000
                ),
                Standing::Refused { name } => format!("{c} refused its binds ({name})"),
                Standing::Off => format!("{c} is disabled"),
                Standing::Held(hold) => format!("{c} is {hold} by an operator"),
            })
            .collect();
        Some(format!("route {name:?}, failover: {}", reasons.join("; ")))
    }

    fn standing(&self, connection: &str, now: i64) -> Standing {
        let Some(link) = self.links.get(connection) else {
            return Standing::Off;
        };
        if let Some(h) = self.hold(connection) {
            return Standing::Held(h.hold);
        }
        let state = link.borrow().clone();
        let mut since = self.unbound_since.lock().unwrap_or_else(|p| p.into_inner());
        match state {
            LinkState::Bound { .. } => {
                since.remove(connection);
                Standing::Up
            }
            LinkState::BindRefused { name, .. } => Standing::Refused { name },
            LinkState::Down { since_ms, .. } => {
                let at = since.entry(connection.to_owned()).or_insert(since_ms.min(now));
                *at = (*at).min(since_ms);
                Standing::Down { since: *at }
            }
            _ => Standing::Down {
                since: *since.entry(connection.to_owned()).or_insert(now),
            },
        }
    }
}

/// Whether a connection standing so is passed over by a message whose grace is `grace` ms.
fn passed_over(s: &Standing, now: i64, grace: i64) -> bool {
    match s {
        Standing::Up => false,
        Standing::Down { since } => now - since >= grace,
        Standing::Refused { .. } | Standing::Off | Standing::Held(_) => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table() -> RouteTable {
        RouteTable {
            routes: vec![
                ("default".into(), vec!["primary".into(), "backup".into()]),
                ("shop".into(), vec!["backup".into()]),
            ],
            grace_ms: 60_000,
            otp_grace_ms: 20_000,
        }
    }

    fn down(since_ms: i64) -> LinkState {
        LinkState::Down {
            error: "connection refused".into(),
            since_ms,
            retry_in_ms: 1_000,
        }
    }

    fn bound() -> LinkState {
        LinkState::Bound {
            session_id: "s".into(),
            since_ms: 0,
        }
    }

    #[test]
    fn the_backup_serves_a_route_once_its_primary_is_down_past_the_grace_codes_first() {
        let (primary, p) = watch::channel(bound());
        let (_backup, b) = watch::channel(bound());
        let router = Router::new(table(), vec![("primary".into(), p), ("backup".into(), b)], 0);
        let routes = |now| router.serving("backup", now).routes;
        assert_eq!(routes(1_000), vec![("shop".to_owned(), false)], "the primary is up");
        assert_eq!(
            router.serving("primary", 1_000).routes,
            vec![("default".to_owned(), false)]
        );
        primary.send_replace(down(10_000));
        assert_eq!(routes(29_999), vec![("shop".to_owned(), false)], "within both graces");
        assert_eq!(
            routes(30_000),
            vec![("default".to_owned(), true), ("shop".to_owned(), false)],
            "past the codes' grace: codes only"
        );
        assert_eq!(
            routes(70_000),
            vec![("default".to_owned(), false), ("shop".to_owned(), false)]
        );
        let why = router.why(Some("default"), "backup", 70_000).unwrap();
        assert!(
            why.contains("primary not bound since") && why.contains("(60 s)"),
            "{why}"
        );
        assert_eq!(router.why(Some("default"), "primary", 70_000), None);
        primary.send_replace(bound());
        assert_eq!(
            routes(71_000),
            vec![("shop".to_owned(), false)],
            "back to the primary at once"
        );
    }

    #[test]
    fn a_connection_down_past_the_grace_no_longer_takes_what_it_claimed() {
        let (primary, p) = watch::channel(bound());
        let (_backup, b) = watch::channel(bound());
        let router = Router::new(table(), vec![("primary".into(), p), ("backup".into(), b)], 0);
        let takes = |kind, connection, now| router.takes(Some("default"), kind, connection, now);
        assert!(takes(MessageKind::Bulk, "primary", 1_000));
        assert!(!takes(MessageKind::Bulk, "backup", 1_000));
        primary.send_replace(down(10_000));
        assert!(
            takes(MessageKind::Bulk, "primary", 69_999),
            "within the grace it waits for its link"
        );
        assert!(!takes(MessageKind::Otp, "primary", 30_000), "a code's grace is shorter");
        assert!(!takes(MessageKind::Bulk, "primary", 70_000));
        assert!(takes(MessageKind::Bulk, "backup", 70_000));
        assert!(
            router.takes(None, MessageKind::Bulk, "primary", 70_000),
            "no route: it stays"
        );
    }

    #[test]
    fn refused_binds_and_disabled_connections_are_passed_over_at_once() {
        let (primary, p) = watch::channel(bound());
        let (_backup, b) = watch::channel(bound());
        let router = Router::new(table(), vec![("primary".into(), p), ("backup".into(), b)], 0);
        primary.send_replace(LinkState::BindRefused {
            status: 0x0E,
            name: "ESME_RINVPASWD".into(),
            since_ms: 5,
        });
        assert_eq!(router.serving("backup", 10).routes.len(), 2);
        assert!(router
            .why(Some("default"), "backup", 10)
            .unwrap()
            .contains("ESME_RINVPASWD"));
        let (_b, b) = watch::channel(bound());
        let without_primary = Router::new(table(), vec![("backup".into(), b)], 0);
        assert_eq!(
            without_primary.serving("backup", 1).routes.len(),
            2,
            "a disabled primary"
        );
    }

    #[test]
    fn a_connection_never_bound_counts_as_down_since_the_start() {
        let (_p, p) = watch::channel(LinkState::Connecting { attempt: 1 });
        let (_b, b) = watch::channel(bound());
        let router = Router::new(table(), vec![("primary".into(), p), ("backup".into(), b)], 1_000);
        assert_eq!(
            router.serving("backup", 60_999).routes.len(),
            2,
            "the shop, and the codes by then"
        );
        assert!(router
            .serving("backup", 60_999)
            .routes
            .contains(&("default".to_owned(), true)));
        assert!(router
            .serving("backup", 61_000)
            .routes
            .contains(&("default".to_owned(), false)));
    }

    #[test]
    fn a_held_connection_is_passed_over_at_once_and_claims_only_what_is_pinned_to_it() {
        let (_p, p) = watch::channel(bound());
        let (_b, b) = watch::channel(bound());
        let router = Router::new(table(), vec![("primary".into(), p), ("backup".into(), b)], 0);
        let hold = |h| HoldRow {
            connection: "primary".into(),
            hold: h,
            since_ms: 500,
            actor: "anna".into(),
            note: None,
        };
        for h in [ConnectionHold::Draining, ConnectionHold::Disabled] {
            router.set_hold("primary", Some(hold(h)));
            assert_eq!(router.serving("primary", 1_000), Serving::queued_for("primary"), "{h}");
            assert!(!router.takes(Some("default"), MessageKind::Bulk, "primary", 1_000));
            assert!(
                router.takes(Some("default"), MessageKind::Bulk, "backup", 1_000),
                "no grace for a hold: {h}"
            );
            let why = router.why(Some("default"), "backup", 1_000).unwrap();
            assert!(why.contains(&format!("primary is {h} by an operator")), "{why}");
        }
        router.set_hold("primary", None);
        assert!(router.takes(Some("default"), MessageKind::Bulk, "primary", 1_000));
        assert!(
            !router.takes(Some("default"), MessageKind::Bulk, "backup", 1_000),
            "back at once"
        );
    }
}
