//! "Test connection": a trial bind with unsaved settings, over the engine's own SMPP code.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use super::types::{ConnectionTest, ConnectionTestResult, TestOutcome};
use super::{field_error, SettingsError};
use crate::config::{SettingValue, SmppSettings, SmppVersion};
use crate::sandbox::{Sandbox, SandboxConfig};
use crate::smpp::session::{probe, Probe, SessionConfig};
use crate::smpp::status;

/// Each step (connect, bind answer) gets this long: a test answers within seconds.
pub const STEP_TIMEOUT: Duration = Duration::from_secs(5);

pub async fn run(
    saved: &SmppSettings,
    t: ConnectionTest,
    sandbox_addr: Option<SocketAddr>,
) -> Result<ConnectionTestResult, SettingsError> {
    let version = match &t.interface_version {
        Some(v) => SmppVersion::from_env(v)
            .map_err(|e| SettingsError::Invalid(vec![field_error("smpp.interface_version", "invalid", e)]))?,
        None => saved.interface_version,
    };
    let host = t.host.clone().unwrap_or_else(|| saved.host.clone());
    if host.trim().is_empty() {
        return Err(SettingsError::Invalid(vec![field_error(
            "smpp.host",
            "required",
            "a host is needed to test the connection".into(),
        )]));
    }
    // The embedded sandbox is tried where it listens; when it is not the connection now, a
    // sandbox is started for the test alone.
    let mut temporary = None;
    let (host, port) = if t.sandbox.unwrap_or(saved.sandbox) {
        let addr = match sandbox_addr {
            Some(a) => a,
            None => {
                let s = Sandbox::start(SandboxConfig::default())
                    .await
                    .map_err(SettingsError::Sandbox)?;
                let a = s.addr();
                temporary = Some(s);
                a
            }
        };
        (addr.ip().to_string(), addr.port())
    } else {
        (host.trim().to_owned(), t.port.unwrap_or(saved.port))
    };
    let config = SessionConfig {
        system_id: t.system_id.unwrap_or_else(|| saved.system_id.clone()),
        password: t.password.unwrap_or_else(|| saved.password.clone()),
        system_type: t.system_type.unwrap_or_else(|| saved.system_type.clone()),
        address_range: t.address_range.unwrap_or_else(|| saved.address_range.clone()),
        interface_version: version.0,
        response_timeout: STEP_TIMEOUT,
        ..SessionConfig::new("test", &host, port)
    };
    let started = Instant::now();
    let found = probe(&config).await;
    if let Some(s) = temporary {
        s.stop();
    }
    let target = format!("{host}:{port}");
    let (outcome, status, status_name, message) = match found {
        Probe::Bound => (TestOutcome::Bound, None, None, format!("bound to {target} and unbound")),
        Probe::Refused(code) => {
            let info = status::describe(code);
            (
                TestOutcome::Refused,
                Some(code),
                Some(info.name.to_owned()),
                format!("the SMSC refused the bind: {} ({})", info.name, info.meaning),
            )
        }
        Probe::Unreachable(e) => (TestOutcome::Unreachable, None, None, e),
        Probe::TimedOut(e) => (TestOutcome::Timeout, None, None, e),
        Probe::Failed(e) => (TestOutcome::Failed, None, None, e),
    };
    Ok(ConnectionTestResult {
        outcome,
        target,
        status,
        status_name,
        message,
        elapsed_ms: started.elapsed().as_millis() as u64,
    })
}
