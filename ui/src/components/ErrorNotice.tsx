import type { ReactNode } from "react";
import { CLIENT_ERROR_CODES, ERROR_CODES, type BackendError, type BackendErrorCode } from "../backend";
import { useI18n } from "../i18n/context";
import type { FieldError } from "../bindings/FieldError";
import type { I18n, MessageKey } from "../i18n/i18n";
import { fieldErrorLine, fieldProblem, isKey } from "../i18n/server/words";

/** Codes the UI explains in its own words; any other code gets the generic sentence. */
type ExplanationKey = Extract<
  MessageKey,
  | `error.code.${string}`
  | "error.unreachable"
  | "error.badResponse"
  | "error.unauthorized"
  | "error.forbidden"
  | "error.invalid"
  | "error.generic"
  | "error.notFound"
  | "error.notAllowed"
  | "error.decisionNotAllowed"
  | "error.validityEnded"
  | "error.noteRequired"
  | "error.notOpen"
  | "error.confirmationRequired"
  | "error.mismatches"
  | "error.stopping"
  | "error.internal"
  | "error.csrfTokenMissing"
  | "error.setupTokenInvalid"
  | "error.methodNotAllowed"
  | "error.requestTimeout"
  | "error.nameTaken"
  | "error.lastAdmin"
  | "error.attemptsExhausted"
  | "error.tooOld"
  | "error.uriTooLong"
  | "error.hostNotAllowed"
  | "error.destinationNotAllowed"
  | "error.destinationOptedOut"
  | "error.notSandbox"
  | "error.rateLimited"
  | "error.tooManyAttempts"
  | "error.tooManyConnections"
  | "error.busy"
  | "error.storageFull"
>;

export const EXPLAINED_CODES: Readonly<Partial<Record<BackendErrorCode, ExplanationKey>>> = {
  [CLIENT_ERROR_CODES.unreachable]: "error.unreachable",
  [CLIENT_ERROR_CODES.badResponse]: "error.badResponse",
  [ERROR_CODES.unauthorized]: "error.unauthorized",
  [ERROR_CODES.forbidden]: "error.forbidden",
  [ERROR_CODES.invalid]: "error.invalid",
  // The engine's action and decision refusals (http/error.rs), explained for people.
  not_found: "error.notFound",
  not_allowed: "error.notAllowed",
  decision_not_allowed: "error.decisionNotAllowed",
  validity_ended: "error.validityEnded",
  note_required: "error.noteRequired",
  not_open: "error.notOpen",
  confirmation_required: "error.confirmationRequired",
  mismatches_not_seen: "error.mismatches",
  stopping: "error.stopping",
  internal: "error.internal",
  // Accounts, sign-in and the server's own limits.
  csrf_token_missing: "error.csrfTokenMissing",
  setup_token_invalid: "error.setupTokenInvalid",
  method_not_allowed: "error.methodNotAllowed",
  request_timeout: "error.requestTimeout",
  name_taken: "error.nameTaken",
  last_admin: "error.lastAdmin",
  attempts_exhausted: "error.attemptsExhausted",
  too_old: "error.tooOld",
  uri_too_long: "error.uriTooLong",
  host_not_allowed: "error.hostNotAllowed",
  destination_not_allowed: "error.destinationNotAllowed",
  destination_opted_out: "error.destinationOptedOut",
  not_sandbox: "error.notSandbox",
  rate_limited: "error.rateLimited",
  too_many_attempts: "error.tooManyAttempts",
  too_many_connections: "error.tooManyConnections",
  busy: "error.busy",
  storage_full: "error.storageFull",
  bad_request: "error.code.bad_request",
  bad_json: "error.code.bad_json",
  unknown_provider: "error.code.unknown_provider",
  no_ui: "error.code.no_ui",
  idempotency_key_in_flight: "error.code.idempotency_key_in_flight",
  already_revoked: "error.code.already_revoked",
  no_window: "error.code.no_window",
  config_invalid: "error.code.config_invalid",
  cancelled: "error.code.cancelled",
  too_large: "error.code.too_large",
  idempotency_key_reused: "error.code.idempotency_key_reused",
  invalid_cursor: "error.code.invalid_cursor",
  invalid_filter: "error.code.invalid_filter",
  write_failed: "error.code.write_failed",
  permanent_failure_retry: "error.code.permanent_failure_retry",
  // The guardrails against SMS pumping and waste (each refused field says more).
  country_not_allowed: "error.code.country_not_allowed",
  velocity_limit: "error.code.velocity_limit",
  spend_limit: "error.code.spend_limit",
};

/** What went wrong, in the reader's language (the generic sentence for a code the UI does not explain). */
export function errorExplanation(t: ReturnType<typeof useI18n>["t"], error: BackendError): string {
  return t(EXPLAINED_CODES[error.code] ?? "error.generic");
}

/**
 * A refused field as one line in words: a setting by its label ("Country of national numbers"),
 * any other field by its name, never a raw key such as `intake.default_region`.
 */
export function refusedFieldLine(e: FieldError, t: I18n["t"]): string {
  const setting = `setting.${e.field}`;
  if (!isKey(setting)) return fieldErrorLine(e, t);
  const field = (t as unknown as (k: string) => string)(setting);
  return t("fieldError.line", { field, problem: fieldProblem(e, t) });
}

/**
 * An error as a person reads it, said once: the headline, what went wrong in their language (or,
 * when fields were refused, each of them in words), and, folded under "Technical details", the
 * engine's code and its own English words, which the operator may need to quote.
 */
export function ErrorNotice({
  title,
  error,
  onRetry,
  testId,
  children,
}: {
  title: string;
  error: BackendError;
  onRetry?: () => void;
  testId?: string;
  children?: ReactNode;
}) {
  const { t } = useI18n();
  const explanation: ExplanationKey = EXPLAINED_CODES[error.code] ?? "error.generic";
  return (
    <div className="notice notice-error" role="alert" data-testid={testId} data-code={error.code}>
      <h3>{title}</h3>
      <p data-testid="error-explanation">{t(explanation)}</p>
      {error.errors.length > 0 && (
        <ul className="field-errors" data-testid="field-errors">
          {error.errors.map((e) => (
            <li key={`${e.field}:${e.code}`} data-field={e.field}>
              {refusedFieldLine(e, t)}
            </li>
          ))}
        </ul>
      )}
      {error.retryAfterSeconds !== null && (
        <p data-testid="error-retry-after">{t("error.retryAfter", { seconds: error.retryAfterSeconds })}</p>
      )}
      {children}
      <details className="error-technical" data-testid="error-technical">
        <summary>{t("error.technical")}</summary>
        <dl className="error-facts">
          <div>
            <dt>{t("error.code")}</dt>
            <dd>
              <code data-testid="error-code">{error.code}</code>
            </dd>
          </div>
          {error.message.trim() !== "" && (
            <div>
              <dt>{t("error.details")}</dt>
              <dd data-testid="error-message" lang="en">
                {error.message}
              </dd>
            </div>
          )}
        </dl>
      </details>
      {onRetry && (
        <button type="button" className="button" onClick={onRetry} data-testid="retry">
          {t("action.retry")}
        </button>
      )}
    </div>
  );
}
