// The catalogue of operations (see mod.rs): one entry per operation, in the order the API
// describes them. The desktop shell's build script reads this file too, for the window's
// command permissions; keep it a single `operations!` call with nothing else in it.
//
// An entry: doc, then `name: METHOD "path" -> status Answer`, where the answer is a type, `[Item]` for a list, or `()` for none, then its tag, who may
// call it (`Key`: any API key; `Operator`: the operator only), `window: false` when the window has no
// such command, its arguments (`name: Place [Type]`) and the error codes it may answer with
// besides those its shape implies.
operations! { $
    /// This instance: product, version, mode, where its data lives.
    info: Get "/info" -> 200 AppInfo {
        tag: "instance", access: Key,
    }

    /// Hands in one message; answers once it is committed to the queue. A repeat with the same
    /// Idempotency-Key gets the first answer instead of a second message.
    submit_message: Post "/messages" -> 201 SubmittedMessage {
        tag: "messages", access: Key,
        args: [
            message: Body SubmitMessage,
            /// Makes a repeat of this request return the first answer instead of a second message.
            idempotency_key: Header("Idempotency-Key") IdempotencyKey,
        ],
        errors: [IdempotencyKeyInFlight, IdempotencyKeyReused],
    }

    /// Hands in several messages (at most `intake.max_batch`): all are committed, or none (field
    /// errors name the message's index). Same idempotency rules as one message.
    submit_batch: Post "/messages/batch" -> 201 SubmittedBatch {
        tag: "messages", access: Key,
        args: [
            batch: Body SubmitBatch,
            /// As for one message.
            idempotency_key: Header("Idempotency-Key") IdempotencyKey,
        ],
        errors: [IdempotencyKeyInFlight, IdempotencyKeyReused],
    }

    /// Checks messages as a submit would and writes nothing: each one's normalised number,
    /// encoding and parts, or every invalid field (the compose form's counter, a CSV preview).
    preview_messages: Post "/messages/preview" -> 200 Preview {
        tag: "messages", access: Key,
        args: [batch: Body SubmitBatch],
    }

    /// Messages, newest first, filtered; follow `next_cursor` for the next page.
    list_messages: Get "/messages" -> 200 MessagePage {
        tag: "messages", access: Key,
        args: [filter: Query MessageFilter],
        errors: [InvalidCursor, InvalidFilter],
    }

    /// One message: its computed state with the rule behind it, flags, attempts, receipts and
    /// timeline.
    message: Get "/messages/{id}" -> 200 MessageDetail {
        tag: "messages", access: Key,
        args: [id: Path],
    }

    /// Sends a message again now. When its last try was accepted or its outcome is unknown, it
    /// may arrive twice: that needs `confirm_duplicate: true`.
    retry: Post "/messages/{id}/retry" -> 204 () {
        tag: "messages", access: Key,
        args: [id: Path, action: Body MessageAction],
        errors: [NotAllowed, ConfirmationRequired, ValidityEnded],
    }

    /// Takes a message that has not been sent out of the queue.
    cancel: Post "/messages/{id}/cancel" -> 204 () {
        tag: "messages", access: Key,
        args: [id: Path, action: Body MessageAction],
        errors: [NotAllowed],
    }

    /// The exception queue.
    list_exceptions: Get "/exceptions" -> 200 ExceptionPage {
        tag: "exceptions", access: Key,
        args: [filter: Query ExceptionFilter],
        errors: [InvalidCursor, InvalidFilter],
    }

    /// One exception with its evidence.
    exception: Get "/exceptions/{id}" -> 200 ExceptionDetail {
        tag: "exceptions", access: Key,
        args: [id: Path],
    }

    /// Resolves an exception with a decision and a note (audited; the evidence never changes).
    resolve: Post "/exceptions/{id}/resolve" -> 204 () {
        tag: "exceptions", access: Key,
        args: [id: Path, request: Body ResolveRequest],
        errors: [NoteRequired, NotOpen, DecisionNotAllowed, MismatchesNotSeen, NotAllowed, ConfirmationRequired, ValidityEnded],
    }

    /// Queue depth, states and open exceptions at a glance.
    dashboard: Get "/dashboard" -> 200 Dashboard {
        tag: "overview", access: Key,
    }

    /// Submits, receipts and receipt latency over the window (UTC buckets), and outcomes by day
    /// for the last 30 days.
    activity: Get "/dashboard/activity" -> 200 Activity {
        tag: "overview", access: Key,
        args: [
            /// `hour` (the last 60 minutes, by minute), `day` (24 hours, by hour) or `month`
            /// (30 days, by day).
            window: Param ActivityWindow,
        ],
    }

    /// The SMPP connection and its link state now (with the last error and since when).
    connection: Get "/connection" -> 200 ConnectionStatus {
        tag: "overview", access: Key,
    }

    /// Every operator action and automatic decision, newest first.
    audit_log: Get "/audit" -> 200 AuditPage {
        tag: "overview", access: Key,
        args: [page: Query PageRequest],
        errors: [InvalidCursor],
    }

    /// API keys (operator only).
    list_keys: Get "/keys" -> 200 [ApiKeyInfo] {
        tag: "keys", access: Operator,
    }

    /// Creates an API key (operator only). The key is in this answer and nowhere else.
    create_key: Post "/keys" -> 201 CreatedApiKey {
        tag: "keys", access: Operator,
        args: [key: Body NewApiKey],
    }

    /// Revokes an API key at once (operator only).
    revoke_key: Post "/keys/{id}/revoke" -> 204 () {
        tag: "keys", access: Operator,
        args: [id: Path],
        errors: [AlreadyRevoked],
    }

    /// Brings the desktop window to the front (operator only). A second start of the app asks
    /// this of the running one instead of opening a second window on the same data.
    show_window: Post "/window/show" -> 204 () {
        tag: "overview", access: Operator, window: false,
        errors: [NoWindow],
    }

    /// Every setting as saved, where each comes from (default, file, environment variable) and
    /// when a change to it applies (operator only). Secrets are never in it.
    settings: Get "/settings" -> 200 SettingsView {
        tag: "settings", access: Operator,
        errors: [ConfigInvalid],
    }

    /// Saves changed settings into smsdesk.toml (the password into the OS keyring or encrypted)
    /// and applies what may change while running; every invalid field is named and nothing is
    /// written (operator only, audited).
    update_settings: Patch "/settings" -> 200 SettingsSaved {
        tag: "settings", access: Operator,
        args: [update: Body SettingsUpdate],
        errors: [ConfigInvalid],
    }

    /// Binds once to an SMPP server with the given, unsaved, settings and unbinds: bound,
    /// refused (with the status's name), unreachable or timed out, within seconds (operator
    /// only).
    test_connection: Post "/settings/test-connection" -> 200 ConnectionTestResult {
        tag: "settings", access: Operator,
        args: [test: Body ConnectionTest],
    }
}
