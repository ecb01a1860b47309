import { useState } from "react";
import { asBackendError, type Backend, type BackendError } from "../../backend";
import type { ConnectionTestResult } from "../../bindings/ConnectionTestResult";
import { ErrorNotice } from "../../components/ErrorNotice";
import { useI18n } from "../../i18n/context";

/**
 * "Test connection": a trial bind with the connection values in the form, saved or not, and a
 * plain answer: bound, refused (with the SMSC's reason), unreachable, or no answer in time.
 */
export function ConnectionTestButton({
  backend,
  valueOf,
  password,
}: {
  backend: Backend;
  valueOf: (key: string) => string;
  password: string | null;
}) {
  const { t } = useI18n();
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<ConnectionTestResult | null>(null);
  const [error, setError] = useState<BackendError | null>(null);

  const run = (): void => {
    setBusy(true);
    setResult(null);
    setError(null);
    const port = Number(valueOf("smpp.port"));
    backend
      .testConnection({
        sandbox: valueOf("smpp.sandbox") === "true",
        host: valueOf("smpp.host"),
        port: Number.isInteger(port) && port > 0 && port < 65_536 ? port : null,
        system_id: valueOf("smpp.system_id"),
        password: password === null || password === "" ? null : password,
        system_type: valueOf("smpp.system_type"),
        interface_version: valueOf("smpp.interface_version"),
        address_range: valueOf("smpp.address_range"),
      })
      .then(
        (r) => {
          setResult(r);
          setBusy(false);
        },
        (e: unknown) => {
          setError(asBackendError(e));
          setBusy(false);
        },
      );
  };

  return (
    <div className="settings-test">
      <div className="row-actions">
        <button type="button" className="button button-secondary" onClick={run} disabled={busy} data-testid="test-connection">
          {busy ? t("settings.test.running") : t("settings.test.action")}
        </button>
        <span className="hint">{t("settings.test.hint")}</span>
      </div>
      <div aria-live="polite">
        {result !== null && <TestResult result={result} />}
        {error !== null && <ErrorNotice title={t("settings.test.failedCall")} error={error} testId="test-error" />}
      </div>
    </div>
  );
}

function TestResult({ result }: { result: ConnectionTestResult }) {
  const { t, formatNumber } = useI18n();
  const ok = result.outcome === "bound";
  const summary = (() => {
    switch (result.outcome) {
      case "bound":
        return t("settings.test.bound", { target: result.target, ms: formatNumber(result.elapsed_ms) });
      case "refused":
        return t("settings.test.refused", { name: result.status_name ?? String(result.status) });
      case "unreachable":
        return t("settings.test.unreachable", { target: result.target });
      case "timeout":
        return t("settings.test.timeout", { target: result.target });
      case "failed":
        return t("settings.test.failed");
    }
  })();
  return (
    <div
      className={`notice ${ok ? "notice-success" : "notice-error"}`}
      role="status"
      data-testid="test-result"
      data-outcome={result.outcome}
    >
      <p>
        <strong>{summary}</strong>
      </p>
      {!ok && <p className="hint">{result.message}</p>}
    </div>
  );
}
