/**
 * SMPP accounts, on the API keys screen (an admin's): the office's systems that send SMS only
 * over SMPP (a PBX, a laboratory system) bind to smsdesk's own SMPP server with one. Each is an
 * API key with an SMPP password; its name is the system_id it binds with. Its password is shown
 * once, when it is made or given anew; revoking it is revoking its key.
 */
import { useId, useState, type ReactNode } from "react";
import { asBackendError, type Backend, type BackendError } from "../../backend";
import type { CreatedSmppAccount } from "../../bindings/CreatedSmppAccount";
import type { MessageKind } from "../../bindings/MessageKind";
import type { SmppAccountInfo } from "../../bindings/SmppAccountInfo";
import { Badge } from "../../components/Badge";
import { ErrorNotice } from "../../components/ErrorNotice";
import type { DataState } from "../../hooks/useBackendData";
import { formatRoute } from "../../hooks/useHashRoute";
import { useI18n } from "../../i18n/context";
import { CreateSmppAccount } from "./CreateSmppAccount";
import { OnePassword, type Revealed } from "./OnePassword";
import { ScrollArea } from "../../components/ScrollArea";

export const loadSmppAccounts = (backend: Backend): Promise<SmppAccountInfo[]> => backend.listSmppAccounts();

/**
 * The SMPP accounts (their list loaded by the screen, as revoking a key there changes it too)
 * and the form that makes one. `onChanged` is told after each change, for the keys' list.
 */
export function SmppAccounts({
  backend,
  accounts,
  reload,
  onChanged,
}: {
  backend: Backend;
  accounts: DataState<SmppAccountInfo[]>;
  reload: () => void;
  onChanged: () => void;
}) {
  const { t } = useI18n();
  const headingId = useId();
  const [revealed, setRevealed] = useState<Revealed | null>(null);
  const changed = (): void => {
    reload();
    onChanged();
  };
  return (
    <>
      <section className="panel" aria-labelledby={headingId} aria-busy={accounts.status === "loading"} data-testid="smpp-accounts">
        <h2 id={headingId}>{t("smppAccounts.title")}</h2>
        <p className="panel-intro">
          {t("smppAccounts.intro")}{" "}
          <a href={formatRoute({ section: "settings" })} data-testid="smpp-accounts-settings-link">
            {t("smppAccounts.settingsLink")}
          </a>
        </p>
        {accounts.status === "loading" && (
          <p className="status" role="status">
            <span className="spinner" aria-hidden="true" />
            {t("smppAccounts.loading")}
          </p>
        )}
        {accounts.status === "error" && (
          <ErrorNotice title={t("smppAccounts.error")} error={accounts.error} onRetry={reload} testId="smpp-accounts-error" />
        )}
        <div aria-live="polite">{revealed?.from === "reset" && <OnePassword revealed={revealed} />}</div>
        {accounts.status === "ready" && (
          <AccountTable
            backend={backend}
            accounts={accounts.data}
            onReset={(account) => {
              setRevealed({ from: "reset", account });
              changed();
            }}
            onRevoked={() => {
              setRevealed(null);
              changed();
            }}
          />
        )}
      </section>
      <CreateSmppAccount
        backend={backend}
        onCreated={(account) => {
          setRevealed({ from: "create", account });
          changed();
        }}
        onStart={() => setRevealed(null)}
      >
        {revealed?.from === "create" && <OnePassword revealed={revealed} />}
      </CreateSmppAccount>
    </>
  );
}

/** The kinds an account sends, in words, the one a submit that does not say is sent as marked. */
function Kinds({ kinds }: { kinds: readonly MessageKind[] }) {
  const { t } = useI18n();
  return (
    <ul className="plain-list">
      {kinds.map((k, i) => (
        <li key={k}>
          {t(`settings.kind.${k}`)}
          {i === 0 && kinds.length > 1 && <span className="muted"> {t("smppAccounts.kinds.default")}</span>}
        </li>
      ))}
    </ul>
  );
}

function AccountTable({
  backend,
  accounts,
  onReset,
  onRevoked,
}: {
  backend: Backend;
  accounts: readonly SmppAccountInfo[];
  onReset: (account: CreatedSmppAccount) => void;
  onRevoked: () => void;
}) {
  const { t, formatDateTime, formatNumber } = useI18n();
  if (accounts.length === 0) {
    return (
      <p className="empty" data-testid="smpp-accounts-empty">
        {t("smppAccounts.empty")}
      </p>
    );
  }
  const at = (ms: number): ReactNode => <time dateTime={new Date(ms).toISOString()}>{formatDateTime(ms)}</time>;
  return (
    <ScrollArea>
      <table className="table" data-testid="smpp-accounts-table">
        <thead>
          <tr>
            <th scope="col">{t("smppAccounts.col.name")}</th>
            <th scope="col" className="num">
              {t("smppAccounts.col.tps")}
            </th>
            <th scope="col" className="num">
              {t("smppAccounts.col.window")}
            </th>
            <th scope="col">{t("smppAccounts.col.kinds")}</th>
            <th scope="col">{t("smppAccounts.col.created")}</th>
            <th scope="col">{t("smppAccounts.col.state")}</th>
            <th scope="col">{t("smppAccounts.col.actions")}</th>
          </tr>
        </thead>
        <tbody>
          {accounts.map((a) => (
            <tr key={a.id} data-testid="smpp-account-row" data-id={a.id} data-name={a.name} data-revoked={a.revoked_at_ms !== null}>
              <td>
                <code>{a.name}</code>
              </td>
              <td className="num">{formatNumber(a.tps)}</td>
              <td className="num">{formatNumber(a.window)}</td>
              <td data-testid="smpp-account-kinds" data-kinds={a.kinds.join(" ")}>
                <Kinds kinds={a.kinds} />
              </td>
              <td>
                {at(a.created_at_ms)}
                <div className="hint">{t("smppAccounts.createdBy", { name: a.created_by })}</div>
              </td>
              <td data-testid="smpp-account-state">
                {a.revoked_at_ms === null ? (
                  <Badge tone="success">{t("smppAccounts.active")}</Badge>
                ) : (
                  <>
                    <Badge tone="neutral">{t("smppAccounts.revoked")}</Badge>
                    <div className="hint">{at(a.revoked_at_ms)}</div>
                  </>
                )}
              </td>
              <td>{a.revoked_at_ms === null && <Actions backend={backend} account={a} onReset={onReset} onRevoked={onRevoked} />}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </ScrollArea>
  );
}

/**
 * A live account's new password and its revocation: each changes what its system binds with at
 * once (binds with the old password are refused; a revoked account binds no more), so each asks
 * once more.
 */
function Actions({
  backend,
  account,
  onReset,
  onRevoked,
}: {
  backend: Backend;
  account: SmppAccountInfo;
  onReset: (created: CreatedSmppAccount) => void;
  onRevoked: () => void;
}) {
  const { t } = useI18n();
  const hintId = useId();
  const [asking, setAsking] = useState<"reset" | "revoke" | null>(null);
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<{ what: "reset" | "revoke"; error: BackendError } | null>(null);

  const run = (what: "reset" | "revoke"): void => {
    setBusy(true);
    setFailure(null);
    const failed = (e: unknown): void => {
      setFailure({ what, error: asBackendError(e) });
      setBusy(false);
      setAsking(null);
    };
    if (what === "reset") {
      backend.resetSmppPassword(account.id).then((created) => {
        setBusy(false);
        setAsking(null);
        onReset(created);
      }, failed);
    } else {
      backend.revokeKey(account.id).then(onRevoked, failed);
    }
  };

  return (
    <div className="row-actions" data-testid="smpp-account-actions">
      {asking === null ? (
        <>
          <button
            type="button"
            className="button button-secondary button-small"
            onClick={() => setAsking("reset")}
            data-testid="smpp-account-reset"
          >
            {t("smppAccounts.reset")}
          </button>
          <button
            type="button"
            className="button button-secondary button-small"
            onClick={() => setAsking("revoke")}
            data-testid="smpp-account-revoke"
          >
            {t("smppAccounts.revoke")}
          </button>
        </>
      ) : (
        <>
          <p className="hint" id={hintId} data-testid="smpp-account-confirm-hint">
            {asking === "revoke" ? t("smppAccounts.revoke.hint") : t("smppAccounts.reset.hint")}
          </p>
          <button
            type="button"
            className={asking === "revoke" ? "button button-danger button-small" : "button button-small"}
            onClick={() => run(asking)}
            disabled={busy}
            aria-describedby={hintId}
            data-testid="smpp-account-confirm"
          >
            {asking === "revoke"
              ? t("smppAccounts.revoke.confirm", { name: account.name })
              : t("smppAccounts.reset.confirm", { name: account.name })}
          </button>
          <button
            type="button"
            className="button button-secondary button-small"
            onClick={() => setAsking(null)}
            disabled={busy}
            data-testid="smpp-account-keep"
          >
            {t("smppAccounts.keep")}
          </button>
        </>
      )}
      {failure !== null && (
        <ErrorNotice
          title={failure.what === "reset" ? t("smppAccounts.reset.failed") : t("smppAccounts.revoke.failed")}
          error={failure.error}
          testId="smpp-account-error"
        />
      )}
    </div>
  );
}
