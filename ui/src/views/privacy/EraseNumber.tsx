import { useId, useState, type FormEvent } from "react";
import { asBackendError, type Backend, type BackendError } from "../../backend";
import type { Erased } from "../../bindings/Erased";
import type { FieldError } from "../../bindings/FieldError";
import { ErrorNotice } from "../../components/ErrorNotice";
import { useI18n } from "../../i18n/context";
import { FieldErrors } from "../compose/TemplateValues";
import { errorsOf, NumberField } from "./NumberField";
import { RedactedCounts, WalLine } from "./RedactedCounts";

type Erasure =
  | { readonly kind: "idle" }
  | { readonly kind: "busy" }
  | { readonly kind: "done"; readonly erased: Erased }
  | { readonly kind: "failed"; readonly error: BackendError };

/**
 * Erases a number (its owner's request to be forgotten): the number, a note saying why (kept in
 * the audit log, without the number), and a confirmation once what it does is said, for it
 * cannot be undone. Then what it removed, and what is left to do.
 */
export function EraseNumberPanel({ backend, onErased }: { backend: Backend; onErased: () => void }) {
  const { t } = useI18n();
  const headingId = useId();
  const [number, setNumber] = useState("");
  const [note, setNote] = useState("");
  const [confirmed, setConfirmed] = useState(false);
  const [erasure, setErasure] = useState<Erasure>({ kind: "idle" });
  const busy = erasure.kind === "busy";
  const refused = erasure.kind === "failed" ? erasure.error.errors : [];
  const blockedBy =
    number.trim() === ""
      ? t("privacy.number.blocked")
      : note.trim() === ""
        ? t("privacy.erase.blocked.note")
        : !confirmed
          ? t("privacy.erase.blocked.confirm")
          : null;

  const submit = (event: FormEvent<HTMLFormElement>): void => {
    event.preventDefault();
    if (busy || blockedBy !== null) return;
    setErasure({ kind: "busy" });
    backend.eraseNumber({ number: number.trim(), note: note.trim() }).then(
      (erased) => {
        setErasure({ kind: "done", erased });
        setNumber("");
        setNote("");
        setConfirmed(false);
        onErased();
      },
      (e: unknown) => setErasure({ kind: "failed", error: asBackendError(e) }),
    );
  };

  return (
    <section className="panel" aria-labelledby={headingId} data-testid="privacy-erase">
      <h2 id={headingId}>{t("privacy.erase.title")}</h2>
      <p className="panel-intro">{t("privacy.erase.intro")}</p>
      <form className="form" onSubmit={submit} aria-busy={busy} noValidate data-testid="privacy-erase-form">
        <NumberField value={number} onChange={setNumber} errors={errorsOf(refused, "number")} testId="privacy-erase-number" />
        <NoteField value={note} onChange={setNote} errors={errorsOf(refused, "note")} />
        <EraseWarning />
        <EraseActions confirmed={confirmed} onConfirmed={setConfirmed} busy={busy} blockedBy={blockedBy} />
      </form>
      <div aria-live="polite">
        {erasure.kind === "done" && <EraseResult erased={erasure.erased} />}
        {erasure.kind === "failed" && <ErrorNotice title={t("privacy.erase.failed")} error={erasure.error} testId="privacy-erase-error" />}
      </div>
    </section>
  );
}

/** The confirmation that it cannot be undone, and the button, with what it still waits for. */
function EraseActions({
  confirmed,
  onConfirmed,
  busy,
  blockedBy,
}: {
  confirmed: boolean;
  onConfirmed: (confirmed: boolean) => void;
  busy: boolean;
  blockedBy: string | null;
}) {
  const { t } = useI18n();
  const blockedId = useId();
  return (
    <>
      <label className="choice field-wide">
        <input type="checkbox" checked={confirmed} onChange={(e) => onConfirmed(e.target.checked)} data-testid="privacy-erase-confirm" />
        <span className="choice-label">{t("privacy.erase.confirm")}</span>
      </label>
      <div className="form-actions row-actions field-wide">
        <button
          type="submit"
          className="button button-danger"
          disabled={busy || blockedBy !== null}
          aria-describedby={blockedBy === null ? undefined : blockedId}
          data-testid="privacy-erase-go"
        >
          {busy ? t("privacy.erase.busy") : t("privacy.erase.go")}
        </button>
        {blockedBy !== null && (
          <span className="hint blocked" id={blockedId} data-testid="privacy-erase-blocked">
            {blockedBy}
          </span>
        )}
      </div>
    </>
  );
}

/** Why the number is erased: required, kept in the audit log without the number. */
function NoteField({ value, onChange, errors }: { value: string; onChange: (value: string) => void; errors: readonly FieldError[] }) {
  const { t } = useI18n();
  const ids = { note: useId(), hint: useId(), errors: useId() };
  return (
    <div className="field field-wide">
      <label htmlFor={ids.note}>{t("note.labelRequired")}</label>
      <textarea
        id={ids.note}
        rows={2}
        required
        aria-required="true"
        value={value}
        onChange={(e) => onChange(e.target.value)}
        aria-invalid={errors.length > 0}
        aria-describedby={errors.length > 0 ? `${ids.hint} ${ids.errors}` : ids.hint}
        data-testid="privacy-erase-note"
      />
      <p className="hint" id={ids.hint}>
        {t("privacy.erase.note.hint")}
      </p>
      <FieldErrors id={ids.errors} errors={errors} testId="privacy-erase-note-errors" />
    </div>
  );
}

/** What erasing does, said before it is confirmed. */
function EraseWarning() {
  const { t } = useI18n();
  const headingId = useId();
  return (
    <div className="notice notice-warning field-wide" role="note" aria-labelledby={headingId} data-testid="privacy-erase-warning">
      <h3 id={headingId}>{t("privacy.erase.warning.title")}</h3>
      <ul className="privacy-warning-list">
        <li>{t("privacy.erase.warning.cancelled")}</li>
        <li>{t("privacy.erase.warning.content")}</li>
        <li>{t("privacy.erase.warning.optOut")}</li>
        <li>{t("privacy.erase.warning.backups")}</li>
      </ul>
    </div>
  );
}

/** What the erasure did: the hash left in the number's place, what it removed, what is left to do. */
function EraseResult({ erased }: { erased: Erased }) {
  const { t, plural } = useI18n();
  const sending = Number(erased.still_sending);
  return (
    <div className="notice notice-success" data-testid="privacy-erase-result" data-still-sending={sending}>
      <p>
        {t("privacy.erase.done")}{" "}
        <code className="wrap" data-testid="privacy-erase-hash">
          {erased.hash}
        </code>
      </p>
      <RedactedCounts redacted={erased.redacted} testId="privacy-erase-redacted" />
      {sending > 0 && (
        <p className="notice notice-warning" data-testid="privacy-erase-still-sending">
          {t(`privacy.erase.stillSending.${plural(sending)}`, { count: sending })}
        </p>
      )}
      <WalLine emptied={erased.wal_emptied} />
    </div>
  );
}
