import { useId, useRef, useState, type ChangeEvent } from "react";
import { asBackendError, type Backend, type BackendError } from "../backend";
import type { MessageKind } from "../bindings/MessageKind";
import { DateTimeField, typedPattern } from "../components/DateTimeField";
import { ErrorNotice } from "../components/ErrorNotice";
import { formatRoute } from "../hooks/useHashRoute";
import { useRuns } from "../hooks/useRuns";
import { useAccess } from "../access/context";
import { useI18n } from "../i18n/context";
import type { Translate } from "../i18n/i18n";
import { contentHash, readImportFile, type CsvProblem } from "./csv";
import { ImportDialog, type CheckedFile, type DialogStage } from "./import/ImportDialog";
import { checkRows, importRows, withOptions, type ImportOptions, type Progress } from "./import/rows";
import { useTemplates } from "./compose/TemplatePicker";
import { importedQuery, type Window } from "./import/ImportedWindow";
import { MESSAGE_KINDS } from "./labels";
import { localToRfc3339, zoneName } from "./localTime";

export { CHUNK_SIZE, TABLE_LIMIT, checkRows, importRows, optedOutRows, type CheckedRow } from "./import/rows";

type Stage =
  | { readonly kind: "idle" }
  | { readonly kind: "reading" }
  | { readonly kind: "problem"; readonly problem: CsvProblem }
  | { readonly kind: "checkFailed"; readonly error: BackendError }
  | { readonly kind: "dialog"; readonly dialog: DialogStage }
  | { readonly kind: "imported"; readonly file: CheckedFile; readonly queued: number; readonly window: Window | null }
  | { readonly kind: "stopped"; readonly file: CheckedFile; readonly queued: number };

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

export { localToRfc3339 } from "./localTime";

/**
 * Imports messages from a CSV file, in two steps. First the file, with the kind and the send time
 * given to rows that do not say theirs; then a dialog: the engine checks every row (nothing is
 * written), the dialog lists only the rows with errors (and offers them as a file), and queues the
 * ready rows once the person says Import. Cancel queues nothing.
 */
export function CsvImport({
  backend,
  onShowImported,
}: {
  backend: Backend;
  /** Shows the messages an import queued in the list (the list's `imported` filter). */
  onShowImported?: (imported: string) => void;
}) {
  const i18n = useI18n();
  const { t, plural, formatTag } = i18n;
  const ids = {
    heading: useId(),
    file: useId(),
    kind: useId(),
    kindHint: useId(),
    when: useId(),
    whenHint: useId(),
    template: useId(),
    templateHint: useId(),
    whenError: useId(),
  };
  const { may } = useAccess();
  const { loaded } = useTemplates(backend);
  const templates = loaded.kind === "ready" ? loaded.templates : [];
  const [templateId, setTemplateId] = useState("");
  const template = templates.find((x) => String(x.id) === templateId) ?? null;
  const [stage, setStage] = useState<Stage>({ kind: "idle" });
  const [kind, setKind] = useState<MessageKind | "">("");
  const [later, setLater] = useState("");
  // A file chosen starts a new run; a run's late answers are dropped once another began or it was cancelled.
  const runs = useRuns();
  // Stop asked while importing: the batch under way ends, no other begins.
  const stopping = useRef(false);
  const options: ImportOptions = {
    kind: kind === "" ? null : kind,
    scheduledAt: localToRfc3339(later),
    template: template?.name ?? null,
  };

  const choose = (event: ChangeEvent<HTMLInputElement>): void => {
    const file = event.target.files?.[0];
    // The same file may be chosen again (after a cancel, or to import the rest).
    event.target.value = "";
    const live = runs.start();
    if (file === undefined) {
      setStage({ kind: "idle" });
      return;
    }
    const chosen = options;
    const using = template;
    setStage({ kind: "reading" });
    void (async () => {
      try {
        const content = await file.text();
        const read = readImportFile(content, using);
        if (!live()) return;
        if (!read.ok) {
          setStage({ kind: "problem", problem: read.problem });
          return;
        }
        const hash = await contentHash(content);
        const rows = await checkRows(backend, withOptions(read.rows, chosen), (progress) => {
          if (live()) setStage({ kind: "dialog", dialog: { kind: "checking", name: file.name, progress } });
        });
        if (!live()) return;
        const ready = rows.filter((r) => r.errors.length === 0);
        const checked: CheckedFile = { name: file.name, header: read.header, rows, ready, hash, options: chosen };
        setStage({ kind: "dialog", dialog: { kind: "checked", file: checked } });
      } catch (error) {
        if (live()) setStage({ kind: "checkFailed", error: asBackendError(error) });
      }
    })();
  };

  const startImport = (file: CheckedFile): void => {
    const live = runs.current();
    let queued = 0;
    // When the engine created the messages queued (from the answers): the list's filter for them.
    let window: Window | null = null;
    stopping.current = false;
    const importing = (progress: Progress): Stage => ({
      kind: "dialog",
      dialog: { kind: "importing", file, progress, stopping: stopping.current },
    });
    setStage(importing({ done: 0, total: file.ready.length }));
    importRows(
      backend,
      file.ready,
      file.hash,
      (progress) => {
        queued = progress.done;
        if (live()) setStage(importing(progress));
      },
      () => live() && !stopping.current,
      (answer) => {
        for (const m of answer.messages) {
          if (!Number.isFinite(m.created_at_ms)) continue;
          window =
            window === null
              ? { fromMs: m.created_at_ms, toMs: m.created_at_ms }
              : { fromMs: Math.min(window.fromMs, m.created_at_ms), toMs: Math.max(window.toMs, m.created_at_ms) };
        }
      },
    ).then(
      (count) => {
        if (!live()) return;
        if (stopping.current && count < file.ready.length) setStage({ kind: "stopped", file, queued: count });
        else setStage({ kind: "imported", file, queued: count, window });
      },
      (error: unknown) => {
        if (live()) setStage({ kind: "dialog", dialog: { kind: "importFailed", file, queued, error: asBackendError(error) } });
      },
    );
  };

  /**
   * Cancel: nothing more is sent. Before Import nothing was; while importing, the batch under way
   * ends and no other begins (the dialog says so until it has).
   */
  const cancel = (): void => {
    if (stage.kind !== "dialog") return;
    const d = stage.dialog;
    if (d.kind === "importing") {
      stopping.current = true;
      setStage({ kind: "dialog", dialog: { ...d, stopping: true } });
      return;
    }
    runs.cancel();
    if (d.kind === "importFailed" && d.queued > 0) setStage({ kind: "stopped", file: d.file, queued: d.queued });
    else setStage({ kind: "idle" });
  };

  const busy = stage.kind === "reading" || stage.kind === "dialog";
  // A send time typed that cannot be read: said at the field, and no file is read until it is.
  const laterUnreadable = later.trim() !== "" && localToRfc3339(later) === null;

  return (
    <section className="panel" aria-labelledby={ids.heading} data-testid="import">
      <h2 id={ids.heading}>{t("import.title")}</h2>
      <p className="panel-intro">{t("import.intro")}</p>
      <div className="form">
        <div className="field">
          <label htmlFor={ids.kind}>{t("import.kind")}</label>
          <select
            id={ids.kind}
            value={kind}
            onChange={(e) => setKind(e.target.value as MessageKind | "")}
            aria-describedby={ids.kindHint}
            disabled={busy}
            data-testid="import-kind"
          >
            <option value="">{t("import.kind.fromFile")}</option>
            {MESSAGE_KINDS.map((k) => (
              <option key={k} value={k}>
                {t(`messageKind.${k}`)}
              </option>
            ))}
          </select>
          <p className="hint" id={ids.kindHint}>
            {t("import.kind.hint")}
          </p>
        </div>
        <div className="field">
          <label htmlFor={ids.when}>{t("import.when")}</label>
          <DateTimeField
            id={ids.when}
            withTime
            value={later}
            onChange={setLater}
            invalid={laterUnreadable}
            describedBy={laterUnreadable ? `${ids.whenHint} ${ids.whenError}` : ids.whenHint}
            disabled={busy}
            testId="import-when"
          />
          <p className="hint" id={ids.whenHint}>
            {t("date.zone", { zone: zoneName(formatTag) })} {t("import.when.hint")}
          </p>
          {laterUnreadable && (
            <p className="field-problem" id={ids.whenError} data-testid="import-when-error">
              {t("date.invalid", { pattern: typedPattern(i18n, true) })}
            </p>
          )}
        </div>
        {may.readAll && templates.length > 0 && (
          <div className="field">
            <label htmlFor={ids.template}>{t("import.template")}</label>
            <select
              id={ids.template}
              value={templateId}
              onChange={(e) => setTemplateId(e.target.value)}
              aria-describedby={ids.templateHint}
              disabled={busy}
              data-testid="import-template"
            >
              <option value="">{t("import.template.none")}</option>
              {templates.map((x) => (
                <option key={x.id} value={x.id}>
                  {x.name}
                </option>
              ))}
            </select>
            <p className="hint" id={ids.templateHint}>
              {t("import.template.hint")}
            </p>
          </div>
        )}
        <div className="field">
          <label htmlFor={ids.file}>{t("import.file")}</label>
          <input
            id={ids.file}
            type="file"
            accept=".csv,text/csv"
            onChange={choose}
            disabled={busy || laterUnreadable}
            data-testid="import-file"
          />
        </div>
      </div>

      <div aria-live="polite">
        {stage.kind === "reading" && <p className="hint">{t("import.reading")}</p>}
        {stage.kind === "problem" && (
          <div className="notice notice-error" role="alert" data-testid="import-problem" data-code={stage.problem.code}>
            <h3>{t("import.cannotRead")}</h3>
            <p>{problemText(t, stage.problem)}</p>
          </div>
        )}
        {stage.kind === "checkFailed" && <ErrorNotice title={t("import.checkFailed")} error={stage.error} testId="import-error" />}
        {stage.kind === "imported" && (
          <div className="notice notice-success" data-testid="import-done">
            <p>{t(`import.done.${plural(stage.queued)}`, { count: stage.queued })}</p>
            {stage.window !== null && stage.queued > 0 && (
              <p>
                <a
                  href={formatRoute({ section: "messages", id: null })}
                  onClick={() => stage.window !== null && onShowImported?.(importedQuery(stage.window))}
                  data-testid="import-done-show"
                  data-imported={importedQuery(stage.window)}
                >
                  {t("import.done.show")}
                </a>
              </p>
            )}
            {stage.file.rows.length > stage.file.ready.length && (
              <p>{t("import.doneSkipped", { count: stage.file.rows.length - stage.file.ready.length })}</p>
            )}
          </div>
        )}
        {stage.kind === "stopped" && (
          <p className="notice notice-warning" data-testid="import-stopped">
            {t("import.stopped", { queued: stage.queued, total: stage.file.ready.length })}
          </p>
        )}
      </div>

      {stage.kind === "dialog" && <ImportDialog backend={backend} stage={stage.dialog} onImport={startImport} onCancel={cancel} />}
    </section>
  );
}
