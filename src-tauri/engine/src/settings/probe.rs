//! "Test connection": a trial bind with unsaved settings, over the engine's own SMPP code.

use crate::said::FieldCode;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use super::credentials::{password_error, system_id_error};
use super::types::{ConnectionTest, ConnectionTestResult, TestOutcome};
use super::{field_error, SettingsError};
use crate::config::{Pin, SettingValue, SmppSettings, SmppVersion};
use crate::sandbox::{Sandbox, SandboxConfig, SandboxTls};
use crate::smpp::session::{pin_of, probe, Probe, SessionConfig, TlsSettings};
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
            .map_err(|e| SettingsError::Invalid(vec![field_error("smpp.interface_version", FieldCode::Invalid, e)]))?,
        None => saved.interface_version,
    };
    let host = t.host.clone().unwrap_or_else(|| saved.host.clone());
    if host.trim().is_empty() {
        return Err(SettingsError::Invalid(vec![field_error(
            "smpp.host",
            FieldCode::Required,
            "a host is needed to test the connection".into(),
        )]));
    }
    let mut tls = tls_for(saved, &t)?;
    // The embedded sandbox is tried where it listens; when it is not the connection now, or TLS
    // is asked of it, a sandbox is started for the test alone (with TLS, on a certificate it
    // makes, which the test pins).
    let mut temporary = None;
    let (host, port) = if t.sandbox.unwrap_or(saved.sandbox) {
        let addr = match (sandbox_addr, &mut tls) {
            (Some(a), None) => a,
            (_, tls) => {
                let (s, pin) = temporary_sandbox(tls.is_some()).await?;
                if let Some(tls) = tls {
                    *tls = TlsSettings {
                        pin_sha256: pin,
                        ..TlsSettings::default()
                    };
                }
                let a = s.tls_addr().unwrap_or(s.addr());
                temporary = Some(s);
                a
            }
        };
        (addr.ip().to_string(), addr.port())
    } else {
        (host.trim().to_owned(), t.port.unwrap_or(saved.port))
    };
    let system_id = t.system_id.clone().unwrap_or_else(|| saved.system_id.clone());
    let sandbox = t.sandbox.unwrap_or(saved.sandbox);
    // What the bind would cut short is refused before trying it.
    let too_long: Vec<_> = [
        t.password.as_deref().and_then(|p| password_error("smpp.password", p)),
        system_id_error("smpp.system_id", &system_id).filter(|_| !sandbox),
    ]
    .into_iter()
    .flatten()
    .collect();
    if !too_long.is_empty() {
        return Err(SettingsError::Invalid(too_long));
    }
    let password = password_for(saved, &t, sandbox, (&host, port, tls.is_some()), &system_id)?;
    let config = SessionConfig {
        system_id,
        password,
        system_type: t.system_type.unwrap_or_else(|| saved.system_type.clone()),
        address_range: t.address_range.unwrap_or_else(|| saved.address_range.clone()),
        interface_version: version.0,
        bind_mode: crate::smpp::bind_mode(saved.bind_mode, sandbox),
        response_timeout: STEP_TIMEOUT,
        tls,
        ..SessionConfig::new("test", &host, port)
    };
    let started = Instant::now();
    let found = probe(&config).await;
    if let Some(s) = temporary {
        s.stop();
    }
    Ok(result(found, format!("{host}:{port}"), started))
}

/// TLS as the test asks, over the saved settings; `None`: in clear.
fn tls_for(saved: &SmppSettings, t: &ConnectionTest) -> Result<Option<TlsSettings>, SettingsError> {
    let mut smpp = saved.clone();
    smpp.tls = t.tls.unwrap_or(saved.tls);
    if let Some(name) = &t.tls_server_name {
        smpp.tls_server_name = name.clone();
    }
    if let Some(file) = &t.tls_ca_file {
        smpp.tls_ca_file = file.clone();
    }
    if let Some(pin) = &t.tls_pin_sha256 {
        smpp.tls_pin_sha256 = Pin::from_env(pin)
            .map_err(|e| SettingsError::Invalid(vec![field_error("smpp.tls_pin_sha256", FieldCode::Invalid, e)]))?;
    }
    Ok(crate::smpp::tls_settings(&smpp))
}

/// A sandbox for one test, serving TLS when asked (with the pin of the certificate it made).
async fn temporary_sandbox(tls: bool) -> Result<(Sandbox, Option<[u8; 32]>), SettingsError> {
    let cert = match tls {
        true => Some(
            SandboxTls::self_signed(&["localhost", "127.0.0.1"])
                .map_err(|e| SettingsError::Sandbox(std::io::Error::other(e)))?,
        ),
        false => None,
    };
    let pin = cert.as_ref().and_then(|c| c.leaf_der().ok()).map(|der| pin_of(&der));
    let sandbox = Sandbox::start(SandboxConfig {
        tls: cert,
        ..SandboxConfig::default()
    })
    .await
    .map_err(SettingsError::Sandbox)?;
    Ok((sandbox, pin))
}

/// The password a trial bind sends: the one typed, else the saved one, but only to where the saved
/// one is sent (the connection's own server: its host, port and system_id, or the embedded
/// sandbox when that is the connection), and over TLS when it is saved for TLS. Anywhere else the
/// saved password would go to a server it was never meant for, or in clear where it was meant to
/// go encrypted: the test asks for the password of that server instead.
fn password_for(
    saved: &SmppSettings,
    t: &ConnectionTest,
    sandbox: bool,
    (host, port, tls): (&str, u16, bool),
    system_id: &str,
) -> Result<String, SettingsError> {
    if let Some(typed) = &t.password {
        return Ok(typed.clone());
    }
    let same_server = if sandbox {
        saved.sandbox
    } else {
        !saved.sandbox && host.eq_ignore_ascii_case(saved.host.trim()) && port == saved.port && (tls || !saved.tls)
    };
    if same_server && system_id == saved.system_id {
        return Ok(saved.password.clone());
    }
    if saved.password.is_empty() || sandbox {
        // Nothing saved to give away; and the embedded sandbox takes any password.
        return Ok(String::new());
    }
    Err(SettingsError::Invalid(vec![field_error(
        "smpp.password",
        FieldCode::Required,
        format!(
            "type the password for this server: the saved password is sent only to {}:{} as {}{}",
            saved.host.trim(),
            saved.port,
            saved.system_id,
            if saved.tls { ", over TLS" } else { "" }
        ),
    )]))
}

/// The answer for people and programs, from how the trial bind went.
fn result(found: Probe, target: String, started: Instant) -> ConnectionTestResult {
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
        Probe::Tls(e) => (TestOutcome::Tls, None, None, e),
    };
    ConnectionTestResult {
        outcome,
        target,
        status,
        status_name,
        message,
        elapsed_ms: started.elapsed().as_millis() as u64,
    }
}
