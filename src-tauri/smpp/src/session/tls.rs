//! SMPP over TLS to the SMSC: the client's settings, the handshake, and what went wrong in words
//! a person can act on. A connection that asks for TLS never falls back to clear: a failed
//! handshake fails the bind.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::{verify_tls12_signature, verify_tls13_signature, CryptoProvider, WebPkiSupportedAlgorithms};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName, UnixTime};
use rustls::{CertificateError, ClientConfig, DigitallySignedStruct, RootCertStore, SignatureScheme};
use sha2::{Digest, Sha256};
use tokio::net::TcpStream;
use tokio_rustls::client::TlsStream;
use tokio_rustls::TlsConnector;

/// How a connection checks the SMSC's certificate and shows its own.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TlsSettings {
    /// PEM file of the certificate authorities to trust; `None`: the system's.
    pub ca_file: Option<PathBuf>,
    /// The name the certificate must be for; `None`: the host connected to.
    pub server_name: Option<String>,
    /// The client's certificate chain and key (PEM), for providers that ask for one.
    pub client_cert_file: Option<PathBuf>,
    pub client_key_file: Option<PathBuf>,
    /// The SHA-256 of the server's certificate (DER): that certificate is trusted, and no other,
    /// whoever signed it (for providers with a self-signed certificate).
    pub pin_sha256: Option<[u8; 32]>,
}

/// The pin of a certificate (its DER): its SHA-256.
pub fn pin_of(der: &[u8]) -> [u8; 32] {
    Sha256::digest(der).into()
}

/// The SMPP stream over TLS.
pub(super) type Stream = TlsStream<TcpStream>;

/// Shakes hands over `tcp` with `host`'s SMSC as `tls` says; the error is in plain words.
pub(super) async fn handshake(tcp: TcpStream, host: &str, tls: &TlsSettings) -> Result<Stream, String> {
    let config = client_config(tls)?;
    let expected = tls.server_name.clone().unwrap_or_else(|| host.to_owned());
    let name = ServerName::try_from(expected.clone()).map_err(|_| {
        format!("TLS: `{expected}` is not a host name or an IP address to check the certificate against")
    })?;
    TlsConnector::from(Arc::new(config))
        .connect(name, tcp)
        .await
        .map_err(|e| explain(&e, &expected))
}

fn provider() -> Arc<CryptoProvider> {
    Arc::new(rustls::crypto::aws_lc_rs::default_provider())
}

fn client_config(tls: &TlsSettings) -> Result<ClientConfig, String> {
    let builder = ClientConfig::builder_with_provider(provider())
        .with_safe_default_protocol_versions()
        .map_err(|e| format!("TLS: {e}"))?;
    let builder = match tls.pin_sha256 {
        Some(pin) => builder
            .dangerous()
            .with_custom_certificate_verifier(Arc::new(Pinned::new(pin))),
        None => builder.with_root_certificates(roots(tls.ca_file.as_deref())?),
    };
    match (&tls.client_cert_file, &tls.client_key_file) {
        (Some(cert), Some(key)) => {
            let chain = certificates(cert)?;
            let key = PrivateKeyDer::from_pem_file(key)
                .map_err(|e| format!("TLS: cannot read a private key from {}: {e}", key.display()))?;
            builder
                .with_client_auth_cert(chain, key)
                .map_err(|e| format!("TLS: the client certificate and key do not go together: {e}"))
        }
        (None, None) => Ok(builder.with_no_client_auth()),
        _ => Err("TLS: a client certificate needs both tls_client_cert_file and tls_client_key_file".into()),
    }
}

/// The authorities to trust: the file's, or the system's.
fn roots(ca_file: Option<&Path>) -> Result<RootCertStore, String> {
    let mut store = RootCertStore::empty();
    match ca_file {
        Some(path) => {
            for cert in certificates(path)? {
                store
                    .add(cert)
                    .map_err(|e| format!("TLS: a certificate in {} cannot be trusted: {e}", path.display()))?;
            }
        }
        None => {
            let found = rustls_native_certs::load_native_certs();
            let (added, _) = store.add_parsable_certificates(found.certs);
            if added == 0 {
                return Err("TLS: the system has no trusted certificate authorities (install ca-certificates, or set tls_ca_file)".into());
            }
        }
    }
    Ok(store)
}

fn certificates(path: &Path) -> Result<Vec<CertificateDer<'static>>, String> {
    let certs = CertificateDer::pem_file_iter(path)
        .and_then(|it| it.collect::<Result<Vec<_>, _>>())
        .map_err(|e| format!("TLS: cannot read certificates from {}: {e}", path.display()))?;
    match certs.is_empty() {
        true => Err(format!("TLS: {} holds no certificate (PEM)", path.display())),
        false => Ok(certs),
    }
}

/// The handshake's failure, as a person would say it.
fn explain(e: &std::io::Error, expected: &str) -> String {
    let Some(tls) = e.get_ref().and_then(|inner| inner.downcast_ref::<rustls::Error>()) else {
        return format!("TLS handshake failed: {e} (is this the provider's TLS port?)");
    };
    match tls {
        rustls::Error::InvalidCertificate(c) => format!("TLS: {}", certificate(c, expected)),
        rustls::Error::General(words) => format!("TLS: {words}"),
        rustls::Error::AlertReceived(alert) => {
            format!("TLS: the server ended the handshake ({alert:?}); it may want a client certificate")
        }
        rustls::Error::InvalidMessage(_) | rustls::Error::InappropriateMessage { .. } => {
            "TLS: the server did not answer in TLS (is this its clear port?)".into()
        }
        other => format!("TLS handshake failed: {other}"),
    }
}

fn certificate(c: &CertificateError, expected: &str) -> String {
    match c {
        CertificateError::NotValidForNameContext { presented, .. } => {
            let names = match presented.is_empty() {
                true => "no name".to_owned(),
                false => presented.iter().map(|n| bare(n)).collect::<Vec<_>>().join(", "),
            };
            format!("the server's certificate is for {names}, not {expected}")
        }
        CertificateError::NotValidForName => format!("the server's certificate is not for {expected}"),
        CertificateError::ExpiredContext { not_after, .. } => {
            format!("the server's certificate expired on {}", date(*not_after))
        }
        CertificateError::Expired => "the server's certificate has expired".into(),
        CertificateError::NotValidYetContext { not_before, .. } => {
            format!("the server's certificate is not valid before {}", date(*not_before))
        }
        CertificateError::NotValidYet => "the server's certificate is not valid yet".into(),
        CertificateError::UnknownIssuer => {
            "the server's certificate is signed by an authority this connection does not trust \
             (set tls_ca_file to the provider's CA, or tls_pin_sha256 for a self-signed certificate)"
                .into()
        }
        CertificateError::BadSignature => "the server's certificate has a bad signature".into(),
        CertificateError::Revoked => "the server's certificate has been revoked".into(),
        CertificateError::InvalidPurpose | CertificateError::InvalidPurposeContext { .. } => {
            "the server's certificate is not meant for a server".into()
        }
        other => format!("the server's certificate is refused: {other:?}"),
    }
}

/// A presented name as written in the certificate: rustls gives `DnsName("a.example")` or
/// `IpAddress(10.0.0.5)`.
fn bare(name: &str) -> &str {
    let inner = name
        .split_once('(')
        .and_then(|(_, rest)| rest.strip_suffix(')'))
        .unwrap_or(name);
    inner.trim_matches('"')
}

/// A day in UTC, as YYYY-MM-DD.
fn date(t: UnixTime) -> String {
    let (y, m, d, ..) = smsdesk_core::time::civil(t.as_secs() as i64 * 1000);
    format!("{y:04}-{m:02}-{d:02}")
}

/// Trusts the one certificate whose SHA-256 is the pin; the handshake's signatures are still
/// checked with that certificate's key.
#[derive(Debug)]
struct Pinned {
    pin: [u8; 32],
    algorithms: WebPkiSupportedAlgorithms,
}

impl Pinned {
    fn new(pin: [u8; 32]) -> Pinned {
        Pinned {
            pin,
            algorithms: provider().signature_verification_algorithms,
        }
    }
}

impl ServerCertVerifier for Pinned {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        let found = pin_of(end_entity.as_ref());
        match found == self.pin {
            true => Ok(ServerCertVerified::assertion()),
            false => Err(rustls::Error::General(format!(
                "the server's certificate is not the pinned one: its SHA-256 is {}, the pin (tls_pin_sha256) is {}",
                hex::encode(found),
                hex::encode(self.pin)
            ))),
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls12_signature(message, cert, dss, &self.algorithms)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls13_signature(message, cert, dss, &self.algorithms)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.algorithms.supported_schemes()
    }
}

/// A server's TLS, from its certificate chain and key (PEM files): for smsdesk's own SMPP server.
pub fn server_acceptor(cert_file: &Path, key_file: &Path) -> Result<tokio_rustls::TlsAcceptor, String> {
    let chain = certificates(cert_file)?;
    let key = PrivateKeyDer::from_pem_file(key_file)
        .map_err(|e| format!("TLS: cannot read a private key from {}: {e}", key_file.display()))?;
    let config = rustls::ServerConfig::builder_with_provider(provider())
        .with_safe_default_protocol_versions()
        .map_err(|e| format!("TLS: {e}"))?
        .with_no_client_auth()
        .with_single_cert(chain, key)
        .map_err(|e| format!("TLS: the certificate and key do not go together: {e}"))?;
    Ok(tokio_rustls::TlsAcceptor::from(Arc::new(config)))
}
