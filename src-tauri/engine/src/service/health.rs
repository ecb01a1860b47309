//! How this instance is.

use std::time::{Duration, Instant};

use super::Service;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::connections::ConnectionStatus;
use crate::api::AppInfo;
use crate::smpp::session::LinkState;

/// The answer of `GET /api/v1/health`: what a monitor needs to tell a working instance from one
/// that only answers HTTP.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Health {
    pub status: HealthStatus,
    pub version: String,
    pub schema_version: u32,
    pub writer: WriterHealth,
    /// The SMPP connection and its link now; `None` when there is none.
    pub connection: Option<ConnectionStatus>,
    /// When the database's write-ahead log was last copied into the database file.
    #[ts(type = "number | null")]
    pub last_checkpoint_ms: Option<i64>,
    /// Room on the disk that holds the database.
    pub storage: StorageHealth,
    /// Why the status is not `ok`, in words; `None` when it is.
    pub reason: Option<String>,
    /// For admins only: the HTTP connections and event streams open, and their caps.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub door: Option<DoorUse>,
    /// For admins only: the password checks running and waiting, their caps, and how many were
    /// made since start.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub passwords: Option<crate::accounts::hashing::HashingUse>,
}

/// Room on the database's disk: what a monitor's disk rule reads. `short` while the disk is below
/// the reserve (new messages get 503 `storage_full`) or commits fail for want of room.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct StorageHealth {
    /// Below the reserve, or writes failing: what a disk alert fires on.
    pub short: bool,
    /// Free for smsdesk on the database's disk; `None` where it cannot be measured.
    #[ts(type = "number | null")]
    pub free_bytes: Option<u64>,
    /// Kept free for sending and receipts (`store.reserve_mib`).
    #[ts(type = "number")]
    pub reserve_bytes: u64,
    /// Since when writes fail for want of room; `None` while they succeed.
    #[ts(type = "number | null")]
    pub writes_failing_since_ms: Option<i64>,
    /// What the last write refused for want of room said.
    pub error: Option<String>,
}

impl From<crate::store::room::RoomState> for StorageHealth {
    fn from(r: crate::store::room::RoomState) -> Self {
        StorageHealth {
            short: r.short(),
            free_bytes: r.free_bytes,
            reserve_bytes: r.reserve_bytes,
            writes_failing_since_ms: r.failing_since_ms,
            error: r.error,
        }
    }
}

/// The instance as a whole: `unavailable` (HTTP 503) when nothing it is given can be stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum HealthStatus {
    /// Storing and sending.
    Ok,
    /// Storing, but not everything: the SMPP link is not bound (messages wait in the queue), or
    /// the database's disk is short of room (new messages are refused, or writes fail).
    Degraded,
    /// The database writer does not answer: nothing new can be stored.
    Unavailable,
}

/// Whether the database writer takes work: it must run an empty operation within
/// [`WriterHealth::PROBE_TIMEOUT_MS`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct WriterHealth {
    pub answered: bool,
    /// How long it took, when it answered.
    #[ts(type = "number | null")]
    pub answered_in_ms: Option<u64>,
    /// Why it did not answer, when it did not.
    pub error: Option<String>,
}

impl WriterHealth {
    /// How long the writer may take to run a health probe before it is reported stuck.
    pub const PROBE_TIMEOUT_MS: u64 = 2_000;
}

impl Service {
    /// How this instance is: whether the database writer answers (a probe it must run within
    /// [`WriterHealth::PROBE_TIMEOUT_MS`]), the SMPP link, the last WAL checkpoint.
    pub async fn health(&self, info: &AppInfo) -> Health {
        let writer = self.probe_writer().await;
        let connections = self.links_status();
        // Degraded while any connection is not bound: what waits for it does not go out.
        let bound = !connections.is_empty() && connections.iter().all(|c| matches!(c.link, LinkState::Bound { .. }));
        let unbound = connections
            .iter()
            .filter(|c| !matches!(c.link, LinkState::Bound { .. }))
            .map(|c| c.connection.clone())
            .collect::<Vec<_>>();
        let connection = connections.into_iter().next();
        let storage = StorageHealth::from(self.store.room());
        let (status, reason) = status(&writer, &storage, bound, &unbound);
        Health {
            status,
            version: info.version.clone(),
            schema_version: info.schema_version,
            writer,
            connection,
            last_checkpoint_ms: self.store.last_checkpoint_ms(),
            storage,
            reason,
            door: None,
            passwords: None,
        }
    }

    /// Whether the database writer runs a probe within [`WriterHealth::PROBE_TIMEOUT_MS`], and
    /// how fast.
    pub(crate) async fn probe_writer(&self) -> WriterHealth {
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

const MIB: u64 = 1 << 20;

/// Unavailable without a writer (nothing can be recorded); degraded while writes fail for want
/// of room, while the disk is below its reserve (new messages are refused), or without a bound
/// link (nothing goes out); else ok. With the reasons, in words.
fn status(
    writer: &WriterHealth,
    storage: &StorageHealth,
    bound: bool,
    unbound: &[String],
) -> (HealthStatus, Option<String>) {
    if !writer.answered {
        let why = writer.error.clone().unwrap_or_default();
        return (
            HealthStatus::Unavailable,
            Some(format!("the database writer does not answer: {why}")),
        );
    }
    let mut reasons = Vec::new();
    if let Some(since) = storage.writes_failing_since_ms {
        reasons.push(format!(
            "writes fail: the disk holding the database is full (since {})",
            smsdesk_core::time::format_rfc3339(since)
        ));
    }
    if let Some(free) = storage.free_bytes.filter(|&f| f < storage.reserve_bytes) {
        reasons.push(format!(
            "{} MiB free on the disk holding the database, below the {} MiB reserve: new messages are refused",
            free / MIB,
            storage.reserve_bytes / MIB
        ));
    }
    if !bound {
        reasons.push(match unbound {
            [] => "no SMPP connection".to_owned(),
            names => format!("not bound: {}", names.join(", ")),
        });
    }
    if reasons.is_empty() {
        (HealthStatus::Ok, None)
    } else {
        (HealthStatus::Degraded, Some(reasons.join("; ")))
    }
}

/// What the door's connections and event streams take now, and the caps on them, as
/// `GET /api/v1/health` shows admins.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DoorUse {
    /// Connections open now, and the most served at once (`http.max_connections`).
    pub connections: u32,
    pub max_connections: u32,
    /// Of them, those that have not sent their first request's headers yet.
    pub unfinished: u32,
    /// Caps per address (`http.max_connections_per_address`, `http.max_unfinished_per_address`).
    pub max_connections_per_address: u32,
    pub max_unfinished_per_address: u32,
    /// Connections held now by the address that holds the most.
    pub busiest_address_connections: u32,
    /// Connections refused since start because their address held its cap (answered 429).
    #[ts(type = "number")]
    pub refused_connections: u64,
    /// Connections closed since start, before their headers came, to make room for newer ones.
    #[ts(type = "number")]
    pub closed_unfinished: u64,
    /// Event streams open now, and the most one caller may hold (`http.max_streams_per_caller`).
    pub streams: u32,
    pub max_streams_per_caller: u32,
    /// Streams closed since start because their caller opened more than the cap.
    #[ts(type = "number")]
    pub closed_streams: u64,
}
