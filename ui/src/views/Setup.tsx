import { useEffect, useId, useState, type FormEvent } from "react";
import { asBackendError, type BackendError, type PeopleAccess } from "../backend";
import type { Me } from "../bindings/Me";
import { browserLanguages, CountryPicker, suggestedCountry } from "../components/CountryPicker";
import { ErrorNotice } from "../components/ErrorNotice";
import { useI18n } from "../i18n/context";
import { PasswordFields, passwordProblem } from "./accounts/PasswordFields";

/** The engine's refusal of a setup link: unknown, used, expired, or an account exists already. */
export const SETUP_TOKEN_INVALID = "setup_token_invalid";

/** Where the setup link lives: `/setup#<token>`. */
export const SETUP_PATH = "/setup";

/** The setup link's token, from the page's address (`/setup#setup_…`); null on any other page. */
export function setupTokenOf(location: { readonly pathname: string; readonly hash: string }): string | null {
  if (location.pathname.replace(/\/+$/, "") !== SETUP_PATH) return null;
  return decodeURIComponent(location.hash.replace(/^#/, "")).trim();
}

type Phase =
  | { readonly kind: "loading" }
  | { readonly kind: "failed"; readonly error: BackendError }
  | { readonly kind: "closed" }
  | { readonly kind: "open" };

/**
 * The first admin's account, made with the link `smsdesk serve` prints while no account exists.
 * The token stays in the address's fragment, which the browser never sends to a server; it goes
 * to the engine in the request's body only. Once done, the person is signed in.
 */
export function Setup({ people, token, onDone }: { people: PeopleAccess; token: string; onDone: (me: Me) => void }) {
  const { t } = useI18n();
  const ids = { heading: useId(), name: useId(), nameError: useId() };
  const [phase, setPhase] = useState<Phase>({ kind: "loading" });
  const [attempt, setAttempt] = useState(0);
  const [name, setName] = useState("");
  const [password, setPassword] = useState("");
  const [confirmation, setConfirmation] = useState("");
  // The office's country, suggested by the browser's language ("fr-FR" → France); "" for none.
  const [country, setCountry] = useState(() => suggestedCountry(browserLanguages()) ?? "");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<BackendError | null>(null);
  const [tried, setTried] = useState(false);
  const problem = passwordProblem(password, confirmation, name);
  const refused = error?.code === SETUP_TOKEN_INVALID;

  useEffect(() => {
    let active = true;
    setPhase({ kind: "loading" });
    people.setupState().then(
      (s) => active && setPhase({ kind: s.open ? "open" : "closed" }),
      (e: unknown) => active && setPhase({ kind: "failed", error: asBackendError(e) }),
    );
    return () => {
      active = false;
    };
  }, [people, attempt]);

  const submit = (event: FormEvent<HTMLFormElement>): void => {
    event.preventDefault();
    setTried(true);
    if (busy || problem !== null || name.trim() === "") return;
    setBusy(true);
    setError(null);
    people.createFirstAdmin({ token, name: name.trim(), password, country: country === "" ? null : country }).then(onDone, (e: unknown) => {
      setError(asBackendError(e));
      setBusy(false);
    });
  };

  const signInLink = (
    <p>
      <a href="/" className="button button-secondary" data-testid="setup-sign-in">
        {t("setup.signIn")}
      </a>
    </p>
  );

  return (
    <section className="panel sign-in" aria-labelledby={ids.heading} data-testid="setup" aria-busy={phase.kind === "loading"}>
      <h2 id={ids.heading}>{t("setup.title")}</h2>
      {phase.kind === "loading" && (
        <p className="status" role="status">
          <span className="spinner" aria-hidden="true" />
          {t("setup.loading")}
        </p>
      )}
      {phase.kind === "failed" && (
        <ErrorNotice title={t("setup.error")} error={phase.error} onRetry={() => setAttempt((n) => n + 1)} />
      )}
      {(phase.kind === "closed" || refused) && (
        <div className="notice notice-info" data-testid="setup-closed" data-why={refused ? "refused" : "closed"}>
          <h3>{refused ? t("setup.refused.title") : t("setup.closed.title")}</h3>
          <p>{refused ? t("setup.refused.body") : t("setup.closed.body")}</p>
          {signInLink}
        </div>
      )}
      {phase.kind === "open" && !refused && token === "" && (
        <div className="notice notice-warning" data-testid="setup-no-token">
          <h3>{t("setup.noToken.title")}</h3>
          <p>{t("setup.noToken.body")}</p>
        </div>
      )}
      {phase.kind === "open" && !refused && token !== "" && (
        <>
          <p className="panel-intro">{t("setup.intro")}</p>
          <form className="form sign-in-form" onSubmit={submit} aria-busy={busy} noValidate data-testid="setup-form">
            <div className="field">
              <label htmlFor={ids.name}>{t("account.name")}</label>
              <input
                id={ids.name}
                name="username"
                autoComplete="username"
                autoCapitalize="off"
                spellCheck={false}
                required
                aria-required="true"
                autoFocus
                maxLength={100}
                value={name}
                onChange={(e) => setName(e.target.value)}
                aria-invalid={tried && name.trim() === ""}
                aria-describedby={tried && name.trim() === "" ? ids.nameError : undefined}
                data-testid="setup-name"
              />
              {tried && name.trim() === "" && (
                <p className="field-problem" id={ids.nameError} data-testid="setup-name-required">
                  {t("form.required")}
                </p>
              )}
            </div>
            <PasswordFields
              password={password}
              confirmation={confirmation}
              onPassword={setPassword}
              onConfirmation={setConfirmation}
              problem={tried ? problem : null}
              errors={error?.errors ?? []}
              field="password"
              testId="setup"
            />
            <CountryPicker
              value={country}
              onChange={setCountry}
              errors={(error?.errors ?? []).filter((e) => e.field === "country")}
              testId="setup-country"
            />
            <button type="submit" className="button" disabled={busy} data-testid="setup-submit">
              {busy ? t("setup.busy") : t("setup.submit")}
            </button>
          </form>
          {error !== null && <ErrorNotice title={t("setup.failed")} error={error} testId="setup-error" />}
        </>
      )}
    </section>
  );
}
