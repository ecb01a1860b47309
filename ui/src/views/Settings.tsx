import { useId, useMemo, useState, type FormEvent } from "react";
import { asBackendError, type Backend, type BackendError } from "../backend";
import type { FieldError } from "../bindings/FieldError";
import type { SettingsSaved } from "../bindings/SettingsSaved";
import type { SettingsView } from "../bindings/SettingsView";
import { ErrorNotice } from "../components/ErrorNotice";
import { formatRoute } from "../hooks/useHashRoute";
import { useBackendData } from "../hooks/useBackendData";
import { useI18n } from "../i18n/context";
import { AlertsSection, inAlertsSection } from "./settings/AlertsSection";
import { ConnectionsEditor } from "./settings/Connections";
import { ConnectionTestButton } from "./settings/ConnectionTest";
import { draftsOf, providersChanged, ProvidersEditor, toEdits, type ProviderDraft } from "./settings/Providers";
import { SavedNotice } from "./settings/SavedNotice";
import { Section } from "./settings/Section";
import { SendingPace, type SandboxLimits } from "./settings/SendingPace";
import { PasswordControl, SettingControl } from "./settings/SettingControl";
import { inSmppServerSection, SERVER_TLS, SERVER_TLS_DETAILS, SmppServerSection } from "./settings/SmppServerSection";
import { TLS_DETAILS, TLS_KEYS, TLS_SWITCH } from "./settings/tls";
import { clientCertificateUntested, TlsFields } from "./settings/TlsFields";

const loadSettings = (backend: Backend): Promise<SettingsView> => backend.settings();
// Only for the sandbox's own limits, which no setting holds.
const loadSandboxLimits = (backend: Backend): Promise<SandboxLimits> =>
  backend.pace().then((p) => ({ tps: p.sandbox_tps_limit, window: p.sandbox_window }));

const CONNECTION = [
  "smpp.sandbox",
  "smpp.host",
  "smpp.port",
  "smpp.system_id",
  "smpp.system_type",
  "smpp.interface_version",
  "smpp.address_range",
  "smpp.bind_mode",
  "smpp.binds",
  "smpp.source_addr",
];
/**
 * The provider's own connection fields: the sandbox binds on its own address and takes any
 * account, so these do nothing while it is chosen. (The sender id and the receipt id formats are
 * still used with the sandbox: its scenarios send ids in hex and decimal.)
 */
const PROVIDER_ONLY = new Set([
  "smpp.host",
  "smpp.port",
  "smpp.system_id",
  "smpp.password",
  "smpp.system_type",
  "smpp.interface_version",
  "smpp.address_range",
  "smpp.bind_mode",
  "smpp.binds",
  // The sandbox serves TLS when it is on (a certificate of its own, pinned): only the switch counts.
  ...TLS_DETAILS,
]);
/** Saved only while their TLS is on (each with its switch): with it off they are hidden, and an edit to one is not sent. */
const TLS_ONLY: ReadonlyMap<string, string> = new Map([
  ...TLS_DETAILS.map((k): [string, string] => [k, TLS_SWITCH]),
  ...SERVER_TLS_DETAILS.map((k): [string, string] => [k, SERVER_TLS]),
]);
const SENDING = ["smpp.tps", "smpp.window", "smpp.response_timeout_seconds", "smpp.enquire_link_seconds"];
const RETRY_CODES = ["retry.throttled_codes", "retry.temporary_codes", "retry.permanent_codes", "retry.unlisted_max_attempts"];
export const KINDS = ["otp", "transactional", "bulk"] as const;
const RECEIPTS = [
  "receipts.response_id",
  "receipts.tlv_id",
  "receipts.receipt_id",
  "receipts.id_ignore_case",
  "receipts.id_ignore_leading_zeros",
  "receipts.accepted_is_final",
  "receipts.timezone",
  "receipts.uncorrelated_grace_seconds",
];
const SHOWN_ELSEWHERE = new Set([
  ...CONNECTION,
  ...SENDING,
  ...RETRY_CODES,
  ...RECEIPTS,
  ...KINDS.flatMap((k) => [`retry.${k}_max_attempts`, `retry.${k}_max_age_minutes`, `retry.${k}_on_unknown_outcome`]),
  ...KINDS.flatMap((k) => [`receipts.${k}_request`, `receipts.${k}_deadline_minutes`]),
  ...TLS_KEYS,
  "smpp.password",
  "callbacks.providers",
]);

/**
 * Settings: an admin's (in the window or a browser) to read and change. Each field says where its
 * value comes from and when a change applies; a setting an environment variable sets is shown
 * read-only with the variable's name.
 */
export function Settings({ backend }: { backend: Backend }) {
  const { t } = useI18n();
  const headingId = useId();
  const { state, reload } = useBackendData(backend, loadSettings);
  const { state: sandbox } = useBackendData(backend, loadSandboxLimits);
  // A save answers with the settings as they now are; they replace what was loaded.
  const [saved, setSaved] = useState<SettingsSaved | null>(null);
  const [saves, setSaves] = useState(0);
  const view = saved?.settings ?? (state.status === "ready" ? state.data : null);

  return (
    <div className="stack settings">
      <section className="panel" aria-labelledby={headingId} aria-busy={state.status === "loading"}>
        <h2 id={headingId}>{t("settings.title")}</h2>
        {view !== null && <p className="panel-intro">{t("settings.intro", { file: view.config_file })}</p>}
        {state.status === "loading" && (
          <p className="status" role="status">
            <span className="spinner" aria-hidden="true" />
            {t("settings.loading")}
          </p>
        )}
        {state.status === "error" && (
          <ErrorNotice title={t("settings.error")} error={state.error} onRetry={reload} testId="settings-error" />
        )}
        <p className="settings-keys-link">
          {t("settings.keysLink")}{" "}
          <a href={formatRoute({ section: "keys" })} data-testid="settings-keys-link">
            {t("settings.keysLink.action")}
          </a>
        </p>
      </section>
      {view !== null && (
        // Each save starts a clean form from the settings as they now are.
        <SettingsForm
          key={saves}
          backend={backend}
          view={view}
          sandboxLimits={sandbox.status === "ready" ? sandbox.data : null}
          lastSave={saved}
          onSaved={(answer) => {
            setSaved(answer);
            setSaves((n) => n + 1);
          }}
        />
      )}
      {/* The named connections and the routes among them: saved on their own. */}
      {view !== null && <ConnectionsEditor backend={backend} />}
    </div>
  );
}

function SettingsForm({
  backend,
  view,
  sandboxLimits,
  lastSave,
  onSaved,
}: {
  backend: Backend;
  view: SettingsView;
  /** The sandbox's own pace, once the engine said it. */
  sandboxLimits: SandboxLimits | null;
  /** What the last save did, shown until the next edit. */
  lastSave: SettingsSaved | null;
  onSaved: (saved: SettingsSaved) => void;
}) {
  const { t } = useI18n();
  const sandboxHintId = useId();
  const fields = useMemo(() => new Map(view.fields.map((f) => [f.key, f])), [view]);
  const [edits, setEdits] = useState<Record<string, string>>({});
  const [password, setPassword] = useState<string | null>(null);
  const [providers, setProviders] = useState<ProviderDraft[]>(() => draftsOf(view));
  const [errors, setErrors] = useState<FieldError[]>([]);
  // The fields the engine refused for the last test (the saved password not sent to this
  // server), shown next to each as a save's are, until the next edit or test.
  const [testErrors, setTestErrors] = useState<FieldError[]>([]);
  const [saving, setSaving] = useState(false);
  const [failure, setFailure] = useState<BackendError | null>(null);

  const valueOf = (key: string): string => edits[key] ?? fields.get(key)?.value ?? "";
  const shown = (key: string): boolean => {
    const tls = TLS_ONLY.get(key);
    return tls === undefined || valueOf(tls) === "true";
  };
  const changedValues = Object.fromEntries(
    Object.entries(edits).filter(([key, value]) => fields.get(key)?.value !== value && shown(key)),
  );
  const providersDirty = providersChanged(view, providers);
  const changes = Object.keys(changedValues).length + (password !== null ? 1 : 0) + (providersDirty ? 1 : 0);
  const errorsOf = (field: string): FieldError[] => [...errors, ...testErrors].filter((e) => e.field === field);

  const set = (key: string) => (value: string) => {
    setEdits((e) => ({ ...e, [key]: value }));
    setTestErrors([]);
  };
  // As ticked in the form, saved or not: the provider's fields wake as soon as it is unticked.
  const sandboxChosen = valueOf("smpp.sandbox") === "true";
  const inactive = (key: string) =>
    sandboxChosen && PROVIDER_ONLY.has(key) ? { inactive: true, inactiveReason: sandboxHintId } : {};

  const control = (key: string, label?: string) => {
    const field = fields.get(key);
    if (field === undefined) return null;
    return (
      <SettingControl
        key={key}
        field={field}
        value={valueOf(key)}
        onChange={set(key)}
        errors={errorsOf(key)}
        {...(label === undefined ? {} : { label })}
        {...inactive(key)}
      />
    );
  };

  const save = (event: FormEvent<HTMLFormElement>): void => {
    event.preventDefault();
    if (saving || changes === 0) return;
    setSaving(true);
    setFailure(null);
    setErrors([]);
    backend
      .updateSettings({
        values: changedValues,
        password,
        callback_providers: providersDirty ? toEdits(providers) : null,
      })
      .then(
        (answer) => {
          setSaving(false);
          // The form is rebuilt from the settings as they now are.
          onSaved(answer);
        },
        (e: unknown) => {
          const error = asBackendError(e);
          setSaving(false);
          setFailure(error);
          setErrors(error.errors);
        },
      );
  };

  const discard = (): void => {
    setEdits({});
    setPassword(null);
    setProviders(draftsOf(view));
    setErrors([]);
    setTestErrors([]);
    setFailure(null);
  };

  const passwordField = fields.get("smpp.password");
  const providersField = fields.get("callbacks.providers");
  const handled = new Set(SHOWN_ELSEWHERE);
  const others = view.fields.filter((f) => !handled.has(f.key) && !inAlertsSection(f) && !inSmppServerSection(f));

  return (
    <form className="stack settings-form" onSubmit={save} aria-busy={saving} data-testid="settings-form" noValidate>
      <Section id="connection" title={t("settings.section.connection")} intro={t("settings.section.connection.intro")}>
        <div className="form settings-fields">{control("smpp.sandbox")}</div>
        {sandboxChosen && <SandboxHint id={sandboxHintId} />}
        <div className="form settings-fields">
          {CONNECTION.slice(1, 4).map((k) => control(k))}
          {passwordField !== undefined && (
            <PasswordControl
              field={passwordField}
              view={view}
              value={password}
              onChange={(value) => {
                setPassword(value);
                setTestErrors([]);
              }}
              errors={errorsOf("smpp.password")}
              {...inactive("smpp.password")}
            />
          )}
          {CONNECTION.slice(4).map((k) => control(k))}
        </div>
        <TlsFields fields={fields} valueOf={valueOf} control={(k) => control(k)} />
        <ConnectionTestButton
          backend={backend}
          valueOf={valueOf}
          password={password}
          onFieldErrors={setTestErrors}
          note={clientCertificateUntested(fields, valueOf) ? t("settings.tls.clientUntested") : null}
        />
      </Section>

      <Section id="sending" title={t("settings.section.sending")}>
        <div className="form settings-fields">{SENDING.map((k) => control(k))}</div>
        <SendingPace
          tps={valueOf("smpp.tps")}
          window={valueOf("smpp.window")}
          sandbox={valueOf("smpp.sandbox") === "true"}
          sandboxLimits={sandboxLimits}
        />
      </Section>

      <Section id="retry" title={t("settings.section.retry")} intro={t("settings.section.retry.intro")}>
        <div className="settings-kinds">
          {KINDS.map((kind) => (
            <fieldset key={kind} className="settings-kind" data-testid={`retry-${kind}`}>
              <legend>{t(`settings.kind.${kind}`)}</legend>
              <div className="form settings-fields">
                {control(`retry.${kind}_max_attempts`, t("settings.retry.maxAttempts"))}
                {control(`retry.${kind}_max_age_minutes`, t("settings.retry.maxAge"))}
                {control(`retry.${kind}_on_unknown_outcome`, t("settings.retry.onUnknown"))}
              </div>
            </fieldset>
          ))}
        </div>
        <div className="form settings-fields">{RETRY_CODES.map((k) => control(k))}</div>
      </Section>

      <Section id="receipts" title={t("settings.section.receipts")}>
        <div className="settings-kinds">
          {KINDS.map((kind) => (
            <fieldset key={kind} className="settings-kind" data-testid={`receipts-${kind}`}>
              <legend>{t(`settings.kind.${kind}`)}</legend>
              <div className="form settings-fields">
                {control(`receipts.${kind}_request`, t("settings.receipts.request"))}
                {control(`receipts.${kind}_deadline_minutes`, t("settings.receipts.deadline"))}
              </div>
            </fieldset>
          ))}
        </div>
        <div className="form settings-fields">{RECEIPTS.map((k) => control(k))}</div>
      </Section>

      {providersField !== undefined && (
        <Section
          id="callbacks"
          title={t("settings.section.callbacks")}
          intro={t("settings.section.callbacks.intro", { path: "/api/v1/callbacks/{provider}" })}
        >
          <ProvidersEditor
            field={providersField}
            view={view}
            drafts={providers}
            onChange={setProviders}
            errors={errors}
          />
        </Section>
      )}

      <AlertsSection fields={view.fields} control={(key) => control(key)} />

      <SmppServerSection fields={view.fields} valueOf={valueOf} control={(key) => control(key)} />

      <Section id="other" title={t("settings.section.other")}>
        <div className="form settings-fields">{others.map((f) => control(f.key))}</div>
      </Section>

      {/* Always in reach while scrolling: the buttons and a one-line state; the details below. */}
      <div className="settings-save-bar">
        <div className="row-actions">
          <button type="submit" className="button" disabled={saving || changes === 0} data-testid="settings-save">
            {saving ? t("settings.saving") : t("settings.save")}
          </button>
          <button
            type="button"
            className="button button-secondary"
            onClick={discard}
            disabled={saving || changes === 0}
            data-testid="settings-discard"
          >
            {t("settings.discard")}
          </button>
          <span className="hint" role="status" data-testid="settings-dirty">
            {failure !== null
              ? t("settings.saveFailed")
              : changes > 0
                ? t("settings.changedCount", { count: changes })
                : lastSave !== null
                  ? t("settings.saved.title")
                  : t("settings.unchanged")}
          </span>
        </div>
      </div>
      <div className="settings-outcome" aria-live="polite">
        {failure !== null && (
          <ErrorNotice title={t("settings.saveFailed")} error={failure} testId="settings-save-error" />
        )}
        {lastSave !== null && changes === 0 && <SavedNotice saved={lastSave} fields={fields} />}
      </div>
    </form>
  );
}

/** While the sandbox is chosen: the provider's fields wait, and where to connect the provider. */
function SandboxHint({ id }: { id: string }) {
  const { t } = useI18n();
  return (
    <p className="hint settings-sandbox-hint" id={id} data-testid="settings-sandbox-hint">
      {t("settings.sandboxHint")}{" "}
      <a href={formatRoute({ section: "settings", connect: true })} data-testid="settings-connect-link">
        {t("settings.sandboxHint.guide")}
      </a>
    </p>
  );
}
