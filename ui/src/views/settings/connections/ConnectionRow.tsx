/** One SMPP connection of the editor: its fields, its warnings, and its trial bind. */
import { useId, type ReactNode } from "react";
import type { Backend } from "../../../backend";
import { ErrorNotice } from "../../../components/ErrorNotice";
import { useI18n } from "../../../i18n/context";
import { TestResult, useTrialBind } from "../ConnectionTest";
import { BIND_MODES, trialOfDraft, type ConnectionDraft, type Problem } from "./drafts";
import { CheckField, Problems, RowActions, TextField } from "./fields";

/** The fields shown with their own problems (an engine refusal of any other is shown on the row). */
const CONNECTION_FIELDS = [
  "name",
  "host",
  "port",
  "system_id",
  "password",
  "system_type",
  "bind_mode",
  "binds",
  "window",
  "tps",
  "source_addr",
];
/** The connection's fields typed as text. */
type TextKey = "name" | "host" | "port" | "system_id" | "system_type" | "binds" | "window" | "tps" | "source_addr";
const LINK_FIELDS = new Set(["host", "port", "system_id", "password", "system_type", "bind_mode", "binds", "window", "tps"]);

export function ConnectionRow({
  backend,
  draft,
  index,
  count,
  unrouted,
  onChange,
  onMove,
  onRemove,
  problemsAt,
  otherRefusals,
}: {
  backend: Backend;
  draft: ConnectionDraft;
  index: number;
  count: number;
  unrouted: boolean;
  onChange: (patch: Partial<ConnectionDraft>) => void;
  onMove: (by: -1 | 1) => void;
  onRemove: () => void;
  problemsAt: (field: string) => Problem[];
  otherRefusals: (shown: readonly string[]) => Problem[];
}) {
  const { t } = useI18n();
  const id = useId();
  const name = draft.name.trim();
  const shown = CONNECTION_FIELDS.filter((f) => !(draft.sandbox && LINK_FIELDS.has(f)));
  const text = (field: TextKey, label: string, testId: string, more: { numeric?: boolean; hint?: string } = {}) => (
    <TextField
      id={`${id}-${field}`}
      label={label}
      value={draft[field]}
      onChange={(value) => onChange({ [field]: value } as Partial<ConnectionDraft>)}
      testId={testId}
      problems={problemsAt(field)}
      field={field}
      {...more}
    />
  );
  const bindModeProblems = problemsAt("bind_mode");
  return (
    <fieldset className="connection-edit" data-testid="connection-edit" data-name={draft.name}>
      <legend>
        {name === ""
          ? t("settings.connections.legend.new", { number: index + 1 })
          : t("settings.connections.legend", { number: index + 1, name })}
      </legend>
      <Problems problems={otherRefusals(shown)} id={`${id}-other`} />
      <div className="form settings-fields">
        {text("name", t("settings.connections.name"), "connection-name", { hint: t("settings.connections.name.hint") })}
        <CheckField
          id={`${id}-sandbox`}
          label={t("settings.connections.sandbox")}
          checked={draft.sandbox}
          onChange={(sandbox) => onChange({ sandbox })}
          testId="connection-sandbox"
        />
        <CheckField
          id={`${id}-enabled`}
          label={t("settings.connections.enabled")}
          checked={draft.enabled}
          onChange={(enabled) => onChange({ enabled })}
          testId="connection-enabled"
        />
      </div>
      {draft.sandbox ? (
        <p className="hint" data-testid="connection-sandbox-hint">
          {t("settings.connections.sandbox.hint")}
        </p>
      ) : (
        <div className="form settings-fields">
          {text("host", t("settings.connections.host"), "connection-host")}
          {text("port", t("settings.connections.port"), "connection-port", { numeric: true })}
          {text("system_id", t("settings.connections.systemId"), "connection-system-id")}
          <TextField
            id={`${id}-password`}
            label={t("settings.connections.password")}
            type="password"
            autoComplete="new-password"
            value={draft.password ?? ""}
            onChange={(value) => onChange({ password: value === "" ? null : value })}
            placeholder={draft.password_set ? t("settings.connections.password.kept") : ""}
            hint={draft.password_set ? t("settings.connections.password.set") : t("settings.connections.password.unset")}
            testId="connection-password"
            problems={problemsAt("password")}
            field="password"
          />
          {text("system_type", t("settings.connections.systemType"), "connection-system-type")}
          <div className="field field-narrow" data-field="bind_mode">
            <label htmlFor={`${id}-bind_mode`}>{t("settings.connections.bindMode")}</label>
            <select
              id={`${id}-bind_mode`}
              value={draft.bind_mode}
              onChange={(e) => onChange({ bind_mode: e.target.value })}
              aria-invalid={bindModeProblems.length > 0 ? "true" : undefined}
              aria-describedby={bindModeProblems.length > 0 ? `${id}-bind_mode-problems` : undefined}
              data-testid="connection-bind-mode"
            >
              {BIND_MODES.map((m) => (
                <option key={m} value={m}>
                  {t(`settings.choice.${m}`)}
                </option>
              ))}
            </select>
            <Problems problems={bindModeProblems} id={`${id}-bind_mode-problems`} field="bind_mode" />
          </div>
          {text("binds", t("settings.connections.binds"), "connection-binds", { numeric: true })}
          {text("window", t("settings.connections.window"), "connection-window", { numeric: true })}
          {text("tps", t("settings.connections.tps"), "connection-tps", { numeric: true })}
        </div>
      )}
      <div className="form settings-fields">
        {text("source_addr", t("settings.connections.source"), "connection-source", {
          hint: t("settings.connections.source.hint"),
        })}
      </div>
      {unrouted && (
        <p className="connections-warning" data-testid="connection-unrouted">
          {t("settings.connections.unrouted")}
        </p>
      )}
      <ConnectionTestRow backend={backend} draft={draft}>
        <RowActions
          prefix="connection"
          index={index}
          count={count}
          onMove={onMove}
          onRemove={onRemove}
          canRemove={count > 1}
        />
      </ConnectionTestRow>
    </fieldset>
  );
}

function ConnectionTestRow({ backend, draft, children }: { backend: Backend; draft: ConnectionDraft; children: ReactNode }) {
  const { t } = useI18n();
  const { busy, result, error, run: test } = useTrialBind(backend);
  const run = (): void => test(trialOfDraft(draft));
  return (
    <div className="settings-test">
      <div className="row-actions">
        <button
          type="button"
          className="button button-secondary button-small"
          onClick={run}
          disabled={busy}
          data-testid="connection-test"
        >
          {busy ? t("settings.test.running") : t("settings.test.action")}
        </button>
        {children}
      </div>
      <p className="hint">
        {draft.sandbox
          ? t("settings.connections.test.hint.sandbox")
          : draft.saved === null
            ? t("settings.connections.test.hint.new")
            : t("settings.connections.test.hint")}
      </p>
      <div aria-live="polite">
        {result !== null && <TestResult result={result} testId="connection-test-result" />}
        {error !== null && <ErrorNotice title={t("settings.test.failedCall")} error={error} testId="connection-test-error" />}
      </div>
    </div>
  );
}
