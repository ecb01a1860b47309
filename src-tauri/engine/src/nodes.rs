//! The nodes that share the database, as `smsdesk nodes`, the API and the dashboard show them:
//! each with its heartbeat's age (by the database's clock), where it listens, and what it runs.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::instance::stale_ms;
use crate::store::tables::node;
use crate::store::{Reads, StoreError};

/// Whether a node runs, as its heartbeat says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum NodeState {
    /// Its heartbeat moves.
    Alive,
    /// Stopped cleanly.
    Stopped,
    /// Its heartbeat stood still past the staleness: dead to the others, who settled what it was
    /// sending and run its connections.
    Silent,
}

/// What a node runs of one connection, as it last said.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct NodeRun {
    pub connection: String,
    /// Binds it opens (0: another node runs the connection).
    pub binds: u32,
    /// Binds bound then.
    pub bound: u32,
    /// Its share of the connection's rate, in submits per second.
    pub tps: f64,
    /// Submits accepted per second over the last minute.
    pub accepted_per_s: f64,
}

/// One node.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct NodeView {
    pub name: String,
    pub state: NodeState,
    pub host: String,
    pub pid: u32,
    pub version: String,
    /// Where it listens, once it does.
    pub http_url: Option<String>,
    /// By the database's clock, as every time here.
    #[ts(type = "number")]
    pub started_at_ms: i64,
    /// Since its last heartbeat.
    #[ts(type = "number")]
    pub silent_ms: i64,
    pub runs: Vec<NodeRun>,
}

/// Every node recorded, by name (`now`: the store's clock, which stands for the database's on
/// SQLite). A read.
pub fn read(conn: &impl Reads, now: i64) -> Result<Vec<NodeView>, StoreError> {
    Ok(node::all(conn, now, stale_ms())?.into_iter().map(view).collect())
}

/// How a node's row reads.
pub fn view(n: node::Node) -> NodeView {
    NodeView {
        state: match (n.stopped_at_ms, n.alive) {
            (Some(_), _) => NodeState::Stopped,
            (None, true) => NodeState::Alive,
            (None, false) => NodeState::Silent,
        },
        runs: match n.stopped_at_ms {
            Some(_) => Vec::new(),
            None => serde_json::from_str(&n.runs).unwrap_or_default(),
        },
        name: n.name,
        host: n.host,
        pid: n.pid,
        version: n.version,
        http_url: n.http_url,
        started_at_ms: n.started_at_ms,
        silent_ms: n.silent_ms.max(0),
    }
}
