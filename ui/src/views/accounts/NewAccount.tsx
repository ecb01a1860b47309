import { useId, useState, type FormEvent } from "react";
import { asBackendError, type Backend, type BackendError } from "../../backend";
import type { AccountInfo } from "../../bindings/AccountInfo";
import type { Role } from "../../bindings/Role";
import { ErrorNotice } from "../../components/ErrorNotice";
import { useI18n } from "../../i18n/context";
import { PasswordFields, passwordProblem } from "./PasswordFields";
import { ROLES } from "./roles";

/** A new person's account: a name, a role, and a first password to hand them. */
export function NewAccount({ backend, onCreated }: { backend: Backend; onCreated: () => void }) {
  const { t } = useI18n();
  const ids = { heading: useId(), name: useId(), role: useId(), roleHint: useId() };
  const [name, setName] = useState("");
  const [role, setRole] = useState<Role>("operator");
  const [password, setPassword] = useState("");
  const [confirmation, setConfirmation] = useState("");
  const [tried, setTried] = useState(false);
  const [busy, setBusy] = useState(false);
  const [created, setCreated] = useState<AccountInfo | null>(null);
  const [error, setError] = useState<BackendError | null>(null);
  const problem = passwordProblem(password, confirmation, name);
  const nameMissing = name.trim() === "";
  const nameErrors = error?.errors.filter((e) => e.field === "name") ?? [];

  const submit = (event: FormEvent<HTMLFormElement>): void => {
    event.preventDefault();
    setTried(true);
    if (busy || nameMissing || problem !== null) return;
    setBusy(true);
    setError(null);
    setCreated(null);
    backend.createAccount({ name: name.trim(), role, password }).then(
      (account) => {
        setCreated(account);
        setName("");
        setPassword("");
        setConfirmation("");
        setTried(false);
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
      <h2 id={ids.heading}>{t("accounts.create.title")}</h2>
      <form className="form" onSubmit={submit} aria-busy={busy} noValidate data-testid="account-create-form">
        <div className="field">
          <label htmlFor={ids.name}>{t("account.name")}</label>
          <input
            id={ids.name}
            name="name"
            required
            aria-required="true"
            maxLength={100}
            autoComplete="off"
            autoCapitalize="off"
            spellCheck={false}
            value={name}
            onChange={(e) => setName(e.target.value)}
            aria-invalid={(tried && nameMissing) || nameErrors.length > 0}
            data-testid="new-account-name"
          />
        </div>
        <div className="field">
          <label htmlFor={ids.role}>{t("account.role")}</label>
          <select
            id={ids.role}
            value={role}
            onChange={(e) => setRole(e.target.value as Role)}
            aria-describedby={ids.roleHint}
            data-testid="new-account-role"
          >
            {ROLES.map((r) => (
              <option key={r} value={r}>
                {t(`role.${r}`)}
              </option>
            ))}
          </select>
          <p className="hint" id={ids.roleHint}>
            {t(`role.${role}.explained`)}
          </p>
        </div>
        <PasswordFields
          password={password}
          confirmation={confirmation}
          onPassword={setPassword}
          onConfirmation={setConfirmation}
          problem={tried ? problem : null}
          errors={error?.errors ?? []}
          field="password"
          testId="new-account"
          label={t("password.first")}
        />
        {tried && nameMissing && (
          <p className="hint blocked field-wide" data-testid="new-account-name-missing">
            {t("accounts.create.nameNeeded")}
          </p>
        )}
        <div className="form-actions">
          <button type="submit" className="button" disabled={busy} data-testid="new-account-submit">
            {t("accounts.create.submit")}
          </button>
        </div>
      </form>
      <div aria-live="polite">
        {created !== null && (
          <p className="notice notice-success" data-testid="account-created" data-name={created.name}>
            {t("accounts.created", { name: created.name, role: t(`role.${created.role}`) })}
          </p>
        )}
        {error !== null && <ErrorNotice title={t("accounts.create.failed")} error={error} testId="account-create-error" />}
      </div>
    </section>
  );
}
