//! The SMPP connections messages go out on: how each one stands (its link and binds, an
//! operator's hold, what waits for it, its rate), and the operators' drain, disable and enable.

use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::{Service, ServiceError};
use crate::apikeys::Caller;
use crate::dispatch::routing::Router;
use crate::domain::ConnectionHold;
use crate::pace::sending_limits;
use crate::queue::{self, Serving};
use crate::smpp::session::{BindRole, LinkState, SessionHandle};
use crate::store::tables::connection_hold::{self, HoldRow};

/// A connection, as the dashboard shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS, utoipa::ToSchema)]
pub struct ConnectionStatus {
    /// Its name (`[connections.<name>]`; "sandbox" or "smpp" without them).
    pub connection: String,
    /// True when it is the embedded sandbox SMSC: no real SMS is sent on it.
    pub sandbox: bool,
    /// The session's state now: connecting, bound (since when), down (with the last error and
    /// since when), bind refused, or stopped (disabled). Bound while any sending bind is.
    pub link: LinkState,
    /// Each bind of the connection and its state, in the order they were opened (one, for a lone
    /// transceiver).
    pub binds: Vec<BindStatus>,
    /// An operator's hold on it (none: it sends by the routes).
    pub hold: Option<HoldStatus>,
    /// Messages queued that it would send once due: pinned to it, and those of the routes it
    /// serves now. None where not counted (the health check).
    #[ts(type = "number | null")]
    pub queued: Option<i64>,
    /// Submits written and not yet answered.
    pub under_way: u32,
    /// Submits the SMSC accepted per second on it, over the last minute.
    pub accepted_per_s: f64,
    /// Submits per second at most, shared by its binds.
    pub tps_limit: u32,
    /// Requests awaiting their answer at most: the window of each sending bind, times the binds.
    pub window: u32,
}

/// One bind of the connection, as the dashboard shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
pub struct BindStatus {
    /// Bound as a transceiver, a transmitter or a receiver.
    pub role: BindRole,
    pub link: LinkState,
}

/// An operator's hold on a connection.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
pub struct HoldStatus {
    pub hold: ConnectionHold,
    #[ts(type = "number")]
    pub since_ms: i64,
    /// Who set it.
    pub actor: String,
    pub note: Option<String>,
}

/// What an operator does to a connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ConnectionCommand {
    /// It takes nothing new; its routes' messages go to their next connection at once.
    Drain,
    /// It sends nothing and unbinds once the sends under way had their answers.
    Disable,
    /// It sends by the routes again (and binds again when it was disabled).
    Enable,
}

/// An operator's drain, disable or enable of a connection, with why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
pub struct ConnectionAction {
    /// The connection's name.
    pub connection: String,
    pub command: ConnectionCommand,
    #[serde(default)]
    pub note: Option<String>,
}

impl ConnectionCommand {
    fn hold(self) -> Option<ConnectionHold> {
        match self {
            ConnectionCommand::Drain => Some(ConnectionHold::Draining),
            ConnectionCommand::Disable => Some(ConnectionHold::Disabled),
            ConnectionCommand::Enable => None,
        }
    }
}

/// How long a disable waits at most for the sends under way to be answered before it unbinds,
/// beyond the response timeout (their answers could not come later than that).
const UNBIND_AFTER_ANSWERS_GRACE: Duration = Duration::from_secs(2);

impl Service {
    /// The name of the first connection ("sandbox" or "smpp" without `[connections]`; "" before
    /// one runs).
    pub fn connection_name(&self) -> String {
        self.live()
            .links
            .first()
            .map(|l| l.connection.clone())
            .unwrap_or_default()
    }

    /// The first connection and how it stands now (the only one without `[connections]`).
    pub async fn connection_status(&self) -> Result<ConnectionStatus, ServiceError> {
        self.connections_status()
            .await?
            .into_iter()
            .next()
            .ok_or_else(|| ServiceError::NotFound("an SMPP connection".into()))
    }

    /// Every running connection and how it stands now, in the order the settings list them,
    /// with what waits for each.
    pub async fn connections_status(&self) -> Result<Vec<ConnectionStatus>, ServiceError> {
        let mut all = self.links_status();
        let router = self.live().router;
        let now = self.store.clock().now_ms();
        let serving: Vec<Serving> = all
            .iter()
            .map(|c| match &router {
                Some(r) => r.serving(&c.connection, now),
                None => Serving::queued_for(&c.connection),
            })
            .collect();
        let counts = self
            .store
            .reader()
            .read(move |c| {
                serving
                    .iter()
                    .map(|s| queue::queued_for(c, s))
                    .collect::<Result<Vec<_>, _>>()
            })
            .await?;
        for (c, n) in all.iter_mut().zip(counts) {
            c.queued = Some(n);
        }
        Ok(all)
    }

    /// Every running connection's link, binds, hold and rate (what waits is not counted).
    pub(crate) fn links_status(&self) -> Vec<ConnectionStatus> {
        let live = self.live();
        let limits = self.settings.as_ref().map(|s| s.running());
        live.links
            .iter()
            .map(|l| {
                let own = limits.as_ref().and_then(|c| c.for_connection(&l.connection));
                let limits = own.map(|c| sending_limits(&c.smpp));
                ConnectionStatus {
                    connection: l.connection.clone(),
                    sandbox: l.sandbox,
                    link: l.session.state().borrow().clone(),
                    binds: l
                        .session
                        .binds()
                        .into_iter()
                        .map(|(role, link)| BindStatus { role, link })
                        .collect(),
                    hold: live
                        .router
                        .as_ref()
                        .and_then(|r| r.hold(&l.connection))
                        .map(|h| HoldStatus {
                            hold: h.hold,
                            since_ms: h.since_ms,
                            actor: h.actor,
                            note: h.note,
                        }),
                    queued: None,
                    under_way: l.session.under_way() as u32,
                    accepted_per_s: l.session.accepted_per_s(),
                    tps_limit: limits.map_or_else(|| l.session.limits().1 as u32, |x| x.tps),
                    window: limits.map_or_else(|| l.session.limits().0 as u32, |x| x.window * x.binds),
                }
            })
            .collect()
    }

    /// Drains, disables or enables `connection` (audited, and kept across restarts). A drained
    /// connection takes nothing new; a disabled one unbinds once its sends under way were
    /// answered; either way the messages of its routes go to their next connection at once.
    pub async fn command_connection(&self, caller: &Caller, action: ConnectionAction) -> Result<(), ServiceError> {
        let connection = action.connection.as_str();
        let known = self.known_connections();
        if !known.iter().any(|c| c == connection) {
            return Err(ServiceError::NotFound(format!(
                "connection {connection:?} (the connections are: {})",
                known.join(", ")
            )));
        }
        let hold = action.command.hold();
        let (actor, name, note) = (caller.actor(), connection.to_owned(), action.note.clone());
        let row = self
            .store
            .writer()
            .write(move |tx| {
                connection_hold::set(tx, &name, hold, &actor, note.as_deref())?;
                Ok::<_, crate::store::StoreError>(hold.map(|hold| HoldRow {
                    connection: name,
                    hold,
                    since_ms: tx.now_ms(),
                    actor,
                    note,
                }))
            })
            .await?;
        tracing::info!(connection, command = ?action.command, actor = caller.actor(), "an operator's command on a connection");
        let live = self.live();
        if let Some(router) = &live.router {
            router.set_hold(connection, row);
        }
        if let (Some(link), Some(router)) = (live.links.iter().find(|l| l.connection == connection), live.router) {
            apply_to_session(link.session.clone(), router);
        }
        Ok(())
    }

    /// The connections an operator may command: the running ones, else (no instance runs) those
    /// the settings enable.
    fn known_connections(&self) -> Vec<String> {
        let live = self.live();
        if !live.links.is_empty() {
            return live.links.iter().map(|l| l.connection.clone()).collect();
        }
        match &self.settings {
            Some(s) => s
                .running()
                .connection_list()
                .into_iter()
                .filter(|c| c.enabled)
                .map(|c| c.name)
                .collect(),
            None => self.configured.clone(),
        }
    }

    /// Where no instance runs: each connection the settings enable, and the hold the next start
    /// will find on it.
    pub async fn configured_connections(&self) -> Result<Vec<(String, Option<HoldStatus>)>, ServiceError> {
        let holds = self.store.reader().read(connection_hold::all).await?;
        Ok(self
            .known_connections()
            .into_iter()
            .map(|name| {
                let hold = holds.iter().find(|h| h.connection == name).map(|h| HoldStatus {
                    hold: h.hold,
                    since_ms: h.since_ms,
                    actor: h.actor.clone(),
                    note: h.note.clone(),
                });
                (name, hold)
            })
            .collect())
    }

    /// Installs the router whose holds the operators' commands change.
    pub(crate) fn set_router(&self, router: Option<Arc<Router>>) {
        self.change(|l| l.router = router);
    }
}

/// Pauses the session of a disabled connection once the sends under way on it were answered (or
/// could no longer be), unless it was enabled meanwhile; resumes it otherwise.
fn apply_to_session(session: SessionHandle, router: Arc<Router>) {
    let name = session.connection().to_owned();
    let disabled = move || router.hold(&name).map(|h| h.hold) == Some(ConnectionHold::Disabled);
    if !disabled() {
        session.set_paused(false);
        return;
    }
    tokio::spawn(async move {
        let started = tokio::time::Instant::now();
        let most = session.response_timeout() + UNBIND_AFTER_ANSWERS_GRACE;
        // Two looks in a row with nothing under way: a send given its permit just before the
        // hold has had its turn to begin.
        let mut quiet = 0;
        while quiet < 2 && started.elapsed() < most {
            quiet = if session.under_way() == 0 { quiet + 1 } else { 0 };
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        if disabled() {
            session.set_paused(true);
        }
    });
}
