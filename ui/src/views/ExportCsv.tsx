import { useEffect, useRef, useState } from "react";
import { asBackendError, CLIENT_ERROR_CODES, type Backend, type BackendError } from "../backend";
import type { ExportProgress } from "../bindings/ExportProgress";
import type { MessageFilter } from "../bindings/MessageFilter";
import { ErrorNotice } from "../components/ErrorNotice";
import { useI18n } from "../i18n/context";

type Stage =
  | { readonly kind: "idle" }
  | { readonly kind: "running"; readonly progress: ExportProgress | null }
  | { readonly kind: "done"; readonly count: number }
  | { readonly kind: "cancelled" }
  | { readonly kind: "failed"; readonly error: BackendError };

/**
 * "Export CSV": saves exactly the messages the list's filter selects, with a progress bar and
 * the count as it goes, and a way to cancel.
 */
export function ExportCsv({ backend, filter }: { backend: Backend; filter: MessageFilter }) {
  const { t, formatNumber } = useI18n();
  const [stage, setStage] = useState<Stage>({ kind: "idle" });
  const running = useRef<AbortController | null>(null);

  // Leaving the screen cancels an export under way.
  useEffect(() => () => running.current?.abort(), []);

  const start = (): void => {
    const controller = new AbortController();
    running.current = controller;
    const live = (): boolean => running.current === controller;
    setStage({ kind: "running", progress: null });
    backend
      .exportMessages(filter, {
        signal: controller.signal,
        onProgress: (progress) => {
          if (live()) setStage({ kind: "running", progress });
        },
      })
      .then(
        (count) => {
          if (live()) setStage(count === null ? { kind: "idle" } : { kind: "done", count });
        },
        (e: unknown) => {
          if (!live()) return;
          const error = asBackendError(e);
          setStage(error.code === CLIENT_ERROR_CODES.cancelled ? { kind: "cancelled" } : { kind: "failed", error });
        },
      )
      .finally(() => {
        if (live()) running.current = null;
      });
  };
  const cancel = (): void => running.current?.abort();

  return (
    <div className="export" data-testid="export">
      <div className="row-actions">
        <button
          type="button"
          className="button button-secondary"
          onClick={start}
          disabled={stage.kind === "running"}
          data-testid="export-start"
        >
          {t("export.button")}
        </button>
        {stage.kind === "running" && (
          <button type="button" className="button button-secondary" onClick={cancel} data-testid="export-cancel">
            {t("export.cancel")}
          </button>
        )}
      </div>
      <div aria-live="polite">
        {stage.kind === "running" && stage.progress === null && (
          <p className="status" role="status" data-testid="export-preparing">
            <span className="spinner" aria-hidden="true" />
            {t("export.preparing")}
          </p>
        )}
        {stage.kind === "running" && stage.progress !== null && (
          <Progress progress={stage.progress} label={t("export.progressLabel")} />
        )}
        {stage.kind === "done" && (
          <p className="status" role="status" data-testid="export-done">
            {stage.count === 1 ? t("export.done.one") : t("export.done", { count: stage.count })}
          </p>
        )}
        {stage.kind === "cancelled" && (
          <p className="status" role="status" data-testid="export-cancelled">
            {t("export.cancelled")}
          </p>
        )}
      </div>
      {stage.kind === "failed" &&
        (stage.error.code === CLIENT_ERROR_CODES.dialogUnavailable ? (
          <div className="notice notice-warning" role="alert" data-testid="export-no-dialog">
            <h3>{t("export.noDialog.title")}</h3>
            <p>{t("export.noDialog.body")}</p>
          </div>
        ) : (
          <ErrorNotice title={t("export.error")} error={stage.error} onRetry={start} testId="export-error" />
        ))}
      {stage.kind === "running" && stage.progress !== null && (
        <p className="hint counter" data-testid="export-count">
          {t("export.count", {
            done: formatNumber(Math.min(stage.progress.done, stage.progress.total)),
            total: formatNumber(stage.progress.total),
          })}
        </p>
      )}
    </div>
  );
}

/** A native progress bar (styled as the import's), with its value also stated for assistive technology. */
function Progress({ progress, label }: { progress: ExportProgress; label: string }) {
  const max = Math.max(progress.total, 1);
  const now = Math.min(progress.done, max);
  return (
    <div className="import-progress">
      <progress
        max={max}
        value={now}
        role="progressbar"
        aria-label={label}
        aria-valuemin={0}
        aria-valuemax={max}
        aria-valuenow={now}
        data-testid="export-progress"
      />
    </div>
  );
}
