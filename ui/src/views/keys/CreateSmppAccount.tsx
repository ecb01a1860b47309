/** The form that makes an SMPP account: its System ID, its pace and the kinds it may send, checked as typed. */
import { useId, useState, type FormEvent, type ReactNode } from "react";
import { asBackendError, type Backend, type BackendError } from "../../backend";
import type { CreatedSmppAccount } from "../../bindings/CreatedSmppAccount";
import type { FieldError } from "../../bindings/FieldError";
import type { MessageKind } from "../../bindings/MessageKind";
import { ErrorNotice } from "../../components/ErrorNotice";
import { FieldProblem } from "../../components/FieldProblem";
import { useI18n } from "../../i18n/context";

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

/**
 * Makes an SMPP account: a System ID, 10 submits a second and a window of 10 unless told, and
 * transactional messages unless other kinds are ticked. What blocks it is said as it is typed;
 * the engine's refusals show beside their fields. `children` (the password just made) go under it.
 */
export function CreateSmppAccount({
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
