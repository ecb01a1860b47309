import { useId, useState, type ChangeEvent } from "react";
import { asBackendError, ERROR_CODES, type Backend, type BackendError } from "../backend";
import type { FieldError } from "../bindings/FieldError";
import { ErrorNotice } from "../components/ErrorNotice";
import { useRuns } from "../hooks/useRuns";
import { useI18n } from "../i18n/context";
import type { Translate } from "../i18n/i18n";
import { chunkKey, chunks, contentHash, LOCAL_CODES, readImportFile, type CsvProblem, type ImportRow } from "./csv";

/** Messages per preview and per batch: well under the engine's intake.max_batch (1000 by default). */
export const CHUNK_SIZE = 500;
/** Rows listed in the table at most (those with errors first); the counts cover them all. */
export const TABLE_LIMIT = 500;

export interface CheckedRow extends ImportRow {
  /** The number as it will be sent, when valid. */
  readonly normalised: string | null;
}

type Progress = { readonly done: number; readonly total: number };

/** Checks every row with the engine (nothing is written), `CHUNK_SIZE` at a time. */
export async function checkRows(
  backend: Backend,
  rows: readonly ImportRow[],
  onProgress: (p: Progress) => void,
): Promise<CheckedRow[]> {
  const checked: CheckedRow[] = [];
  onProgress({ done: 0, total: rows.length });
  for (const chunk of chunks(rows, CHUNK_SIZE)) {
    const answer = await backend.previewMessages({ messages: chunk.map((r) => r.message) });
    chunk.forEach((row, i) => {
      const preview = answer.rows[i];
      // A field already refused in the browser (kind, priority) was left out of the check.
      const engine = (preview?.errors ?? []).filter((e) => !row.errors.some((local) => local.field === e.field));
      checked.push({ ...row, normalised: preview?.destination ?? null, errors: [...row.errors, ...engine] });
    });
    onProgress({ done: checked.length, total: rows.length });
  }
  return checked;
}

/**
 * Queues the ready rows, `CHUNK_SIZE` at a time, each chunk all or nothing under a key derived
 * from the file's content and the chunk's place: importing the same file again replays the chunks
 * already queued instead of queuing them twice.
 */
export async function importRows(
  backend: Backend,
  ready: readonly CheckedRow[],
  hash: string,
  onProgress: (p: Progress) => void,
): Promise<number> {
  let done = 0;
  onProgress({ done, total: ready.length });
  for (const [index, chunk] of chunks(ready, CHUNK_SIZE).entries()) {
    const answer = await backend.submitBatch({ messages: chunk.map((r) => r.message) }, chunkKey(hash, index));
    done += answer.messages.length;
    onProgress({ done, total: ready.length });
  }
  return done;
}

type Stage =
  | { readonly kind: "idle" }
  | { readonly kind: "reading" }
  | { readonly kind: "problem"; readonly problem: CsvProblem }
  | { readonly kind: "checking"; readonly progress: Progress }
  | { readonly kind: "checkFailed"; readonly error: BackendError }
  | { readonly kind: "checked"; readonly file: CheckedFile }
  | { readonly kind: "importing"; readonly file: CheckedFile; readonly progress: Progress }
  | { readonly kind: "imported"; readonly file: CheckedFile; readonly queued: number }
  | { readonly kind: "importFailed"; readonly file: CheckedFile; readonly queued: number; readonly error: BackendError };

interface CheckedFile {
  readonly rows: readonly CheckedRow[];
  readonly ready: readonly CheckedRow[];
  readonly hash: string;
}

function problemText(t: Translate, problem: CsvProblem): string {
  switch (problem.code) {
    case "empty":
      return t("import.problem.empty");
    case "unclosed_quote":
      return t("import.problem.unclosedQuote", { line: problem.line });
    case "missing_column":
      return t("import.problem.missingColumn", { column: problem.column });
    case "unknown_column":
      return t("import.problem.unknownColumn", { column: problem.column });
    case "duplicate_column":
      return t("import.problem.duplicateColumn", { column: problem.column });
    case "field_count":
      return t("import.problem.fieldCount", { line: problem.line, found: problem.found, expected: problem.expected });
  }
}

function rowErrorText(t: Translate, error: FieldError): string {
  const message =
    error.code === LOCAL_CODES.kind
      ? t("import.local.kind")
      : error.code === LOCAL_CODES.priority
        ? t("import.local.priority")
        : error.message;
  return t("import.fieldError", { field: error.field, message });
}

/**
 * Imports messages from a CSV file: reads it in the browser, has the engine check every row, lists
 * what is ready and what is wrong, and queues only the ready rows once the person confirms.
 */
export function CsvImport({ backend }: { backend: Backend }) {
  const { t } = useI18n();
  const headingId = useId();
  const fileId = useId();
  const [stage, setStage] = useState<Stage>({ kind: "idle" });
  // A file chosen starts a new run; a run's late answers are dropped once another began.
  const runs = useRuns();

  const choose = (event: ChangeEvent<HTMLInputElement>): void => {
    const file = event.target.files?.[0];
    const live = runs.start();
    if (file === undefined) {
      setStage({ kind: "idle" });
      return;
    }
    setStage({ kind: "reading" });
    void (async () => {
      try {
        const content = await file.text();
        const read = readImportFile(content);
        if (!live()) return;
        if (!read.ok) {
          setStage({ kind: "problem", problem: read.problem });
          return;
        }
        const hash = await contentHash(content);
        const rows = await checkRows(backend, read.rows, (progress) => {
          if (live()) setStage({ kind: "checking", progress });
        });
        if (!live()) return;
        setStage({ kind: "checked", file: { rows, ready: rows.filter((r) => r.errors.length === 0), hash } });
      } catch (error) {
        if (live()) setStage({ kind: "checkFailed", error: asBackendError(error) });
      }
    })();
  };

  const startImport = (file: CheckedFile): void => {
    const live = runs.current();
    let queued = 0;
    setStage({ kind: "importing", file, progress: { done: 0, total: file.ready.length } });
    importRows(backend, file.ready, file.hash, (progress) => {
      queued = progress.done;
      if (live()) setStage({ kind: "importing", file, progress });
    }).then(
      (count) => {
        if (live()) setStage({ kind: "imported", file, queued: count });
      },
      (error: unknown) => {
        if (live()) setStage({ kind: "importFailed", file, queued, error: asBackendError(error) });
      },
    );
  };

  const busy = stage.kind === "reading" || stage.kind === "checking" || stage.kind === "importing";
  const file = "file" in stage ? stage.file : null;

  return (
    <section className="panel" aria-labelledby={headingId} data-testid="import">
      <h2 id={headingId}>{t("import.title")}</h2>
      <p className="panel-intro">{t("import.intro")}</p>
      <div className="form">
        <div className="field">
          <label htmlFor={fileId}>{t("import.file")}</label>
          <input
            id={fileId}
            type="file"
            accept=".csv,text/csv"
            onChange={choose}
            disabled={busy}
            data-testid="import-file"
          />
        </div>
      </div>

      <div aria-live="polite">
        {stage.kind === "reading" && <p className="hint">{t("import.reading")}</p>}
        {stage.kind === "checking" && (
          <ProgressBar label={t("import.checking", { done: stage.progress.done, total: stage.progress.total })} progress={stage.progress} />
        )}
        {stage.kind === "importing" && (
          <ProgressBar label={t("import.sending", { done: stage.progress.done, total: stage.progress.total })} progress={stage.progress} />
        )}
        {stage.kind === "problem" && (
          <div className="notice notice-error" role="alert" data-testid="import-problem" data-code={stage.problem.code}>
            <h3>{t("import.cannotRead")}</h3>
            <p>{problemText(t, stage.problem)}</p>
          </div>
        )}
        {stage.kind === "checkFailed" && (
          <ErrorNotice title={t("import.checkFailed")} error={stage.error} testId="import-error" />
        )}
        {stage.kind === "imported" && (
          <div className="notice notice-success" data-testid="import-done">
            <p>{t("import.done", { count: stage.queued })}</p>
            {stage.file.rows.length > stage.file.ready.length && (
              <p>{t("import.doneSkipped", { count: stage.file.rows.length - stage.file.ready.length })}</p>
            )}
          </div>
        )}
        {stage.kind === "importFailed" && (
          <>
            <ErrorNotice title={t("import.failed")} error={stage.error} testId="import-error">
              {stage.error.code === ERROR_CODES.destinationOptedOut && (
                <OptedOutRows rows={optedOutRows(stage.file.ready, stage.queued, stage.error)} />
              )}
            </ErrorNotice>
            <p className="hint" data-testid="import-partial">
              {t("import.partial", { queued: stage.queued, total: stage.file.ready.length })}
            </p>
            <button type="button" className="button" onClick={() => startImport(stage.file)} data-testid="import-retry">
              {t("import.retry")}
            </button>
          </>
        )}
      </div>

      {file !== null && <CheckedTable file={file} />}

      {stage.kind === "checked" && (
        <div className="row-actions">
          {stage.file.ready.length > 0 ? (
            <button type="button" className="button" onClick={() => startImport(stage.file)} data-testid="import-submit">
              {t("import.submit", { count: stage.file.ready.length })}
            </button>
          ) : (
            <p className="hint">{t("import.nothingReady")}</p>
          )}
        </div>
      )}
    </section>
  );
}

/**
 * The rows of a batch refused because their number is on the opt-out list: the engine names each
 * by its place in the batch (`messages[i].destination`); the batch began after the `queued` rows
 * already queued.
 */
export function optedOutRows(ready: readonly CheckedRow[], queued: number, error: BackendError): CheckedRow[] {
  return error.errors.flatMap((e) => {
    const m = /^messages\[(\d+)\]\.destination$/.exec(e.field);
    const row = m === null ? undefined : ready[queued + Number(m[1])];
    return row === undefined ? [] : [row];
  });
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

function ProgressBar({ label, progress }: { label: string; progress: Progress }) {
  return (
    <div className="import-progress" data-testid="import-progress">
      <progress max={Math.max(progress.total, 1)} value={progress.done} aria-label={label} />
      <span className="hint">{label}</span>
    </div>
  );
}

function CheckedTable({ file }: { file: CheckedFile }) {
  const { t } = useI18n();
  const invalid = file.rows.length - file.ready.length;
  const listed = [...file.rows.filter((r) => r.errors.length > 0), ...file.ready].slice(0, TABLE_LIMIT);
  return (
    <>
      <p className="import-counts" data-testid="import-counts">
        {t("import.counts", { ready: file.ready.length, invalid })}
      </p>
      {invalid > 0 && <p className="hint">{t("import.invalidNote")}</p>}
      <div className="table-scroll">
        <table className="table table-compact" data-testid="import-rows">
          <thead>
            <tr>
              <th className="num">{t("import.col.line")}</th>
              <th>{t("import.col.number")}</th>
              <th>{t("import.col.message")}</th>
              <th>{t("import.col.status")}</th>
            </tr>
          </thead>
          <tbody>
            {listed.map((row) => (
              <tr key={row.line} data-testid="import-row" data-line={row.line} data-ok={row.errors.length === 0}>
                <td className="num">{row.line}</td>
                <td className="phone">{row.normalised ?? row.message.destination}</td>
                <td className="import-text">{row.message.text}</td>
                <td>
                  {row.errors.length === 0 ? (
                    <span className="badge badge-success">{t("import.status.ok")}</span>
                  ) : (
                    <ul className="field-problems">
                      {row.errors.map((e) => (
                        <li key={`${e.field}:${e.code}`}>{rowErrorText(t, e)}</li>
                      ))}
                    </ul>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {listed.length < file.rows.length && (
        <p className="table-note muted">{t("import.shown", { shown: listed.length, total: file.rows.length })}</p>
      )}
    </>
  );
}
