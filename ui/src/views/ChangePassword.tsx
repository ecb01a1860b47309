import { useId, useState, type FormEvent } from "react";
import { asBackendError, ERROR_CODES, type BackendError, type PeopleAccess } from "../backend";
import { ErrorNotice } from "../components/ErrorNotice";
import { useAccess } from "../access/context";
import { useI18n } from "../i18n/context";
import { PasswordFields, passwordProblem } from "./accounts/PasswordFields";

/**
 * A signed-in person changes their own password, proving it is them with the current one. The
 * engine then ends their other sessions; this one goes on (see `PeopleAccess.changePassword`).
 */
export function ChangePassword({ people }: { people: PeopleAccess }) {
  const { t } = useI18n();
  const { me } = useAccess();
  const ids = { heading: useId(), current: useId() };
  const [current, setCurrent] = useState("");
  const [password, setPassword] = useState("");
  const [confirmation, setConfirmation] = useState("");
  const [tried, setTried] = useState(false);
  const [busy, setBusy] = useState(false);
  const [done, setDone] = useState(false);
  const [error, setError] = useState<BackendError | null>(null);
  const problem = passwordProblem(password, confirmation, me.actor);
  // The engine names the current password as an invalid field when it is not the account's.
  const wrongCurrent = error?.code === ERROR_CODES.invalid && error.errors.some((e) => e.field === "current");

  const submit = (event: FormEvent<HTMLFormElement>): void => {
    event.preventDefault();
    setTried(true);
    if (busy || current === "" || problem !== null) return;
    setBusy(true);
    setError(null);
    people.changePassword({ current, new: password }).then(
      () => {
        // This session goes on (the others ended): say it is done here.
        setBusy(false);
        setDone(true);
        setCurrent("");
        setPassword("");
        setConfirmation("");
        setTried(false);
      },
      (e: unknown) => {
        setBusy(false);
        setError(asBackendError(e));
      },
    );
  };

  return (
    <section className="panel" aria-labelledby={ids.heading} data-testid="change-password">
      <h2 id={ids.heading}>{t("password.title")}</h2>
      <p className="panel-intro">{t("password.intro", { name: me.actor })}</p>
      <form className="form" onSubmit={submit} aria-busy={busy} noValidate data-testid="change-password-form">
        <div className="field field-wide">
          <label htmlFor={ids.current}>{t("password.current")}</label>
          <input
            id={ids.current}
            type="password"
            autoComplete="current-password"
            required
            aria-required="true"
            value={current}
            onChange={(e) => setCurrent(e.target.value)}
            aria-invalid={wrongCurrent || (tried && current === "")}
            data-testid="password-current"
          />
        </div>
        <PasswordFields
          password={password}
          confirmation={confirmation}
          onPassword={setPassword}
          onConfirmation={setConfirmation}
          problem={tried ? problem : null}
          errors={error?.errors ?? []}
          field="new"
          testId="password-new"
        />
        <p className="hint field-wide">{t("password.endsSessions")}</p>
        <div className="form-actions">
          <button type="submit" className="button" disabled={busy} data-testid="password-submit">
            {t("password.submit")}
          </button>
        </div>
      </form>
      <div aria-live="polite">
        {done && (
          <p className="notice notice-success" data-testid="password-done">
            {t("password.done")}
          </p>
        )}
        {wrongCurrent && (
          <div className="notice notice-error" role="alert" data-testid="password-error" data-code={error.code}>
            <h3>{t("password.wrongCurrent")}</h3>
          </div>
        )}
        {error !== null && !wrongCurrent && <ErrorNotice title={t("password.failed")} error={error} testId="password-error" />}
      </div>
    </section>
  );
}
