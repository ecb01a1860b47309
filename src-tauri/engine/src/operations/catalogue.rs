// The catalogue of operations (see mod.rs): one entry per operation, in the order the API
// describes them. The desktop shell's build script reads this file too, for the window's
// command permissions; keep it a single `operations!` call with nothing else in it.
//
// An entry: doc, then `name: METHOD "path" -> status Answer`, where the answer is a type, `[Item]` for a list, or `()` for none, then its tag, who may
// call it (an `Access`: what the caller's scopes or role must allow), `window: false` when the window has no
// such command, its arguments (`name: Place [Type]`) and the error codes it may answer with
// besides those its shape implies.
operations! { $
    /// This instance: product, version, mode, and for an admin where its data lives.
    info: Get "/info" -> 200 AppInfo {
        tag: "instance", access: Any,
    }

    /// Who is calling: the name the audit log gives its actions, its role or scopes, and for a
    /// signed-in browser the CSRF token its state-changing requests carry.
    me: Get "/me" -> 200 Me {
        tag: "accounts", access: Any,
    }

    /// Hands in one message; answers once it is committed to the queue. A repeat with the same
    /// Idempotency-Key gets the first answer instead of a second message.
    submit_message: Post "/messages" -> 201 SubmittedMessage {
        tag: "messages", access: Send,
        args: [
            message: Body SubmitMessage,
            /// Makes a repeat of this request return the first answer instead of a second message.
            idempotency_key: Header("Idempotency-Key") IdempotencyKey,
        ],
        errors: [IdempotencyKeyInFlight, IdempotencyKeyReused, DestinationNotAllowed, DestinationOptedOut, RateLimited],
    }

    /// Hands in several messages (at most `intake.max_batch`): all are committed, or none (field
    /// errors name the message's index). Same idempotency rules as one message.
    submit_batch: Post "/messages/batch" -> 201 SubmittedBatch {
        tag: "messages", access: Send,
        args: [
            batch: Body SubmitBatch,
            /// As for one message.
            idempotency_key: Header("Idempotency-Key") IdempotencyKey,
        ],
        errors: [IdempotencyKeyInFlight, IdempotencyKeyReused, DestinationNotAllowed, DestinationOptedOut, RateLimited],
    }

    /// Checks messages as a submit would and writes nothing: each one's normalised number,
    /// encoding and parts, or every invalid field (the compose form's counter, a CSV preview).
    preview_messages: Post "/messages/preview" -> 200 Preview {
        tag: "messages", access: Send,
        args: [batch: Body SubmitBatch],
    }

    /// Messages, newest first, filtered; follow `next_cursor` for the next page.
    list_messages: Get "/messages" -> 200 MessagePage {
        tag: "messages", access: ReadMessages,
        args: [filter: Query MessageFilter],
        errors: [InvalidCursor, InvalidFilter],
    }

    /// One message: its computed state with the rule behind it, flags, attempts, receipts and
    /// timeline.
    message: Get "/messages/{id}" -> 200 MessageDetail {
        tag: "messages", access: ReadMessages,
        args: [id: Path],
    }

    /// Sends a message again now. When its last try was accepted or its outcome is unknown, it
    /// may arrive twice: that needs `confirm_duplicate: true`. Its kind's limits on tries and
    /// age apply (an OTP: 2 tries, 5 minutes); only an admin may override them, with a note.
    /// When its last try was refused for good (an invalid destination, say), it will fail again:
    /// that needs `confirm_permanent_failure: true`.
    retry: Post "/messages/{id}/retry" -> 204 () {
        tag: "messages", access: Act,
        args: [id: Path, action: Body MessageAction],
        errors: [NotAllowed, ConfirmationRequired, ValidityEnded, AttemptsExhausted, TooOld, DestinationOptedOut, PermanentFailureRetry],
    }

    /// Takes a message that has not been sent out of the queue.
    cancel: Post "/messages/{id}/cancel" -> 204 () {
        tag: "messages", access: Act,
        args: [id: Path, action: Body MessageAction],
        errors: [NotAllowed],
    }

    /// The exception queue.
    list_exceptions: Get "/exceptions" -> 200 ExceptionPage {
        tag: "exceptions", access: ReadAll,
        args: [filter: Query ExceptionFilter],
        errors: [InvalidCursor, InvalidFilter],
    }

    /// One exception with its evidence.
    exception: Get "/exceptions/{id}" -> 200 ExceptionDetail {
        tag: "exceptions", access: ReadAll,
        args: [id: Path],
    }

    /// Compares the exception's receipt with messages it may belong to, fact by fact; writes
    /// nothing. For each message that exists (in the order given): its connection, destination,
    /// text and time, each `agrees`, `differs` or `cannot_tell` (with why), beside the receipt's
    /// value and the message's. `differs` marks exactly what attaching the receipt would list as
    /// mismatches.
    compare_candidates: Post "/exceptions/{id}/compare" -> 200 CandidateComparison {
        tag: "exceptions", access: ReadAll,
        args: [id: Path, candidates: Body CompareCandidates],
        errors: [DecisionNotAllowed],
    }

    /// Resolves an exception with a decision and a note (audited; the evidence never changes).
    resolve: Post "/exceptions/{id}/resolve" -> 204 () {
        tag: "exceptions", access: Resolve,
        args: [id: Path, request: Body ResolveRequest],
        errors: [NoteRequired, NotOpen, DecisionNotAllowed, MismatchesNotSeen, NotAllowed, ConfirmationRequired, ValidityEnded, AttemptsExhausted, TooOld, DestinationOptedOut],
    }

    /// Conversations with replies from handsets, the latest reply first, each with its unread
    /// count and whether the number is on the opt-out list.
    list_threads: Get "/inbox" -> 200 ThreadPage {
        tag: "inbox", access: ReadAll,
        args: [filter: Query InboxFilter],
        errors: [InvalidCursor, InvalidFilter],
    }

    /// One conversation: the replies from a number beside the messages sent to it (side by side
    /// only: a reply never changes a message's state), and the number's opt-out entry.
    thread: Get "/inbox/thread" -> 200 ThreadView {
        tag: "inbox", access: ReadAll,
        args: [request: Query ThreadRequest],
        errors: [InvalidCursor, InvalidFilter, NotFound],
    }

    /// Replies not read yet, in all and in how many threads.
    inbox_counts: Get "/inbox/unread" -> 200 InboxCounts {
        tag: "inbox", access: ReadAll,
    }

    /// Marks a thread's replies read (all, or up to the newest one seen); answers the counts left.
    mark_read: Post "/inbox/read" -> 200 InboxCounts {
        tag: "inbox", access: Resolve,
        args: [read: Body MarkRead],
        errors: [NotFound],
    }

    /// The opt-out list: numbers not sent to, each with why, when, by whom and its evidence (the
    /// reply that asked), the latest first; `history` includes numbers taken off it.
    list_opt_outs: Get "/opt-outs" -> 200 OptOutPage {
        tag: "opt-outs", access: ReadAll,
        args: [filter: Query OptOutFilter],
        errors: [InvalidCursor, InvalidFilter],
    }

    /// Puts a number on the opt-out list by hand (audited). Messages waiting for it are held
    /// with an exception; intake refuses new ones with `destination_opted_out`.
    add_opt_out: Post "/opt-outs" -> 200 OptOutAdded {
        tag: "opt-outs", access: Resolve,
        args: [opt_out: Body NewOptOut],
    }

    /// Takes a number off the opt-out list, with a note (audited). Messages held meanwhile stay
    /// held until someone decides.
    remove_opt_out: Post "/opt-outs/remove" -> 204 () {
        tag: "opt-outs", access: Resolve,
        args: [removal: Body RemoveOptOut],
        errors: [NotFound],
    }

    /// Puts every number of a CSV file on the opt-out list (audited), or with `dry_run` only
    /// says what it would do. A file with an invalid line is refused whole, each line named.
    import_opt_outs: Post "/opt-outs/import" -> 200 OptOutImported {
        tag: "opt-outs", access: Resolve,
        args: [file: Body OptOutImport],
    }

    /// The numbers on the opt-out list now, as a CSV file.
    export_opt_outs: Get "/opt-outs/export" -> 200 OptOutCsv {
        tag: "opt-outs", access: ExportAll,
    }

    /// The sandbox SMSC plays a handset: a reply from `from` arrives over SMPP as any message
    /// from a handset does (a stop word opts the number out). Only while the sandbox is the
    /// connection.
    sandbox_reply: Post "/sandbox/reply" -> 204 () {
        tag: "inbox", access: Resolve,
        args: [reply: Body SandboxReply],
        errors: [NotSandbox],
    }

    /// The office's message templates, by name, each with the `{placeholders}` its text names.
    list_templates: Get "/templates" -> 200 [Template] {
        tag: "templates", access: ReadAll,
    }

    /// Saves a message template for everyone in the office (audited); its name must not be
    /// taken, whatever the case.
    create_template: Post "/templates" -> 201 Template {
        tag: "templates", access: Resolve,
        args: [template: Body NewTemplate],
        errors: [NameTaken],
    }

    /// Deletes a message template (audited). Messages keep the texts they were sent with.
    delete_template: Delete "/templates/{id}" -> 204 () {
        tag: "templates", access: Resolve,
        args: [id: Path],
    }

    /// Queue depth, states and open exceptions at a glance.
    dashboard: Get "/dashboard" -> 200 Dashboard {
        tag: "overview", access: ReadAll,
    }

    /// Submits, receipts and receipt latency over the window (UTC buckets), and outcomes by day
    /// for the last 30 days.
    activity: Get "/dashboard/activity" -> 200 Activity {
        tag: "overview", access: ReadAll,
        args: [
            /// `hour` (the last 60 minutes, by minute), `day` (24 hours, by hour) or `month`
            /// (30 days, by day).
            window: Param ActivityWindow,
        ],
    }

    /// How fast messages go out and how long the queue will take: the window and rate in force
    /// (the sandbox's own while it is the connection, else the provider account's `smpp.window`
    /// and `smpp.tps`), the rate the SMSC accepted submits at over the last minute, and about how
    /// long the messages waiting will take at it.
    pace: Get "/dashboard/pace" -> 200 Pace {
        tag: "overview", access: ReadAll,
        errors: [NotFound],
    }

    /// The nodes that share the database (several on PostgreSQL, one on SQLite), by name: each
    /// alive, stopped or silent (dead to the others) by its heartbeat, where it listens, and per
    /// connection the binds it runs, its share of the rate and the submits accepted per second.
    nodes: Get "/nodes" -> 200 [NodeView] {
        tag: "overview", access: ReadAll,
    }

    /// Delivery figures over a period, by one or two dimensions, with the period before and a
    /// series by hour or day (from maintained aggregates).
    delivery_report: Get "/reports/delivery" -> 200 DeliveryReport {
        tag: "reports", access: ReadAll,
        args: [query: Query ReportQuery],
        errors: [InvalidFilter],
    }

    /// The retention of personal content in force (`[retention]`, days or null for never) and the
    /// latest removals (retention runs, one line per rule, and erasures), newest first.
    privacy_overview: Get "/privacy" -> 200 PrivacyOverview {
        tag: "privacy", access: Admin,
    }

    /// Runs retention now: what is past its period is redacted in short batches (sending goes
    /// on), and the run is audited with its counts.
    run_retention: Post "/privacy/retention/run" -> 200 RetentionRun {
        tag: "privacy", access: Admin,
    }

    /// Erases everything held about a number (a data subject's request): messages waiting for it
    /// are cancelled, the texts and number of its messages, its replies and their receipts are
    /// redacted, its opt-out is kept as the number's hash (so it still stops sends), and the
    /// erasure is audited with the note and without the number. The number goes in the body,
    /// never in a URL.
    erase_number: Post "/privacy/erase" -> 200 Erased {
        tag: "privacy", access: Admin,
        args: [request: Body EraseNumber],
    }

    /// Everything held about a number (a subject access request): its messages with their
    /// states, its replies and its opt-out history, as JSON and as CSV. Audited with the
    /// number's hash. The number goes in the body, never in a URL.
    subject_access: Post "/privacy/subject" -> 200 SubjectAccess {
        tag: "privacy", access: Admin,
        args: [request: Body SubjectRequest],
    }

    /// The guardrails against SMS pumping and waste: what they refused and held over the last day
    /// (by reason, country and who asked), the codes held now, the spend today and this month,
    /// and the settings in force.
    guardrails: Get "/guardrails" -> 200 GuardrailsOverview {
        tag: "guardrails", access: ReadAll,
    }

    /// What was spent over a period (the messages' estimated costs: parts times the price of
    /// their connection), per day, sender, connection and country. As CSV at
    /// `/api/v1/reports/spend.csv` with the same parameters.
    spend_report: Get "/reports/spend" -> 200 SpendReport {
        tag: "reports", access: ReadAll,
        args: [query: Query SpendQuery],
        errors: [InvalidFilter],
    }

    /// The alerts: what fires now, then the latest that ended (each with what every channel was
    /// told, acknowledgements included), each rule's threshold, the channels and the latest tests
    /// and daily summaries.
    alerts: Get "/alerts" -> 200 AlertsOverview {
        tag: "alerts", access: ReadAll,
    }

    /// Acknowledges an alert, with a note saying what is being done (audited): its reminders
    /// stop; the notice that it ended still goes.
    acknowledge_alert: Post "/alerts/{id}/acknowledge" -> 204 () {
        tag: "alerts", access: Resolve,
        args: [id: Path, request: Body AcknowledgeAlert],
        errors: [NoteRequired, NotAllowed],
    }

    /// Sends a test alert on a channel (e-mail, or the webhooks of the API keys with the scope
    /// `alerts`) now, and says whether it went and to whom.
    test_alert: Post "/alerts/test" -> 200 TestAlertResult {
        tag: "alerts", access: Admin,
        args: [request: Body TestAlert],
    }

    /// The SMPP connection and its link state now (with the last error and since when); with
    /// several connections, the first the settings list.
    connection: Get "/connection" -> 200 ConnectionStatus {
        tag: "overview", access: ReadAll,
    }

    /// Every running SMPP connection (`[connections.<name>]`; one without them), in the order
    /// the settings list them, each with its link state and binds.
    connections: Get "/connections" -> 200 [ConnectionStatus] {
        tag: "overview", access: ReadAll,
    }

    /// Drains, disables or enables a connection (admin only; audited, and kept across restarts).
    /// Drained, it takes nothing new and its routes' messages go to their next connection at
    /// once; disabled, it also unbinds once its sends under way were answered. Enable undoes
    /// either.
    command_connection: Post "/connections/command" -> 204 () {
        tag: "overview", access: Admin,
        args: [action: Body ConnectionAction],
        errors: [NotFound],
    }

    /// Every operator action and automatic decision, newest first.
    audit_log: Get "/audit" -> 200 AuditPage {
        tag: "overview", access: ReadAll,
        args: [page: Query PageRequest],
        errors: [InvalidCursor],
    }

    /// API keys (admin only).
    list_keys: Get "/keys" -> 200 [ApiKeyInfo] {
        tag: "keys", access: Admin,
    }

    /// Creates an API key (admin only). The key is in this answer and nowhere else.
    create_key: Post "/keys" -> 201 CreatedApiKey {
        tag: "keys", access: Admin,
        args: [key: Body NewApiKey],
    }

    /// Revokes an API key at once (admin only).
    revoke_key: Post "/keys/{id}/revoke" -> 204 () {
        tag: "keys", access: Admin,
        args: [id: Path],
        errors: [AlreadyRevoked],
    }

    /// smsdesk's own SMPP server: whether it listens and where, the clients bound now (who,
    /// since when, their rate) and the receipts waiting for their client.
    smpp_server: Get "/smpp-server" -> 200 SmppServerStatus {
        tag: "smpp-server", access: ReadAll,
    }

    /// SMPP accounts (admin only), newest first: API keys with an SMPP password. Revoke one as
    /// any API key.
    list_smpp_accounts: Get "/smpp-accounts" -> 200 [SmppAccountInfo] {
        tag: "smpp-server", access: Admin,
    }

    /// Creates an SMPP account (admin only): an API key with an SMPP password, whose name is
    /// the system_id. The password (8 characters, SMPP's limit) is in this answer and nowhere
    /// else.
    create_smpp_account: Post "/smpp-accounts" -> 201 CreatedSmppAccount {
        tag: "smpp-server", access: Admin,
        args: [account: Body NewSmppAccount],
    }

    /// Gives an SMPP account a new password (admin only, audited): binds with the old one are
    /// refused from now on; sessions bound go on.
    reset_smpp_password: Post "/smpp-accounts/{id}/password" -> 200 CreatedSmppAccount {
        tag: "smpp-server", access: Admin,
        args: [id: Path],
    }

    /// Brings the desktop window to the front (admin only). A second start of the app asks
    /// this of the running one instead of opening a second window on the same data.
    show_window: Post "/window/show" -> 204 () {
        tag: "overview", access: Admin, window: false,
        errors: [NoWindow],
    }

    /// Every setting as saved, where each comes from (default, file, environment variable) and
    /// when a change to it applies (admin only). Secrets are never in it.
    settings: Get "/settings" -> 200 SettingsView {
        tag: "settings", access: Admin,
        errors: [ConfigInvalid],
    }

    /// Saves changed settings into smsdesk.toml (the password into the OS keyring or encrypted)
    /// and applies what may change while running; every invalid field is named and nothing is
    /// written (admin only, audited).
    update_settings: Patch "/settings" -> 200 SettingsSaved {
        tag: "settings", access: Admin,
        args: [update: Body SettingsUpdate],
        errors: [ConfigInvalid],
    }

    /// The named connections and the routes as saved, in the order they are listed and tried
    /// (admin only). Passwords are never sent: `password_set` says whether one is kept.
    connection_settings: Get "/settings/connections" -> 200 ConnectionsView {
        tag: "settings", access: Admin,
        errors: [NotFound],
    }

    /// Saves the whole list of connections and routes (admin only; audited without passwords)
    /// and binds with them. A single `[smpp]` is moved into `[connections.<name>]`; a password
    /// typed goes to the OS keyring (or encrypted), never to the file. Every invalid field is
    /// named; nothing is written then.
    update_connection_settings: Post "/settings/connections" -> 200 SettingsSaved {
        tag: "settings", access: Admin,
        args: [update: Body ConnectionsUpdate],
        errors: [NotFound],
    }

    /// Binds once to an SMPP server with the given, unsaved, settings and unbinds: bound,
    /// refused (with the status's name), unreachable or timed out, within seconds (admin
    /// only).
    test_connection: Post "/settings/test-connection" -> 200 ConnectionTestResult {
        tag: "settings", access: Admin,
        args: [test: Body ConnectionTest],
    }

    /// People's accounts, by name (admin only).
    list_accounts: Get "/accounts" -> 200 [AccountInfo] {
        tag: "accounts", access: Admin,
    }

    /// Creates a person's account with a role and a first password (admin only, audited).
    create_account: Post "/accounts" -> 201 AccountInfo {
        tag: "accounts", access: Admin,
        args: [account: Body NewAccount],
        errors: [NameTaken],
    }

    /// Changes an account's role, disables or enables it, or sets a new password (admin only,
    /// audited). Disabling it or changing its password ends its sessions; the last active admin
    /// stays one.
    update_account: Patch "/accounts/{id}" -> 200 AccountInfo {
        tag: "accounts", access: Admin,
        args: [id: Path, change: Body AccountChange],
        errors: [LastAdmin],
    }

    /// Signed-in browsers, newest first (admin only).
    list_sessions: Get "/sessions" -> 200 [SessionInfo] {
        tag: "accounts", access: Admin,
    }

    /// Ends a browser's session at once (admin only, audited).
    revoke_session: Post "/sessions/{id}/revoke" -> 204 () {
        tag: "accounts", access: Admin,
        args: [id: Path],
    }

    /// Changes the signed-in person's own password (their current one is needed: a wrong one
    /// is an invalid `current` field); their other sessions end, this one goes on.
    change_password: Post "/me/password" -> 204 () {
        tag: "accounts", access: Person, window: false,
        args: [change: Body PasswordChange],
    }
}
