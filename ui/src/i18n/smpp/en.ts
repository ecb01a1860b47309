/**
 * SMPP beyond the one clear link: TLS to the provider (its settings, its test, its certificate
 * problems), and smsdesk's own SMPP server (its settings, its state on the dashboard, its
 * accounts). English is the reference.
 */
export const smppEn = {
  // TLS to the provider: the settings, as the Settings screen and the guide name them.
  "setting.smpp.tls": "Use TLS (an encrypted connection)",
  "setting.smpp.tls_ca_file": "Certificate authorities file (PEM)",
  "setting.smpp.tls_server_name": "Name on the provider’s certificate",
  "setting.smpp.tls_pin_sha256": "Pinned certificate (SHA-256)",
  "setting.smpp.tls_client_cert_file": "Client certificate file (PEM)",
  "setting.smpp.tls_client_key_file": "Client certificate’s key file (PEM)",
  "settingHelp.smpp.tls":
    "Recommended when your provider offers a TLS port: the password, the messages and the receipts then travel encrypted. The TLS port is usually a different one from the clear port: ask your provider for it, and change the port too. With TLS on, smsdesk never falls back to clear text.",
  "settingHelp.smpp.tls_ca_file":
    "Only when the provider’s certificate is signed by an authority this computer does not know: the path of that authority’s PEM file. Empty: the system’s authorities.",
  "settingHelp.smpp.tls_server_name":
    "The name the certificate must be for, when you connect by an IP address or another name. Empty: the host.",
  "settingHelp.smpp.tls_pin_sha256":
    "For a self-signed certificate: its SHA-256 (64 hexadecimal digits, colons allowed, as openssl x509 -noout -fingerprint -sha256 prints it). That certificate is then trusted, and no other. Empty: no pin.",
  "settingHelp.smpp.tls_client_cert_file":
    "Only when the provider asks for a client certificate: the path of its PEM file (with its chain). Empty: none.",
  "settingHelp.smpp.tls_client_key_file": "The private key of that client certificate (PEM), readable by smsdesk’s user alone.",
  "settings.tls.title": "Encryption (TLS)",
  "settings.tls.clear":
    "Saved with TLS: without it, the password and the messages would travel in clear. The test then asks for the password, as the saved one is sent only over TLS.",
  "settings.tls.clientUntested":
    "The test uses the client certificate and key as saved: the ones typed here are used once they are saved.",
  "settings.tls.pin.invalid": "A SHA-256 is 64 hexadecimal digits (0–9 and A–F), colons allowed, as openssl prints it.",
  "settings.tls.clientPair": "A client certificate needs both files: the certificate’s and its key’s (or neither).",

  // A trial bind whose TLS handshake failed.
  "settings.test.tls": "Certificate problem — nothing was sent",
  "settings.test.check.tls":
    "The encrypted connection could not be set up, so smsdesk sent nothing, not even the password. Check the certificate authorities file, the name on the certificate and the pin, or ask your provider which certificate its TLS port presents.",
  "settings.test.tls.problem": "What was wrong:",
  // The saved password is sent only to the server it is saved for (and over TLS when saved for TLS).
  "fieldError.required.password":
    "Type the password for this server: the saved password is sent only to the server it is saved for (the same host, port and System ID), and only over TLS when it is saved for TLS.",

  // smsdesk's own SMPP server, in Settings.
  "settings.section.smppServer": "SMPP server",
  "settings.section.smppServer.intro":
    "smsdesk’s own SMPP server, for the office’s systems that send SMS only over SMPP (a PBX, a laboratory system): what they hand in joins the same queue. Changes apply at the next start.",
  "settings.section.smppServer.accounts": "Its accounts are on the API keys screen.",
  "setting.smpp_server.enabled": "Serve SMPP to the office’s systems",
  "setting.smpp_server.bind": "Listen address",
  "setting.smpp_server.port": "Port",
  "setting.smpp_server.tls": "Serve over TLS only",
  "setting.smpp_server.tls_cert_file": "Server certificate file (PEM, with its chain)",
  "setting.smpp_server.tls_key_file": "Server certificate’s key file (PEM)",
  "settingHelp.smpp_server.bind":
    "127.0.0.1: this computer alone. 0.0.0.0: the office’s network too (then serve over TLS).",
  "settingHelp.smpp_server.port": "2775 is SMPP’s usual port.",
  "settingHelp.smpp_server.tls":
    "Clients then connect only over TLS, with the certificate below: recommended as soon as the server listens beyond this computer.",
  "settingHelp.smpp_server.tls_key_file": "Readable by smsdesk’s user alone.",

  // smsdesk's own SMPP server on the dashboard.
  "smppServer.title": "SMPP server",
  "smppServer.listening": "Listening on {address}",
  "smppServer.tls": "TLS",
  "smppServer.clear": "Without TLS",
  "smppServer.problem": "The SMPP server is not listening",
  "smppServer.starting": "Not listening yet: it is starting.",
  "smppServer.none": "No client bound.",
  "smppServer.table": "Clients bound to the SMPP server",
  "smppServer.col.account": "Account",
  "smppServer.col.bind": "Bind",
  "smppServer.col.peer": "Address",
  "smppServer.col.tls": "TLS",
  "smppServer.col.since": "Since",
  "smppServer.col.submitted": "Submitted",
  "smppServer.col.refused": "Refused",
  "smppServer.col.rate": "Rate/s",
  "smppServer.col.delivered": "Receipts delivered",
  "smppServer.bind.transceiver": "Transceiver",
  "smppServer.bind.transmitter": "Transmitter",
  "smppServer.bind.receiver": "Receiver",
  "smppServer.session.clear": "No",
  "smppServer.waiting.none": "No receipt waiting for its client.",
  "smppServer.waiting.one": "{count} receipt waiting for its client",
  "smppServer.waiting.few": "{count} receipts waiting for their client",
  "smppServer.waiting.many": "{count} receipts waiting for their client",
  "smppServer.waiting.other": "{count} receipts waiting for their client",

  // SMPP accounts, on the API keys screen.
  "smppAccounts.title": "SMPP accounts",
  "smppAccounts.intro":
    "For the office’s systems that send SMS only over SMPP (a PBX, a laboratory system): each binds to smsdesk’s own SMPP server with an account. An account is an API key with an SMPP password; its name is the System ID it binds with, and it sends and follows its own messages. The server itself is turned on in the settings.",
  "smppAccounts.settingsLink": "Open the SMPP server’s settings",
  "smppAccounts.loading": "Loading the SMPP accounts…",
  "smppAccounts.error": "Could not load the SMPP accounts",
  "smppAccounts.empty": "No SMPP account yet.",
  "smppAccounts.col.name": "System ID",
  "smppAccounts.col.tps": "Submits per second",
  "smppAccounts.col.window": "Window",
  "smppAccounts.col.kinds": "Kinds",
  "smppAccounts.col.created": "Created",
  "smppAccounts.col.state": "State",
  "smppAccounts.col.actions": "Actions",
  "smppAccounts.kinds.default": "(when a submit does not say)",
  "smppAccounts.createdBy": "by {name}",
  "smppAccounts.active": "Active",
  "smppAccounts.revoked": "Revoked",
  "smppAccounts.reset": "New password",
  "smppAccounts.reset.hint": "Its system must then bind with the new password: binds with the old one are refused from now on (sessions bound now go on).",
  "smppAccounts.reset.confirm": "Give {name} a new password now",
  "smppAccounts.reset.failed": "No new password was given",
  "smppAccounts.revoke": "Revoke",
  "smppAccounts.revoke.hint": "Its system can no longer bind nor hand in messages, at once.",
  "smppAccounts.revoke.confirm": "Revoke {name} now",
  "smppAccounts.revoke.failed": "The account was not revoked",
  "smppAccounts.keep": "Cancel",
  "smppAccounts.create.title": "Create an SMPP account",
  "smppAccounts.create.name": "System ID (the account’s name)",
  "smppAccounts.create.name.hint": "1 to 15 letters, digits, -, _ or . — what the system binds with, such as pbx or lab-1.",
  "smppAccounts.create.tps": "Submits per second at most",
  "smppAccounts.create.tps.hint": "For each of its sessions: 1 to {max}.",
  "smppAccounts.create.window": "Window (submits awaiting their answer)",
  "smppAccounts.create.window.hint": "For each of its sessions: 1 to {max}.",
  "smppAccounts.create.kinds": "Kinds of message it may send",
  "smppAccounts.create.kinds.hint": "The first kind ticked is what a submit without a service_type is sent as.",
  "smppAccounts.create.kinds.default": "A submit without a service_type is sent as the first kind ticked: {kind}.",
  "smppAccounts.create.blocked.name": "A System ID is 1 to 15 letters, digits, -, _ or ., without spaces.",
  "smppAccounts.create.blocked.tps": "Submits per second: a whole number from 1 to {max}.",
  "smppAccounts.create.blocked.window": "The window: a whole number from 1 to {max}.",
  "smppAccounts.create.blocked.kinds": "Tick at least one kind of message.",
  "smppAccounts.create.submit": "Create SMPP account",
  "smppAccounts.create.busy": "Creating…",
  "smppAccounts.create.failed": "The SMPP account was not created",
  "smppAccounts.created.title": "SMPP account {name} created",
  "smppAccounts.newPassword.title": "New password for {name}",
  "smppAccounts.password.body": "The system binds with the System ID {name} and this password:",
  "smppAccounts.password.once": "Copy it now: it is not stored and cannot be shown again.",
  "smppAccounts.copy": "Copy",
  "smppAccounts.copied": "Copied.",
  "smppAccounts.copyFailed": "Could not copy it here: select the password and copy it.",
  "keys.smpp": "SMPP account",
  "field.tps": "Submits per second",
  "field.window": "Window",
  "field.kinds": "Kinds",
  "field.scopes": "What it may do",
  "fieldError.conflict.name": "An account with this name exists: revoke it first, or give it a new password.",
} as const;
