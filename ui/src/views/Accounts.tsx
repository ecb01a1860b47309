import { useId } from "react";
import type { Backend } from "../backend";
import type { AccountInfo } from "../bindings/AccountInfo";
import type { ChangeEvent } from "../bindings/ChangeEvent";
import type { SessionInfo } from "../bindings/SessionInfo";
import { ErrorNotice } from "../components/ErrorNotice";
import { useBackendData } from "../hooks/useBackendData";
import { useI18n } from "../i18n/context";
import { AccountTable } from "./accounts/AccountTable";
import { NewAccount } from "./accounts/NewAccount";
import { SessionTable } from "./accounts/SessionTable";

const loadAccounts = (backend: Backend): Promise<AccountInfo[]> => backend.listAccounts();
const loadSessions = (backend: Backend): Promise<SessionInfo[]> => backend.listSessions();
// Every change to an account or a session is audited: an entry in the audit log is the sign
// that another admin changed something here.
const audited = (event: ChangeEvent): boolean => event.entity === "audit";

/**
 * People's accounts and their signed-in browsers (admin only): who may sign in with which role,
 * and who is signed in from where. Accounts are never deleted (the audit log's names keep
 * meaning someone); they are disabled instead.
 */
export function Accounts({ backend, onChanged }: { backend: Backend; onChanged?: () => void }) {
  const { t } = useI18n();
  const ids = { accounts: useId(), sessions: useId() };
  const accounts = useBackendData(backend, loadAccounts, { live: audited });
  const sessions = useBackendData(backend, loadSessions, { live: audited });
  const changed = (): void => {
    accounts.reload();
    sessions.reload();
    // The signed-in admin may have changed their own account (their role): the app asks again who they are.
    onChanged?.();
  };

  return (
    <div className="stack" data-testid="accounts">
      <section className="panel" aria-labelledby={ids.accounts} aria-busy={accounts.state.status === "loading"}>
        <h2 id={ids.accounts}>{t("accounts.title")}</h2>
        <p className="panel-intro">{t("accounts.intro")}</p>
        {accounts.state.status === "loading" && (
          <p className="status" role="status">
            <span className="spinner" aria-hidden="true" />
            {t("accounts.loading")}
          </p>
        )}
        {accounts.state.status === "error" && (
          <ErrorNotice title={t("accounts.error")} error={accounts.state.error} onRetry={accounts.reload} testId="accounts-error" />
        )}
        {accounts.state.status === "ready" && (
          <AccountTable backend={backend} accounts={accounts.state.data} onChanged={changed} />
        )}
      </section>
      <NewAccount backend={backend} onCreated={changed} />
      <section className="panel" aria-labelledby={ids.sessions} aria-busy={sessions.state.status === "loading"}>
        <h2 id={ids.sessions}>{t("sessions.title")}</h2>
        <p className="panel-intro">{t("sessions.intro")}</p>
        {sessions.state.status === "loading" && (
          <p className="status" role="status">
            <span className="spinner" aria-hidden="true" />
            {t("sessions.loading")}
          </p>
        )}
        {sessions.state.status === "error" && (
          <ErrorNotice title={t("sessions.error")} error={sessions.state.error} onRetry={sessions.reload} testId="sessions-error" />
        )}
        {sessions.state.status === "ready" && (
          <SessionTable backend={backend} sessions={sessions.state.data} onChanged={sessions.reload} />
        )}
        <button type="button" className="button button-secondary" onClick={sessions.reload} data-testid="sessions-refresh">
          {t("sessions.refresh")}
        </button>
      </section>
    </div>
  );
}
