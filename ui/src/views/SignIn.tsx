import { useId, useRef, useState, type FormEvent } from "react";
import { asBackendError, type BackendError, type KeySignIn } from "../backend";
import { ErrorNotice } from "../components/ErrorNotice";
import { useI18n } from "../i18n/context";

/** Where keys come from; a command, so it is not translated. */
export const CREATE_KEY_COMMAND = "smsdesk api-key create --name …";

/**
 * The browser's way in: an API key, checked with the engine before the app is shown. `refused`
 * is why the previous key stopped working, if it did (revoked while this tab was open).
 */
export function SignIn({ signIn, refused }: { signIn: KeySignIn; refused: BackendError | null }) {
  const { t } = useI18n();
  const headingId = useId();
  const inputId = useId();
  const helpId = useId();
  const errorId = useId();
  const inputRef = useRef<HTMLInputElement>(null);
  const [key, setKey] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<BackendError | null>(null);

  const submit = (event: FormEvent<HTMLFormElement>): void => {
    event.preventDefault();
    if (busy) return;
    setBusy(true);
    setError(null);
    // On success the session changes and the app replaces this screen: nothing more to do here.
    signIn.signIn(key).catch((e: unknown) => {
      setError(asBackendError(e));
      setBusy(false);
      inputRef.current?.focus();
      inputRef.current?.select();
    });
  };

  return (
    <section className="panel sign-in" aria-labelledby={headingId} data-testid="sign-in">
      <h2 id={headingId}>{t("signIn.title")}</h2>
      <p className="panel-intro">{t("signIn.intro")}</p>
      {refused !== null && error === null && (
        <div className="notice notice-warning" role="status" data-testid="signin-expired">
          <h3>{t("signIn.expired")}</h3>
          <p data-testid="error-message">{refused.message}</p>
        </div>
      )}
      <form className="form sign-in-form" onSubmit={submit} aria-busy={busy}>
        <div className="field">
          <label htmlFor={inputId}>{t("signIn.label")}</label>
          <input
            ref={inputRef}
            id={inputId}
            name="api-key"
            type="password"
            autoComplete="off"
            autoCapitalize="off"
            spellCheck={false}
            required
            autoFocus
            value={key}
            onChange={(e) => setKey(e.target.value)}
            aria-invalid={error !== null}
            aria-describedby={error !== null ? `${errorId} ${helpId}` : helpId}
            data-testid="signin-key"
          />
        </div>
        <button type="submit" className="button" disabled={busy} data-testid="signin-submit">
          {busy ? t("signIn.busy") : t("signIn.submit")}
        </button>
      </form>
      {error !== null && (
        <div id={errorId}>
          <ErrorNotice title={t("signIn.failed")} error={error} testId="signin-error" />
        </div>
      )}
      <div className="help" id={helpId}>
        <p>{t("signIn.whereFrom")}</p>
        <pre className="command">
          <code>{CREATE_KEY_COMMAND}</code>
        </pre>
        <p className="muted">{t("signIn.storage")}</p>
      </div>
    </section>
  );
}
