import { useState } from "react";
import { asBackendError, type Backend, type BackendError } from "../../backend";
import type { SubjectAccess } from "../../bindings/SubjectAccess";
import { ErrorNotice } from "../../components/ErrorNotice";
import { useI18n } from "../../i18n/context";

type Saving =
  | { readonly kind: "idle" }
  | { readonly kind: "saving" }
  | { readonly kind: "saved" }
  | { readonly kind: "failed"; readonly error: BackendError };

/**
 * The name a number's record is offered under: the day and time it was given, in local time,
 * never the number (a file's name is seen where its content is not).
 */
export function recordFileName(now: Date, extension: "json" | "csv"): string {
  const two = (n: number): string => String(n).padStart(2, "0");
  const day = `${now.getFullYear()}${two(now.getMonth() + 1)}${two(now.getDate())}`;
  return `smsdesk-subject-access-${day}-${two(now.getHours())}${two(now.getMinutes())}.${extension}`;
}

/**
 * Saves the record for its owner, as JSON (the record itself) and as CSV (one line per message,
 * reply or opt-out entry, as the engine writes it): a download in a browser, a file chosen in the
 * save dialog in the window, which saves CSV files only.
 */
export function SaveRecord({ backend, access }: { backend: Backend; access: SubjectAccess }) {
  const { t } = useI18n();
  const [saving, setSaving] = useState<Saving>({ kind: "idle" });
  const saveJson = backend.saveJson;

  const save = (write: () => Promise<boolean>): void => {
    setSaving({ kind: "saving" });
    write().then(
      (saved) => setSaving(saved ? { kind: "saved" } : { kind: "idle" }),
      (e: unknown) => setSaving({ kind: "failed", error: asBackendError(e) }),
    );
  };
  const busy = saving.kind === "saving";

  return (
    <div className="privacy-save">
      <div className="row-actions">
        {saveJson !== undefined && (
          <button
            type="button"
            className="button button-secondary"
            disabled={busy}
            onClick={() => save(() => saveJson.call(backend, JSON.stringify(access.record, null, 2), recordFileName(new Date(), "json")))}
            data-testid="privacy-access-json"
          >
            {t("privacy.access.json")}
          </button>
        )}
        <button
          type="button"
          className="button button-secondary"
          disabled={busy}
          onClick={() => save(() => backend.saveCsv(access.csv, recordFileName(new Date(), "csv")))}
          data-testid="privacy-access-csv"
        >
          {t("privacy.access.csv")}
        </button>
      </div>
      {saveJson === undefined && (
        <p className="hint" data-testid="privacy-access-no-json">
          {t("privacy.access.noJson")}
        </p>
      )}
      <div aria-live="polite">
        {saving.kind === "saved" && (
          <p className="notice notice-success" data-testid="privacy-access-saved">
            {t("privacy.access.saved")}
          </p>
        )}
        {saving.kind === "failed" && (
          <ErrorNotice title={t("privacy.access.saveFailed")} error={saving.error} testId="privacy-access-save-error" />
        )}
      </div>
    </div>
  );
}
