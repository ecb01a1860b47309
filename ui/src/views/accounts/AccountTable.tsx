import { useId, useState, type FormEvent, type ReactNode } from "react";
import { asBackendError, type Backend, type BackendError } from "../../backend";
import type { AccountChange } from "../../bindings/AccountChange";
import type { AccountInfo } from "../../bindings/AccountInfo";
import type { Role } from "../../bindings/Role";
import { Badge } from "../../components/Badge";
import { ErrorNotice } from "../../components/ErrorNotice";
import { useI18n } from "../../i18n/context";
import { PasswordFields, passwordProblem } from "./PasswordFields";
import { ROLES } from "./roles";
import { ScrollArea } from "../../components/ScrollArea";

const NO_CHANGE: AccountChange = { role: null, disabled: null, password: null };

/** The accounts, by name; "Manage" opens one's role, access and password below its row. */
export function AccountTable({
  backend,
  accounts,
  onChanged,
}: {
  backend: Backend;
  accounts: readonly AccountInfo[];
  onChanged: () => void;
}) {
  const { t } = useI18n();
  const [open, setOpen] = useState<number | null>(null);
  if (accounts.length === 0) return <p className="empty">{t("accounts.empty")}</p>;
  const columns = 6;
  return (
    <ScrollArea>
      <table className="table" data-testid="accounts-table">
        <thead>
          <tr>
            <th scope="col">{t("account.name")}</th>
            <th scope="col">{t("account.role")}</th>
            <th scope="col">{t("accounts.col.state")}</th>
            <th scope="col">{t("accounts.col.lastSignIn")}</th>
            <th scope="col">{t("accounts.col.created")}</th>
            <th scope="col">{t("accounts.col.actions")}</th>
          </tr>
        </thead>
        <tbody>
          {accounts.map((a) => (
            <AccountRows
              key={a.id}
              account={a}
              columns={columns}
              open={open === a.id}
              onToggle={() => setOpen((cur) => (cur === a.id ? null : a.id))}
            >
              <AccountEditor backend={backend} account={a} onChanged={onChanged} onClose={() => setOpen(null)} />
            </AccountRows>
          ))}
        </tbody>
      </table>
    </ScrollArea>
  );
}

/** An account's row, and below it, when open, its editor. */
function AccountRows({
  account: a,
  columns: span,
  open: isOpen,
  onToggle,
  children,
}: {
  account: AccountInfo;
  columns: number;
  open: boolean;
  onToggle: () => void;
  children: ReactNode;
}) {
  const { t, formatDateTime } = useI18n();
  const editorId = `account-editor-${a.id}`;
  return (
    <>
      <tr data-testid="account-row" data-id={a.id} data-name={a.name} data-role={a.role} data-disabled={a.disabled_at_ms !== null}>
        <th scope="row">{a.name}</th>
        <td data-testid="account-role">
          <Badge tone={a.role === "admin" ? "warning" : a.role === "operator" ? "progress" : "neutral"}>{t(`role.${a.role}`)}</Badge>
        </td>
        <td data-testid="account-state">
          {a.disabled_at_ms === null ? (
            <Badge tone="success">{t("accounts.active")}</Badge>
          ) : (
            <Badge tone="neutral">{t("accounts.disabled")}</Badge>
          )}
        </td>
        <td>
          {a.last_sign_in_ms === null ? (
            <span className="muted">{t("accounts.never")}</span>
          ) : (
            <time dateTime={new Date(a.last_sign_in_ms).toISOString()}>{formatDateTime(a.last_sign_in_ms)}</time>
          )}
        </td>
        <td>
          <time dateTime={new Date(a.created_at_ms).toISOString()}>{formatDateTime(a.created_at_ms)}</time>
          <span className="muted"> · {t("accounts.by", { name: a.created_by })}</span>
        </td>
        <td>
          <button
            type="button"
            className="button button-secondary button-small"
            aria-expanded={isOpen}
            aria-controls={isOpen ? editorId : undefined}
            aria-label={t("accounts.manage.label", { name: a.name })}
            onClick={onToggle}
            data-testid="account-manage"
          >
            {t("accounts.manage")}
          </button>
        </td>
      </tr>
      {isOpen && (
        <tr className="editor-row">
          <td colSpan={span} id={editorId}>
            {children}
          </td>
        </tr>
      )}
    </>
  );
}

type Done = "role" | "disabled" | "enabled" | "password";

/** One account's role, whether it may sign in, and a new password; each change on its own. */
function AccountEditor({
  backend,
  account: a,
  onChanged,
  onClose,
}: {
  backend: Backend;
  account: AccountInfo;
  onChanged: () => void;
  onClose: () => void;
}) {
  const { t } = useI18n();
  const ids = { heading: useId(), role: useId(), password: useId() };
  const [role, setRole] = useState<Role>(a.role);
  const [confirmDisable, setConfirmDisable] = useState(false);
  const [password, setPassword] = useState("");
  const [confirmation, setConfirmation] = useState("");
  const [triedPassword, setTriedPassword] = useState(false);
  const [busy, setBusy] = useState(false);
  const [done, setDone] = useState<Done | null>(null);
  const [error, setError] = useState<BackendError | null>(null);
  const disabled = a.disabled_at_ms !== null;
  const problem = passwordProblem(password, confirmation, a.name);

  const change = (what: Done, c: Partial<AccountChange>): void => {
    setBusy(true);
    setError(null);
    setDone(null);
    backend.updateAccount(a.id, { ...NO_CHANGE, ...c }).then(
      () => {
        setBusy(false);
        setDone(what);
        setConfirmDisable(false);
        if (what === "password") {
          setPassword("");
          setConfirmation("");
          setTriedPassword(false);
        }
        onChanged();
      },
      (e: unknown) => {
        setBusy(false);
        setError(asBackendError(e));
      },
    );
  };

  const saveRole = (event: FormEvent<HTMLFormElement>): void => {
    event.preventDefault();
    if (!busy && role !== a.role) change("role", { role });
  };

  const savePassword = (event: FormEvent<HTMLFormElement>): void => {
    event.preventDefault();
    setTriedPassword(true);
    if (!busy && problem === null) change("password", { password });
  };

  return (
    <section className="account-editor stack" aria-labelledby={ids.heading} aria-busy={busy} data-testid="account-editor" data-name={a.name}>
      <h3 id={ids.heading}>{t("accounts.editor.title", { name: a.name })}</h3>
      <div aria-live="polite">
        {done !== null && (
          <p className="notice notice-success" data-testid="account-done" data-done={done}>
            {t(`accounts.done.${done}`, { name: a.name })}
          </p>
        )}
      </div>
      <form className="form" onSubmit={saveRole} data-testid="account-role-form">
        <div className="field">
          <label htmlFor={ids.role}>{t("account.role")}</label>
          <select id={ids.role} value={role} onChange={(e) => setRole(e.target.value as Role)} data-testid="account-role-select">
            {ROLES.map((r) => (
              <option key={r} value={r}>
                {t(`role.${r}`)}
              </option>
            ))}
          </select>
          <p className="hint">{t(`role.${role}.explained`)}</p>
        </div>
        <button type="submit" className="button" disabled={busy || role === a.role} data-testid="account-role-save">
          {t("accounts.role.save")}
        </button>
      </form>

      <div className="row-actions">
        {disabled ? (
          <button type="button" className="button" disabled={busy} onClick={() => change("enabled", { disabled: false })} data-testid="account-enable">
            {t("accounts.enable")}
          </button>
        ) : confirmDisable ? (
          <>
            <button type="button" className="button button-danger" disabled={busy} onClick={() => change("disabled", { disabled: true })} data-testid="account-disable-confirm">
              {t("accounts.disable.confirm", { name: a.name })}
            </button>
            <button type="button" className="button button-secondary" disabled={busy} onClick={() => setConfirmDisable(false)}>
              {t("accounts.disable.keep")}
            </button>
          </>
        ) : (
          <button type="button" className="button button-secondary" disabled={busy} onClick={() => setConfirmDisable(true)} data-testid="account-disable">
            {t("accounts.disable")}
          </button>
        )}
        <span className="hint">{disabled ? t("accounts.enable.explained") : t("accounts.disable.explained")}</span>
      </div>

      <form className="form" onSubmit={savePassword} noValidate data-testid="account-password-form" aria-labelledby={ids.password}>
        <h4 id={ids.password} className="field-wide">
          {t("accounts.password.title")}
        </h4>
        <PasswordFields
          password={password}
          confirmation={confirmation}
          onPassword={setPassword}
          onConfirmation={setConfirmation}
          problem={triedPassword ? problem : null}
          errors={error?.errors ?? []}
          field="password"
          testId="account"
        />
        <p className="hint field-wide">{t("accounts.password.explained")}</p>
        <button type="submit" className="button" disabled={busy} data-testid="account-password-save">
          {t("accounts.password.save")}
        </button>
      </form>

      {error !== null && <ErrorNotice title={t("accounts.update.failed")} error={error} testId="account-error" />}
      <button type="button" className="button button-secondary" onClick={onClose} data-testid="account-editor-close">
        {t("accounts.editor.close")}
      </button>
    </section>
  );
}
