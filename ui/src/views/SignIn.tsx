import { useEffect, useId, useRef, useState, type FormEvent } from "react";
import { asBackendError, ERROR_CODES, type BackendError, type PeopleAccess, type SignedOutWhy } from "../backend";
import { ErrorNotice } from "../components/ErrorNotice";
import { useI18n } from "../i18n/context";
import { useCountdown } from "../hooks/useCountdown";

/**
 * The browser's way in: a person's account name and password. `why` says why the previous
 * session is over, when the person did not sign out themselves (it expired or was ended, or they
 * changed their password). On an instance without any account yet, it points to the setup link.
 */
export function SignIn({ people, why }: { people: PeopleAccess; why: SignedOutWhy | null }) {
  const { t } = useI18n();
  const ids = { heading: useId(), name: useId(), password: useId(), error: useId(), nameMissing: useId(), passwordMissing: useId() };
  const nameRef = useRef<HTMLInputElement>(null);
  const passwordRef = useRef<HTMLInputElement>(null);
  const [name, setName] = useState("");
  const [password, setPassword] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<BackendError | null>(null);
  const [setupOpen, setSetupOpen] = useState(false);
  // The app checks what is required itself (the form is noValidate): shown once a sign-in was tried.
  const [tried, setTried] = useState(false);
  const nameMissing = tried && name.trim() === "";
  const passwordMissing = tried && password === "";
  const waitLeft = useCountdown(error?.code === ERROR_CODES.tooManyAttempts ? error.retryAfterSeconds : null, error);
  const waiting = waitLeft !== null && waitLeft > 0;

  useEffect(() => {
    let active = true;
    // Only a hint: if it cannot be asked, the screen is the same without it.
    people.setupState().then(
      (s) => active && setSetupOpen(s.open),
      () => {},
    );
    return () => {
      active = false;
    };
  }, [people]);

  const submit = (event: FormEvent<HTMLFormElement>): void => {
    event.preventDefault();
    if (busy || waiting) return;
    setTried(true);
    if (name.trim() === "" || password === "") {
      (name.trim() === "" ? nameRef : passwordRef).current?.focus();
      return;
    }
    // Both were given: a password emptied after a refusal is not "missing".
    setTried(false);
    setBusy(true);
    setError(null);
    // On success the session changes and the app replaces this screen: nothing more to do here.
    people.signIn({ name: name.trim(), password }).catch((e: unknown) => {
      const err = asBackendError(e);
      setError(err);
      setBusy(false);
      if (err.code === ERROR_CODES.unauthorized) {
        setPassword("");
        passwordRef.current?.focus();
      } else {
        nameRef.current?.focus();
      }
    });
  };

  return (
    <section className="panel sign-in" aria-labelledby={ids.heading} data-testid="sign-in">
      <h2 id={ids.heading}>{t("signIn.title")}</h2>
      <p className="panel-intro">{t("signIn.intro")}</p>
      {why !== null && error === null && (
        <div className="notice notice-warning" role="status" data-testid="signin-ended" data-why={why.kind}>
          {why.kind === "ended" ? (
            <>
              <h3>{t("signIn.ended")}</h3>
              <p>{t("signIn.ended.body")}</p>
            </>
          ) : (
            <h3>{t("signIn.passwordChanged")}</h3>
          )}
        </div>
      )}
      {setupOpen && (
        <div className="notice notice-info" data-testid="signin-setup-open">
          <h3>{t("signIn.setupOpen.title")}</h3>
          <p>{t("signIn.setupOpen.body")}</p>
        </div>
      )}
      <form className="form sign-in-form" onSubmit={submit} aria-busy={busy} noValidate>
        <div className="field">
          <label htmlFor={ids.name}>{t("signIn.name")}</label>
          <input
            ref={nameRef}
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
            aria-invalid={nameMissing || error?.code === ERROR_CODES.unauthorized}
            aria-describedby={nameMissing ? ids.nameMissing : error !== null ? ids.error : undefined}
            data-testid="signin-name"
          />
          {nameMissing && (
            <p className="field-problem" id={ids.nameMissing} data-testid="signin-name-required">
              {t("form.required")}
            </p>
          )}
        </div>
        <div className="field">
          <label htmlFor={ids.password}>{t("signIn.password")}</label>
          <input
            ref={passwordRef}
            id={ids.password}
            name="password"
            type="password"
            autoComplete="current-password"
            required
            aria-required="true"
            value={password}
            onChange={(e) => setPassword(e.target.value)}
            aria-invalid={passwordMissing || error?.code === ERROR_CODES.unauthorized}
            aria-describedby={passwordMissing ? ids.passwordMissing : error !== null ? ids.error : undefined}
            data-testid="signin-password"
          />
          {passwordMissing && (
            <p className="field-problem" id={ids.passwordMissing} data-testid="signin-password-required">
              {t("form.required")}
            </p>
          )}
        </div>
        {/* The countdown ticks on the button, outside the live region: read once, not every second. */}
        <button type="submit" className="button" disabled={busy || waiting} data-testid="signin-submit">
          {busy ? t("signIn.busy") : waiting ? t("signIn.submitIn", { seconds: waitLeft }) : t("signIn.submit")}
        </button>
      </form>
      <div id={ids.error} aria-live="polite">
        {error !== null && error.code === ERROR_CODES.unauthorized && (
          <div className="notice notice-error" role="alert" data-testid="signin-error" data-code={error.code}>
            <h3>{t("signIn.wrong")}</h3>
            <p>{t("signIn.wrong.body")}</p>
          </div>
        )}
        {error !== null && error.code === ERROR_CODES.tooManyAttempts && (
          <div className="notice notice-error" role="alert" data-testid="signin-error" data-code={error.code}>
            <h3>{t("signIn.tooMany")}</h3>
            <p data-testid="signin-wait">
              {waiting ? t("signIn.tooMany.wait", { seconds: error.retryAfterSeconds ?? 0 }) : t("signIn.tooMany.again")}
            </p>
          </div>
        )}
        {error !== null && error.code !== ERROR_CODES.unauthorized && error.code !== ERROR_CODES.tooManyAttempts && (
          <ErrorNotice title={t("signIn.failed")} error={error} testId="signin-error" />
        )}
      </div>
      <p className="muted help">{t("signIn.help")}</p>
    </section>
  );
}
