//! Connecting to the SMSC and binding (as a transceiver, a transmitter or a receiver), and the
//! trial bind of the Settings screen.

use std::time::Duration;

use futures::{SinkExt, StreamExt};
use rusmpp::pdus::{BindReceiver, BindTransceiver, BindTransmitter};
use rusmpp::tokio_codec::CommandCodec;
use rusmpp::values::InterfaceVersion;
use rusmpp::{Command, CommandId, CommandStatus, Pdu};
use tokio::net::TcpStream;
use tokio_util::codec::Framed;

use super::{BindRole, SessionConfig, Stream, Wire};
use crate::cstr;

/// Why connecting and binding did not give a bound link.
pub(super) enum Bind {
    Refused(u32),
    /// No TCP connection (refused, no route, unknown host).
    Unreachable(String),
    /// Nothing answered in time (the connection or the bind).
    TimedOut(String),
    Failed(String),
    /// TLS was asked for and the handshake failed (a certificate problem, in words).
    Tls(String),
}

/// What a trial bind found (the Settings screen's "test connection").
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Probe {
    /// Bound, then unbound.
    Bound,
    /// The SMSC answered the bind with this command_status.
    Refused(u32),
    /// No TCP connection (refused, no route, unknown host).
    Unreachable(String),
    /// No answer in time.
    TimedOut(String),
    /// Connected, but what came back was not a bind answer.
    Failed(String),
    /// TLS was asked for and the handshake failed: nothing was sent.
    Tls(String),
}

/// Binds once as each role `config`'s binds take (a transceiver; or a transmitter, then a
/// receiver), unbinds, and says how it went: the first trouble, or bound. Its response timeout
/// bounds each step. Nothing is sent but the binds and the unbinds.
pub async fn probe(config: &SessionConfig) -> Probe {
    let mut roles: Vec<BindRole> = config.bind_plan().into_iter().map(|(role, _)| role).collect();
    roles.dedup();
    for role in roles {
        match connect_and_bind(config, role).await {
            Ok(mut framed) => {
                let _ = framed.send(Command::new(CommandStatus::EsmeRok, 2, Pdu::Unbind)).await;
                let _ = tokio::time::timeout(Duration::from_secs(2), framed.next()).await;
            }
            Err(Bind::Refused(status)) => return Probe::Refused(status),
            Err(Bind::TimedOut(e)) => return Probe::TimedOut(e),
            Err(Bind::Unreachable(e)) => return Probe::Unreachable(e),
            Err(Bind::Failed(e)) => return Probe::Failed(e),
            Err(Bind::Tls(e)) => return Probe::Tls(e),
        }
    }
    Probe::Bound
}

/// Connects and binds as `role` (sequence number 1), each step within the response timeout: the
/// bound connection, or why there is none.
pub(super) async fn connect_and_bind(config: &SessionConfig, role: BindRole) -> Result<Wire, Bind> {
    let addr = format!("{}:{}", config.host, config.port);
    let stream = tokio::time::timeout(config.response_timeout, TcpStream::connect(&addr))
        .await
        .map_err(|_| Bind::TimedOut(format!("connecting to {addr} timed out")))?
        .map_err(|e| Bind::Unreachable(format!("cannot connect to {addr}: {e}")))?;
    let _ = stream.set_nodelay(true);
    // With TLS asked for, the bind (and its password) goes out only inside the handshake's
    // channel: a failed handshake ends here, never in clear.
    let stream: Box<dyn Stream> = match &config.tls {
        Some(tls) => Box::new(
            tokio::time::timeout(
                config.response_timeout,
                super::tls::handshake(stream, &config.host, tls),
            )
            .await
            .map_err(|_| Bind::TimedOut(format!("the TLS handshake with {addr} timed out")))?
            .map_err(Bind::Tls)?,
        ),
        None => Box::new(stream),
    };
    let mut framed = Framed::new(stream, CommandCodec::new());
    framed
        .send(Command::new(CommandStatus::EsmeRok, 1, bind_pdu(config, role)))
        .await
        .map_err(|e| Bind::Failed(format!("cannot send the bind: {e}")))?;
    let answer = tokio::time::timeout(config.response_timeout, framed.next())
        .await
        .map_err(|_| Bind::TimedOut("no answer to the bind".into()))?;
    let expected = match role {
        BindRole::Transceiver => CommandId::BindTransceiverResp,
        BindRole::Transmitter => CommandId::BindTransmitterResp,
        BindRole::Receiver => CommandId::BindReceiverResp,
    };
    match answer {
        Some(Ok(c)) if c.id() == expected && c.status() == CommandStatus::EsmeRok => Ok(framed),
        // A refusal may come as a generic_nack.
        Some(Ok(c)) if c.id() == expected || c.id() == CommandId::GenericNack => {
            Err(Bind::Refused(u32::from(c.status())))
        }
        Some(Ok(c)) => Err(Bind::Failed(format!("unexpected answer to the bind: {:?}", c.id()))),
        Some(Err(e)) => Err(Bind::Failed(format!("unreadable answer to the bind: {e}"))),
        None => Err(Bind::Failed("the SMSC closed the connection during the bind".into())),
    }
}

/// The bind as `role` that `config` asks for.
fn bind_pdu(config: &SessionConfig, role: BindRole) -> Pdu {
    let version = if config.interface_version == 0x50 {
        InterfaceVersion::Smpp5_0
    } else {
        InterfaceVersion::Smpp3_4
    };
    macro_rules! bind {
        ($pdu:ident) => {
            $pdu::builder()
                .system_id(cstr(&config.system_id))
                .password(cstr(&config.password))
                .system_type(cstr(&config.system_type))
                .address_range(cstr(&config.address_range))
                .interface_version(version)
                .build()
                .into()
        };
    }
    match role {
        BindRole::Transceiver => bind!(BindTransceiver),
        BindRole::Transmitter => bind!(BindTransmitter),
        BindRole::Receiver => bind!(BindReceiver),
    }
}
