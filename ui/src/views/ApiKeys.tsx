import { useId, useState, type FormEvent } from "react";
import { asBackendError, type Backend, type BackendError } from "../backend";
import type { ApiKeyInfo } from "../bindings/ApiKeyInfo";
import type { CreatedApiKey } from "../bindings/CreatedApiKey";
import type { KeyLimits } from "../bindings/KeyLimits";
import type { Scope } from "../bindings/Scope";
import { Badge } from "../components/Badge";
import { ErrorNotice } from "../components/ErrorNotice";
import { useBackendData } from "../hooks/useBackendData";
import { useI18n } from "../i18n/context";
import { DEFAULT_SCOPES, SCOPES } from "./accounts/roles";
import { loadSmppAccounts, SmppAccounts } from "./keys/SmppAccounts";
import { ScrollArea } from "../components/ScrollArea";

const loadKeys = (backend: Backend): Promise<ApiKeyInfo[]> => backend.listKeys();

/**
 * API keys: an admin's (in the window or a browser) to list, create and revoke. Each key says
 * what it may do (its scopes) and how much it may hand in (its limits). Below them, the SMPP
 * accounts, which are keys with an SMPP password: a change to either list reloads both.
 */
export function ApiKeys({ backend }: { backend: Backend }) {
  const { t } = useI18n();
  const headingId = useId();
  const { state, reload: reloadKeys } = useBackendData(backend, loadKeys);
  const { state: smpp, reload: reloadSmpp } = useBackendData(backend, loadSmppAccounts);
  const reload = (): void => {
    reloadKeys();
    reloadSmpp();
  };
  const smppIds: ReadonlySet<number> = new Set(smpp.status === "ready" ? smpp.data.map((a) => a.id) : []);

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
        {state.status === "ready" && <KeyTable backend={backend} keys={state.data} smpp={smppIds} onChanged={reload} />}
      </section>
      {state.status === "ready" && <CreateKey backend={backend} onCreated={reloadKeys} />}
      <SmppAccounts backend={backend} accounts={smpp} reload={reloadSmpp} onChanged={reloadKeys} />
    </div>
  );
}

function KeyTable({
  backend,
  keys,
  smpp,
  onChanged,
}: {
  backend: Backend;
  keys: ApiKeyInfo[];
  /** The keys that are SMPP accounts. */
  smpp: ReadonlySet<number>;
  onChanged: () => void;
}) {
  const { t, formatDateTime } = useI18n();
  if (keys.length === 0) return <p className="empty">{t("keys.empty")}</p>;
  return (
    <ScrollArea>
      <table className="table" data-testid="keys-table">
        <thead>
          <tr>
            <th scope="col" className="num">
              {t("keys.col.id")}
            </th>
            <th scope="col">{t("keys.col.name")}</th>
            <th scope="col">{t("keys.col.prefix")}</th>
            <th scope="col">{t("keys.col.scopes")}</th>
            <th scope="col">{t("keys.col.limits")}</th>
            <th scope="col">{t("keys.col.created")}</th>
            <th scope="col">{t("keys.col.state")}</th>
            <th scope="col">{t("keys.col.actions")}</th>
          </tr>
        </thead>
        <tbody>
          {keys.map((k) => (
            <tr key={k.id} data-testid="key-row" data-id={k.id}>
              <td className="num">{k.id}</td>
              <td>
                {k.name}
                {smpp.has(k.id) && (
                  <>
                    {" "}
                    <Badge tone="neutral">{t("keys.smpp")}</Badge>
                  </>
                )}
              </td>
              <td>
                <code>{k.prefix}…</code>
              </td>
              <td data-testid="key-scopes" data-scopes={k.scopes.join(" ")}>
                <ul className="chips" aria-label={t("keys.col.scopes")}>
                  {k.scopes.map((scope) => (
                    <li key={scope} title={t(`scope.${scope}.explained`)}>
                      <code>{scope}</code>
                    </li>
                  ))}
                </ul>
              </td>
              <td data-testid="key-limits">
                <Limits limits={k.limits} />
              </td>
              <td>
                <time dateTime={new Date(k.created_at_ms).toISOString()}>{formatDateTime(k.created_at_ms)}</time>
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
    </ScrollArea>
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

/** A key's limits in words, or that it has none. */
function Limits({ limits }: { limits: KeyLimits }) {
  const { t, formatNumber } = useI18n();
  const parts = [
    limits.per_minute === null ? null : t("keys.limits.perMinute", { count: formatNumber(limits.per_minute) }),
    limits.per_day === null ? null : t("keys.limits.perDay", { count: formatNumber(limits.per_day) }),
    limits.destination_prefixes.length === 0
      ? null
      : t("keys.limits.prefixes", { prefixes: limits.destination_prefixes.join(", ") }),
    limits.countries.length === 0 ? null : t("keys.limits.countries", { countries: limits.countries.join(", ") }),
    limits.otp_countries.length === 0
      ? null
      : t("keys.limits.otpCountries", { countries: limits.otp_countries.join(", ") }),
    (limits.spend_day ?? null) === null ? null : t("keys.limits.spendDay", { amount: limits.spend_day ?? "" }),
    (limits.spend_month ?? null) === null ? null : t("keys.limits.spendMonth", { amount: limits.spend_month ?? "" }),
  ].filter((p) => p !== null);
  if (parts.length === 0) return <span className="muted">{t("keys.limits.none")}</span>;
  return (
    <ul className="plain-list">
      {parts.map((p) => (
        <li key={p}>{p}</li>
      ))}
    </ul>
  );
}

/** A limit as typed: empty for none, else a whole number of at least 1; `undefined` when it is neither. */
function parseLimit(text: string): number | null | undefined {
  const v = text.trim();
  if (v === "") return null;
  if (!/^[0-9]{1,9}$/.test(v) || Number(v) < 1) return undefined;
  return Number(v);
}

/**
 * Countries as typed: two-letter codes separated by commas, spaces or new lines, in capitals;
 * `undefined` when one is not two letters.
 */
export function parseCountries(text: string): string[] | undefined {
  const codes = parsePrefixes(text).map((c) => c.toUpperCase());
  return codes.every((c) => /^[A-Z]{2}$/.test(c)) ? [...new Set(codes)] : undefined;
}

/** A spend limit as typed: empty for none, else an amount ("5", "5.00", "5,50"); `undefined` when it is neither. */
export function parseAmount(text: string): string | null | undefined {
  const v = text.trim().replace(",", ".");
  if (v === "") return null;
  return /^[0-9]{1,9}(\.[0-9]{1,6})?$/.test(v) && Number(v) > 0 ? v : undefined;
}

/** Destination prefixes as typed: separated by commas, spaces or new lines. */
export function parsePrefixes(text: string): string[] {
  return text
    .split(/[\s,;]+/)
    .map((p) => p.trim())
    .filter((p) => p !== "");
}

function CreateKey({ backend, onCreated }: { backend: Backend; onCreated: () => void }) {
  const { t } = useI18n();
  const ids = {
    heading: useId(),
    name: useId(),
    nameHint: useId(),
    nameMissing: useId(),
    webhook: useId(),
    webhookProblem: useId(),
    scopesHint: useId(),
    perMinute: useId(),
    perDay: useId(),
    prefixes: useId(),
    prefixesHint: useId(),
    countries: useId(),
    countriesHint: useId(),
    otpCountries: useId(),
    spendDay: useId(),
    spendMonth: useId(),
    spendHint: useId(),
    blocked: useId(),
  };
  const [name, setName] = useState("");
  const [webhook, setWebhook] = useState("");
  const [scopes, setScopes] = useState<ReadonlySet<Scope>>(() => new Set(DEFAULT_SCOPES));
  const [perMinute, setPerMinute] = useState("");
  const [perDay, setPerDay] = useState("");
  const [prefixes, setPrefixes] = useState("");
  const [countriesText, setCountriesText] = useState("");
  const [otpCountriesText, setOtpCountriesText] = useState("");
  const [spendDayText, setSpendDayText] = useState("");
  const [spendMonthText, setSpendMonthText] = useState("");
  const [busy, setBusy] = useState(false);
  const [created, setCreated] = useState<CreatedApiKey | null>(null);
  const [error, setError] = useState<BackendError | null>(null);
  const minute = parseLimit(perMinute);
  const day = parseLimit(perDay);
  const countries = parseCountries(countriesText);
  const otpCountries = parseCountries(otpCountriesText);
  const spendDay = parseAmount(spendDayText);
  const spendMonth = parseAmount(spendMonthText);

  // The app checks the fields itself (the form is noValidate): what is missing shows once a create was tried.
  const [tried, setTried] = useState(false);
  const nameMissing = tried && name.trim() === "";
  const webhookBad = !isWebAddress(webhook.trim());

  const blockedBy = ((): string | null => {
    if (scopes.size === 0) return t("keys.create.blocked.scope");
    if (minute === undefined || day === undefined) return t("keys.create.blocked.limit");
    if (countries === undefined || otpCountries === undefined) return t("keys.create.blocked.countries");
    if (spendDay === undefined || spendMonth === undefined) return t("keys.create.blocked.spend");
    return null;
  })();

  const toggle = (scope: Scope, on: boolean): void =>
    setScopes((cur) => {
      const next = new Set(cur);
      if (on) next.add(scope);
      else next.delete(scope);
      return next;
    });

  const submit = (event: FormEvent<HTMLFormElement>): void => {
    event.preventDefault();
    setTried(true);
    if (name.trim() === "" || webhookBad) return;
    if (busy || blockedBy !== null || minute === undefined || day === undefined) return;
    if (countries === undefined || otpCountries === undefined || spendDay === undefined || spendMonth === undefined) return;
    setBusy(true);
    setError(null);
    setCreated(null);
    const url = webhook.trim();
    backend
      .createKey({
        name: name.trim(),
        webhook_url: url === "" ? null : url,
        // In the engine's order, as the list shows them.
        scopes: SCOPES.filter((s) => scopes.has(s)),
        limits: {
          per_minute: minute,
          per_day: day,
          destination_prefixes: parsePrefixes(prefixes),
          countries,
          otp_countries: otpCountries,
          // Absent, not null, when there is none (the engine reads an amount or nothing).
          ...(spendDay === null ? {} : { spend_day: spendDay }),
          ...(spendMonth === null ? {} : { spend_month: spendMonth }),
        },
      })
      .then(
        (key) => {
          setCreated(key);
          setTried(false);
          setName("");
          setWebhook("");
          setScopes(new Set(DEFAULT_SCOPES));
          setPerMinute("");
          setPerDay("");
          setPrefixes("");
          setCountriesText("");
          setOtpCountriesText("");
          setSpendDayText("");
          setSpendMonthText("");
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
    <section className="panel" aria-labelledby={ids.heading}>
      <h2 id={ids.heading}>{t("keys.create.title")}</h2>
      <form className="form" onSubmit={submit} aria-busy={busy} noValidate data-testid="create-key-form">
        <div className="field">
          <label htmlFor={ids.name}>{t("keys.create.name")}</label>
          <input
            id={ids.name}
            name="name"
            required
            aria-required="true"
            maxLength={100}
            autoComplete="off"
            value={name}
            onChange={(e) => setName(e.target.value)}
            aria-invalid={nameMissing}
            aria-describedby={nameMissing ? `${ids.nameMissing} ${ids.nameHint}` : ids.nameHint}
            data-testid="create-key-name"
          />
          {nameMissing && (
            <p className="field-problem" id={ids.nameMissing} data-testid="create-key-name-required">
              {t("form.required")}
            </p>
          )}
          <p className="hint" id={ids.nameHint}>
            {t("keys.create.name.hint")}
          </p>
        </div>
        <div className="field">
          <label htmlFor={ids.webhook}>{t("keys.create.webhook")}</label>
          <input
            id={ids.webhook}
            name="webhook_url"
            type="url"
            autoComplete="off"
            value={webhook}
            onChange={(e) => setWebhook(e.target.value)}
            aria-invalid={webhookBad}
            aria-describedby={webhookBad ? ids.webhookProblem : undefined}
            data-testid="create-key-webhook"
          />
          {webhookBad && (
            <p className="field-problem" id={ids.webhookProblem} data-testid="create-key-webhook-problem">
              {t("keys.create.webhook.invalid")}
            </p>
          )}
        </div>
        <fieldset className="choices field-wide" data-testid="key-scopes-choice" aria-describedby={ids.scopesHint}>
          <legend>{t("keys.create.scopes")}</legend>
          <p className="hint" id={ids.scopesHint}>
            {t("keys.create.scopes.hint")}
          </p>
          {SCOPES.map((scope) => (
            <label key={scope} className="choice">
              <input
                type="checkbox"
                name="scopes"
                value={scope}
                checked={scopes.has(scope)}
                onChange={(e) => toggle(scope, e.target.checked)}
                data-testid={`key-scope-${scope}`}
              />
              <span>
                <span className="choice-label">
                  <code>{scope}</code> {t(`scope.${scope}`)}
                </span>
                <span className="hint">{t(`scope.${scope}.explained`)}</span>
              </span>
            </label>
          ))}
        </fieldset>
        <fieldset className="field-wide limits" data-testid="key-limits-choice">
          <legend>{t("keys.create.limits")}</legend>
          <p className="hint">{t("keys.create.limits.hint")}</p>
          <div className="form">
            <div className="field">
              <label htmlFor={ids.perMinute}>{t("keys.create.perMinute")}</label>
              <input
                id={ids.perMinute}
                name="per_minute"
                inputMode="numeric"
                autoComplete="off"
                value={perMinute}
                onChange={(e) => setPerMinute(e.target.value)}
                aria-invalid={minute === undefined}
                data-testid="key-per-minute"
              />
            </div>
            <div className="field">
              <label htmlFor={ids.perDay}>{t("keys.create.perDay")}</label>
              <input
                id={ids.perDay}
                name="per_day"
                inputMode="numeric"
                autoComplete="off"
                value={perDay}
                onChange={(e) => setPerDay(e.target.value)}
                aria-invalid={day === undefined}
                data-testid="key-per-day"
              />
            </div>
            <div className="field field-wide">
              <label htmlFor={ids.prefixes}>{t("keys.create.prefixes")}</label>
              <input
                id={ids.prefixes}
                name="destination_prefixes"
                autoComplete="off"
                spellCheck={false}
                value={prefixes}
                onChange={(e) => setPrefixes(e.target.value)}
                aria-describedby={ids.prefixesHint}
                data-testid="key-prefixes"
              />
              <p className="hint" id={ids.prefixesHint}>
                {t("keys.create.prefixes.hint")}
              </p>
            </div>
            <div className="field">
              <label htmlFor={ids.countries}>{t("keys.create.countries")}</label>
              <input
                id={ids.countries}
                name="countries"
                autoComplete="off"
                spellCheck={false}
                value={countriesText}
                onChange={(e) => setCountriesText(e.target.value)}
                aria-invalid={countries === undefined}
                aria-describedby={ids.countriesHint}
                data-testid="key-countries"
              />
            </div>
            <div className="field">
              <label htmlFor={ids.otpCountries}>{t("keys.create.otpCountries")}</label>
              <input
                id={ids.otpCountries}
                name="otp_countries"
                autoComplete="off"
                spellCheck={false}
                value={otpCountriesText}
                onChange={(e) => setOtpCountriesText(e.target.value)}
                aria-invalid={otpCountries === undefined}
                aria-describedby={ids.countriesHint}
                data-testid="key-otp-countries"
              />
            </div>
            <p className="hint field-wide" id={ids.countriesHint}>
              {t("keys.create.countries.hint")}
            </p>
            <div className="field">
              <label htmlFor={ids.spendDay}>{t("keys.create.spendDay")}</label>
              <input
                id={ids.spendDay}
                name="spend_day"
                inputMode="decimal"
                autoComplete="off"
                value={spendDayText}
                onChange={(e) => setSpendDayText(e.target.value)}
                aria-invalid={spendDay === undefined}
                aria-describedby={ids.spendHint}
                data-testid="key-spend-day"
              />
            </div>
            <div className="field">
              <label htmlFor={ids.spendMonth}>{t("keys.create.spendMonth")}</label>
              <input
                id={ids.spendMonth}
                name="spend_month"
                inputMode="decimal"
                autoComplete="off"
                value={spendMonthText}
                onChange={(e) => setSpendMonthText(e.target.value)}
                aria-invalid={spendMonth === undefined}
                aria-describedby={ids.spendHint}
                data-testid="key-spend-month"
              />
            </div>
            <p className="hint field-wide" id={ids.spendHint}>
              {t("keys.create.spend.hint")}
            </p>
          </div>
        </fieldset>
        <div className="form-actions row-actions">
          <button
            type="submit"
            className="button"
            disabled={busy || blockedBy !== null}
            aria-describedby={blockedBy === null ? undefined : ids.blocked}
            data-testid="create-key-submit"
          >
            {t("keys.create.submit")}
          </button>
          {blockedBy !== null && (
            <span className="hint blocked" id={ids.blocked} data-testid="create-key-blocked">
              {blockedBy}
            </span>
          )}
        </div>
      </form>
      <div aria-live="polite">
        {created !== null && (
          <div className="notice notice-success" data-testid="created-key" data-scopes={created.info.scopes.join(" ")}>
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

/** Empty, or an http(s) address the browser can read: what the engine accepts as a webhook. */
function isWebAddress(text: string): boolean {
  if (text === "") return true;
  try {
    const url = new URL(text);
    return (url.protocol === "http:" || url.protocol === "https:") && url.hostname !== "";
  } catch {
    return false;
  }
}
