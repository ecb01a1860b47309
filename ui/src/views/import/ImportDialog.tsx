import { useId, useRef, useState } from "react";
import { asBackendError, ERROR_CODES, type Backend, type BackendError } from "../../backend";
import type { FieldError } from "../../bindings/FieldError";
import { ErrorNotice } from "../../components/ErrorNotice";
import { Modal } from "../../components/Modal";
import { useI18n } from "../../i18n/context";
import type { Translate } from "../../i18n/i18n";
import { isUnfilled, LOCAL_CODES, rejectedRowsCsv } from "../csv";
import { fieldName, fieldProblem } from "../../i18n/server/words";
import { formatAmount, sumAmounts } from "../guardrails/money";
import { optedOutRows, rejectedFileName, TABLE_LIMIT, type CheckedRow, type ImportOptions, type Progress } from "./rows";
import { ScrollArea } from "../../components/ScrollArea";

export interface CheckedFile {
  readonly name: string;
  readonly header: string;
  readonly rows: readonly CheckedRow[];
  readonly ready: readonly CheckedRow[];
  readonly hash: string;
  readonly options: ImportOptions;
}

/** Where the dialog stands: checking the rows, waiting for the person, queuing, or stopped by a refusal. */
export type DialogStage =
  | { readonly kind: "checking"; readonly name: string; readonly progress: Progress }
  | { readonly kind: "checked"; readonly file: CheckedFile }
  | { readonly kind: "importing"; readonly file: CheckedFile; readonly progress: Progress; readonly stopping: boolean }
  | { readonly kind: "importFailed"; readonly file: CheckedFile; readonly queued: number; readonly error: BackendError };

export function rowErrorText(t: Translate, error: FieldError): string {
  const message =
    error.field === "kind" && error.code === LOCAL_CODES.kind
      ? t("import.local.kind")
      : error.field === "priority" && error.code === LOCAL_CODES.priority
        ? t("import.local.priority")
        : isUnfilled(error)
          ? t("import.template.missing", { names: error.params["placeholder"] ?? error.message })
          : fieldProblem(error, t);
  return t("import.fieldError", { field: fieldName(error.field, t), message });
}

/**
 * The second step of an import: a modal whose head stays in view (what is ready, what is wrong,
 * Import and Cancel), over the rows with errors only, each with what is wrong and the line as the
 * file has it. Nothing is queued until Import; Cancel (or Escape) queues nothing.
 */
export function ImportDialog({
  backend,
  stage,
  onImport,
  onCancel,
}: {
  backend: Backend;
  stage: DialogStage;
  onImport: (file: CheckedFile) => void;
  onCancel: () => void;
}) {
  const { t } = useI18n();
  const titleId = useId();
  const headingRef = useRef<HTMLHeadingElement>(null);
  const file = stage.kind === "checking" ? null : stage.file;
  const name = stage.kind === "checking" ? stage.name : stage.file.name;
  const invalid = file === null ? [] : file.rows.filter((r) => r.errors.length > 0);

  return (
    <Modal labelledBy={titleId} onCancel={onCancel} initialFocus={headingRef} testId="import-dialog">
      <div className="modal-head">
        <h2 id={titleId} ref={headingRef} tabIndex={-1}>
          {t("import.dialog.title", { name })}
        </h2>
        <div aria-live="polite">
          {stage.kind === "checking" && (
            <ProgressBar label={t("import.checking", { done: stage.progress.done, total: stage.progress.total })} progress={stage.progress} />
          )}
          {stage.kind === "importing" && (
            <ProgressBar label={t("import.sending", { done: stage.progress.done, total: stage.progress.total })} progress={stage.progress} />
          )}
          {file !== null && (
            <p className="import-counts" data-testid="import-counts">
              {t("import.counts", { ready: file.ready.length, invalid: invalid.length })}
            </p>
          )}
        </div>
        {file !== null && <OptionsLine options={file.options} />}
        {file !== null && <ImportCost rows={file.ready} />}
        {stage.kind === "importFailed" && <ImportFailed stage={stage} />}
        <div className="row-actions">
          {stage.kind === "importFailed" ? (
            <button type="button" className="button" onClick={() => onImport(stage.file)} data-testid="import-retry">
              {t("import.retry")}
            </button>
          ) : file !== null && file.ready.length === 0 ? (
            <p className="hint">{t("import.nothingReady")}</p>
          ) : (
            <button
              type="button"
              className="button"
              disabled={file === null || stage.kind === "importing"}
              onClick={() => file !== null && onImport(file)}
              data-testid="import-submit"
            >
              {file === null ? t("import.submit.checking") : t("import.submit", { count: file.ready.length })}
            </button>
          )}
          <button
            type="button"
            className="button button-secondary"
            onClick={onCancel}
            disabled={stage.kind === "importing" && stage.stopping}
            data-testid="import-cancel"
          >
            {stage.kind === "importing"
              ? stage.stopping
                ? t("import.stopping")
                : t("import.stop")
              : stage.kind === "importFailed"
                ? t("import.close")
                : t("import.cancel")}
          </button>
          {invalid.length > 0 && file !== null && <DownloadRejected backend={backend} file={file} rows={invalid} />}
        </div>
      </div>
      <div className="modal-body">
        {file !== null && ((file.options.template ?? null) !== null || file.ready.some((r) => (r.cost ?? null) !== null)) && (
          <TemplatePreview rows={file.rows} />
        )}
        {invalid.length > 0 && <InvalidRows rows={invalid} />}
        {file !== null && invalid.length === 0 && (
          <p className="hint" data-testid="import-all-valid">
            {t("import.allValid")}
          </p>
        )}
      </div>
    </Modal>
  );
}

function OptionsLine({ options }: { options: ImportOptions }) {
  const { t, formatDateTime } = useI18n();
  const kind = options.kind === null ? t("import.kind.fromFile") : t(`messageKind.${options.kind}`);
  const when = options.scheduledAt === null ? t("import.when.now") : formatDateTime(Date.parse(options.scheduledAt));
  const template = options.template ?? null;
  return (
    <p className="hint" data-testid="import-options">
      {t("import.optionsLine", { kind, when })}
      {template !== null && ` ${t("import.optionsLine.template", { name: template })}`}
    </p>
  );
}

/** What the ready rows would cost together, before anything is sent (when a price covers any of them). */
function ImportCost({ rows }: { rows: readonly CheckedRow[] }) {
  const { t, formatTag } = useI18n();
  const currency = rows.find((r) => r.currency !== undefined)?.currency ?? "";
  const total = sumAmounts(
    rows.map((r) => r.cost ?? null),
    currency,
    formatTag,
  );
  if (total === null) return null;
  return (
    <p className="import-cost" data-testid="import-cost" data-currency={currency}>
      {t("import.cost", { cost: total })}
    </p>
  );
}

/** How many rows of a file filled from a template are shown as they will be sent. */
export const PREVIEW_ROWS = 3;

/**
 * The first rows as they will be sent, before anything is: their texts (as the engine filled the
 * template from them, when one is used), the parts each takes and what each would cost.
 */
function TemplatePreview({ rows }: { rows: readonly CheckedRow[] }) {
  const { t, formatTag } = useI18n();
  const priced = rows.some((r) => (r.cost ?? null) !== null);
  const headingId = useId();
  const shown = rows.slice(0, PREVIEW_ROWS);
  return (
    <section aria-labelledby={headingId} data-testid="import-template-preview">
      <h3 id={headingId}>{t("import.preview.title", { count: shown.length })}</h3>
      <ScrollArea>
        <table className="table table-compact">
          <thead>
            <tr>
              <th scope="col" className="num">
                {t("import.col.line")}
              </th>
              <th scope="col">{t("import.col.number")}</th>
              <th scope="col">{t("import.col.text")}</th>
              <th scope="col" className="num">
                {t("import.col.parts")}
              </th>
              {priced && (
                <th scope="col" className="num">
                  {t("import.col.cost")}
                </th>
              )}
            </tr>
          </thead>
          <tbody>
            {shown.map((row) => {
              // A template's text as the engine filled it; a row's own text as written.
              const text = row.filled ?? row.message.text ?? null;
              const unfilled = text === null;
              return (
                <tr key={row.line} data-testid="import-preview-row" data-line={row.line}>
                  <td className="num">{row.line}</td>
                  <td className="phone">{row.normalised ?? row.message.destination}</td>
                  <td className="preview-text">
                    {unfilled ? <span className="muted">{t("import.preview.notFilled")}</span> : text}
                  </td>
                  <td className="num" data-testid="import-preview-parts">
                    {unfilled || row.segments === null ? "—" : row.segments}
                  </td>
                  {priced && (
                    <td className="num" data-testid="import-preview-cost" data-cost={row.cost ?? ""}>
                      {(row.cost ?? null) === null || row.currency === undefined ? "—" : formatAmount(row.cost ?? "", row.currency, formatTag)}
                    </td>
                  )}
                </tr>
              );
            })}
          </tbody>
        </table>
      </ScrollArea>
    </section>
  );
}

function ImportFailed({ stage }: { stage: Extract<DialogStage, { kind: "importFailed" }> }) {
  const { t } = useI18n();
  return (
    <>
      <ErrorNotice title={t("import.failed")} error={stage.error} testId="import-error">
        {stage.error.code === ERROR_CODES.destinationOptedOut && (
          <OptedOutRows rows={optedOutRows(stage.file.ready, stage.queued, stage.error)} />
        )}
      </ErrorNotice>
      <p className="hint" data-testid="import-partial">
        {t("import.partial", { queued: stage.queued, total: stage.file.ready.length })}
      </p>
    </>
  );
}

function OptedOutRows({ rows }: { rows: readonly CheckedRow[] }) {
  const { t } = useI18n();
  if (rows.length === 0) return null;
  return (
    <div data-testid="import-opted-out">
      <p>{t("import.optedOut")}</p>
      <ul className="field-errors">
        {rows.map((r) => (
          <li key={r.line} data-line={r.line}>
            {t("import.optedOut.row", { line: r.line, number: r.normalised ?? r.message.destination })}
          </li>
        ))}
      </ul>
    </div>
  );
}

type SaveState = { readonly kind: "idle" | "saving" | "saved" } | { readonly kind: "failed"; readonly error: BackendError };

/** Saves the rows with errors as a CSV file (their line, why, and the row as written). */
function DownloadRejected({ backend, file, rows }: { backend: Backend; file: CheckedFile; rows: readonly CheckedRow[] }) {
  const { t } = useI18n();
  const [state, setState] = useState<SaveState>({ kind: "idle" });
  const save = (): void => {
    const csv = rejectedRowsCsv(
      file.header,
      rows.map((r) => ({ line: r.line, raw: r.raw, reason: r.errors.map((e) => rowErrorText(t, e)).join("; ") })),
    );
    setState({ kind: "saving" });
    backend.saveCsv(csv, rejectedFileName(file.name)).then(
      (saved) => setState({ kind: saved ? "saved" : "idle" }),
      (error: unknown) => setState({ kind: "failed", error: asBackendError(error) }),
    );
  };
  return (
    <>
      <button
        type="button"
        className="button button-secondary"
        onClick={save}
        disabled={state.kind === "saving"}
        data-testid="import-download-rejected"
      >
        {t("import.downloadRejected", { count: rows.length })}
      </button>
      <span aria-live="polite" className="hint">
        {state.kind === "saved" && <span data-testid="import-rejected-saved">{t("import.rejectedSaved")}</span>}
      </span>
      {state.kind === "failed" && <ErrorNotice title={t("import.rejectedFailed")} error={state.error} testId="import-rejected-error" />}
    </>
  );
}

export function ProgressBar({ label, progress }: { label: string; progress: Progress }) {
  return (
    <div className="import-progress" data-testid="import-progress">
      <progress max={Math.max(progress.total, 1)} value={progress.done} aria-label={label} />
      <span className="hint">{label}</span>
    </div>
  );
}

/** Only the rows with errors: their line, what is wrong, and the line as the file has it. */
function InvalidRows({ rows }: { rows: readonly CheckedRow[] }) {
  const { t } = useI18n();
  const noteId = useId();
  const listed = rows.slice(0, TABLE_LIMIT);
  return (
    <>
      <p className="hint" id={noteId}>
        {t("import.invalidNote")}
      </p>
      <ScrollArea>
        <table className="table table-compact" aria-describedby={noteId} data-testid="import-rows">
          <thead>
            <tr>
              <th scope="col" className="num">
                {t("import.col.line")}
              </th>
              <th scope="col">{t("import.col.problem")}</th>
              <th scope="col">{t("import.col.raw")}</th>
            </tr>
          </thead>
          <tbody>
            {listed.map((row) => (
              <tr key={row.line} data-testid="import-row" data-line={row.line} data-ok="false">
                <td className="num">{row.line}</td>
                <td>
                  <ul className="field-problems">
                    {row.errors.map((e) => (
                      <li key={`${e.field}:${e.code}:${e.params["placeholder"] ?? ""}`}>{rowErrorText(t, e)}</li>
                    ))}
                  </ul>
                </td>
                <td>
                  <code className="import-raw">{row.raw}</code>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </ScrollArea>
      {listed.length < rows.length && (
        <p className="table-note muted" data-testid="import-shown">
          {t("import.shownInvalid", { shown: listed.length, total: rows.length })}
        </p>
      )}
    </>
  );
}
