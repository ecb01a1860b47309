//! Alert e-mails over SMTP (`[smtp]`), with `lettre` on tokio: STARTTLS, TLS from the first byte,
//! or a plain connection to a relay the office trusts. The password never leaves this module:
//! what an error says is the server's answer or the network's, never a credential.

use std::time::Duration;

use lettre::message::header::ContentType;
use lettre::message::Mailbox;
use lettre::transport::smtp::authentication::Credentials;
use lettre::{AsyncSmtpTransport, AsyncTransport, Message, Tokio1Executor};

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::words::Rendered;
use crate::config::{Addresses, SmtpSecurity, SmtpSettings};

/// What a channel lacks to be ready.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ChannelMissing {
    /// No address in `alerts.email_to`.
    EmailTo,
    /// No server in `smtp.host`.
    SmtpHost,
    /// No sender in `smtp.from`.
    SmtpFrom,
    /// No API key with the scope `alerts` has a webhook.
    AlertsKey,
}

impl ChannelMissing {
    /// What is missing, in words (the screens word it from the code).
    pub fn words(self) -> &'static str {
        match self {
            ChannelMissing::EmailTo => "no address to send to (alerts.email_to)",
            ChannelMissing::SmtpHost => "no SMTP server (smtp.host)",
            ChannelMissing::SmtpFrom => "no sender address (smtp.from)",
            ChannelMissing::AlertsKey => "no API key with the scope `alerts` has a webhook",
        }
    }
}

/// What e-mail lacks to go out (None when it can): at least one address, a server, a sender.
pub fn missing(smtp: &SmtpSettings, to: &Addresses) -> Option<ChannelMissing> {
    if to.0.is_empty() {
        Some(ChannelMissing::EmailTo)
    } else if smtp.host.trim().is_empty() {
        Some(ChannelMissing::SmtpHost)
    } else if smtp.from.trim().is_empty() {
        Some(ChannelMissing::SmtpFrom)
    } else {
        None
    }
}

/// Whether e-mail can go out.
pub fn ready(smtp: &SmtpSettings, to: &Addresses) -> bool {
    missing(smtp, to).is_none()
}

/// Sends `mail` to `to`; the addresses it went to, or why it did not go.
pub async fn send(smtp: &SmtpSettings, to: &Addresses, mail: &Rendered) -> Result<String, String> {
    if let Some(why) = missing(smtp, to) {
        return Err(why.words().into());
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
