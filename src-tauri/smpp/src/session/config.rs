//! How to reach and use one SMPP account, and the state of its link as others see it.

use std::time::Duration;

use serde::Serialize;

use smsdesk_core::time::Clock;

/// How to reach and use one SMPP account.
#[derive(Debug, Clone)]
pub struct SessionConfig {
    /// The connection's name (as messages and receipts record it).
    pub connection: String,
    pub host: String,
    pub port: u16,
    pub system_id: String,
    pub password: String,
    pub system_type: String,
    /// The bind's address_range (empty for none).
    pub address_range: String,
    /// 0x34 for SMPP 3.4, 0x50 for 5.0.
    pub interface_version: u8,
    pub enquire_link_every: Duration,
    pub response_timeout: Duration,
    /// Whether each bind sends and receives (transceiver), or sending binds are transmitters and
    /// one receiver bind beside them takes the reports.
    pub bind_mode: BindMode,
    /// Sending binds to open (each with its own window); the rate is shared by all of them.
    pub binds: usize,
    /// Requests awaiting their answer at most, on each sending bind.
    pub window: usize,
    /// Submits per second at most, across every bind of the connection.
    pub tps: f64,
    pub reconnect_min: Duration,
    pub reconnect_max: Duration,
    /// TLS to the SMSC, when set; never a fallback to clear.
    pub tls: Option<super::TlsSettings>,
    /// Where the session reads the time it dates states, writes and reports with.
    pub clock: Clock,
}

impl SessionConfig {
    pub fn new(connection: &str, host: &str, port: u16) -> SessionConfig {
        SessionConfig {
            connection: connection.into(),
            host: host.into(),
            port,
            system_id: "smsdesk".into(),
            password: "smsdesk".into(),
            system_type: String::new(),
            address_range: String::new(),
            interface_version: 0x34,
            bind_mode: BindMode::Transceiver,
            binds: 1,
            enquire_link_every: Duration::from_secs(30),
            response_timeout: Duration::from_secs(10),
            window: 10,
            tps: 10.0,
            reconnect_min: Duration::from_secs(1),
            reconnect_max: Duration::from_secs(60),
            tls: None,
            clock: Clock::system(),
        }
    }
}

/// How a connection's binds divide the work.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum BindMode {
    /// Every bind sends and takes reports.
    #[default]
    Transceiver,
    /// The sending binds are transmitters; one receiver bind takes the reports.
    TransmitterReceiver,
}

/// What one bind is bound as.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize, ts_rs::TS, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum BindRole {
    Transceiver,
    Transmitter,
    Receiver,
}

impl BindRole {
    /// Whether submits go out on a bind of this role.
    pub fn sends(self) -> bool {
        self != BindRole::Receiver
    }

    fn short(self) -> &'static str {
        match self {
            BindRole::Transceiver => "trx",
            BindRole::Transmitter => "tx",
            BindRole::Receiver => "rx",
        }
    }
}

impl SessionConfig {
    /// The binds this connection opens, in order: each one's role and label. The label names the
    /// bind in its session ids; a lone transceiver has none, so its ids read as they always did.
    pub fn bind_plan(&self) -> Vec<(BindRole, String)> {
        let n = self.binds.max(1);
        let sending = match self.bind_mode {
            BindMode::Transceiver => BindRole::Transceiver,
            BindMode::TransmitterReceiver => BindRole::Transmitter,
        };
        let mut plan: Vec<(BindRole, String)> = (1..=n).map(|i| (sending, format!("{}{i}", sending.short()))).collect();
        if self.bind_mode == BindMode::TransmitterReceiver {
            plan.push((BindRole::Receiver, "rx1".into()));
        }
        if plan.len() == 1 {
            plan[0].1.clear();
        }
        plan
    }
}

/// The state of the link, for the dashboard and the dispatcher.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize, ts_rs::TS, utoipa::ToSchema)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum LinkState {
    Connecting {
        attempt: u32,
    },
    Bound {
        session_id: String,
        #[ts(type = "number")]
        since_ms: i64,
    },
    /// Lost or not reachable; trying again after `retry_in_ms`.
    Down {
        error: String,
        #[ts(type = "number")]
        since_ms: i64,
        #[ts(type = "number")]
        retry_in_ms: u64,
    },
    /// The provider refused the credentials (wrong password or system_id): stopped until
    /// reconfigured, rather than hammering the provider.
    BindRefused {
        status: u32,
        name: String,
        #[ts(type = "number")]
        since_ms: i64,
    },
    Stopped,
}
