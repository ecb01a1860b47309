import { useId, useState, type FormEvent } from "react";
import { asBackendError, type Backend, type BackendError } from "../backend";
import type { ApiKeyInfo } from "../bindings/ApiKeyInfo";
import type { CreatedApiKey } from "../bindings/CreatedApiKey";
import { Badge } from "../components/Badge";
import { ErrorNotice } from "../components/ErrorNotice";
import { useBackendData } from "../hooks/useBackendData";
import { useI18n } from "../i18n/context";

const loadKeys = (backend: Backend): Promise<ApiKeyInfo[]> => backend.listKeys();

/** API keys: an admin's (in the window or a browser) to list, create and revoke. */
export function ApiKeys({ backend }: { backend: Backend }) {
  const { t } = useI18n();
  const headingId = useId();
  const { state, reload } = useBackendData(backend, loadKeys);

  return (
    <div className="stack">
      <section className="panel" aria-labelledby={headingId} aria-busy={state.status === "loading"}>
        <h2 id={headingId}>{t("keys.title")}</h2>
        <p className="panel-intro">{t("keys.intro")}</p>
        {state.status === "loading" && (
          <p className="status" role="status">
            <span className="spinner" aria-hidden="true" />
            {t("keys.loading")}
          </p>
        )}
        {state.status === "error" && (
          <ErrorNotice title={t("keys.error")} error={state.error} onRetry={reload} testId="keys-error" />
        )}
        {state.status === "ready" && <KeyTable backend={backend} keys={state.data} onChanged={reload} />}
      </section>
      {state.status === "ready" && <CreateKey backend={backend} onCreated={reload} />}
    </div>
  );
}

function KeyTable({ backend, keys, onChanged }: { backend: Backend; keys: ApiKeyInfo[]; onChanged: () => void }) {
  const { t, formatDateTimeShort } = useI18n();
  if (keys.length === 0) return <p className="empty">{t("keys.empty")}</p>;
  return (
    <div className="table-scroll">
      <table className="table" data-testid="keys-table">
        <thead>
          <tr>
            <th scope="col" className="num">
              {t("keys.col.id")}
            </th>
            <th scope="col">{t("keys.col.name")}</th>
            <th scope="col">{t("keys.col.prefix")}</th>
            <th scope="col">{t("keys.col.created")}</th>
            <th scope="col">{t("keys.col.state")}</th>
            <th scope="col">{t("keys.col.actions")}</th>
          </tr>
        </thead>
        <tbody>
          {keys.map((k) => (
            <tr key={k.id} data-testid="key-row" data-id={k.id}>
              <td className="num">{k.id}</td>
              <td>{k.name}</td>
              <td>
                <code>{k.prefix}…</code>
              </td>
              <td>
                <time dateTime={new Date(k.created_at_ms).toISOString()}>{formatDateTimeShort(k.created_at_ms)}</time>
              </td>
              <td>
                {k.revoked_at_ms === null ? (
                  <Badge tone="success">{t("keys.active")}</Badge>
                ) : (
                  <Badge tone="neutral">{t("keys.revoked")}</Badge>
                )}
              </td>
              <td>{k.revoked_at_ms === null && <Revoke backend={backend} apiKey={k} onRevoked={onChanged} />}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** Revoking takes effect at once for every integration using the key, so it asks once more. */
function Revoke({ backend, apiKey, onRevoked }: { backend: Backend; apiKey: ApiKeyInfo; onRevoked: () => void }) {
  const { t } = useI18n();
  const [step, setStep] = useState<"idle" | "confirm" | "busy">("idle");
  const [error, setError] = useState<BackendError | null>(null);

  const revoke = (): void => {
    setStep("busy");
    backend.revokeKey(apiKey.id).then(onRevoked, (e: unknown) => {
      setError(asBackendError(e));
      setStep("idle");
    });
  };

  return (
    <div className="row-actions">
      {step === "idle" && (
        <button type="button" className="button button-secondary" onClick={() => setStep("confirm")}>
          {t("keys.revoke")}
        </button>
      )}
      {step !== "idle" && (
        <>
          <button type="button" className="button button-danger" onClick={revoke} disabled={step === "busy"}>
            {t("keys.revoke.confirm", { name: apiKey.name })}
          </button>
          <button type="button" className="button button-secondary" onClick={() => setStep("idle")} disabled={step === "busy"}>
            {t("keys.revoke.keep")}
          </button>
        </>
      )}
      {error !== null && <ErrorNotice title={t("keys.revoke.failed")} error={error} />}
    </div>
  );
}

function CreateKey({ backend, onCreated }: { backend: Backend; onCreated: () => void }) {
  const { t } = useI18n();
  const headingId = useId();
  const nameId = useId();
  const nameHintId = useId();
  const webhookId = useId();
  const [name, setName] = useState("");
  const [webhook, setWebhook] = useState("");
  const [busy, setBusy] = useState(false);
  const [created, setCreated] = useState<CreatedApiKey | null>(null);
  const [error, setError] = useState<BackendError | null>(null);

  const submit = (event: FormEvent<HTMLFormElement>): void => {
    event.preventDefault();
    if (busy) return;
    setBusy(true);
    setError(null);
    setCreated(null);
    const url = webhook.trim();
    backend
      .createKey({
        name: name.trim(),
        webhook_url: url === "" ? null : url,
        scopes: null,
        limits: { per_minute: null, per_day: null, destination_prefixes: [] },
      })
      .then(
      (key) => {
        setCreated(key);
        setName("");
        setWebhook("");
        setBusy(false);
        onCreated();
      },
      (e: unknown) => {
        setError(asBackendError(e));
        setBusy(false);
      },
    );
  };

  return (
    <section className="panel" aria-labelledby={headingId}>
      <h2 id={headingId}>{t("keys.create.title")}</h2>
      <form className="form" onSubmit={submit} aria-busy={busy} data-testid="create-key-form">
        <div className="field">
          <label htmlFor={nameId}>{t("keys.create.name")}</label>
          <input
            id={nameId}
            name="name"
            required
            maxLength={100}
            autoComplete="off"
            value={name}
            onChange={(e) => setName(e.target.value)}
            aria-describedby={nameHintId}
          />
          <p className="hint" id={nameHintId}>
            {t("keys.create.name.hint")}
          </p>
        </div>
        <div className="field">
          <label htmlFor={webhookId}>{t("keys.create.webhook")}</label>
          <input
            id={webhookId}
            name="webhook_url"
            type="url"
            autoComplete="off"
            value={webhook}
            onChange={(e) => setWebhook(e.target.value)}
          />
        </div>
        <button type="submit" className="button" disabled={busy}>
          {t("keys.create.submit")}
        </button>
      </form>
      <div aria-live="polite">
        {created !== null && (
          <div className="notice notice-success" data-testid="created-key">
            <h3>{t("keys.created.title", { name: created.info.name })}</h3>
            <p>{t("keys.created.body")}</p>
            <pre className="command secret">
              <code data-testid="created-key-value">{created.key}</code>
            </pre>
            {created.webhook_secret !== null && (
              <>
                <p>{t("keys.created.secret")}</p>
                <pre className="command secret">
                  <code>{created.webhook_secret}</code>
                </pre>
              </>
            )}
          </div>
        )}
        {error !== null && <ErrorNotice title={t("keys.create.failed")} error={error} />}
      </div>
    </section>
  );
}
