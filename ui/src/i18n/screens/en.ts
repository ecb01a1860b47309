/** Settings, the navigation and the screens at every width. English is the reference. */
export const screensEn = {
  // The settings the Settings screen lists under "Other", each named in words (its key stays in small print).
  "setting.http.callback_max_body_kib": "Largest provider callback (KiB)",
  "setting.http.header_read_timeout_seconds": "Time to send a request’s headers (seconds)",
  "setting.http.idle_timeout_seconds": "Idle connection closed after (seconds)",
  "setting.http.max_connections": "Connections served at once",
  "setting.http.max_connections_per_address": "Connections from one address at once",
  "setting.http.max_unfinished_per_address": "Slow connections from one address at once",
  "setting.http.max_streams_per_caller": "Live update streams per key or session",
  "setting.http.trusted_proxies": "Trusted proxies",
  "setting.http.allowed_hosts": "Host names the server answers to",
  "setting.accounts.session_idle_minutes": "Session ends when unused for (minutes)",
  "setting.accounts.session_max_hours": "Session ends after sign-in at the latest (hours)",
  "setting.inbox.stop_words_en": "Stop words in English",
  "setting.inbox.stop_words_fr": "Stop words in French",
  "setting.inbox.stop_words_ru": "Stop words in Russian",
  "setting.inbox.start_words_en": "Start words in English",
  "setting.inbox.start_words_fr": "Start words in French",
  "setting.inbox.start_words_ru": "Start words in Russian",
  "setting.inbox.opt_out_kinds": "Kinds of message an opt-out stops",
  "setting.inbox.reassembly_timeout_seconds": "Wait for the parts of a long reply (seconds)",
  "setting.inbox.notify": "Notify on the desktop when a reply arrives",
  "setting.store.reserve_mib": "Disk space kept free (MiB)",
  "setting.routing.failover_grace_seconds": "Wait before moving to the next connection (seconds)",
  "setting.routing.otp_failover_grace_seconds": "One-time codes: wait before moving to the next connection (seconds)",
  "setting.retention.otp_text_days": "Keep a one-time code’s text for (days, or “never”)",
  "setting.retention.transactional_text_days": "Keep a transactional message’s text for (days, or “never”)",
  "setting.retention.bulk_text_days": "Keep a bulk message’s text for (days, or “never”)",
  "setting.retention.destination_days": "Keep the number a message was sent to for (days, or “never”)",
  "setting.retention.replies_days": "Keep a reply’s number and text for (days, or “never”)",
  "setting.retention.audit_days": "Keep an audit line’s note and details for (days, or “never”)",

  // The connection test: what to do first, the provider's code in small print.
  "settings.test.refused.ESME_RINVPASWD": "The provider refused the user name or password: check them with your provider",
  "settings.test.refused.ESME_RINVSYSID": "The provider does not know this System ID: check it with your provider",
  "settings.test.refused.ESME_RINVSYSTYP": "The provider refused the system type: leave it empty unless your provider gave one",
  "settings.test.refused.ESME_RALYBND": "This account is already connected elsewhere: close the other connection, or ask your provider how many it allows",
  "settings.test.refused.ESME_RBINDFAIL": "The provider refused to connect this account: ask your provider whether it is active and whether this computer’s address is allowed",
  "settings.test.refused.ESME_RINVVER": "The provider does not take this SMPP version: choose the version your provider gave",
  "settings.test.refused.other": "The provider did not accept this account: check the System ID, the password and the system type with your provider (the password is case-sensitive)",
  "settings.test.code": "The provider’s answer: {name}",
  "settings.test.details": "Details from the system:",

  // The guide, when the provider is the connection already.
  "connect.intro.provider": "Five steps with the details your SMS provider gave you. Nothing changes until you switch at the end: until then, messages keep going through the connection saved now.",

  // The navigation, folded into a menu at phone width.
  "nav.menu": "Menu",
  "nav.menu.current": "Menu: {section}",
} as const;
