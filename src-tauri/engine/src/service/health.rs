//! How this instance is.

use std::time::{Duration, Instant};

use super::Service;
use crate::api::{AppInfo, Health, HealthStatus, WriterHealth};
use crate::smpp::session::LinkState;

impl Service {
    /// How this instance is: whether the database writer answers (a probe it must run within
    /// [`WriterHealth::PROBE_TIMEOUT_MS`]), the SMPP link, the last WAL checkpoint.
    pub async fn health(&self, info: &AppInfo) -> Health {
        let writer = self.probe_writer().await;
        let connections = self.links_status();
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
