import { useId, useState, type FormEvent } from "react";
import { RadioChoice } from "../../components/RadioChoice";
import { asBackendError, type Backend, type BackendError } from "../../backend";
import type { ExceptionSummary } from "../../bindings/ExceptionSummary";
import { errorExplanation } from "../../components/ErrorNotice";
import { useI18n } from "../../i18n/context";
import { ALLOWED_ACTIONS } from "../labels";
import { actionWords } from "./ResolveForm";

/** The decisions that need nothing but a note, and so can be taken on several exceptions at once. */
const BULK_ACTIONS = ["dismiss", "mark_failed"] as const;
type BulkAction = (typeof BULK_ACTIONS)[number];

export interface BulkResult {
  readonly id: number;
  readonly error: BackendError | null;
}

/**
 * One decision, with one note, for several open exceptions of one kind: each is resolved in turn
 * (the engine decides them one by one), and each one's outcome is listed, so that none fails
 * unseen. Nothing is chosen for the operator.
 */
export function BulkResolve({
  backend,
  selected,
  onDone,
  onClear,
}: {
  backend: Backend;
  selected: readonly ExceptionSummary[];
  /** After a run: the ids decided (taken out of the selection). */
  onDone: (decided: readonly number[]) => void;
  onClear: () => void;
}) {
  const { t } = useI18n();
  const ids = { heading: useId(), note: useId(), blocked: useId() };
  const [action, setAction] = useState<BulkAction | null>(null);
  const [note, setNote] = useState("");
  const [progress, setProgress] = useState<{ done: number; total: number } | null>(null);
  const [results, setResults] = useState<readonly BulkResult[]>([]);
  const kinds = [...new Set(selected.map((e) => e.kind))];
  const kind = kinds.length === 1 ? kinds[0] : undefined;
  const allowed = kind === undefined ? [] : BULK_ACTIONS.filter((a) => ALLOWED_ACTIONS[kind].includes(a));
  const chosen = action !== null && allowed.includes(action) ? action : null;
  const busy = progress !== null;

  const blockedBy =
    kind === undefined
      ? t("bulk.blocked.kinds")
      : chosen === null
        ? t("resolve.blocked.action")
        : note.trim() === ""
          ? t("resolve.blocked.note")
          : null;

  const submit = (event: FormEvent<HTMLFormElement>): void => {
    event.preventDefault();
    if (busy || blockedBy !== null || chosen === null) return;
    const targets = selected.map((e) => e.id);
    const request = { action: chosen, note: note.trim() };
    setResults([]);
    setProgress({ done: 0, total: targets.length });
    void (async () => {
      const out: BulkResult[] = [];
      for (const id of targets) {
        try {
          await backend.resolve(id, request);
          out.push({ id, error: null });
        } catch (error) {
          out.push({ id, error: asBackendError(error) });
        }
        setProgress({ done: out.length, total: targets.length });
      }
      setProgress(null);
      setResults(out);
      onDone(out.filter((r) => r.error === null).map((r) => r.id));
    })();
  };

  const words = kind === undefined ? null : actionWords(kind, t);
  const failed = results.filter((r) => r.error !== null);
  return (
    <section className="bulk notice notice-info" aria-labelledby={ids.heading} data-testid="bulk">
      <h3 id={ids.heading}>{t("bulk.title", { count: selected.length })}</h3>
      {selected.length > 0 && kind === undefined && <p data-testid="bulk-kinds">{t("bulk.blocked.kinds")}</p>}
      {selected.length > 0 && kind !== undefined && words !== null && (
        <form className="form" onSubmit={submit} aria-busy={busy} noValidate data-testid="bulk-form">
          <fieldset className="choices field-wide">
            <legend>{t("bulk.action", { kind: t(`exceptionKind.${kind}`) })}</legend>
            {allowed.map((a) => (
              <RadioChoice
                key={a}
                name="bulk-action"
                value={a}
                checked={chosen === a}
                onChoose={() => setAction(a)}
                label={words.label(a)}
                hint={words.explained(a)}
                testId={`bulk-action-${a}`}
              />
            ))}
          </fieldset>
          <div className="field field-wide">
            <label htmlFor={ids.note}>{t("bulk.note")}</label>
            <textarea
              id={ids.note}
              rows={2}
              required
              aria-required="true"
              value={note}
              onChange={(e) => setNote(e.target.value)}
              data-testid="bulk-note"
            />
          </div>
          <div className="row-actions field-wide">
            <button
              type="submit"
              className="button"
              disabled={busy || blockedBy !== null}
              aria-describedby={blockedBy === null ? undefined : ids.blocked}
              data-testid="bulk-submit"
            >
              {busy
                ? t("bulk.busy", { done: progress.done, total: progress.total })
                : chosen === null
                  ? t("bulk.submit.none", { count: selected.length })
                  : t("bulk.submit", { action: words.label(chosen), count: selected.length })}
            </button>
            {blockedBy !== null && !busy && (
              <span className="hint blocked" id={ids.blocked} data-testid="bulk-blocked">
                {blockedBy}
              </span>
            )}
          </div>
        </form>
      )}
      <div aria-live="polite">
        {results.length > 0 && (
          <>
            <p data-testid="bulk-summary">
              {failed.length === 0
                ? t("bulk.allDone", { count: results.length })
                : t("bulk.someFailed", { done: results.length - failed.length, total: results.length, failed: failed.length })}
            </p>
            <ul className="bulk-results" data-testid="bulk-results">
              {results.map((r) => (
                <li key={r.id} data-testid="bulk-result" data-id={r.id} data-ok={r.error === null} data-code={r.error?.code}>
                  {r.error === null ? (
                    t("bulk.result.ok", { id: String(r.id) })
                  ) : (
                    <>
                      {t("bulk.result.failed", { id: String(r.id), reason: errorExplanation(t, r.error) })}{" "}
                      <span className="muted">
                        (<code>{r.error.code}</code> <span lang="en">{r.error.message}</span>)
                      </span>
                    </>
                  )}
                </li>
              ))}
            </ul>
          </>
        )}
      </div>
      <div className="row-actions">
        <button type="button" className="button button-secondary" onClick={onClear} disabled={busy} data-testid="bulk-clear">
          {selected.length > 0 ? t("bulk.clear") : t("bulk.close")}
        </button>
      </div>
    </section>
  );
}
