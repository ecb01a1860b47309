import { useId, useState, type FormEvent } from "react";
import { asBackendError, type Backend, type BackendError } from "../../backend";
import type { MessageKind } from "../../bindings/MessageKind";
import type { OptOutAdded } from "../../bindings/OptOutAdded";
import { ErrorNotice } from "../../components/ErrorNotice";
import { FieldProblem } from "../../components/FieldProblem";
import { numberExample } from "../../components/numberExamples";
import { useOfficeCountry } from "../../components/useOfficeCountry";
import { useI18n } from "../../i18n/context";
import { MESSAGE_KINDS } from "../labels";

/** What a number put on the list by hand stops unless the person chooses otherwise: not one-time codes. */
export const DEFAULT_KINDS: readonly MessageKind[] = ["transactional", "bulk"];

/**
 * Puts a number on the opt-out list by hand: the number (unless it is given: a conversation's),
 * the kinds of message it stops, and an optional note kept with the entry and in the audit log.
 */
export function AddOptOutForm({
  backend,
  phone: fixedPhone,
  onDone,
  onCancel,
  testId = "optout-add",
}: {
  backend: Backend;
  /** The number, when the form is about one already (a conversation's). */
  phone?: string;
  onDone?: (added: OptOutAdded) => void;
  onCancel?: () => void;
  testId?: string;
}) {
  const { t } = useI18n();
  const ids = { phone: useId(), phoneHint: useId(), phoneError: useId(), note: useId(), noteHint: useId(), blocked: useId() };
  const example = numberExample(useOfficeCountry(fixedPhone === undefined ? backend : null));
  const [phone, setPhone] = useState("");
  const [kinds, setKinds] = useState<ReadonlySet<MessageKind>>(new Set(DEFAULT_KINDS));
  const [note, setNote] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<BackendError | null>(null);
  const [done, setDone] = useState<OptOutAdded | null>(null);
  const number = fixedPhone ?? phone.trim();

  const blockedBy =
    number === "" ? t("optOut.add.blocked.phone") : kinds.size === 0 ? t("optOut.add.blocked.kinds") : null;

  const toggle = (kind: MessageKind, on: boolean): void => {
    const next = new Set(kinds);
    if (on) next.add(kind);
    else next.delete(kind);
    setKinds(next);
  };

  const submit = (event: FormEvent<HTMLFormElement>): void => {
    event.preventDefault();
    if (busy || blockedBy !== null) return;
    setBusy(true);
    setError(null);
    setDone(null);
    const chosen = MESSAGE_KINDS.filter((k) => kinds.has(k));
    backend.addOptOut({ phone: number, note: note.trim() === "" ? null : note.trim(), kinds: chosen }).then(
      (added) => {
        setBusy(false);
        setDone(added);
        setNote("");
        if (fixedPhone === undefined) setPhone("");
        onDone?.(added);
      },
      (e: unknown) => {
        setBusy(false);
        setError(asBackendError(e));
      },
    );
  };

  const phoneErrors = fixedPhone === undefined ? (error?.errors.filter((e) => e.field === "phone") ?? []) : [];
  // A refusal of the number alone is said at its field, once; anything else in the notice below.
  const onlyThePhone = error !== null && phoneErrors.length > 0 && phoneErrors.length === error.errors.length;

  return (
    <form className="form optout-form" onSubmit={submit} aria-busy={busy} noValidate data-testid={testId}>
      {fixedPhone === undefined && (
        <div className="field">
          <label htmlFor={ids.phone}>{t("optOut.phone")}</label>
          <input
            id={ids.phone}
            type="tel"
            autoComplete="off"
            value={phone}
            onChange={(e) => setPhone(e.target.value)}
            aria-invalid={phoneErrors.length > 0}
            aria-describedby={phoneErrors.length > 0 ? `${ids.phoneHint} ${ids.phoneError}` : ids.phoneHint}
            data-testid={`${testId}-phone`}
          />
          <p className="hint" id={ids.phoneHint}>
            {example === null ? t("optOut.phone.hint") : t("number.hint.example", { ...example })}
          </p>
          {phoneErrors.length > 0 && (
            <p className="field-problem" id={ids.phoneError} role="alert" data-testid={`${testId}-phone-error`}>
              {phoneErrors.map((e, i) => (
                <FieldProblem key={i} error={e} />
              ))}
            </p>
          )}
        </div>
      )}
      <fieldset className="choices field-wide optout-kinds" data-testid={`${testId}-kinds`}>
        <legend>{t("optOut.kinds")}</legend>
        {MESSAGE_KINDS.map((k) => (
          <label key={k} className="choice">
            <input
              type="checkbox"
              value={k}
              checked={kinds.has(k)}
              onChange={(e) => toggle(k, e.target.checked)}
              data-testid={`${testId}-kind-${k}`}
            />
            <span>
              <span className="choice-label">{t(`messageKind.${k}`)}</span>
              {k === "otp" && <span className="hint">{t("optOut.kinds.otp")}</span>}
            </span>
          </label>
        ))}
      </fieldset>
      <div className="field field-wide">
        <label htmlFor={ids.note}>{t("note.labelOptional")}</label>
        <textarea
          id={ids.note}
          rows={2}
          value={note}
          onChange={(e) => setNote(e.target.value)}
          aria-describedby={ids.noteHint}
          data-testid={`${testId}-note`}
        />
        <p className="hint" id={ids.noteHint}>
          {t("optOut.add.note.hint")}
        </p>
      </div>
      <p className="hint field-wide">{t("optOut.add.consequence")}</p>
      <FormActions
        label={busy ? t("optOut.add.busy") : t("optOut.add.submit")}
        busy={busy}
        blockedBy={blockedBy}
        blockedId={ids.blocked}
        testId={testId}
        onCancel={onCancel}
      />
      <div className="field-wide" aria-live="polite">
        {done !== null && (
          <div className="notice notice-success" data-testid={`${testId}-done`} data-added={done.added}>
            <p>
              {done.added
                ? t("optOut.add.done", { phone: done.entry.phone })
                : t("optOut.add.already", { phone: done.entry.phone })}
            </p>
            {done.held_messages.length > 0 && <p>{t("optOut.add.held", { count: done.held_messages.length })}</p>}
          </div>
        )}
        {error !== null && !onlyThePhone && <ErrorNotice title={t("optOut.add.failed")} error={error} testId={`${testId}-error`} />}
      </div>
    </form>
  );
}

/** Takes a number off the opt-out list: a note is required (the list is evidence), kept in the audit log. */
export function RemoveOptOutForm({
  backend,
  phone,
  onDone,
  onCancel,
  testId = "optout-remove",
}: {
  backend: Backend;
  phone: string;
  onDone?: () => void;
  onCancel?: () => void;
  testId?: string;
}) {
  const { t } = useI18n();
  const ids = { heading: useId(), note: useId(), noteHint: useId(), blocked: useId() };
  const [note, setNote] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<BackendError | null>(null);
  const blockedBy = note.trim() === "" ? t("optOut.remove.blocked") : null;

  const submit = (event: FormEvent<HTMLFormElement>): void => {
    event.preventDefault();
    if (busy || blockedBy !== null) return;
    setBusy(true);
    setError(null);
    backend.removeOptOut({ phone, note: note.trim() }).then(
      () => {
        setBusy(false);
        onDone?.();
      },
      (e: unknown) => {
        setBusy(false);
        setError(asBackendError(e));
      },
    );
  };

  return (
    <form
      className="form optout-form"
      onSubmit={submit}
      aria-busy={busy}
      aria-labelledby={ids.heading}
      noValidate
      data-testid={testId}
    >
      <h4 id={ids.heading} className="field-wide">
        {t("optOut.remove.title", { phone })}
      </h4>
      <p className="hint field-wide">{t("optOut.remove.consequence")}</p>
      <div className="field field-wide">
        <label htmlFor={ids.note}>{t("note.labelRequired")}</label>
        <textarea
          id={ids.note}
          rows={2}
          required
          aria-required="true"
          value={note}
          onChange={(e) => setNote(e.target.value)}
          aria-describedby={ids.noteHint}
          data-testid={`${testId}-note`}
        />
        <p className="hint" id={ids.noteHint}>
          {t("optOut.remove.note.hint")}
        </p>
      </div>
      <FormActions
        label={busy ? t("optOut.remove.busy") : t("optOut.remove.submit")}
        danger
        busy={busy}
        blockedBy={blockedBy}
        blockedId={ids.blocked}
        testId={testId}
        onCancel={onCancel}
      />
      {error !== null && (
        <div className="field-wide">
          <ErrorNotice title={t("optOut.remove.failed")} error={error} testId={`${testId}-error`} />
        </div>
      )}
    </form>
  );
}

/** A form's submit button, with Cancel when the form may be closed, and why it cannot be sent yet. */
function FormActions({
  label,
  danger = false,
  busy,
  blockedBy,
  blockedId,
  testId,
  onCancel,
}: {
  label: string;
  danger?: boolean;
  busy: boolean;
  blockedBy: string | null;
  blockedId: string;
  testId: string;
  onCancel?: (() => void) | undefined;
}) {
  const { t } = useI18n();
  return (
    <div className="row-actions field-wide">
      <button
        type="submit"
        className={danger ? "button button-danger" : "button"}
        disabled={busy || blockedBy !== null}
        aria-describedby={blockedBy === null ? undefined : blockedId}
        data-testid={`${testId}-submit`}
      >
        {label}
      </button>
      {onCancel !== undefined && (
        <button type="button" className="button button-secondary" onClick={onCancel} data-testid={`${testId}-cancel`}>
          {t("action.cancel")}
        </button>
      )}
      {blockedBy !== null && (
        <span className="hint blocked" id={blockedId} data-testid={`${testId}-blocked`}>
          {blockedBy}
        </span>
      )}
    </div>
  );
}
