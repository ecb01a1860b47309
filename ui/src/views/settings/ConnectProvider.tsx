import { useCallback, useId, useMemo, useState, type ReactNode } from "react";
import { asBackendError, type Backend, type BackendError } from "../../backend";
import type { ConnectionStatus } from "../../bindings/ConnectionStatus";
import type { ConnectionTestResult } from "../../bindings/ConnectionTestResult";
import type { FieldError } from "../../bindings/FieldError";
import type { SettingsSaved } from "../../bindings/SettingsSaved";
import type { SettingsView } from "../../bindings/SettingsView";
import { ErrorNotice } from "../../components/ErrorNotice";
import { useBackendData } from "../../hooks/useBackendData";
import { formatRoute } from "../../hooks/useHashRoute";
import { useI18n } from "../../i18n/context";
import { LINK_TONE, linkWords } from "../Dashboard";
import { TestResult, trialOf } from "./ConnectionTest";
import { COUNTRY_SETTING, CountryStep } from "./CountryStep";
import { SavedNotice } from "./SavedNotice";
import { PasswordControl, SettingControl } from "./SettingControl";
import { TLS_DETAILS, TLS_KEYS, TLS_SWITCH } from "./tls";
import { clientCertificateUntested, TlsFields } from "./TlsFields";

const loadSettings = (backend: Backend): Promise<SettingsView> => backend.settings();
const loadConnection = (backend: Backend): Promise<ConnectionStatus> => backend.connection();

/** What the guide asks for, step by step (the password aside: it is a secret of its own). */
const STEPS = {
  address: ["smpp.host", "smpp.port"],
  // With the address: a TLS port is usually another one. Its details only while it is on.
  tls: TLS_KEYS,
  account: ["smpp.system_id"],
  accountIfGiven: ["smpp.system_type"],
  accountMore: ["smpp.interface_version", "smpp.address_range"],
  sender: ["smpp.source_addr"],
  ids: ["receipts.response_id", "receipts.receipt_id", "receipts.id_ignore_case", "receipts.id_ignore_leading_zeros"],
  country: [COUNTRY_SETTING],
} as const;
const GUIDED: readonly string[] = Object.values(STEPS).flat();
const TLS_ONLY: ReadonlySet<string> = new Set(TLS_DETAILS);

/** How often the link is asked about after switching, while it binds to the provider. */
const LINK_POLL_MS = 2_000;

/**
 * "Connect your provider": the provider's details step by step, a trial bind against exactly
 * what is typed (never the sandbox), and only after it bound, a switch that saves them with the
 * sandbox off, as the Settings form would. Cancel leaves everything as it was.
 */
export function ConnectProvider({
  backend,
  onClose,
  onSwitched,
}: {
  backend: Backend;
  /** Back to the Settings screen. */
  onClose: () => void;
  /** The connection changed: what shows it (the sandbox banner) should ask again. */
  onSwitched?: () => void;
}) {
  const { t } = useI18n();
  const headingId = useId();
  const { state, reload } = useBackendData(backend, loadSettings);
  // Once switched, the page speaks of the provider: nothing "keeps going to the sandbox" then.
  const [switched, setSwitched] = useState(false);
  const onTheSandbox =
    state.status === "ready" && state.data.fields.find((f) => f.key === "smpp.sandbox")?.value === "true";
  return (
    <section className="panel connect-guide" aria-labelledby={headingId} data-testid="connect-guide">
      <h2 id={headingId}>{t("connect.title")}</h2>
      {state.status === "ready" && !switched && (
        <p className="panel-intro" data-testid="connect-intro">
          {onTheSandbox ? t("connect.intro") : t("connect.intro.provider")}
        </p>
      )}
      {state.status === "loading" && (
        <p className="status" role="status">
          <span className="spinner" aria-hidden="true" />
          {t("settings.loading")}
        </p>
      )}
      {state.status === "error" && (
        <ErrorNotice title={t("settings.error")} error={state.error} onRetry={reload} testId="connect-error" />
      )}
      {state.status === "ready" && (
        <Guide
          backend={backend}
          view={state.data}
          onClose={onClose}
          onSwitched={() => {
            setSwitched(true);
            onSwitched?.();
          }}
        />
      )}
    </section>
  );
}

function Guide({
  backend,
  view,
  onClose,
  onSwitched,
}: {
  backend: Backend;
  view: SettingsView;
  onClose: () => void;
  onSwitched?: () => void;
}) {
  const { t } = useI18n();
  const fields = useMemo(() => new Map(view.fields.map((f) => [f.key, f])), [view]);
  const [edits, setEdits] = useState<Record<string, string>>({});
  const [password, setPassword] = useState<string | null>(null);
  // A result holds for the values it tried: any edit clears it, and the switch with it.
  const [result, setResult] = useState<ConnectionTestResult | null>(null);
  const [busy, setBusy] = useState<"testing" | "switching" | null>(null);
  const [failure, setFailure] = useState<{ what: "test" | "switch"; error: BackendError } | null>(null);
  const [saved, setSaved] = useState<SettingsSaved | null>(null);

  const valueOf = (key: string): string => edits[key] ?? fields.get(key)?.value ?? "";
  // The office's country does not change what the test binds with: choosing it keeps the result.
  const chooseCountry = useCallback((code: string) => setEdits((e) => ({ ...e, [COUNTRY_SETTING]: code })), []);
  const countryField = fields.get(COUNTRY_SETTING);
  const errors: FieldError[] = failure?.error.errors ?? [];
  const edited = (): void => {
    setResult(null);
    setFailure(null);
  };
  const control = (key: string) => {
    const field = fields.get(key);
    if (field === undefined) return null;
    return (
      <SettingControl
        key={key}
        field={field}
        value={valueOf(key)}
        onChange={(value) => {
          setEdits((e) => ({ ...e, [key]: value }));
          edited();
        }}
        errors={errors.filter((e) => e.field === key)}
        testId={`connect-${key}`}
      />
    );
  };

  const test = (): void => {
    setBusy("testing");
    setResult(null);
    setFailure(null);
    backend.testConnection(trialOf(valueOf, password, false)).then(
      (r) => {
        setResult(r);
        setBusy(null);
      },
      (e: unknown) => {
        setFailure({ what: "test", error: asBackendError(e) });
        setBusy(null);
      },
    );
  };

  const switchNow = (): void => {
    // What differs from the saved settings, as the Settings form sends it, and the sandbox off.
    // What TLS is checked with only while it is on: with it off, those edits are not saved.
    const values: Record<string, string> = { "smpp.sandbox": "false" };
    const tlsOn = valueOf(TLS_SWITCH) === "true";
    for (const key of GUIDED) {
      if (!tlsOn && TLS_ONLY.has(key)) continue;
      if (edits[key] !== undefined && edits[key] !== fields.get(key)?.value) values[key] = edits[key];
    }
    setBusy("switching");
    setFailure(null);
    backend.updateSettings({ values, password, callback_providers: null }).then(
      (answer) => {
        setBusy(null);
        setSaved(answer);
        onSwitched?.();
      },
      (e: unknown) => {
        setBusy(null);
        setFailure({ what: "switch", error: asBackendError(e) });
      },
    );
  };

  if (saved !== null) return <Switched backend={backend} saved={saved} view={view} />;

  const sandboxField = fields.get("smpp.sandbox");
  const passwordField = fields.get("smpp.password");
  const bound = result?.outcome === "bound";
  return (
    <>
      {sandboxField !== undefined && !sandboxField.editable && sandboxField.source === "env" && (
        <p className="notice notice-warning" data-testid="connect-locked">
          {t("connect.locked", { name: sandboxField.env_var })}
        </p>
      )}
      {sandboxField !== undefined && !sandboxField.editable && sandboxField.source !== "env" && (
        // Named connections: each one is edited under "Connections and routes".
        <p className="notice notice-warning" data-testid="connect-named">
          {t("connect.named")}
        </p>
      )}
      <ol className="connect-steps">
        <Step id="address" title={t("connect.step.address")} intro={<p>{t("connect.step.address.intro")}</p>}>
          <Fields>{STEPS.address.map(control)}</Fields>
          <TlsFields fields={fields} valueOf={valueOf} control={control} testId="connect-tls" />
        </Step>
        <Step id="account" title={t("connect.step.account")} intro={<p>{t("connect.step.account.intro")}</p>}>
          <Fields>
            {STEPS.account.map(control)}
          {passwordField !== undefined && (
            <PasswordControl
              field={passwordField}
              view={view}
              value={password}
              onChange={(value) => {
                setPassword(value);
                edited();
              }}
              errors={errors.filter((e) => e.field === "smpp.password")}
              testId="connect-smpp.password"
            />
          )}
            {STEPS.accountIfGiven.map(control)}
          </Fields>
          <details className="connect-more" data-testid="connect-more">
            <summary>{t("connect.step.account.more")}</summary>
            <Fields>{STEPS.accountMore.map(control)}</Fields>
          </details>
        </Step>
        <Step id="sender" title={t("connect.step.sender")} intro={<p>{t("connect.step.sender.intro")}</p>}>
          <Fields>{STEPS.sender.map(control)}</Fields>
        </Step>
        {countryField !== undefined && countryField.editable && (
          <CountryStep
            saved={countryField.value}
            edited={edits[COUNTRY_SETTING]}
            onChange={chooseCountry}
            errors={errors.filter((e) => e.field === COUNTRY_SETTING)}
          />
        )}
        <Step
          id="ids"
          title={t("connect.step.ids")}
          intro={
            <>
              <p>{t("connect.step.ids.intro")}</p>
              <p>{t("connect.step.ids.example")}</p>
              <p data-testid="connect-ids-default">{t("connect.step.ids.default")}</p>
            </>
          }
        >
          <Fields>{STEPS.ids.map(control)}</Fields>
        </Step>
        <Step id="test" title={t("connect.step.test")} intro={<p>{t("connect.step.test.intro")}</p>}>
          <div className="row-actions">
            <button
              type="button"
              className="button button-secondary"
              onClick={test}
              disabled={busy !== null}
              data-testid="connect-test"
            >
              {busy === "testing" ? t("settings.test.running") : t("settings.test.action")}
            </button>
          </div>
          {clientCertificateUntested(fields, valueOf) && (
            <p className="hint" data-testid="connect-test-client">
              {t("settings.tls.clientUntested")}
            </p>
          )}
          <div aria-live="polite">
            {result !== null && <TestResult result={result} testId="connect-test-result" />}
            {failure?.what === "test" && (
              <ErrorNotice title={t("settings.test.failedCall")} error={failure.error} testId="connect-test-error" />
            )}
          </div>
        </Step>
      </ol>
      <div className="connect-actions">
        {bound ? (
          <p className="hint">{t("connect.switch.hint")}</p>
        ) : (
          <p className="hint" data-testid="connect-switch-waits">
            {t("connect.switch.needsTest")}
          </p>
        )}
        <div className="row-actions">
          {bound && (
            <button
              type="button"
              className="button"
              onClick={switchNow}
              disabled={busy !== null || sandboxField?.editable === false}
              data-testid="connect-switch"
            >
              {busy === "switching" ? t("connect.switching") : t("connect.switch")}
            </button>
          )}
          <button
            type="button"
            className="button button-secondary"
            onClick={onClose}
            disabled={busy === "switching"}
            data-testid="connect-cancel"
          >
            {t("connect.cancel")}
          </button>
        </div>
        <div aria-live="polite">
          {failure?.what === "switch" && (
            <ErrorNotice title={t("connect.switchFailed")} error={failure.error} testId="connect-switch-error" />
          )}
        </div>
      </div>
    </>
  );
}

/** One step: what it asks for in plain words, then its fields (or its action). */
function Step({ id, title, intro, children }: { id: string; title: string; intro: ReactNode; children: ReactNode }) {
  return (
    <li className="connect-step" data-testid={`connect-step-${id}`}>
      <h3>{title}</h3>
      <div className="connect-step-intro">{intro}</div>
      {children}
    </li>
  );
}

function Fields({ children }: { children: ReactNode }) {
  return <div className="form settings-fields">{children}</div>;
}

/** After the switch: what was saved, and the link as it binds to the provider. */
function Switched({ backend, saved, view }: { backend: Backend; saved: SettingsSaved; view: SettingsView }) {
  const i18n = useI18n();
  const { t } = i18n;
  const fields = useMemo(() => new Map(view.fields.map((f) => [f.key, f])), [view]);
  const { state } = useBackendData(backend, loadConnection, { pollMs: LINK_POLL_MS });
  return (
    <div className="connect-outcome" data-testid="connect-outcome" aria-live="polite">
      <h3>{t("connect.done.title")}</h3>
      <SavedNotice saved={saved} fields={fields} />
      {state.status === "ready" && (
        <p
          className={`link-state link-${LINK_TONE[state.data.link.state]}`}
          data-testid="connect-link-state"
          data-state={state.data.link.state}
        >
          {t("connect.done.link", { state: linkWords(state.data, i18n) })}
        </p>
      )}
      <p className="row-actions">
        <a href={formatRoute({ section: "dashboard" })} data-testid="connect-dashboard-link">
          {t("connect.done.dashboard")}
        </a>
        <a href={formatRoute({ section: "settings" })} data-testid="connect-settings-link">
          {t("connect.done.settings")}
        </a>
      </p>
    </div>
  );
}
