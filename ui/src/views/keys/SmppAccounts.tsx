/**
 * SMPP accounts, on the API keys screen (an admin's): the office's systems that send SMS only
 * over SMPP (a PBX, a laboratory system) bind to smsdesk's own SMPP server with one. Each is an
 * API key with an SMPP password; its name is the system_id it binds with. Its password is shown
 * once, when it is made or given anew; revoking it is revoking its key.
 */
import { useId, useState, type FormEvent, type ReactNode } from "react";
import { asBackendError, type Backend, type BackendError } from "../../backend";
import type { CreatedSmppAccount } from "../../bindings/CreatedSmppAccount";
import type { FieldError } from "../../bindings/FieldError";
import type { MessageKind } from "../../bindings/MessageKind";
import type { SmppAccountInfo } from "../../bindings/SmppAccountInfo";
import { Badge } from "../../components/Badge";
import { ErrorNotice } from "../../components/ErrorNotice";
import { FieldProblem } from "../../components/FieldProblem";
import type { DataState } from "../../hooks/useBackendData";
import { formatRoute } from "../../hooks/useHashRoute";
import { useI18n } from "../../i18n/context";

export const loadSmppAccounts = (backend: Backend): Promise<SmppAccountInfo[]> => backend.listSmppAccounts();

/** The kinds an account may send, in the order offered: the first ticked is what a submit without a service_type is sent as. */
export const SMPP_KINDS: readonly MessageKind[] = ["otp", "transactional", "bulk"];
/** What the engine takes (SMPP's system_id is 15 octets at most). */
const SYSTEM_ID = /^[A-Za-z0-9._-]{1,15}$/;
export const TPS_MAX = 10_000;
export const WINDOW_MAX = 1_000;
const DEFAULT_TPS = "10";
const DEFAULT_WINDOW = "10";

/** A whole number typed within 1 and `max`, or null. */
function bounded(text: string, max: number): number | null {
  const v = text.trim();
  if (!/^[0-9]{1,6}$/.test(v)) return null;
  const n = Number(v);
  return n >= 1 && n <= max ? n : null;
}

/** A password shown once: the account's, just made or given anew. */
interface Revealed {
  readonly from: "create" | "reset";
  readonly account: CreatedSmppAccount;
}

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
    <div className="table-scroll">
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
    </div>
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

/** The password, shown this once, with a way to copy it and the warning that it cannot be shown again. */
export function OnePassword({ revealed }: { revealed: Revealed }) {
  const { t } = useI18n();
  const { info, password } = revealed.account;
  return (
    <div className="notice notice-success" data-testid="smpp-password" data-from={revealed.from} data-name={info.name}>
      <h3>
        {revealed.from === "create"
          ? t("smppAccounts.created.title", { name: info.name })
          : t("smppAccounts.newPassword.title", { name: info.name })}
      </h3>
      <p>{t("smppAccounts.password.body", { name: info.name })}</p>
      <pre className="command secret">
        <code data-testid="smpp-password-value">{password}</code>
      </pre>
      <CopyButton text={password} />
      <p className="smpp-password-warning" data-testid="smpp-password-warning">
        <strong>{t("smppAccounts.password.once")}</strong>
      </p>
    </div>
  );
}

/** Copies `text` to the clipboard, and says whether it did (where there is no clipboard, to copy it by hand). */
function CopyButton({ text }: { text: string }) {
  const { t } = useI18n();
  const [state, setState] = useState<"idle" | "copied" | "failed">("idle");
  const copy = (): void => {
    const clipboard = typeof navigator === "undefined" ? undefined : navigator.clipboard;
    if (clipboard === undefined) {
      setState("failed");
      return;
    }
    clipboard.writeText(text).then(
      () => setState("copied"),
      () => setState("failed"),
    );
  };
  return (
    <p className="row-actions">
      <button type="button" className="button button-secondary button-small" onClick={copy} data-testid="smpp-password-copy">
        {t("smppAccounts.copy")}
      </button>
      <span role="status" data-testid="smpp-password-copied" data-state={state}>
        {state === "copied" ? t("smppAccounts.copied") : state === "failed" ? t("smppAccounts.copyFailed") : ""}
      </span>
    </p>
  );
}

/** The engine's refusals of one field, right below it. */
function Refusals({ errors, id }: { errors: readonly FieldError[]; id: string }) {
  if (errors.length === 0) return null;
  return (
    <ul className="field-problems" id={id} data-testid="field-errors">
      {errors.map((e) => (
        <li key={`${e.code}:${e.message}`}>
          <FieldProblem error={e} />
        </li>
      ))}
    </ul>
  );
}

function CreateSmppAccount({
  backend,
  onCreated,
  onStart,
  children,
}: {
  backend: Backend;
  onCreated: (account: CreatedSmppAccount) => void;
  /** A new account is asked for: the password shown before goes. */
  onStart: () => void;
  /** The password just made, shown under the form. */
  children: ReactNode;
}) {
  const { t } = useI18n();
  const ids = {
    heading: useId(),
    name: useId(),
    tps: useId(),
    window: useId(),
    kinds: useId(),
    blocked: useId(),
  };
  const [name, setName] = useState("");
  const [tps, setTps] = useState(DEFAULT_TPS);
  const [windowText, setWindowText] = useState(DEFAULT_WINDOW);
  const [kinds, setKinds] = useState<ReadonlySet<MessageKind>>(() => new Set<MessageKind>(["transactional"]));
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<BackendError | null>(null);

  const nameOk = SYSTEM_ID.test(name.trim());
  const tpsValue = bounded(tps, TPS_MAX);
  const windowValue = bounded(windowText, WINDOW_MAX);
  const chosen = SMPP_KINDS.filter((k) => kinds.has(k));
  const blockedBy = ((): string | null => {
    if (name.trim() !== "" && !nameOk) return t("smppAccounts.create.blocked.name");
    if (tpsValue === null) return t("smppAccounts.create.blocked.tps", { max: TPS_MAX });
    if (windowValue === null) return t("smppAccounts.create.blocked.window", { max: WINDOW_MAX });
    if (chosen.length === 0) return t("smppAccounts.create.blocked.kinds");
    return null;
  })();
  const refused = (field: string): FieldError[] => error?.errors.filter((e) => e.field === field) ?? [];
  const describedBy = (hint: string, field: string): string =>
    [hint, refused(field).length > 0 ? `${hint}-refused` : null].filter((x) => x !== null).join(" ");
  const forget = (): void => setError(null);

  const toggle = (kind: MessageKind, on: boolean): void => {
    forget();
    setKinds((cur) => {
      const next = new Set(cur);
      if (on) next.add(kind);
      else next.delete(kind);
      return next;
    });
  };

  const submit = (event: FormEvent<HTMLFormElement>): void => {
    event.preventDefault();
    if (busy || blockedBy !== null || !nameOk || tpsValue === null || windowValue === null) return;
    setBusy(true);
    setError(null);
    onStart();
    backend
      .createSmppAccount({
        name: name.trim(),
        tps: tpsValue,
        window: windowValue,
        kinds: chosen,
        limits: { per_minute: null, per_day: null, destination_prefixes: [], countries: [], otp_countries: [] },
      })
      .then(
        (created) => {
          setBusy(false);
          setName("");
          setTps(DEFAULT_TPS);
          setWindowText(DEFAULT_WINDOW);
          setKinds(new Set<MessageKind>(["transactional"]));
          onCreated(created);
        },
        (e: unknown) => {
          setError(asBackendError(e));
          setBusy(false);
        },
      );
  };

  const first = chosen[0];
  return (
    <section className="panel" aria-labelledby={ids.heading} data-testid="smpp-account-create">
      <h2 id={ids.heading}>{t("smppAccounts.create.title")}</h2>
      <form className="form" onSubmit={submit} aria-busy={busy} noValidate data-testid="smpp-account-form">
        <div className="field">
          <label htmlFor={ids.name}>{t("smppAccounts.create.name")}</label>
          <input
            id={ids.name}
            name="name"
            required
            maxLength={15}
            autoComplete="off"
            spellCheck={false}
            value={name}
            onChange={(e) => {
              forget();
              setName(e.target.value);
            }}
            aria-invalid={(name.trim() !== "" && !nameOk) || refused("name").length > 0 ? "true" : undefined}
            aria-describedby={describedBy(`${ids.name}-hint`, "name")}
            data-testid="smpp-account-name"
          />
          <p className="hint" id={`${ids.name}-hint`}>
            {t("smppAccounts.create.name.hint")}
          </p>
          <Refusals errors={refused("name")} id={`${ids.name}-hint-refused`} />
        </div>
        <div className="field">
          <label htmlFor={ids.tps}>{t("smppAccounts.create.tps")}</label>
          <input
            id={ids.tps}
            name="tps"
            inputMode="numeric"
            autoComplete="off"
            value={tps}
            onChange={(e) => {
              forget();
              setTps(e.target.value);
            }}
            aria-invalid={tpsValue === null || refused("tps").length > 0 ? "true" : undefined}
            aria-describedby={describedBy(`${ids.tps}-hint`, "tps")}
            data-testid="smpp-account-tps"
          />
          <p className="hint" id={`${ids.tps}-hint`}>
            {t("smppAccounts.create.tps.hint", { max: TPS_MAX })}
          </p>
          <Refusals errors={refused("tps")} id={`${ids.tps}-hint-refused`} />
        </div>
        <div className="field">
          <label htmlFor={ids.window}>{t("smppAccounts.create.window")}</label>
          <input
            id={ids.window}
            name="window"
            inputMode="numeric"
            autoComplete="off"
            value={windowText}
            onChange={(e) => {
              forget();
              setWindowText(e.target.value);
            }}
            aria-invalid={windowValue === null || refused("window").length > 0 ? "true" : undefined}
            aria-describedby={describedBy(`${ids.window}-hint`, "window")}
            data-testid="smpp-account-window"
          />
          <p className="hint" id={`${ids.window}-hint`}>
            {t("smppAccounts.create.window.hint", { max: WINDOW_MAX })}
          </p>
          <Refusals errors={refused("window")} id={`${ids.window}-hint-refused`} />
        </div>
        <fieldset className="choices field-wide" data-testid="smpp-account-kinds-choice" aria-describedby={describedBy(`${ids.kinds}-hint`, "kinds")}>
          <legend>{t("smppAccounts.create.kinds")}</legend>
          {SMPP_KINDS.map((kind) => (
            <label key={kind} className="choice">
              <input
                type="checkbox"
                name="kinds"
                value={kind}
                checked={kinds.has(kind)}
                onChange={(e) => toggle(kind, e.target.checked)}
                data-testid={`smpp-account-kind-${kind}`}
              />
              <span className="choice-label">{t(`settings.kind.${kind}`)}</span>
            </label>
          ))}
          <p className="hint" id={`${ids.kinds}-hint`} data-testid="smpp-account-default-kind">
            {first === undefined
              ? t("smppAccounts.create.kinds.hint")
              : t("smppAccounts.create.kinds.default", { kind: t(`settings.kind.${first}`) })}
          </p>
          <Refusals errors={[...refused("kinds"), ...refused("scopes")]} id={`${ids.kinds}-hint-refused`} />
        </fieldset>
        <div className="form-actions row-actions">
          <button
            type="submit"
            className="button"
            disabled={busy || blockedBy !== null || name.trim() === ""}
            aria-describedby={blockedBy === null ? undefined : ids.blocked}
            data-testid="smpp-account-submit"
          >
            {busy ? t("smppAccounts.create.busy") : t("smppAccounts.create.submit")}
          </button>
          {blockedBy !== null && (
            <span className="hint blocked" id={ids.blocked} data-testid="smpp-account-blocked">
              {blockedBy}
            </span>
          )}
        </div>
      </form>
      <div aria-live="polite">
        {children}
        {error !== null && <ErrorNotice title={t("smppAccounts.create.failed")} error={error} testId="smpp-account-create-error" />}
      </div>
    </section>
  );
}
