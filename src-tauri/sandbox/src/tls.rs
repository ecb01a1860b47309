//! The sandbox's TLS port: a certificate made when it starts (or one a test brings, good or bad),
//! so that connections with `tls = true` are tried over real TLS.

use std::sync::Arc;

use rcgen::{BasicConstraints, CertificateParams, IsCa, Issuer, KeyPair};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use rustls::ServerConfig;
use tokio_rustls::TlsAcceptor;

/// The certificate (chain, PEM) and key (PEM) the TLS port shows.
#[derive(Clone)]
pub struct SandboxTls {
    pub cert_chain_pem: String,
    pub key_pem: String,
}

impl std::fmt::Debug for SandboxTls {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The key stays out of logs.
        f.debug_struct("SandboxTls").finish_non_exhaustive()
    }
}

impl SandboxTls {
    /// A self-signed certificate for `names` (host names or IP addresses), valid from now for a
    /// year.
    pub fn self_signed(names: &[&str]) -> Result<SandboxTls, String> {
        let names: Vec<String> = names.iter().map(|n| n.to_string()).collect();
        let made = rcgen::generate_simple_self_signed(names).map_err(|e| e.to_string())?;
        Ok(SandboxTls {
            cert_chain_pem: made.cert.pem(),
            key_pem: made.signing_key.serialize_pem(),
        })
    }

    /// The first certificate's DER: what a client pins.
    pub fn leaf_der(&self) -> Result<Vec<u8>, String> {
        CertificateDer::from_pem_slice(self.cert_chain_pem.as_bytes())
            .map(|c| c.as_ref().to_vec())
            .map_err(|e| e.to_string())
    }

    /// A certificate for `names` signed by `ca`, valid from `from_days` to `to_days` days from
    /// today (negative: in the past, for an expired certificate).
    pub fn issued(ca: &SandboxCa, names: &[&str], from_days: i64, to_days: i64) -> Result<SandboxTls, String> {
        let mut params = CertificateParams::new(names.iter().map(|n| n.to_string()).collect::<Vec<_>>())
            .map_err(|e| e.to_string())?;
        params.not_before = day(from_days);
        params.not_after = day(to_days);
        let key = KeyPair::generate().map_err(|e| e.to_string())?;
        let issuer = Issuer::from_params(&ca.params, &ca.key);
        let cert = params.signed_by(&key, &issuer).map_err(|e| e.to_string())?;
        Ok(SandboxTls {
            cert_chain_pem: cert.pem(),
            key_pem: key.serialize_pem(),
        })
    }

    pub(crate) fn acceptor(&self) -> Result<TlsAcceptor, String> {
        let chain = CertificateDer::pem_slice_iter(self.cert_chain_pem.as_bytes())
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| format!("the sandbox's certificate: {e}"))?;
        let key =
            PrivateKeyDer::from_pem_slice(self.key_pem.as_bytes()).map_err(|e| format!("the sandbox's key: {e}"))?;
        let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
        let config = ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map_err(|e| e.to_string())?
            .with_no_client_auth()
            .with_single_cert(chain, key)
            .map_err(|e| format!("the sandbox's certificate and key: {e}"))?;
        Ok(TlsAcceptor::from(Arc::new(config)))
    }
}

/// A certificate authority of the sandbox's own, to sign certificates good and bad (the tests'
/// expired one, say) that a client trusts through `tls_ca_file`.
pub struct SandboxCa {
    params: CertificateParams,
    key: KeyPair,
    pem: String,
}

impl SandboxCa {
    pub fn new() -> Result<SandboxCa, String> {
        let mut params = CertificateParams::new(Vec::<String>::new()).map_err(|e| e.to_string())?;
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        params
            .distinguished_name
            .push(rcgen::DnType::CommonName, format!("smsdesk sandbox CA {}", serial()));
        params.not_before = day(-1);
        params.not_after = day(365);
        let key = KeyPair::generate().map_err(|e| e.to_string())?;
        let pem = params.self_signed(&key).map_err(|e| e.to_string())?.pem();
        Ok(SandboxCa { params, key, pem })
    }

    /// The authority's certificate (PEM), for a client's `tls_ca_file`.
    pub fn cert_pem(&self) -> &str {
        &self.pem
    }
}

/// A number for each authority made, so that two are never taken for each other by name.
fn serial() -> u64 {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    (smsdesk_core::time::Clock::system().now_ms() as u64) << 16 | n
}

/// Midnight UTC, `days` from today.
fn day(days: i64) -> time::OffsetDateTime {
    let now = smsdesk_core::time::Clock::system().now_ms();
    let (y, m, d, ..) = smsdesk_core::time::civil(now + days * 86_400_000);
    rcgen::date_time_ymd(y as i32, m as u8, d as u8)
}
