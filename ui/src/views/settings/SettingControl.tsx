import { useId } from "react";
import type { Applies } from "../../bindings/Applies";
import type { FieldError } from "../../bindings/FieldError";
import type { SettingField } from "../../bindings/SettingField";
import type { SettingsView } from "../../bindings/SettingsView";
import { Badge } from "../../components/Badge";
import { countriesIn, isPhoneRegion } from "../../components/countries";
import { useI18n } from "../../i18n/context";
import type { Translate } from "../../i18n/i18n";
import type { Tone } from "../tones";
import { FieldProblem } from "../../components/FieldProblem";
import { choiceLabel, settingHelp, settingLabel } from "./labels";
import { COUNTRY_SETTING } from "./CountryStep";
import { passwordTooLong, smppLimitProblem } from "./smppLimits";
import { isPinKey, pinProblem } from "./tls";

/** The engine's codes for a value too long, which the check as typed says first. */
const TOO_LONG: ReadonlySet<string> = new Set(["too_long", "password_too_long", "system_id_too_long"]);
/** The engine's code for a pin that is none (the check as typed says it first, in the reader's language). */
const NOT_A_PIN: ReadonlySet<string> = new Set(["invalid"]);

/** What is wrong with a value as typed, before the engine is asked: a length SMPP cannot carry, a pin that is none. */
function typedProblem(t: Translate, key: string, value: string): { text: string; covers: ReadonlySet<string> } | null {
  const limit = smppLimitProblem(t, key, value);
  if (limit !== null) return { text: limit, covers: TOO_LONG };
  const pin = isPinKey(key) ? pinProblem(t, value) : null;
  return pin === null ? null : { text: pin, covers: NOT_A_PIN };
}

/** A setting's config key, in small print under its name: for whoever edits the file. */
export function SettingKey({ name }: { name: string }) {
  return <code className="setting-key">{name}</code>;
}

const APPLIES_TONE: Record<Applies, Tone> = { now: "success", reconnect: "progress", restart: "warning" };

/** When a change applies, said next to each setting. */
export function AppliesBadge({ applies }: { applies: Applies }) {
  const { t } = useI18n();
  return (
    <span className="setting-applies" data-applies={applies}>
      <Badge tone={APPLIES_TONE[applies]}>{t(`settings.applies.${applies}`)}</Badge>
    </span>
  );
}

/** Why a setting cannot be changed here, if it cannot. */
export function LockedReason({ field, id }: { field: SettingField; id: string }) {
  const { t } = useI18n();
  if (field.editable) return null;
  return (
    <p className="hint setting-locked" id={id} data-testid={`locked-${field.key}`}>
      {field.source === "env" ? t("settings.locked.env", { name: field.env_var }) : t("settings.locked.readOnly")}
    </p>
  );
}

export function FieldErrors({ errors, id }: { errors: FieldError[]; id: string }) {
  if (errors.length === 0) return null;
  return (
    <ul className="field-problems" id={id} data-testid="field-errors">
      {errors.map((e) => (
        <li key={`${e.code}:${e.message}`}>
          <FieldProblem error={e} />
        </li>
      ))}
    </ul>
  );
}

/** How a setting is shown beyond its value: not in use for now, and its test id where the default will not do. */
export interface ControlOptions {
  /** Not used as things are chosen (a provider's field while the sandbox is): shown, but not editable. */
  inactive?: boolean;
  /** The element saying why it is inactive. */
  inactiveReason?: string;
  testId?: string;
}

/**
 * One setting: its name in plain words, its control by kind, what it means where that is written,
 * when a change applies and its config key in small print, where its value comes from, and the
 * engine's refusal of it, if any, right below it.
 */
export function SettingControl({
  field,
  value,
  onChange,
  errors,
  label,
  inactive = false,
  inactiveReason,
  testId,
}: {
  field: SettingField;
  value: string;
  onChange: (value: string) => void;
  errors: FieldError[];
  label?: string;
} & ControlOptions) {
  const { t, formatTag } = useI18n();
  const id = useId();
  const hintId = `${id}-hint`;
  const helpId = `${id}-help`;
  const lockedId = `${id}-locked`;
  const errorId = `${id}-errors`;
  const limitId = `${id}-limit`;
  // What SMPP cannot carry (or a pin that is none), said as it is typed; the engine's refusal of
  // the same is not repeated.
  const typed = typedProblem(t, field.key, value);
  const limit = typed?.text ?? null;
  const shown = typed === null ? errors : errors.filter((e) => !typed.covers.has(e.code));
  const invalid = shown.length > 0 || limit !== null;
  const help = settingHelp(t, field.key);
  const describedBy = [
    limit === null ? null : limitId,
    help === null ? null : helpId,
    hintId,
    field.editable ? null : lockedId,
    inactive ? (inactiveReason ?? null) : null,
    shown.length > 0 ? errorId : null,
  ]
    .filter((x) => x !== null)
    .join(" ");
  const name = label ?? settingLabel(t, field.key);
  const common = {
    id,
    name: field.key,
    disabled: !field.editable || inactive,
    "aria-invalid": invalid ? ("true" as const) : undefined,
    "aria-describedby": describedBy,
    "data-testid": testId ?? `setting-${field.key}`,
  };

  let input;
  if (field.kind === "bool") {
    input = (
      <input type="checkbox" {...common} checked={value === "true"} onChange={(e) => onChange(String(e.target.checked))} />
    );
  } else if (field.key === COUNTRY_SETTING) {
    // The office's country: chosen from the same list as at setup, not typed.
    const code = value.trim().toUpperCase();
    input = (
      <select {...common} value={code} onChange={(e) => onChange(e.target.value)}>
        <option value="">{t("country.none")}</option>
        {code !== "" && !isPhoneRegion(code) && <option value={code}>{code}</option>}
        {countriesIn(formatTag).map((c) => (
          <option key={c.code} value={c.code}>
            {c.name}
          </option>
        ))}
      </select>
    );
  } else if (field.kind === "choice") {
    input = (
      <select {...common} value={value} onChange={(e) => onChange(e.target.value)}>
        {field.choices.map((c) => (
          <option key={c} value={c}>
            {choiceLabel(t, c, field.key)}
          </option>
        ))}
      </select>
    );
  } else {
    input = (
      <input
        type="text"
        inputMode={field.kind === "integer" ? "numeric" : undefined}
        autoComplete="off"
        spellCheck={false}
        {...common}
        value={value}
        onChange={(e) => onChange(e.target.value)}
      />
    );
  }

  return (
    <div
      className={`field setting ${field.kind === "bool" ? "setting-bool" : ""}`}
      data-key={field.key}
      data-source={field.source}
      data-inactive={inactive ? "true" : undefined}
    >
      {field.kind === "bool" ? (
        <>
          <label htmlFor={id} className="setting-check">
            {input}
            <span>{name}</span>
          </label>
          <SettingKey name={field.key} />
        </>
      ) : (
        <>
          <label htmlFor={id}>{name}</label>
          <SettingKey name={field.key} />
          {input}
        </>
      )}
      {limit !== null && (
        <p className="field-problem" id={limitId} data-testid={`limit-${field.key}`}>
          {limit}
        </p>
      )}
      {help !== null && (
        <p className="hint setting-help" id={helpId}>
          {help}
        </p>
      )}
      <p className="hint setting-meta" id={hintId}>
        <AppliesBadge applies={field.applies} />
        {field.default !== "" && field.default !== value && (
          <span className="setting-default">
            {t("settings.default", { value: field.kind === "choice" ? choiceLabel(t, field.default, field.key) : field.default })}
          </span>
        )}
      </p>
      {field.pending_restart && (
        <p className="hint setting-pending" data-testid={`pending-${field.key}`}>
          {t("settings.pendingRestart")}
        </p>
      )}
      <LockedReason field={field} id={lockedId} />
      <FieldErrors errors={shown} id={errorId} />
    </div>
  );
}

/**
 * The SMPP password: never shown (the engine never sends it); says whether one is set and where
 * it is kept, and takes a new one.
 */
export function PasswordControl({
  field,
  view,
  value,
  onChange,
  errors,
  inactive = false,
  inactiveReason,
  testId = "setting-smpp.password",
}: {
  field: SettingField;
  view: SettingsView;
  value: string | null;
  onChange: (value: string | null) => void;
  errors: FieldError[];
} & ControlOptions) {
  const { t } = useI18n();
  const id = useId();
  const stateId = `${id}-state`;
  const lockedId = `${id}-locked`;
  const errorId = `${id}-errors`;
  const limitId = `${id}-limit`;
  const limit = passwordTooLong(t, value === "" ? null : value);
  const shown = limit === null ? errors : errors.filter((e) => !TOO_LONG.has(e.code));
  const invalid = shown.length > 0 || limit !== null;
  const where = t(`settings.password.where.${field.source}`);
  const store = t(`settings.password.where.${view.secret_store}`);
  return (
    <div
      className="field setting"
      data-key={field.key}
      data-source={field.source}
      data-inactive={inactive ? "true" : undefined}
    >
      <label htmlFor={id}>{settingLabel(t, field.key)}</label>
      <SettingKey name={field.key} />
      <input
        id={id}
        type="password"
        name="smpp.password"
        autoComplete="new-password"
        disabled={!field.editable || inactive}
        value={value ?? ""}
        onChange={(e) => onChange(e.target.value === "" ? null : e.target.value)}
        aria-invalid={invalid ? "true" : undefined}
        aria-describedby={[
          limit === null ? null : limitId,
          stateId,
          field.editable ? null : lockedId,
          inactive ? (inactiveReason ?? null) : null,
          shown.length > 0 ? errorId : null,
        ]
          .filter((x) => x !== null)
          .join(" ")}
        data-testid={testId}
      />
      {limit !== null && (
        <p className="field-problem" id={limitId} data-testid="limit-smpp.password">
          {limit}
        </p>
      )}
      <div className="hint setting-meta" id={stateId}>
        <AppliesBadge applies={field.applies} />
        <span data-testid="password-state">
          {view.password_set ? t("settings.password.set", { where }) : t("settings.password.unset")}
        </span>
        {field.editable && <span>{t("settings.password.store", { where: store })}</span>}
      </div>
      {field.editable && !inactive && view.password_set && value !== "" && (
        <button
          type="button"
          className="button button-secondary button-small"
          onClick={() => onChange("")}
          data-testid="password-clear"
        >
          {t("settings.password.clear")}
        </button>
      )}
      {value === "" && <p className="hint">{t("settings.password.cleared")}</p>}
      <LockedReason field={field} id={lockedId} />
      <FieldErrors errors={shown} id={errorId} />
    </div>
  );
}
