/** One SMPP connection of the editor: its fields, its warnings, and its trial bind. */
import { useId, useState, type ReactNode } from "react";
import type { Backend } from "../../../backend";
import type { FieldError } from "../../../bindings/FieldError";
import { ErrorNotice } from "../../../components/ErrorNotice";
import { useI18n } from "../../../i18n/context";
import { TestResult, useTrialBind } from "../ConnectionTest";
import { ConnectionTls } from "./ConnectionTls";
import { BIND_MODES, clientCertificateUntested, TLS_FIELDS, trialOfDraft, type ConnectionDraft, type Problem } from "./drafts";
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
  ...TLS_FIELDS,
];
/** The connection's fields typed as text (TLS's are drawn by `ConnectionTls`). */
type TextKey = "name" | "host" | "port" | "system_id" | "system_type" | "binds" | "window" | "tps" | "source_addr";
/** What a sandbox has none of: the link to a provider, and its TLS. */
const LINK_FIELDS = new Set<string>([
  "host",
  "port",
  "system_id",
  "password",
  "system_type",
  "bind_mode",
  "binds",
  "window",
  "tps",
  ...TLS_FIELDS,
]);

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
  // The engine's refusals of a test's fields (`smpp.password`: the saved one is not sent to this
  // server), each next to its field until the row is edited or tested again.
  const [testErrors, setTestErrors] = useState<FieldError[]>([]);
  const trial = useTrialBind(backend, setTestErrors);
  const edit = (patch: Partial<ConnectionDraft>): void => {
    setTestErrors([]);
    onChange(patch);
  };
  const problemsOf = (field: string): Problem[] => [
    ...problemsAt(field),
    ...testErrors.filter((e) => e.field === `smpp.${field}`).map((error) => ({ error })),
  ];
  const shown = CONNECTION_FIELDS.filter((f) => !(draft.sandbox && LINK_FIELDS.has(f)));
  const text = (field: TextKey, label: string, testId: string, more: { numeric?: boolean; hint?: string } = {}) => (
    <TextField
      id={`${id}-${field}`}
      label={label}
      value={draft[field]}
      onChange={(value) => edit({ [field]: value } as Partial<ConnectionDraft>)}
      testId={testId}
      field={field}
      {...more}
      problems={problemsOf(field)}
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
          onChange={(sandbox) => edit({ sandbox })}
          testId="connection-sandbox"
        />
        <CheckField
          id={`${id}-enabled`}
          label={t("settings.connections.enabled")}
          checked={draft.enabled}
          onChange={(enabled) => edit({ enabled })}
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
            onChange={(value) => edit({ password: value === "" ? null : value })}
            placeholder={draft.password_set ? t("settings.connections.password.kept") : ""}
            hint={draft.password_set ? t("settings.connections.password.set") : t("settings.connections.password.unset")}
            testId="connection-password"
            problems={problemsOf("password")}
            field="password"
          />
          {text("system_type", t("settings.connections.systemType"), "connection-system-type")}
          <div className="field field-narrow" data-field="bind_mode">
            <label htmlFor={`${id}-bind_mode`}>{t("settings.connections.bindMode")}</label>
            <select
              id={`${id}-bind_mode`}
              value={draft.bind_mode}
              onChange={(e) => edit({ bind_mode: e.target.value })}
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
      {!draft.sandbox && <ConnectionTls id={id} draft={draft} edit={edit} problemsOf={problemsOf} />}
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
      <ConnectionTestRow draft={draft} trial={trial}>
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

function ConnectionTestRow({
  draft,
  trial,
  children,
}: {
  draft: ConnectionDraft;
  /** The row's trial bind (the row shows the fields it refused). */
  trial: ReturnType<typeof useTrialBind>;
  children: ReactNode;
}) {
  const { t } = useI18n();
  const { busy, result, error, run: test } = trial;
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
      {clientCertificateUntested(draft) && (
        <p className="hint" data-testid="connection-tls-client-untested">
          {t("settings.tls.clientUntested")}
        </p>
      )}
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
