//! Alert e-mails over SMTP (`[smtp]`), with `lettre` on tokio: STARTTLS, TLS from the first byte,
//! or a plain connection to a relay the office trusts. The password never leaves this module:
//! what an error says is the server's answer or the network's, never a credential.

use std::time::Duration;

use lettre::message::header::ContentType;
use lettre::message::Mailbox;
use lettre::transport::smtp::authentication::Credentials;
use lettre::{AsyncSmtpTransport, AsyncTransport, Message, Tokio1Executor};

use super::words::Rendered;
use crate::config::{Addresses, SmtpSecurity, SmtpSettings};

/// Whether e-mail can go out: a server, a sender and at least one address.
pub fn ready(smtp: &SmtpSettings, to: &Addresses) -> bool {
    !smtp.host.trim().is_empty() && !smtp.from.trim().is_empty() && !to.0.is_empty()
}

/// Why e-mail cannot go out, in words (None when it can).
pub fn not_ready(smtp: &SmtpSettings, to: &Addresses) -> Option<&'static str> {
    if to.0.is_empty() {
        Some("no address to send to (alerts.email_to)")
    } else if smtp.host.trim().is_empty() {
        Some("no SMTP server (smtp.host)")
    } else if smtp.from.trim().is_empty() {
        Some("no sender address (smtp.from)")
    } else {
        None
    }
}

/// Sends `mail` to `to`; the addresses it went to, or why it did not go.
pub async fn send(smtp: &SmtpSettings, to: &Addresses, mail: &Rendered) -> Result<String, String> {
    if let Some(why) = not_ready(smtp, to) {
        return Err(why.into());
    }
    let from: Mailbox = smtp
        .from
        .trim()
        .parse()
        .map_err(|e| format!("smtp.from `{}` is not an address: {e}", smtp.from))?;
    let mut message = Message::builder().from(from).subject(mail.subject.clone());
    for a in &to.0 {
        message = message.to(a.parse().map_err(|e| format!("`{a}` is not an address: {e}"))?);
    }
    let message = message
        .header(ContentType::TEXT_PLAIN)
        .body(mail.body.clone())
        .map_err(|e| format!("the e-mail cannot be built: {e}"))?;
    let host = smtp.host.trim();
    let builder = match smtp.security {
        SmtpSecurity::Tls => AsyncSmtpTransport::<Tokio1Executor>::relay(host),
        SmtpSecurity::Starttls => AsyncSmtpTransport::<Tokio1Executor>::starttls_relay(host),
        SmtpSecurity::None => Ok(AsyncSmtpTransport::<Tokio1Executor>::builder_dangerous(host)),
    }
    .map_err(|e| format!("smtp.host `{host}`: {e}"))?;
    let mut builder = builder
        .port(smtp.port)
        .timeout(Some(Duration::from_secs(u64::from(smtp.timeout_seconds.0))));
    if !smtp.username.is_empty() {
        builder = builder.credentials(Credentials::new(smtp.username.clone(), smtp.password.clone()));
    }
    builder
        .build()
        .send(message)
        .await
        .map(|_| to.0.join(", "))
        .map_err(|e| format!("the SMTP server {host}:{} did not take it: {e}", smtp.port))
}
