import { useState } from "react";
import { asBackendError, type Backend, type BackendError } from "../backend";
import type { ConnectionCommand } from "../bindings/ConnectionCommand";
import type { ConnectionStatus } from "../bindings/ConnectionStatus";
import { Badge } from "../components/Badge";
import { ErrorNotice } from "../components/ErrorNotice";
import { useI18n } from "../i18n/context";

/** A connection's operator hold, its queue and its rate, in words. */
export function ConnectionFigures({ status }: { status: ConnectionStatus }) {
  const { t, formatNumber, formatDateTime } = useI18n();
  const rate = Math.round(status.accepted_per_s * 10) / 10;
  return (
    <p className="connection-figures muted" data-testid="connection-figures" data-queued={status.queued ?? ""}>
      {status.hold !== null && (
        <>
          <Badge tone={status.hold.hold === "disabled" ? "danger" : "warning"}>
            <span data-testid="connection-hold" data-hold={status.hold.hold}>
              {t(`connection.hold.${status.hold.hold}`)}
            </span>
          </Badge>{" "}
          {t("connection.hold.by", { actor: status.hold.actor, time: formatDateTime(status.hold.since_ms) })}
          {status.hold.note !== null && status.hold.note !== "" && <> ({status.hold.note})</>}
          {" · "}
        </>
      )}
      {status.queued !== null && <>{t("connection.queued", { count: formatNumber(status.queued) })} · </>}
      {t("connection.rate", { rate: formatNumber(rate), limit: formatNumber(status.tps_limit) })}
    </p>
  );
}

/**
 * Drain, disable or enable a connection (admins). Each asks once more, with room for why (the
 * audit log keeps it); the hold outlasts a restart, until enabled again.
 */
export function ConnectionControls({
  backend,
  status,
  onChanged,
}: {
  backend: Backend;
  status: ConnectionStatus;
  onChanged: () => void;
}) {
  const { t } = useI18n();
  const [asked, setAsked] = useState<ConnectionCommand | null>(null);
  const [note, setNote] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<BackendError | null>(null);
  const hold = status.hold?.hold ?? null;
  const offered: ConnectionCommand[] =
    hold === null ? ["drain", "disable"] : hold === "draining" ? ["enable", "disable"] : ["enable"];

  const send = (command: ConnectionCommand): void => {
    setBusy(true);
    setError(null);
    const trimmed = note.trim();
    backend
      .commandConnection({ connection: status.connection, command, note: trimmed === "" ? null : trimmed })
      .then(
        () => {
          setAsked(null);
          setNote("");
          onChanged();
        },
        (e: unknown) => setError(asBackendError(e)),
      )
      .finally(() => setBusy(false));
  };

  return (
    <div className="row-actions connection-controls" data-testid="connection-controls">
      {asked === null &&
        offered.map((c) => (
          <button
            key={c}
            type="button"
            className="button button-secondary"
            data-testid={`connection-${c}`}
            onClick={() => setAsked(c)}
          >
            {t(`connection.command.${c}`)}
          </button>
        ))}
      {asked !== null && (
        <>
          <p className="connection-ask">{t(`connection.command.${asked}.explain`, { name: status.connection })}</p>
          <label>
            {t("connection.command.note")}{" "}
            <input
              type="text"
              value={note}
              maxLength={500}
              onChange={(e) => setNote(e.target.value)}
              data-testid="connection-note"
            />
          </label>
          <button
            type="button"
            className={asked === "enable" ? "button" : "button button-danger"}
            onClick={() => send(asked)}
            disabled={busy}
            data-testid="connection-confirm"
          >
            {t(`connection.command.${asked}.confirm`, { name: status.connection })}
          </button>
          <button type="button" className="button button-secondary" onClick={() => setAsked(null)} disabled={busy}>
            {t("connection.command.keep")}
          </button>
        </>
      )}
      {error !== null && <ErrorNotice title={t("connection.command.failed")} error={error} />}
    </div>
  );
}
