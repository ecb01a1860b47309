import { useEffect, useId, useState, type KeyboardEvent } from "react";
import { useAccess } from "../../access/context";
import { asBackendError, ERROR_CODES, type Backend, type BackendError } from "../../backend";
import type { Template } from "../../bindings/Template";
import { ErrorNotice } from "../../components/ErrorNotice";
import { useI18n } from "../../i18n/context";

/** The office's templates, or why there are none to show. */
export type Loaded =
  | { readonly kind: "loading" }
  | { readonly kind: "ready"; readonly templates: readonly Template[] }
  | { readonly kind: "failed"; readonly error: BackendError };

/** The office's templates as loaded, and how to load them again after a change. */
export interface Templates {
  readonly loaded: Loaded;
  reload(): void;
}

/** Loads the office's templates for whoever may read them (unless `enabled` is false); `reload` after a change. */
export function useTemplates(backend: Backend, enabled = true): Templates {
  const { may } = useAccess();
  const [loaded, setLoaded] = useState<Loaded>({ kind: "loading" });
  const [round, setRound] = useState(0);
  useEffect(() => {
    if (!may.readAll || !enabled) return undefined;
    let current = true;
    backend.listTemplates().then(
      (templates) => current && setLoaded({ kind: "ready", templates }),
      (error: unknown) => current && setLoaded({ kind: "failed", error: asBackendError(error) }),
    );
    return () => {
      current = false;
    };
  }, [backend, may.readAll, enabled, round]);
  return { loaded, reload: () => setRound((r) => r + 1) };
}

type Editing =
  | { readonly kind: "none" }
  | { readonly kind: "saving"; readonly name: string; readonly busy: boolean; readonly error: BackendError | null }
  | { readonly kind: "deleting"; readonly template: Template; readonly busy: boolean; readonly error: BackendError | null };

/**
 * Picks one of the office's templates, which the message is then sent with (the engine fills its
 * `{placeholders}` with the values given); saves the text written as a new template, and deletes
 * the chosen one, for those who may (operators and admins). Nothing shows for someone who may not
 * read them.
 */
export function TemplatePicker({
  backend,
  text,
  onPick,
  templates: given,
  selected,
}: {
  backend: Backend;
  /** The templates as the caller loaded them (it loads its own otherwise). */
  templates?: Templates;
  /** The template chosen, when the caller keeps it (by id; null for none). */
  selected?: number | null;
  /** The text written, offered to be saved as a template (empty: nothing to save). */
  text: string;
  /** A template chosen (or saved), or none. */
  onPick: (template: Template | null) => void;
}) {
  const { t } = useI18n();
  const { may } = useAccess();
  const ids = { pick: useId(), hint: useId(), name: useId() };
  const own = useTemplates(backend, given === undefined);
  const { loaded, reload } = given ?? own;
  const [ownChoice, setChosen] = useState<number | null>(null);
  const chosen = selected === undefined ? ownChoice : selected;
  const [editing, setEditing] = useState<Editing>({ kind: "none" });
  const [done, setDone] = useState<string | null>(null);
  if (!may.readAll) return null;
  const templates = loaded.kind === "ready" ? loaded.templates : [];
  const picked = templates.find((x) => x.id === chosen) ?? null;

  const pick = (value: string): void => {
    const template = templates.find((x) => String(x.id) === value) ?? null;
    setChosen(template?.id ?? null);
    setDone(null);
    onPick(template);
  };

  const save = (): void => {
    if (editing.kind !== "saving" || editing.busy || editing.name.trim() === "") return;
    const name = editing.name.trim();
    setEditing({ ...editing, busy: true, error: null });
    backend.createTemplate({ name, text }).then(
      (saved) => {
        setEditing({ kind: "none" });
        setChosen(saved.id);
        onPick(saved);
        setDone(t("template.saved", { name: saved.name }));
        reload();
      },
      (error: unknown) => setEditing({ kind: "saving", name: editing.name, busy: false, error: asBackendError(error) }),
    );
  };

  const remove = (): void => {
    if (editing.kind !== "deleting" || editing.busy) return;
    const { template } = editing;
    setEditing({ ...editing, busy: true, error: null });
    backend.deleteTemplate(template.id).then(
      () => {
        setEditing({ kind: "none" });
        setChosen(null);
        onPick(null);
        setDone(t("template.deleted", { name: template.name }));
        reload();
      },
      (error: unknown) => setEditing({ kind: "deleting", template, busy: false, error: asBackendError(error) }),
    );
  };

  // Enter in the name field saves the template, not the message around it.
  const onNameKey = (event: KeyboardEvent<HTMLInputElement>): void => {
    if (event.key !== "Enter") return;
    event.preventDefault();
    save();
  };

  return (
    <div className="field field-wide template-field" data-testid="template-field">
      <label htmlFor={ids.pick}>{t("template.pick")}</label>
      <div className="row-actions">
        <select
          id={ids.pick}
          value={picked === null ? "" : String(picked.id)}
          onChange={(e) => pick(e.target.value)}
          aria-describedby={ids.hint}
          disabled={loaded.kind !== "ready"}
          data-testid="template-picker"
        >
          <option value="">{loaded.kind === "loading" ? t("template.loading") : t("template.none")}</option>
          {templates.map((x) => (
            <option key={x.id} value={x.id}>
              {x.name}
            </option>
          ))}
        </select>
        {may.resolve && editing.kind === "none" && (
          <button
            type="button"
            className="button button-secondary"
            onClick={() => setEditing({ kind: "saving", name: "", busy: false, error: null })}
            disabled={text.trim() === ""}
            data-testid="template-save-open"
          >
            {t("template.saveOpen")}
          </button>
        )}
        {may.resolve && editing.kind === "none" && picked !== null && (
          <button
            type="button"
            className="button button-secondary"
            onClick={() => setEditing({ kind: "deleting", template: picked, busy: false, error: null })}
            data-testid="template-delete"
          >
            {t("template.delete")}
          </button>
        )}
      </div>
      <p className="hint" id={ids.hint}>
        {loaded.kind === "ready" && templates.length === 0 ? t("template.noneYet") : t("template.hint")}
      </p>
      {loaded.kind === "failed" && <ErrorNotice title={t("template.loadFailed")} error={loaded.error} testId="template-load-error" />}
      <div aria-live="polite">
        {done !== null && (
          <p className="notice notice-success" data-testid="template-done">
            {done}
          </p>
        )}
      </div>
      {editing.kind === "saving" && (
        <div className="template-editor" data-testid="template-save-form">
          <label htmlFor={ids.name}>{t("template.name")}</label>
          <input
            id={ids.name}
            value={editing.name}
            maxLength={100}
            onChange={(e) => setEditing({ ...editing, name: e.target.value, error: null })}
            onKeyDown={onNameKey}
            aria-invalid={editing.error !== null}
            data-testid="template-name"
          />
          <p className="hint">{t("template.saveHint")}</p>
          <div className="row-actions">
            <button
              type="button"
              className="button"
              onClick={save}
              disabled={editing.busy || editing.name.trim() === ""}
              data-testid="template-save"
            >
              {editing.busy ? t("template.saving") : t("template.save")}
            </button>
            <button type="button" className="button button-secondary" onClick={() => setEditing({ kind: "none" })}>
              {t("template.cancel")}
            </button>
          </div>
          {editing.error !== null && (
            <ErrorNotice
              title={editing.error.code === ERROR_CODES.nameTaken ? t("template.nameTaken") : t("template.saveFailed")}
              error={editing.error}
              testId="template-save-error"
            />
          )}
        </div>
      )}
      {editing.kind === "deleting" && (
        <div className="notice notice-warning template-editor" role="alert" data-testid="template-delete-box">
          <p>{t("template.deleteConfirmText", { name: editing.template.name })}</p>
          <div className="row-actions">
            <button
              type="button"
              className="button button-danger"
              onClick={remove}
              disabled={editing.busy}
              data-testid="template-delete-confirm"
            >
              {t("template.deleteConfirm")}
            </button>
            <button type="button" className="button button-secondary" onClick={() => setEditing({ kind: "none" })}>
              {t("template.keep")}
            </button>
          </div>
          {editing.error !== null && (
            <ErrorNotice title={t("template.deleteFailed")} error={editing.error} testId="template-delete-error" />
          )}
        </div>
      )}
    </div>
  );
}
