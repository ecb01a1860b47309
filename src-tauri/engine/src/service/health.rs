//! The SMPP connection messages go out on, and how this instance is.

use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::{Service, ServiceError};
use crate::api::{AppInfo, Health, HealthStatus, WriterHealth};
use crate::smpp::session::{BindRole, LinkState};

/// The SMPP connection messages go out on, as the dashboard shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
pub struct ConnectionStatus {
    /// Its name (`[connections.<name>]`; "sandbox" or "smpp" without them).
    pub connection: String,
    /// True when it is the embedded sandbox SMSC: no real SMS is sent on it.
    pub sandbox: bool,
    /// The session's state now: connecting, bound (since when), down (with the last error and
    /// since when), bind refused, or stopped. Bound while any sending bind is.
    pub link: LinkState,
    /// Each bind of the connection and its state, in the order they were opened (one, for a lone
    /// transceiver).
    pub binds: Vec<BindStatus>,
}

/// One bind of the connection, as the dashboard shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
pub struct BindStatus {
    /// Bound as a transceiver, a transmitter or a receiver.
    pub role: BindRole,
    pub link: LinkState,
}

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

    /// The first connection and its link state now (the only one without `[connections]`).
    pub fn connection_status(&self) -> Result<ConnectionStatus, ServiceError> {
        self.connections_status()
            .into_iter()
            .next()
            .ok_or_else(|| ServiceError::NotFound("an SMPP connection".into()))
    }

    /// Every running connection and its link state now, in the order the settings list them.
    pub fn connections_status(&self) -> Vec<ConnectionStatus> {
        self.live()
            .links
            .iter()
            .map(|l| ConnectionStatus {
                connection: l.connection.clone(),
                sandbox: l.sandbox,
                link: l.session.state().borrow().clone(),
                binds: l
                    .session
                    .binds()
                    .into_iter()
                    .map(|(role, link)| BindStatus { role, link })
                    .collect(),
            })
            .collect()
    }

    /// How this instance is: whether the database writer answers (a probe it must run within
    /// [`WriterHealth::PROBE_TIMEOUT_MS`]), the SMPP link, the last WAL checkpoint.
    pub async fn health(&self, info: &AppInfo) -> Health {
        let writer = self.probe_writer().await;
        let connections = self.connections_status();
        // Degraded while any connection is not bound: what waits for it does not go out.
        let bound = !connections.is_empty() && connections.iter().all(|c| matches!(c.link, LinkState::Bound { .. }));
        let connection = connections.into_iter().next();
        Health {
            status: status(&writer, bound),
            version: info.version.clone(),
            schema_version: info.schema_version,
            writer,
            connection,
            last_checkpoint_ms: self.store.last_checkpoint_ms(),
        }
    }

    /// Whether the database writer runs a probe within [`WriterHealth::PROBE_TIMEOUT_MS`], and
    /// how fast.
    async fn probe_writer(&self) -> WriterHealth {
        let started = Instant::now();
        let probe = tokio::time::timeout(
            Duration::from_millis(WriterHealth::PROBE_TIMEOUT_MS),
            self.store.writer().probe(),
        )
        .await;
        match probe {
            Ok(Ok(())) => WriterHealth {
                answered: true,
                answered_in_ms: Some(started.elapsed().as_millis() as u64),
                error: None,
            },
            Ok(Err(e)) => WriterHealth {
                answered: false,
                answered_in_ms: None,
                error: Some(e.to_string()),
            },
            Err(_) => WriterHealth {
                answered: false,
                answered_in_ms: None,
                error: Some(format!(
                    "no answer within {} ms: it is busy with an operation that does not end, or stuck",
                    WriterHealth::PROBE_TIMEOUT_MS
                )),
            },
        }
    }
}

/// Unavailable without a writer (nothing can be recorded), degraded without a bound link
/// (nothing goes out), else ok.
fn status(writer: &WriterHealth, bound: bool) -> HealthStatus {
    match (writer.answered, bound) {
        (false, _) => HealthStatus::Unavailable,
        (true, false) => HealthStatus::Degraded,
        (true, true) => HealthStatus::Ok,
    }
}
