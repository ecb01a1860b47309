import { useId, useState } from "react";
import type { FieldError } from "../../bindings/FieldError";
import type { ProviderEdit } from "../../bindings/ProviderEdit";
import type { SettingField } from "../../bindings/SettingField";
import type { SettingsView } from "../../bindings/SettingsView";
import { Badge } from "../../components/Badge";
import { useI18n } from "../../i18n/context";
import { AppliesBadge, FieldErrors, LockedReason } from "./SettingControl";

/** A provider as the form edits it. `secret` null keeps the current one (or makes one if new). */
export interface ProviderDraft {
  readonly name: string;
  readonly preset: string;
  readonly connection: string;
  readonly secret: string | null;
  /** The current secret's last characters; empty for a new provider. */
  readonly hint: string;
  readonly isNew: boolean;
}

export function draftsOf(view: SettingsView): ProviderDraft[] {
  return view.providers.map((p) => ({
    name: p.name,
    preset: p.preset ?? "",
    connection: p.connection ?? "",
    secret: null,
    hint: p.secret_hint,
    isNew: false,
  }));
}

export function providersChanged(view: SettingsView, drafts: readonly ProviderDraft[]): boolean {
  const original = draftsOf(view);
  return (
    original.length !== drafts.length ||
    drafts.some((d, i) => {
      const o = original[i];
      return (
        o === undefined ||
        d.name !== o.name ||
        d.preset !== o.preset ||
        d.connection !== o.connection ||
        d.secret !== null
      );
    })
  );
}

export function toEdits(drafts: readonly ProviderDraft[]): ProviderEdit[] {
  return drafts.map((d) => ({
    name: d.name.trim(),
    secret: d.secret === null || d.secret === "" ? null : d.secret,
    preset: d.preset === "" ? null : d.preset,
    connection: d.connection.trim() === "" ? null : d.connection.trim(),
  }));
}

/**
 * The HTTP providers allowed to post receipts: add, remove, change the mapping, replace a secret.
 * Secrets are never shown; a new provider's is made by the engine and shown once after saving.
 */
export function ProvidersEditor({
  field,
  view,
  drafts,
  onChange,
  errors,
}: {
  field: SettingField;
  view: SettingsView;
  drafts: readonly ProviderDraft[];
  onChange: (drafts: ProviderDraft[]) => void;
  errors: readonly FieldError[];
}) {
  const { t } = useI18n();
  const lockedId = useId();
  const update = (i: number, patch: Partial<ProviderDraft>): void =>
    onChange(drafts.map((d, j) => (j === i ? { ...d, ...patch } : d)));
  const remove = (i: number): void => onChange(drafts.filter((_, j) => j !== i));
  const errorsAt = (i: number, part: string): FieldError[] =>
    errors.filter((e) => e.field === `callbacks.providers[${i}].${part}`);
  const listErrors = errors.filter((e) => e.field === "callbacks.providers");

  return (
    <div className="settings-providers" data-testid="providers">
      <p className="hint setting-meta">
        <AppliesBadge applies={field.applies} /> <code>{field.key}</code>
      </p>
      <LockedReason field={field} id={lockedId} />
      <FieldErrors errors={listErrors} id={`${lockedId}-errors`} />
      {drafts.length === 0 && <p className="empty">{t("settings.providers.empty")}</p>}
      <ul className="provider-list">
        {drafts.map((d, i) => (
          <li key={i} className="provider-row" data-testid="provider-row" data-name={d.name}>
            <ProviderRow
              draft={d}
              presets={view.presets}
              editable={field.editable}
              onChange={(patch) => update(i, patch)}
              onRemove={() => remove(i)}
              errorsAt={(part) => errorsAt(i, part)}
            />
          </li>
        ))}
      </ul>
      {field.editable && <AddProvider presets={view.presets} onAdd={(d) => onChange([...drafts, d])} />}
    </div>
  );
}

function ProviderRow({
  draft,
  presets,
  editable,
  onChange,
  onRemove,
  errorsAt,
}: {
  draft: ProviderDraft;
  presets: readonly string[];
  editable: boolean;
  onChange: (patch: Partial<ProviderDraft>) => void;
  onRemove: () => void;
  errorsAt: (part: string) => FieldError[];
}) {
  const { t } = useI18n();
  const id = useId();
  const [replacing, setReplacing] = useState(false);
  const nameErrors = errorsAt("name");
  const secretErrors = errorsAt("secret");
  const presetErrors = errorsAt("preset");
  return (
    <div className="form settings-fields">
      <div className="field field-narrow">
        <span className="provider-name">
          <strong>{draft.name}</strong> {draft.isNew && <Badge tone="progress">{t("settings.providers.new")}</Badge>}
        </span>
        <FieldErrors errors={nameErrors} id={`${id}-name-errors`} />
      </div>
      <div className="field field-narrow">
        <label htmlFor={`${id}-preset`}>{t("settings.providers.preset")}</label>
        <select
          id={`${id}-preset`}
          value={draft.preset}
          disabled={!editable}
          onChange={(e) => onChange({ preset: e.target.value })}
          aria-invalid={presetErrors.length > 0 ? "true" : undefined}
          aria-describedby={presetErrors.length > 0 ? `${id}-preset-errors` : undefined}
        >
          <option value="">{t("settings.providers.preset.same")}</option>
          {presets.map((p) => (
            <option key={p} value={p}>
              {p}
            </option>
          ))}
        </select>
        <FieldErrors errors={presetErrors} id={`${id}-preset-errors`} />
      </div>
      <div className="field field-narrow">
        <label htmlFor={`${id}-connection`}>{t("settings.providers.connection")}</label>
        <input
          id={`${id}-connection`}
          value={draft.connection}
          disabled={!editable}
          autoComplete="off"
          onChange={(e) => onChange({ connection: e.target.value })}
        />
      </div>
      <div className="field field-narrow">
        {replacing || draft.isNew ? (
          <>
            <label htmlFor={`${id}-secret`}>{t("settings.providers.secret.new")}</label>
            <input
              id={`${id}-secret`}
              type="password"
              autoComplete="new-password"
              value={draft.secret ?? ""}
              onChange={(e) => onChange({ secret: e.target.value === "" ? null : e.target.value })}
              aria-invalid={secretErrors.length > 0 ? "true" : undefined}
              aria-describedby={`${id}-secret-hint`}
              data-testid="provider-secret"
            />
            <p className="hint" id={`${id}-secret-hint`}>
              {t("settings.providers.secret.auto")}
            </p>
          </>
        ) : (
          <>
            <span className="provider-secret-label">{t("settings.providers.secret")}</span>
            <code className="provider-hint">{draft.hint}</code>
            {editable && (
              <button type="button" className="button button-secondary button-small" onClick={() => setReplacing(true)}>
                {t("settings.providers.secret.replace")}
              </button>
            )}
          </>
        )}
        <FieldErrors errors={secretErrors} id={`${id}-secret-errors`} />
      </div>
      {editable && (
        <button
          type="button"
          className="button button-secondary provider-remove"
          onClick={onRemove}
          data-testid="provider-remove"
        >
          {t("settings.providers.remove", { name: draft.name })}
        </button>
      )}
    </div>
  );
}

function AddProvider({ presets, onAdd }: { presets: readonly string[]; onAdd: (d: ProviderDraft) => void }) {
  const { t } = useI18n();
  const id = useId();
  const [name, setName] = useState("");
  const [preset, setPreset] = useState("");
  const add = (): void => {
    const trimmed = name.trim();
    if (trimmed === "") return;
    onAdd({ name: trimmed, preset, connection: "", secret: null, hint: "", isNew: true });
    setName("");
    setPreset("");
  };
  return (
    <div className="form settings-fields provider-add" data-testid="provider-add">
      <div className="field field-narrow">
        <label htmlFor={`${id}-name`}>{t("settings.providers.name")}</label>
        <input
          id={`${id}-name`}
          value={name}
          autoComplete="off"
          onChange={(e) => setName(e.target.value)}
          onKeyDown={(e) => {
            // Enter adds the provider here instead of saving the whole form.
            if (e.key === "Enter") {
              e.preventDefault();
              add();
            }
          }}
          data-testid="provider-add-name"
        />
      </div>
      <div className="field field-narrow">
        <label htmlFor={`${id}-preset`}>{t("settings.providers.preset")}</label>
        <select id={`${id}-preset`} value={preset} onChange={(e) => setPreset(e.target.value)}>
          <option value="">{t("settings.providers.preset.same")}</option>
          {presets.map((p) => (
            <option key={p} value={p}>
              {p}
            </option>
          ))}
        </select>
      </div>
      <button
        type="button"
        className="button button-secondary"
        onClick={add}
        disabled={name.trim() === ""}
        data-testid="provider-add-button"
      >
        {t("settings.providers.add")}
      </button>
    </div>
  );
}
