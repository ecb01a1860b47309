//! Every setting smsdesk reads, with its documentation and default. The config file template, the
//! environment variable names and the typed `Config` are all generated from this one list.

use std::net::{IpAddr, Ipv4Addr};

use super::alerting::{Addresses, AlertLanguage, Hour, Percent, QuietHours, SmtpSecurity};
use super::callbacks::CallbackProviders;
use super::days::Days;
use super::guardrails::{Countries, Currency, Money, Prices};
use super::hosts::HostNames;
use super::lists::{Kinds, Words};
use super::networks::Networks;
use super::region::Region;
pub use super::routes::{Route, RouteInput};
use super::store::{PgUrl, StoreBackend};
use super::tls::Pin;
use super::value::{
    AtLeastOne, BindCount, BindModeSetting, IdBase, LogFilter, OnUnknownOutcome, ReceiptRequest, SettingValue,
    SmppVersion, StatusCodes, TlvIdBase, UtcOffset,
};
use super::{KeySpec, SectionSpec};
use crate::domain::MessageKind;
use crate::optout;
use crate::sms::smart::SmartEncoding;

settings! {
    /// The local HTTP server: the API for your website or CRM, receipt callbacks from HTTP
    /// providers, and the UI for a second operator's browser.
    http: HttpSettings {
        /// Address to listen on. 127.0.0.1 keeps the server reachable from this computer only.
        /// Any other address (for example 0.0.0.0) opens it to your network: smsdesk logs a
        /// warning when it does.
        bind: IpAddr = IpAddr::V4(Ipv4Addr::LOCALHOST),
        /// TCP port. 0 lets the system pick a free one (the address in use is written to
        /// instance.json in the data directory and printed at start).
        port: u16 = 8470,
        /// Must be true for `bind` to be anything but a loopback address: the API then answers
        /// anyone on your network who holds an API key.
        allow_network: bool = false,
        /// Largest request body accepted, in KiB; larger ones get 413 and nothing is written.
        max_body_kib: AtLeastOne = AtLeastOne(1_024),
        /// Seconds a request may take before it is answered 408.
        request_timeout_seconds: AtLeastOne = AtLeastOne(30),
        /// Largest body of a provider's callback (POST /api/v1/callbacks/..., a delivery report
        /// or a message from a handset), in KiB; larger ones get 413 and nothing is stored.
        callback_max_body_kib: AtLeastOne = AtLeastOne(64),
        /// Seconds a client may take to send a request's headers; a connection that sends
        /// none within this time (also between two requests) is closed.
        header_read_timeout_seconds: AtLeastOne = AtLeastOne(10),
        /// Seconds a connection may go without a byte read or written (a stalled upload, a
        /// client that stopped reading its answer) before it is closed. Keep it above
        /// request_timeout_seconds, and above 15 (the event stream writes every 15 seconds).
        idle_timeout_seconds: AtLeastOne = AtLeastOne(60),
        /// Connections served at once; for one that waits, the oldest connection without its
        /// headers after a quarter of a second is closed, else it waits until one closes. Keep
        /// it below the number of files the system lets smsdesk open.
        max_connections: AtLeastOne = AtLeastOne(200),
        /// Connections one address may hold open at once; more are answered 429 and closed.
        /// Addresses in trusted_proxies are not limited (the proxy carries everyone's).
        max_connections_per_address: AtLeastOne = AtLeastOne(50),
        /// Connections one address may hold that have waited over a second for their request's
        /// headers (an idle kept-alive connection counts, as does one sending sign-in's body);
        /// a further connection closes the oldest of them.
        max_unfinished_per_address: AtLeastOne = AtLeastOne(10),
        /// Event streams (GET /api/v1/events) one API key or one browser session may hold open;
        /// a further one closes the oldest.
        max_streams_per_caller: AtLeastOne = AtLeastOne(8),
        /// Addresses of the proxies in front of smsdesk (such as "127.0.0.1" for a TLS proxy on
        /// this computer, or "10.0.0.0/8"), whose X-Forwarded-For header names the client. Sign-in
        /// is slowed down by that client's address; without this, by the proxy's.
        trusted_proxies: Networks = Networks::default(),
        /// Host names (besides IP addresses and localhost) the server answers to, as in
        /// "smsdesk.office.lan, desk.example.com". A request whose Host header names anything
        /// else gets 421: a web page cannot reach the API by pointing a name of its own at
        /// this computer.
        allowed_hosts: HostNames = HostNames::default(),
    }

    /// Messages handed in by the API, CSV import, the compose form and the command line.
    intake: IntakeSettings {
        /// The country whose national numbers are accepted without a + prefix, as a two-letter
        /// code ("FR", "RU", "GB"). Empty: every number must be international (+33..., 0033...).
        default_region: Region = Region(None),
        /// Messages one batch request may carry at most.
        max_batch: AtLeastOne = AtLeastOne(1_000),
        /// Typographic characters that force a text into UCS-2 but have a GSM 7-bit look-alike
        /// (’ « » – … non-breaking spaces) are replaced before the text is split: "off" (sent as
        /// written), "typography" (when it makes the whole text GSM 7-bit) or "always" (whenever
        /// it takes no more parts). Accented letters are never replaced. A message may ask for
        /// its own (`smart_encoding`); the compose form offers "typography".
        smart_encoding: SmartEncoding = SmartEncoding::Off,
    }

    /// Guarding the office's money (docs/admin/guardrails.md): where messages and one-time codes
    /// may go, how fast codes may be asked for, holding an unusual surge for a person, and
    /// spending limits. A refusal stores nothing, is audited with the key that asked and counted
    /// on the Guardrails screen. API keys may narrow the lists and have their own spend limits.
    guardrails: GuardrailSettings {
        /// Countries one-time codes may go to, such as "FR, BE" ("*": any). Empty: the office's
        /// own country (intake.default_region), or any when that is not set.
        otp_countries: Countries = Countries::default(),
        /// Countries any message may go to ("*" or empty: any).
        countries: Countries = Countries::default(),
        /// One-time codes one number may be sent within otp_window_minutes (0: no limit).
        otp_per_number: u32 = 3,
        /// The window of otp_per_number, in minutes.
        otp_window_minutes: AtLeastOne = AtLeastOne(10),
        /// One-time codes per hour to the numbers that share a prefix (the first 7 digits after
        /// the country code), where bots ask for codes to a premium range (0: no limit).
        otp_per_prefix_hour: u32 = 30,
        /// One-time codes per hour one API key may ask for (0: no limit).
        otp_per_key_hour: u32 = 0,
        /// When a country's one-time codes in the last hour exceed this many times its hourly
        /// average over the last 7 days, new codes to it are held for a person (0: never).
        anomaly_factor: u32 = 5,
        /// ...and at least this many in the hour.
        anomaly_minimum: AtLeastOne = AtLeastOne(20),
        /// The currency of the prices ([[connections.NAME.prices]]) and the limits below.
        currency: Currency = Currency("EUR".into()),
        /// The most the office may spend in a day (its local day), in `currency` (0: no limit).
        spend_day: Money = Money(0),
        /// The most the office may spend in a calendar month (0: no limit).
        spend_month: Money = Money(0),
        /// true lets one-time codes through when a spend limit is reached (a person waits for
        /// each one).
        otp_exempt: bool = false,
    }

    /// HTTP SMS providers that post delivery reports to POST /api/v1/callbacks/{provider}, and
    /// messages from handsets to POST /api/v1/callbacks/{provider}/inbound. One entry per
    /// provider, each with the secret it must present (as ?token=..., an X-Smsdesk-Token header,
    /// or a Basic-auth password), at least 16 characters long:
    /// (for example: providers = { vonage = { secret = "long-random-text" } })
    /// Optional per entry: preset (a built-in mapping; the entry's name by default) and
    /// connection (whose message ids its reports carry; the SMPP connection's by default).
    callbacks: CallbackSettings {
        /// The providers allowed to post reports, with their secrets.
        providers: CallbackProviders = CallbackProviders::default(),
    }

    /// People's accounts, who sign in from a browser (`smsdesk user add`, or the setup link
    /// `smsdesk serve` prints while there is none).
    accounts: AccountSettings {
        /// Minutes a browser session may go unused before it ends.
        session_idle_minutes: AtLeastOne = AtLeastOne(120),
        /// Hours after sign-in a browser session ends, used or not.
        session_max_hours: AtLeastOne = AtLeastOne(12),
    }

    /// Status webhooks: a POST to an API key's webhook URL when the state of a message it sent
    /// changes, signed with the key's webhook secret, retried until answered 2xx.
    webhooks: WebhookSettings {
        /// Tries per notification before it is given up (each one recorded).
        max_attempts: AtLeastOne = AtLeastOne(12),
        /// Seconds to wait for the receiving server's answer.
        timeout_seconds: AtLeastOne = AtLeastOne(10),
    }

    /// Replies from handsets (mobile-originated messages) and opt-outs. A reply whose whole text is
    /// one of the stop words puts its number on the opt-out list; one of the start words takes it
    /// off again. Words match without regard to case, accents and the punctuation around them
    /// ("Arrêt !" matches ARRET); a word inside a longer reply does not.
    inbox: InboxSettings {
        /// Stop words in English.
        stop_words_en: Words = Words::of(optout::DEFAULT_STOP_EN),
        /// Stop words in French.
        stop_words_fr: Words = Words::of(optout::DEFAULT_STOP_FR),
        /// Stop words in Russian.
        stop_words_ru: Words = Words::of(optout::DEFAULT_STOP_RU),
        /// Start words (opting back in) in English.
        start_words_en: Words = Words::of(optout::DEFAULT_START_EN),
        /// Start words in French.
        start_words_fr: Words = Words::of(optout::DEFAULT_START_FR),
        /// Start words in Russian.
        start_words_ru: Words = Words::of(optout::DEFAULT_START_RU),
        /// The kinds of message an opt-out stops: "bulk", "transactional" and "otp". One-time
        /// codes are not stopped by default: the person asked for each one.
        opt_out_kinds: Kinds = Kinds(vec![MessageKind::Transactional, MessageKind::Bulk]),
        /// Seconds to wait for the missing parts of a long reply before it is shown with the
        /// parts that came.
        reassembly_timeout_seconds: AtLeastOne = AtLeastOne(600),
        /// Show a desktop notification when a reply arrives (in the desktop window).
        notify: bool = true,
    }

    /// Logging: to the terminal (standard error) and to daily files in the data directory's logs
    /// folder. The RUST_LOG environment variable, when set, wins over `level`.
    log: LogSettings {
        /// How much to log: error, warn, info, debug or trace, or a filter such as
        /// "info,smsdesk_engine=debug".
        level: LogFilter = LogFilter("info".into()),
        /// How many daily log files to keep; older ones are deleted.
        keep_files: AtLeastOne = AtLeastOne(14),
    }

    /// The database: one SQLite file holding every message, attempt, receipt and decision.
    store: StoreSettings {
        /// "sqlite" (the file `database`) or "postgres" (at `url`, for several nodes).
        backend: StoreBackend = StoreBackend::Sqlite,
        /// Database file. A relative path is taken inside the data directory.
        database: String = "smsdesk.db".into(),
        /// For postgres: "postgres://smsdesk@db.example.org:5432/smsdesk", with no password.
        url: PgUrl = PgUrl::default(),
        /// The PostgreSQL role's password; better kept out of this file (`smsdesk
        /// store-password`, `password_file` or SMSDESK_STORE_PASSWORD).
        password: String = String::new(),
        /// A file whose first line is the password (such as a secret a service manager mounts).
        password_file: String = String::new(),
        /// This node's name among the nodes (empty: the computer's name and a hash).
        node: String = String::new(),
        /// MiB kept free on the database's disk for sending and receipts: below it, new messages
        /// are refused (503 storage_full) while what is already queued goes on being sent and its
        /// receipts recorded, and the health check says degraded. 0 keeps no reserve.
        reserve_mib: u32 = 64,
    }

    /// Backups of the database: consistent copies taken while smsdesk runs, each checked before
    /// it is kept (`smsdesk backup` takes one at any time, `smsdesk restore` puts one back).
    backup: BackupSettings {
        /// Folder the backups go to. Empty: `backups` in the data directory. A relative path is
        /// taken inside the data directory.
        dir: String = String::new(),
        /// Days a daily backup is kept; older ones are deleted (only the files smsdesk named
        /// itself). 0 turns the daily backup off.
        keep_days: u32 = 14,
    }

    /// Alerts for the office nobody watches (docs/admin/alerts.md): each rule fires once, repeats
    /// at most every `repeat_minutes` while it lasts, and says when it is resolved. They go to the
    /// addresses of `email_to` (through `[smtp]`), to the webhook of every API key with the scope
    /// `alerts`, and to the desktop window when it is open.
    alerts: AlertSettings {
        /// false turns every rule and the daily summary off.
        enabled: bool = true,
        /// Addresses alerts and the daily summary are e-mailed to (none: no e-mail).
        email_to: Addresses = Addresses::default(),
        /// The language of alerts and the summary: "auto" (from the office's country), "en",
        /// "fr" or "ru".
        language: AlertLanguage = AlertLanguage::Auto,
        /// The address people open smsdesk at, for the link in alerts, such as
        /// "https://sms.example.org" (empty: the address smsdesk listens on).
        screen_url: String = String::new(),
        /// Minutes a connection may stay unbound before its alert fires.
        link_down_minutes: AtLeastOne = AtLeastOne(5),
        /// Minutes the oldest message due to be sent may wait in the queue before its alert fires.
        queue_stuck_minutes: AtLeastOne = AtLeastOne(10),
        /// Share of the last `failure_window_minutes` submits refused or left without an answer
        /// that fires an alert (with at least 20 submits in that window).
        failure_rate_percent: Percent = Percent(20),
        /// The window of the failure rate, in minutes.
        failure_window_minutes: AtLeastOne = AtLeastOne(15),
        /// Minutes without any receipt, while submits that asked for one were accepted before
        /// them, that fire an alert.
        receipts_silent_minutes: AtLeastOne = AtLeastOne(30),
        /// Open exceptions above this many fire an alert.
        open_exceptions_over: u32 = 50,
        /// Free space (MiB) on the database's disk under which an alert fires.
        disk_free_mib: u32 = 500,
        /// Hours after which the last automatic backup is too old (when daily backups are on).
        backup_max_age_hours: AtLeastOne = AtLeastOne(26),
        /// Minutes an API key's webhook may keep failing before its alert fires.
        webhook_failing_minutes: AtLeastOne = AtLeastOne(30),
        /// Numbers opting out by reply within an hour above which an alert fires.
        opt_out_spike: AtLeastOne = AtLeastOne(20),
        /// Minutes between two reminders of an alert that lasts (acknowledging stops them).
        repeat_minutes: AtLeastOne = AtLeastOne(60),
        /// Hours in which no alert is e-mailed, in the office's local time, such as
        /// "22:00-07:00" (an OTP alert still is). What was held back is sent when they end.
        email_quiet_hours: QuietHours = QuietHours(None),
        /// The same, for the webhooks.
        webhook_quiet_hours: QuietHours = QuietHours(None),
        /// E-mail a summary of the day before every morning (when `email_to` and `[smtp]` are set).
        daily_summary: bool = true,
        /// The hour of the office's local time the daily summary is sent at.
        summary_hour: Hour = Hour(8),
        /// Seconds between two looks at the rules.
        check_seconds: AtLeastOne = AtLeastOne(15),
    }

    /// The SMTP server alerts and the daily summary are sent through.
    smtp: SmtpSettings {
        /// Its host name (empty: no e-mail is sent).
        host: String = String::new(),
        /// Its port: 587 for starttls, 465 for tls, 25 for a local relay.
        port: u16 = 587,
        /// "starttls", "tls", or "none" (only for a relay on this machine or a trusted network).
        security: SmtpSecurity = SmtpSecurity::Starttls,
        /// The sender's address, such as smsdesk@example.org.
        from: String = String::new(),
        /// The account's user name (empty: no authentication).
        username: String = String::new(),
        /// The account's password. Better kept out of this file: `smsdesk smtp-password` keeps it
        /// in the OS keyring (or encrypted in the data directory), or set SMSDESK_SMTP_PASSWORD.
        password: String = String::new(),
        /// Seconds an e-mail may take to be handed over.
        timeout_seconds: AtLeastOne = AtLeastOne(20),
    }

    /// How long personal content is kept (docs/admin/personal-data.md). Past its period, a
    /// message's text, its number (kept as a keyed hash, so a number typed can still be looked
    /// up), a reply's number and text, are removed; the facts (ids, times, statuses, receipts'
    /// parsed fields, decisions) stay. A run starts a minute after smsdesk starts, then every day, and at
    /// `smsdesk retention run`. Each period is a number of days (0: at the next run) or "never".
    retention: RetentionSettings {
        /// Days a one-time code's text is kept after it was handed in (it is sealed, and shown
        /// masked, from the start; this removes the masked text too).
        otp_text_days: Days = Days::Days(1),
        /// Days a transactional message's text is kept.
        transactional_text_days: Days = Days::Days(90),
        /// Days a bulk message's text is kept.
        bulk_text_days: Days = Days::Days(30),
        /// Days a message's destination number is kept (then only its hash).
        destination_days: Days = Days::Days(365),
        /// Days a reply's number and text are kept.
        replies_days: Days = Days::Days(365),
        /// Days an audit line's note and details are kept (who did what, and when, stay).
        audit_days: Days = Days::Never,
    }

    /// Delivery receipts: how they are matched to messages and how their state is computed.
    /// (These apply to every connection until connections get settings of their own.)
    receipts: ReceiptSettings {
        /// How the SMSC writes the message id in its submit_sm_resp: "text" (compared as written),
        /// "hex" or "decimal" (compared as numbers). Some SMSCs answer in hex and report in decimal.
        response_id: IdBase = IdBase::Text,
        /// How the SMSC writes the message id in the text of its receipts ("id:..."): "text",
        /// "hex" or "decimal".
        receipt_id: IdBase = IdBase::Text,
        /// How the SMSC writes the message id in a receipt's receipted_message_id TLV, which wins
        /// over the text: "response" (as in its submit_sm_resp, what most SMSCs do), "text", "hex"
        /// or "decimal".
        tlv_id: TlvIdBase = TlvIdBase::SameAsResponse,
        /// Compare text ids without regard to letter case.
        id_ignore_case: bool = false,
        /// Compare text ids without their leading zeros ("00ab12" matches "ab12").
        id_ignore_leading_zeros: bool = false,
        /// Treat ACCEPTED (ACCEPTD) as a final state. By default it is intermediate, as Kannel,
        /// Jasmin and Vonage use it.
        accepted_is_final: bool = false,
        /// Minutes after the SMSC accepted a one-time code by which a final receipt should have
        /// arrived; past it, the message is flagged "no receipt by deadline" and an exception is
        /// opened (never for a message that asked for no receipt, or for one on failure only).
        otp_deadline_minutes: AtLeastOne = AtLeastOne(15),
        /// The same, for a transactional message (2,880 minutes: two days).
        transactional_deadline_minutes: AtLeastOne = AtLeastOne(2_880),
        /// The same, for a bulk message (4,320 minutes: three days).
        bulk_deadline_minutes: AtLeastOne = AtLeastOne(4_320),
        /// The receipt a one-time code asks for: "none", "final" (on success or failure, the
        /// default), "failure" (on failure only) or "final_and_intermediate".
        otp_request: ReceiptRequest = ReceiptRequest::Final,
        /// The same, for a transactional message.
        transactional_request: ReceiptRequest = ReceiptRequest::Final,
        /// The same, for a bulk message.
        bulk_request: ReceiptRequest = ReceiptRequest::Final,
        /// Seconds a receipt that matches no message waits before it opens an exception, while a
        /// submit on its connection still awaits its answer (the receipt may be that submit's).
        /// 0 opens it at once.
        uncorrelated_grace_seconds: u32 = 30,
        /// The time zone of the dates inside receipts (they carry none), as a UTC offset.
        timezone: UtcOffset = UtcOffset { minutes: 0 },
    }

    /// The SMPP connection messages go out on and receipts come back from.
    smpp: SmppSettings {
        /// Use the embedded sandbox SMSC (on 127.0.0.1, a free port): no real SMS is sent. It runs
        /// at its own pace, not at window and tps below, which are your provider's. Set to false,
        /// with host, port, system_id and password, to use your provider.
        sandbox: bool = true,
        /// The provider's SMPP host.
        host: String = "127.0.0.1".into(),
        /// The provider's SMPP port (2775 is usual).
        port: u16 = 2775,
        /// The account's system_id.
        system_id: String = "smsdesk".into(),
        /// The account's password.
        password: String = String::new(),
        /// system_type, if the provider asks for one.
        system_type: String = String::new(),
        /// The SMPP version to bind with: "3.4" or "5.0".
        interface_version: SmppVersion = SmppVersion(0x34),
        /// address_range for the bind, if the provider asks for one.
        address_range: String = String::new(),
        /// How the binds divide the work: "transceiver" (each bind sends and takes receipts) or
        /// "transmitter_receiver" (the sending binds are transmitters, and one receiver bind
        /// beside them takes the receipts), as the provider asks.
        bind_mode: BindModeSetting = BindModeSetting::Transceiver,
        /// Sending binds to open at once, when the provider asks for several to reach the
        /// contracted rate. Each has its own window; tps is shared by all of them.
        binds: BindCount = BindCount(1),
        /// With several nodes on PostgreSQL: how many run this connection at once, each with
        /// `binds` binds and an equal share of `tps` (0: every live node).
        nodes: u32 = 0,
        /// The sender id (up to 11 letters) or number messages go out from.
        source_addr: String = "smsdesk".into(),
        /// Requests awaiting their answer at most on each bind (the SMPP window), with your
        /// provider.
        window: AtLeastOne = AtLeastOne(10),
        /// Submits per second at most (the account's TPS) across all its binds, with your
        /// provider: at 10, 20,000 messages take 33 minutes.
        tps: AtLeastOne = AtLeastOne(10),
        /// Seconds between enquire_link keepalives.
        enquire_link_seconds: AtLeastOne = AtLeastOne(30),
        /// Seconds to wait for an answer before the outcome of a submit counts as unknown.
        response_timeout_seconds: AtLeastOne = AtLeastOne(10),
        /// Connect over TLS (the provider's TLS port). Never falls back to clear: a certificate
        /// problem stops the bind and is shown on the dashboard.
        tls: bool = false,
        /// PEM file of the certificate authorities to trust; empty: the system's.
        tls_ca_file: String = String::new(),
        /// The name the provider's certificate must be for; empty: the host.
        tls_server_name: String = String::new(),
        /// PEM file of this account's client certificate (chain), if the provider asks for one.
        tls_client_cert_file: String = String::new(),
        /// PEM file of the client certificate's private key (readable by smsdesk's user alone).
        tls_client_key_file: String = String::new(),
        /// The SHA-256 of the provider's certificate, for a self-signed one: that certificate is
        /// trusted and no other (`openssl x509 -noout -fingerprint -sha256` prints it).
        tls_pin_sha256: Pin = Pin(None),
        /// What a part costs, in guardrails.currency: rows of country ("FR", "*") or prefix
        /// ("+3367") and price; the longest prefix wins, then the country, then "*". Written as
        /// [[connections.NAME.prices]] (or [[smpp.prices]]) tables. None: costs are not counted.
        prices: Prices = Prices::default(),
    }

    /// smsdesk's own SMPP server, for the office's systems that send SMS only over SMPP (a PBX,
    /// a laboratory system): see docs/integration/smpp-server.md. Its accounts are made with
    /// `smsdesk smpp-user add NAME`. Changes take effect at the next start.
    smpp_server: SmppServerSettings {
        /// Serve SMPP.
        enabled: bool = false,
        /// The address it listens on: 127.0.0.1 for this computer alone, 0.0.0.0 (with tls) for
        /// the office's network.
        bind: IpAddr = IpAddr::V4(Ipv4Addr::LOCALHOST),
        /// The port (2775 is SMPP's usual one).
        port: u16 = 2775,
        /// Serve SMPP over TLS only, with the certificate below.
        tls: bool = false,
        /// PEM file of the server's certificate chain.
        tls_cert_file: String = String::new(),
        /// PEM file of its private key (readable by smsdesk's user alone).
        tls_key_file: String = String::new(),
    }

    /// Which connection a message goes out on when several are configured ([connections.<name>]
    /// and [[routes]], see docs/admin/connections.md): how long a route waits for its connection to come back
    /// before the messages waiting for it move to the next connection of its list.
    routing: RoutingSettings {
        /// Seconds a connection may be down (or its binds refused) before the messages waiting
        /// for it move on to the route's next connection.
        failover_grace_seconds: AtLeastOne = AtLeastOne(60),
        /// The same, for one-time codes, which are worth little late.
        otp_failover_grace_seconds: AtLeastOne = AtLeastOne(20),
    }

    /// What happens after a submit fails. Codes listed here take that class; any other code keeps
    /// its documented default (bad addresses and bad parameters fail at once; unknown codes are
    /// retried a few times only).
    retry: RetrySettings {
        /// Codes retried later, with the sending rate cut for a while.
        throttled_codes: StatusCodes = StatusCodes(vec![0x58]),
        /// Codes retried with exponential backoff and jitter.
        temporary_codes: StatusCodes = StatusCodes(vec![0x08, 0x14, 0x64]),
        /// Codes that fail the message at once, with the code's name and meaning.
        permanent_codes: StatusCodes = StatusCodes(vec![0x0A, 0x0B, 0x66]),
        /// Tries in all for a one-time code (never sent after its valid-until either).
        otp_max_attempts: AtLeastOne = AtLeastOne(2),
        /// Tries in all for a transactional message.
        transactional_max_attempts: AtLeastOne = AtLeastOne(8),
        /// Tries in all for a bulk message.
        bulk_max_attempts: AtLeastOne = AtLeastOne(5),
        /// Tries in all when the SMSC answers with a code no list and no default knows.
        unlisted_max_attempts: AtLeastOne = AtLeastOne(3),
        /// Minutes after creation past which a one-time code is not tried again.
        otp_max_age_minutes: AtLeastOne = AtLeastOne(5),
        /// Minutes after creation past which a transactional message is not tried again.
        transactional_max_age_minutes: AtLeastOne = AtLeastOne(1_440),
        /// Minutes after creation past which a bulk message is not tried again.
        bulk_max_age_minutes: AtLeastOne = AtLeastOne(2_880),
        /// When a submit was written and no answer came: "exception" (a person decides; the
        /// default) or "resend" (accepting that the message may arrive twice). Per kind:
        otp_on_unknown_outcome: OnUnknownOutcome = OnUnknownOutcome::Exception,
        /// The same, for transactional messages.
        transactional_on_unknown_outcome: OnUnknownOutcome = OnUnknownOutcome::Exception,
        /// The same, for bulk messages.
        bulk_on_unknown_outcome: OnUnknownOutcome = OnUnknownOutcome::Exception,
    }
}

/// One named SMPP connection.
#[derive(Debug, Clone, PartialEq)]
pub struct ConnectionSettings {
    /// Its name: in routes, on every try and receipt, on the dashboard.
    pub name: String,
    /// A disabled connection binds no link and takes no message (routes skip it).
    pub enabled: bool,
    /// Its link: the keys `[smpp]` has.
    pub smpp: SmppSettings,
    /// Its own values of [`OVERRIDABLE`] keys, as written (checked when read).
    pub overrides: Vec<(&'static str, &'static str, toml::Value)>,
}
