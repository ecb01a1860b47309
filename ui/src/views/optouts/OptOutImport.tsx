import { useId, useRef, useState, type ChangeEvent } from "react";
import { asBackendError, ERROR_CODES, type Backend, type BackendError } from "../../backend";
import type { FieldError } from "../../bindings/FieldError";
import type { OptOutImported } from "../../bindings/OptOutImported";
import { ErrorNotice } from "../../components/ErrorNotice";
import { useRuns } from "../../hooks/useRuns";
import { useI18n } from "../../i18n/context";

type Stage =
  | { readonly kind: "idle" }
  | { readonly kind: "checking" }
  | { readonly kind: "refused"; readonly lines: readonly LineError[]; readonly other: readonly FieldError[] }
  | { readonly kind: "checkFailed"; readonly error: BackendError }
  | { readonly kind: "checked"; readonly csv: string; readonly name: string; readonly plan: OptOutImported }
  | { readonly kind: "importing"; readonly csv: string; readonly name: string; readonly plan: OptOutImported }
  | { readonly kind: "imported"; readonly result: OptOutImported }
  | { readonly kind: "importFailed"; readonly csv: string; readonly name: string; readonly plan: OptOutImported; readonly error: BackendError };

export interface LineError {
  readonly line: number;
  readonly message: string;
}

/** The engine names an invalid line of an import `lines[N]`, N counted from 1. */
export function lineErrors(errors: readonly FieldError[]): { lines: LineError[]; other: FieldError[] } {
  const lines: LineError[] = [];
  const other: FieldError[] = [];
  for (const e of errors) {
    const m = /^lines\[(\d+)\]$/.exec(e.field);
    if (m === null) other.push(e);
    else lines.push({ line: Number(m[1]), message: e.message });
  }
  lines.sort((a, b) => a.line - b.line);
  return { lines, other };
}

/**
 * Puts the numbers of a CSV file on the opt-out list: the engine checks the whole file first and
 * says what it would do (how many numbers go on, how many are on it already, how many waiting
 * messages would be held); nothing changes until the person confirms. A file with an invalid line
 * is refused whole, each such line named.
 */
export function OptOutImport({ backend }: { backend: Backend }) {
  const { t } = useI18n();
  const headingId = useId();
  const fileId = useId();
  const hintId = useId();
  const [stage, setStage] = useState<Stage>({ kind: "idle" });
  const fileRef = useRef<HTMLInputElement>(null);
  // A file chosen starts a new run; a run's late answers are dropped once another began.
  const runs = useRuns();

  const choose = (event: ChangeEvent<HTMLInputElement>): void => {
    const file = event.target.files?.[0];
    const live = runs.start();
    if (file === undefined) {
      setStage({ kind: "idle" });
      return;
    }
    setStage({ kind: "checking" });
    void (async () => {
      try {
        const csv = await file.text();
        const plan = await backend.importOptOuts({ csv, dry_run: true });
        if (live()) setStage({ kind: "checked", csv, name: file.name, plan });
      } catch (e) {
        if (!live()) return;
        const error = asBackendError(e);
        if (error.code === ERROR_CODES.invalid && error.errors.length > 0) setStage({ kind: "refused", ...lineErrors(error.errors) });
        else setStage({ kind: "checkFailed", error });
      }
    })();
  };

  const confirm = (csv: string, name: string, plan: OptOutImported): void => {
    const live = runs.current();
    setStage({ kind: "importing", csv, name, plan });
    backend.importOptOuts({ csv, dry_run: false }).then(
      (result) => {
        if (!live()) return;
        setStage({ kind: "imported", result });
        if (fileRef.current !== null) fileRef.current.value = "";
      },
      (e: unknown) => {
        if (live()) setStage({ kind: "importFailed", csv, name, plan, error: asBackendError(e) });
      },
    );
  };

  const cancel = (): void => {
    runs.cancel();
    setStage({ kind: "idle" });
    if (fileRef.current !== null) fileRef.current.value = "";
  };

  const busy = stage.kind === "checking" || stage.kind === "importing";

  return (
    <section className="panel" aria-labelledby={headingId} data-testid="optout-import">
      <h2 id={headingId}>{t("optOuts.import.title")}</h2>
      <p className="panel-intro" id={hintId}>
        {t("optOuts.import.intro")}
      </p>
      <div className="form">
        <div className="field">
          <label htmlFor={fileId}>{t("import.file")}</label>
          <input
            id={fileId}
            ref={fileRef}
            type="file"
            accept=".csv,.txt,text/csv,text/plain"
            onChange={choose}
            disabled={busy}
            aria-describedby={hintId}
            data-testid="optout-import-file"
          />
        </div>
      </div>
      <div aria-live="polite">
        {stage.kind === "checking" && (
          <p className="status" role="status" data-testid="optout-import-checking">
            <span className="spinner" aria-hidden="true" />
            {t("optOuts.import.checking")}
          </p>
        )}
        {stage.kind === "refused" && (
          <div className="notice notice-error" role="alert" data-testid="optout-import-refused">
            <h3>{t("optOuts.import.refused")}</h3>
            <p>{t("optOuts.import.refused.body")}</p>
            {stage.lines.length > 0 && (
              <ul className="field-errors" data-testid="optout-import-lines">
                {stage.lines.map((l) => (
                  <li key={`${l.line}:${l.message}`} data-line={l.line}>
                    {t("optOuts.import.line", { line: l.line, message: l.message })}
                  </li>
                ))}
              </ul>
            )}
            {stage.other.length > 0 && (
              <ul className="field-errors">
                {stage.other.map((e) => (
                  <li key={`${e.field}:${e.code}`} data-field={e.field}>
                    {e.message}
                  </li>
                ))}
              </ul>
            )}
          </div>
        )}
        {stage.kind === "checkFailed" && (
          <ErrorNotice title={t("optOuts.import.checkFailed")} error={stage.error} testId="optout-import-error" />
        )}
        {(stage.kind === "checked" || stage.kind === "importing" || stage.kind === "importFailed") && (
          <div className="notice notice-info" data-testid="optout-import-plan" data-added={stage.plan.added} data-already={stage.plan.already}>
            <h3>{t("optOuts.import.plan.title", { file: stage.name })}</h3>
            <p data-testid="optout-import-counts">
              {t("optOuts.import.plan", {
                added: stage.plan.added,
                already: stage.plan.already,
                held: stage.plan.held_messages.length,
              })}
            </p>
            {stage.plan.added === 0 ? (
              <p>{t("optOuts.import.plan.nothing")}</p>
            ) : (
              <p className="hint">{t("optOuts.import.plan.hint")}</p>
            )}
            <div className="row-actions">
              {stage.plan.added > 0 && (
                <button
                  type="button"
                  className="button"
                  onClick={() => confirm(stage.csv, stage.name, stage.plan)}
                  disabled={stage.kind === "importing"}
                  data-testid="optout-import-confirm"
                >
                  {stage.kind === "importing" ? t("optOuts.import.busy") : t("optOuts.import.confirm", { count: stage.plan.added })}
                </button>
              )}
              <button
                type="button"
                className="button button-secondary"
                onClick={cancel}
                disabled={stage.kind === "importing"}
                data-testid="optout-import-cancel"
              >
                {t("action.cancel")}
              </button>
            </div>
          </div>
        )}
        {stage.kind === "importFailed" && (
          <ErrorNotice title={t("optOuts.import.failed")} error={stage.error} testId="optout-import-error" />
        )}
        {stage.kind === "imported" && (
          <div className="notice notice-success" data-testid="optout-import-done">
            <p>{t("optOuts.import.done", { added: stage.result.added, already: stage.result.already })}</p>
            {stage.result.held_messages.length > 0 && (
              <p>{t("optOuts.import.done.held", { count: stage.result.held_messages.length })}</p>
            )}
          </div>
        )}
      </div>
    </section>
  );
}
