import { useState } from "react";
import { asBackendError, type Backend, type BackendError } from "../../backend";
import type { SessionInfo } from "../../bindings/SessionInfo";
import { ErrorNotice } from "../../components/ErrorNotice";
import { useI18n } from "../../i18n/context";
import { ScrollArea } from "../../components/ScrollArea";

/** Signed-in browsers, newest first: who, from where, since when, last seen; each can be ended. */
export function SessionTable({
  backend,
  sessions,
  onChanged,
}: {
  backend: Backend;
  sessions: readonly SessionInfo[];
  onChanged: () => void;
}) {
  const { t } = useI18n();
  if (sessions.length === 0) return <p className="empty">{t("sessions.empty")}</p>;
  return (
    <ScrollArea>
      <table className="table" data-testid="sessions-table">
        <thead>
          <tr>
            <th scope="col">{t("sessions.col.who")}</th>
            <th scope="col">{t("sessions.col.from")}</th>
            <th scope="col">{t("sessions.col.since")}</th>
            <th scope="col">{t("sessions.col.lastSeen")}</th>
            <th scope="col">{t("accounts.col.actions")}</th>
          </tr>
        </thead>
        <tbody>
          {sessions.map((s) => (
            <SessionRow key={s.id} backend={backend} session={s} onEnded={onChanged} />
          ))}
        </tbody>
      </table>
    </ScrollArea>
  );
}

function SessionRow({ backend, session: s, onEnded }: { backend: Backend; session: SessionInfo; onEnded: () => void }) {
  const { t, formatDateTime } = useI18n();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<BackendError | null>(null);

  const end = (): void => {
    setBusy(true);
    setError(null);
    backend.revokeSession(s.id).then(onEnded, (e: unknown) => {
      setBusy(false);
      setError(asBackendError(e));
    });
  };

  return (
    <tr data-testid="session-row" data-id={s.id} data-name={s.account_name}>
      <th scope="row">{s.account_name}</th>
      <td className="wrap">
        <span data-testid="session-address">{s.address}</span>
        {s.user_agent !== "" && (
          <span className="muted session-agent" title={s.user_agent}>
            {" "}
            · {browserName(s.user_agent)}
          </span>
        )}
      </td>
      <td>
        <time dateTime={new Date(s.created_at_ms).toISOString()}>{formatDateTime(s.created_at_ms)}</time>
      </td>
      <td>
        <time dateTime={new Date(s.last_seen_ms).toISOString()}>{formatDateTime(s.last_seen_ms)}</time>
      </td>
      <td>
        <button
          type="button"
          className="button button-secondary button-small"
          onClick={end}
          disabled={busy}
          aria-label={t("sessions.end.label", { name: s.account_name, address: s.address })}
          data-testid="session-end"
        >
          {t("sessions.end")}
        </button>
        {error !== null && <ErrorNotice title={t("sessions.end.failed")} error={error} />}
      </td>
    </tr>
  );
}

/** A user agent in a few words: the browser and the system, as far as they can be told. */
export function browserName(userAgent: string): string {
  const browser =
    [/Edg\/\d+/, /OPR\/\d+/, /Firefox\/\d+/, /Chrome\/\d+/, /Version\/\d+.*Safari/]
      .map((re) => re.exec(userAgent)?.[0])
      .find((m) => m !== undefined) ?? "";
  const name = browser.startsWith("Edg")
    ? "Edge"
    : browser.startsWith("OPR")
      ? "Opera"
      : browser.startsWith("Firefox")
        ? "Firefox"
        : browser.startsWith("Chrome")
          ? userAgent.includes("HeadlessChrome")
            ? "Headless Chrome"
            : "Chrome"
          : browser !== ""
            ? "Safari"
            : "";
  const system = /Windows/.test(userAgent)
    ? "Windows"
    : /Android/.test(userAgent)
      ? "Android"
      : /iPhone|iPad/.test(userAgent)
        ? "iOS"
        : /Mac OS X/.test(userAgent)
          ? "macOS"
          : /Linux/.test(userAgent)
            ? "Linux"
            : "";
  const words = [name, system].filter((w) => w !== "").join(", ");
  return words === "" ? userAgent.slice(0, 40) : words;
}
