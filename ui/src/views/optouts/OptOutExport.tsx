import { useState } from "react";
import { asBackendError, type Backend, type BackendError } from "../../backend";
import { ErrorNotice } from "../../components/ErrorNotice";
import { useI18n } from "../../i18n/context";

type Stage =
  | { readonly kind: "idle" }
  | { readonly kind: "running" }
  | { readonly kind: "done"; readonly count: number }
  | { readonly kind: "failed"; readonly error: BackendError };

/**
 * Saves the numbers on the opt-out list now as a CSV file, as the engine writes it: a download in
 * a browser, a file chosen in the save dialog in the window.
 */
export function OptOutExport({ backend }: { backend: Backend }) {
  const { t } = useI18n();
  const [stage, setStage] = useState<Stage>({ kind: "idle" });

  const start = (): void => {
    setStage({ kind: "running" });
    backend.saveOptOuts().then(
      (count) => setStage(count === null ? { kind: "idle" } : { kind: "done", count }),
      (e: unknown) => setStage({ kind: "failed", error: asBackendError(e) }),
    );
  };

  return (
    <div className="export" data-testid="optouts-export">
      <div className="row-actions">
        <button
          type="button"
          className="button button-secondary"
          onClick={start}
          disabled={stage.kind === "running"}
          data-testid="optouts-export-start"
        >
          {stage.kind === "running" ? t("optOuts.export.busy") : t("optOuts.export")}
        </button>
      </div>
      <div aria-live="polite">
        {stage.kind === "done" && (
          <p className="notice notice-success" data-testid="optouts-export-done" data-count={stage.count}>
            {t("optOuts.export.done", { count: stage.count })}
          </p>
        )}
        {stage.kind === "failed" && (
          <ErrorNotice title={t("optOuts.export.error")} error={stage.error} testId="optouts-export-error" />
        )}
      </div>
    </div>
  );
}
