//! SMPP as the engine uses it: the session (`smsdesk_smpp`), what command statuses mean
//! (`smsdesk_core::command_status`), and where the session's inbound reports go.

use std::future::Future;
use std::pin::Pin;

pub use smsdesk_core::command_status as status;
pub use smsdesk_smpp::{cstr, session};

use crate::config::{BindModeSetting, SmppSettings};
use crate::receipts::ingest::{Ingestor, SmppReceived};
use session::{BindMode, InboundHandler, TlsSettings};

/// The bind mode a connection's session opens with: the setting's, but always a lone transceiver
/// with the embedded sandbox.
pub fn bind_mode(setting: BindModeSetting, sandbox: bool) -> BindMode {
    match setting {
        _ if sandbox => BindMode::Transceiver,
        BindModeSetting::Transceiver => BindMode::Transceiver,
        BindModeSetting::TransmitterReceiver => BindMode::TransmitterReceiver,
    }
}

/// How a connection's session shakes hands over TLS, from its settings; `None` when it binds in
/// clear.
pub fn tls_settings(smpp: &SmppSettings) -> Option<TlsSettings> {
    let path = |p: &str| Some(p.trim()).filter(|p| !p.is_empty()).map(std::path::PathBuf::from);
    smpp.tls.then(|| TlsSettings {
        ca_file: path(&smpp.tls_ca_file),
        server_name: Some(smpp.tls_server_name.trim().to_owned()).filter(|n| !n.is_empty()),
        client_cert_file: path(&smpp.tls_client_cert_file),
        client_key_file: path(&smpp.tls_client_key_file),
        pin_sha256: smpp.tls_pin_sha256.0,
    })
}

#[cfg(test)]
mod binds_tests;
#[cfg(test)]
mod connections_tests;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tls_tests;

/// The ingestor stores a session's reports in the order they arrived; each is acknowledged to the
/// SMSC only once it is committed.
impl InboundHandler for Ingestor {
    fn deliver(&self, reports: Vec<SmppReceived>) -> Pin<Box<dyn Future<Output = Vec<bool>> + Send + '_>> {
        Box::pin(async move {
            self.smpp_in_order(reports)
                .await
                .into_iter()
                .map(|stored| match stored {
                    Ok(_) => true,
                    Err(e) => {
                        tracing::error!(error = %e, "an inbound report could not be stored; not acknowledged");
                        false
                    }
                })
                .collect()
        })
    }
}
