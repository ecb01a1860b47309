import { useState } from "react";
import { asBackendError, type Backend, type BackendError } from "../../backend";
import type { ConnectionTest } from "../../bindings/ConnectionTest";
import type { ConnectionTestResult } from "../../bindings/ConnectionTestResult";
import type { FieldError } from "../../bindings/FieldError";
import { ErrorNotice } from "../../components/ErrorNotice";
import { useI18n } from "../../i18n/context";
import type { MessageKey } from "../../i18n/en";
import type { Translate } from "../../i18n/i18n";
import { tlsTrial } from "./tls";

/**
 * The trial a test runs: the connection values as on screen, saved or not, TLS with them (see
 * `tlsTrial`). `sandbox` says which is tried: the sandbox, or the server typed (a saved sandbox
 * does not stand in for it).
 */
export function trialOf(
  valueOf: (key: string) => string,
  password: string | null,
  sandbox: boolean,
): ConnectionTest {
  const port = Number(valueOf("smpp.port"));
  return {
    connection: null,
    sandbox,
    host: valueOf("smpp.host"),
    port: Number.isInteger(port) && port > 0 && port < 65_536 ? port : null,
    system_id: valueOf("smpp.system_id"),
    password: password === null || password === "" ? null : password,
    system_type: valueOf("smpp.system_type"),
    interface_version: valueOf("smpp.interface_version"),
    address_range: valueOf("smpp.address_range"),
    ...tlsTrial(valueOf),
  };
}

/**
 * One trial bind at a time: whether it runs, and how it went or why it could not be asked.
 * `onFieldErrors` is told the fields the engine refused (none as a test starts), for the form to
 * show each next to its field (the saved password not sent to this server, a pin that is none).
 */
export function useTrialBind(
  backend: Backend,
  onFieldErrors?: (errors: FieldError[]) => void,
): {
  busy: boolean;
  result: ConnectionTestResult | null;
  error: BackendError | null;
  run: (test: ConnectionTest) => void;
} {
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<ConnectionTestResult | null>(null);
  const [error, setError] = useState<BackendError | null>(null);
  const run = (test: ConnectionTest): void => {
    setBusy(true);
    setResult(null);
    setError(null);
    onFieldErrors?.([]);
    backend.testConnection(test).then(
      (r) => {
        setResult(r);
        setBusy(false);
      },
      (e: unknown) => {
        const error = asBackendError(e);
        setError(error);
        setBusy(false);
        onFieldErrors?.(error.errors);
      },
    );
  };
  return { busy, result, error, run };
}

/**
 * "Test connection": a trial bind with the connection values in the form, saved or not (the
 * sandbox while it is ticked there, else the server typed), and a plain answer: bound, refused
 * (with the SMSC's reason), unreachable, or no answer in time, each with what to check.
 */
export function ConnectionTestButton({
  backend,
  valueOf,
  password,
  onFieldErrors,
  note,
}: {
  backend: Backend;
  valueOf: (key: string) => string;
  password: string | null;
  /** The fields the engine refused for the test, to show next to each (none as a test starts). */
  onFieldErrors?: (errors: FieldError[]) => void;
  /** What the test leaves as saved, said under the button (a client certificate typed). */
  note?: string | null;
}) {
  const { t } = useI18n();
  const { busy, result, error, run: test } = useTrialBind(backend, onFieldErrors);
  const sandbox = valueOf("smpp.sandbox") === "true";
  const run = (): void => test(trialOf(valueOf, password, sandbox));

  return (
    <div className="settings-test">
      <div className="row-actions">
        <button type="button" className="button button-secondary" onClick={run} disabled={busy} data-testid="test-connection">
          {busy ? t("settings.test.running") : t("settings.test.action")}
        </button>
        <span className="hint" data-testid="test-connection-hint">
          {sandbox ? t("settings.test.hint.sandbox") : t("settings.test.hint")}
        </span>
      </div>
      {note !== undefined && note !== null && (
        <p className="hint" data-testid="test-connection-note">
          {note}
        </p>
      )}
      <div aria-live="polite">
        {result !== null && <TestResult result={result} />}
        {error !== null && <ErrorNotice title={t("settings.test.failedCall")} error={error} testId="test-error" />}
      </div>
    </div>
  );
}

/** The refusals a headline says what to do about; any other code has the general one. */
const REFUSALS = new Set([
  "ESME_RINVPASWD",
  "ESME_RINVSYSID",
  "ESME_RINVSYSTYP",
  "ESME_RALYBND",
  "ESME_RBINDFAIL",
  "ESME_RINVVER",
]);

/** What to do about a refused bind, first: the provider's code follows in small print. */
export function refusalHeadline(t: Translate, statusName: string | null): string {
  return statusName !== null && REFUSALS.has(statusName)
    ? t(`settings.test.refused.${statusName}` as MessageKey & `settings.test.refused.${string}`)
    : t("settings.test.refused.other");
}

/**
 * How a trial bind went, in plain words, what to do when it did not bind, then in small print
 * the provider's code (a refusal) or the system's own words (no answer, no connection). A TLS
 * handshake that failed (most often the certificate) says so first, that nothing was sent, then
 * the problem as the engine names it ("the server's certificate expired on …"), in full.
 */
export function TestResult({ result, testId = "test-result" }: { result: ConnectionTestResult; testId?: string }) {
  const { t, formatNumber } = useI18n();
  const outcome = result.outcome;
  const ok = outcome === "bound";
  // A refusal's headline says what to check already.
  const check = outcome === "bound" || outcome === "refused" ? null : t(`settings.test.check.${outcome}`);
  const summary = (() => {
    switch (result.outcome) {
      case "bound":
        return t("settings.test.bound", { target: result.target, ms: formatNumber(result.elapsed_ms) });
      case "refused":
        return refusalHeadline(t, result.status_name);
      case "unreachable":
        return t("settings.test.unreachable", { target: result.target });
      case "timeout":
        return t("settings.test.timeout", { target: result.target });
      case "failed":
        return t("settings.test.failed");
      case "tls":
        return t("settings.test.tls");
    }
  })();
  const code = result.status_name ?? (result.status === null ? null : `0x${result.status.toString(16).padStart(8, "0")}`);
  return (
    <div
      className={`notice ${ok ? "notice-success" : "notice-error"}`}
      role="status"
      data-testid={testId}
      data-outcome={result.outcome}
    >
      <p>
        <strong data-testid={`${testId}-headline`}>{summary}</strong>
      </p>
      {outcome === "tls" && result.message !== "" && (
        <p className="test-tls-problem" data-testid={`${testId}-tls`}>
          {t("settings.test.tls.problem")} <span lang="en">{result.message}</span>
        </p>
      )}
      {check !== null && <p data-testid={`${testId}-check`}>{check}</p>}
      {outcome === "refused" && code !== null && (
        <p className="hint" data-testid={`${testId}-code`}>
          {t("settings.test.code", { name: code })}
        </p>
      )}
      {!ok && outcome !== "refused" && outcome !== "tls" && result.message !== "" && (
        <p className="hint" data-testid={`${testId}-details`}>
          {t("settings.test.details")} <span lang="en">{result.message}</span>
        </p>
      )}
    </div>
  );
}
