/** Settings: the alerts' rules and channels, and the SMTP server they are e-mailed through. English is the reference. */
export const settingsAlertsEn = {
  "settings.section.alerts": "Alerts and e-mail",
  "settings.section.alerts.intro":
    "What smsdesk warns about while nobody is watching, and how: by e-mail, to the webhook of each API key with the “alerts” scope, and in this window. Each rule is explained in {doc}.",
  "settings.section.alerts.open": "Open Alerts",
  "settings.alerts.rules": "When to alert",
  "settings.alerts.rules.intro":
    "Each rule fires once when its threshold is crossed, reminds while it lasts, and says when it is resolved.",
  "settings.alerts.channels": "Who is told, and when",
  "settings.alerts.smtp": "E-mail server (SMTP)",
  "settings.alerts.smtp.intro": "The server alerts and the daily summary are e-mailed through. Without a host, no e-mail is sent.",
  "settings.alerts.smtpPassword.unseen":
    "Never shown here. Set it with the command {command} (kept in the system keyring, or encrypted in the data folder), or with the environment variable {name}.",
  "settings.alerts.smtpPassword.env": "Set by the environment variable {name}; never shown here.",
  "settings.alerts.smtpPassword.file":
    "Written in the configuration file; never shown here. Better kept out of it: the command {command} keeps it in the system keyring, or encrypted in the data folder.",

  "setting.alerts.enabled": "Alerts on",
  "setting.alerts.email_to": "E-mail alerts to",
  "setting.alerts.language": "Language of alerts and the summary",
  "setting.alerts.screen_url": "Address of smsdesk, for links in alerts",
  "setting.alerts.link_down_minutes": "Connection down for (minutes)",
  "setting.alerts.queue_stuck_minutes": "Queue stuck for (minutes)",
  "setting.alerts.failure_rate_percent": "Failure rate (%)",
  "setting.alerts.failure_window_minutes": "Failure rate counted over (minutes)",
  "setting.alerts.receipts_silent_minutes": "No receipts for (minutes)",
  "setting.alerts.open_exceptions_over": "Open exceptions above",
  "setting.alerts.disk_free_mib": "Free disk space below (MiB)",
  "setting.alerts.backup_max_age_hours": "Last backup older than (hours)",
  "setting.alerts.webhook_failing_minutes": "Webhook failing for (minutes)",
  "setting.alerts.opt_out_spike": "Opt-outs within an hour above",
  "setting.alerts.repeat_minutes": "Remind every (minutes)",
  "setting.alerts.email_quiet_hours": "Quiet hours for e-mail",
  "setting.alerts.webhook_quiet_hours": "Quiet hours for webhooks",
  "setting.alerts.daily_summary": "E-mail a daily summary",
  "setting.alerts.summary_hour": "Summary sent at (hour, 0–23)",
  "setting.alerts.check_seconds": "Look at the rules every (seconds)",
  "setting.smtp.host": "Server (host)",
  "setting.smtp.port": "Port",
  "setting.smtp.security": "Security",
  "setting.smtp.from": "Sender address",
  "setting.smtp.username": "User name",
  "setting.smtp.password": "Password",
  "setting.smtp.timeout_seconds": "Timeout to hand over an e-mail (seconds)",

  "settingHelp.alerts.enabled": "Unticked: no rule is watched and no daily summary is sent.",
  "settingHelp.alerts.email_to": "Addresses separated by commas, such as office@example.org, it@example.org. None: no e-mail.",
  "settingHelp.alerts.language":
    "“From the office’s country”: French for France, Belgium, Switzerland, Luxembourg, Monaco and Canada; Russian for Russia, Belarus, Kazakhstan and Kyrgyzstan; English otherwise.",
  "settingHelp.alerts.screen_url":
    "The address people open smsdesk at, such as https://sms.example.org: each alert links to it. Empty: the address smsdesk listens on, which may not open from another computer.",
  "settingHelp.alerts.link_down_minutes": "Fires when a connection stays unbound this long.",
  "settingHelp.alerts.queue_stuck_minutes": "Fires when the oldest message due to be sent has waited this long.",
  "settingHelp.alerts.failure_rate_percent":
    "Fires when this share of the submits in the window were refused or got no answer (with at least 20 submits in it).",
  "settingHelp.alerts.failure_window_minutes": "The last minutes the failure rate is counted over.",
  "settingHelp.alerts.receipts_silent_minutes":
    "Fires when no receipt came for this long, though submits that asked for one were accepted before.",
  "settingHelp.alerts.open_exceptions_over": "Fires when more exceptions than this wait for a person.",
  "settingHelp.alerts.disk_free_mib": "Fires when the disk holding the database has less free space than this.",
  "settingHelp.alerts.backup_max_age_hours": "Fires when the last automatic backup is older than this (while daily backups are on).",
  "settingHelp.alerts.webhook_failing_minutes": "Fires when an API key’s webhook keeps failing this long.",
  "settingHelp.alerts.opt_out_spike": "Fires when more numbers than this opt out by reply within an hour.",
  "settingHelp.alerts.repeat_minutes": "While an alert lasts, it is told again at most this often; acknowledging it stops the reminders.",
  "settingHelp.alerts.email_quiet_hours":
    "In the office’s local time, such as 22:00-07:00; empty for none. No alert is e-mailed then, except those about one-time codes; what was held back is sent when they end.",
  "settingHelp.alerts.webhook_quiet_hours":
    "The same for the webhooks: such as 22:00-07:00, empty for none. Alerts about one-time codes still go.",
  "settingHelp.alerts.daily_summary": "Every morning, a summary of the day before (when addresses and the e-mail server are set).",
  "settingHelp.alerts.summary_hour": "In the office’s local time.",
  "settingHelp.smtp.host": "Empty: no e-mail is sent.",
  "settingHelp.smtp.port": "587 for STARTTLS, 465 for TLS, 25 for a relay on this computer.",
  "settingHelp.smtp.from": "The address alerts come from, such as smsdesk@example.org.",
  "settingHelp.smtp.username": "Empty: no sign-in to the server.",

  "settings.choice.alerts.language.auto": "From the office’s country",
  "settings.choice.alerts.language.en": "English",
  "settings.choice.alerts.language.fr": "Français",
  "settings.choice.alerts.language.ru": "Русский",
  "settings.choice.smtp.security.starttls": "STARTTLS (port 587)",
  "settings.choice.smtp.security.tls": "TLS (port 465)",
  "settings.choice.smtp.security.none": "None — a relay on this computer or a trusted network",
} as const;
