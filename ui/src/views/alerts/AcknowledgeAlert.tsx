import { useId, useState, type FormEvent } from "react";
import { asBackendError, type Backend, type BackendError } from "../../backend";
import type { AlertView } from "../../bindings/AlertView";
import { ErrorNotice } from "../../components/ErrorNotice";
import { useI18n } from "../../i18n/context";
import { FieldErrors } from "../compose/TemplateValues";

/** Acknowledged by someone else meanwhile (HTTP 400): the screen is read again, and shows who. */
const ALREADY = "bad_request";
const NOTE_MAX = 1_000;

/**
 * Acknowledging an alert (operators and admins): a note saying what is being done, required, and
 * what acknowledging does (the reminders stop; the notice that it is resolved still goes).
 */
export function AcknowledgeAlert({ backend, alert, onDone }: { backend: Backend; alert: AlertView; onDone: () => void }) {
  const { t } = useI18n();
  const [open, setOpen] = useState(false);
  const [note, setNote] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<BackendError | null>(null);

  const submit = (event: FormEvent<HTMLFormElement>): void => {
    event.preventDefault();
    if (busy || note.trim() === "") return;
    setBusy(true);
    setError(null);
    backend.acknowledgeAlert(alert.id, { note: note.trim() }).then(
      () => {
        setBusy(false);
        setOpen(false);
        onDone();
      },
      (e: unknown) => {
        const refusal = asBackendError(e);
        setBusy(false);
        setError(refusal);
        if (refusal.code === ALREADY) onDone();
      },
    );
  };

  if (!open) {
    return (
      <div className="row-actions">
        <button type="button" className="button" onClick={() => setOpen(true)} data-testid="alert-ack-open">
          {t("alerts.ack.open")}
        </button>
      </div>
    );
  }
  return (
    <form className="form alert-ack-form" onSubmit={submit} aria-busy={busy} noValidate data-testid="alert-ack-form">
      <p className="field-wide" data-testid="alert-ack-explain">
        {t("alerts.ack.explain")}
      </p>
      <NoteField value={note} onChange={setNote} errors={error?.code === "invalid" ? error.errors : []} />
      <AckActions busy={busy} blocked={note.trim() === ""} onCancel={() => setOpen(false)} />
      {error !== null && (
        <div className="field-wide">
          <ErrorNotice title={t("alerts.ack.failed")} error={error} testId="alert-ack-error" />
        </div>
      )}
    </form>
  );
}

function NoteField({
  value,
  onChange,
  errors,
}: {
  value: string;
  onChange: (value: string) => void;
  errors: BackendError["errors"];
}) {
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
        maxLength={NOTE_MAX}
        value={value}
        onChange={(e) => onChange(e.target.value)}
        aria-invalid={errors.length > 0}
        aria-describedby={errors.length > 0 ? `${ids.hint} ${ids.errors}` : ids.hint}
        data-testid="alert-ack-note"
      />
      <p className="hint" id={ids.hint}>
        {t("alerts.ack.hint")}
      </p>
      <FieldErrors id={ids.errors} errors={errors} testId="alert-ack-note-errors" />
    </div>
  );
}

function AckActions({ busy, blocked, onCancel }: { busy: boolean; blocked: boolean; onCancel: () => void }) {
  const { t } = useI18n();
  const blockedId = useId();
  return (
    <div className="form-actions row-actions field-wide">
      <button
        type="submit"
        className="button"
        disabled={busy || blocked}
        aria-describedby={blocked ? blockedId : undefined}
        data-testid="alert-ack-go"
      >
        {busy ? t("alerts.ack.busy") : t("alerts.ack.go")}
      </button>
      <button type="button" className="button button-secondary" onClick={onCancel} disabled={busy} data-testid="alert-ack-cancel">
        {t("alerts.ack.cancel")}
      </button>
      {blocked && (
        <span className="hint blocked" id={blockedId} data-testid="alert-ack-blocked">
          {t("alerts.ack.blocked")}
        </span>
      )}
    </div>
  );
}
