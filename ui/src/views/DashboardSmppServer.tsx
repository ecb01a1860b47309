import { useId } from "react";
import type { Backend } from "../backend";
import type { SmppServerSession } from "../bindings/SmppServerSession";
import type { SmppServerStatus } from "../bindings/SmppServerStatus";
import { Badge } from "../components/Badge";
import { useBackendData } from "../hooks/useBackendData";
import { useI18n } from "../i18n/context";
import { ScrollArea } from "../components/ScrollArea";

/** The sessions' rates and the receipts waiting move with time as well as with store changes: asked for this often. */
export const SMPP_SERVER_POLL_MS = 5_000;

const anyChange = (): boolean => true;
const loadSmppServer = (backend: Backend): Promise<SmppServerStatus> => backend.smppServer();

/**
 * smsdesk's own SMPP server on the dashboard, for those who read everything: nothing unless it
 * is enabled (nor while it cannot be read: the dashboard's other figures stand alone then). It
 * loads its own state and keeps it current, as the rest of the dashboard does.
 */
export function DashboardSmppServer({ backend }: { backend: Backend }) {
  const { state } = useBackendData(backend, loadSmppServer, {
    live: anyChange,
    coalesceMs: 1_000,
    pollMs: SMPP_SERVER_POLL_MS,
  });
  if (state.status !== "ready" || !state.data.enabled) return null;
  return <SmppServerCard status={state.data} now={Date.now()} />;
}

/** Where it listens (and whether over TLS), why it does not, who is bound, and the receipts owed. */
export function SmppServerCard({ status, now }: { status: SmppServerStatus; now: number }) {
  const { t, formatNumber, plural } = useI18n();
  const headingId = useId();
  const waiting = status.waiting;
  return (
    <section className="dashboard-smpp-server" aria-labelledby={headingId} data-testid="dashboard-smpp-server">
      <h3 id={headingId}>{t("smppServer.title")}</h3>
      {status.listening !== null && (
        <p className="smpp-server-listening" data-testid="smpp-server-listening" data-tls={status.tls}>
          <span>{t("smppServer.listening", { address: status.listening })}</span>{" "}
          {status.tls ? (
            <Badge tone="success">{t("smppServer.tls")}</Badge>
          ) : (
            <Badge tone="neutral">{t("smppServer.clear")}</Badge>
          )}
        </p>
      )}
      {status.problem !== null && (
        <div className="notice notice-error" role="alert" data-testid="smpp-server-problem">
          <p>
            <strong>{t("smppServer.problem")}</strong>
          </p>
          <p className="smpp-server-problem-text" lang="en">
            {status.problem}
          </p>
        </div>
      )}
      {status.listening === null && status.problem === null && (
        <p className="muted" data-testid="smpp-server-starting">
          {t("smppServer.starting")}
        </p>
      )}
      {status.sessions.length === 0 ? (
        <p className="muted" data-testid="smpp-server-none">
          {t("smppServer.none")}
        </p>
      ) : (
        <Sessions sessions={status.sessions} now={now} />
      )}
      <p
        className={waiting === 0 ? "muted" : "smpp-server-waiting"}
        data-testid="smpp-server-waiting"
        data-count={waiting}
      >
        {waiting === 0 ? t("smppServer.waiting.none") : t(`smppServer.waiting.${plural(waiting)}`, { count: formatNumber(waiting) })}
      </p>
    </section>
  );
}

function Sessions({ sessions, now }: { sessions: readonly SmppServerSession[]; now: number }) {
  const { t, formatNumber, formatAge, formatDateTime } = useI18n();
  const rate = (perSecond: number): string => formatNumber(Math.round(perSecond * 10) / 10);
  return (
    <ScrollArea>
      <table className="table" aria-label={t("smppServer.table")} data-testid="smpp-server-sessions">
        <thead>
          <tr>
            <th scope="col">{t("smppServer.col.account")}</th>
            <th scope="col">{t("smppServer.col.bind")}</th>
            <th scope="col">{t("smppServer.col.peer")}</th>
            <th scope="col">{t("smppServer.col.tls")}</th>
            <th scope="col">{t("smppServer.col.since")}</th>
            <th scope="col" className="num">
              {t("smppServer.col.submitted")}
            </th>
            <th scope="col" className="num">
              {t("smppServer.col.refused")}
            </th>
            <th scope="col" className="num">
              {t("smppServer.col.rate")}
            </th>
            <th scope="col" className="num">
              {t("smppServer.col.delivered")}
            </th>
          </tr>
        </thead>
        <tbody>
          {sessions.map((s) => (
            <tr key={s.id} data-testid="smpp-server-session" data-id={s.id} data-account={s.account}>
              <td>
                <code>{s.account}</code>
              </td>
              <td>{t(`smppServer.bind.${s.bind}`)}</td>
              <td>
                <code>{s.peer}</code>
              </td>
              <td data-testid="smpp-session-tls" data-tls={s.tls}>
                {s.tls ? <Badge tone="success">{t("smppServer.tls")}</Badge> : <span className="muted">{t("smppServer.session.clear")}</span>}
              </td>
              <td className="nowrap">
                <time dateTime={new Date(s.since_ms).toISOString()} title={formatDateTime(s.since_ms)} data-testid="smpp-session-since">
                  {formatAge(s.since_ms, now)}
                </time>
              </td>
              <td className="num">{formatNumber(s.submitted)}</td>
              <td className="num" data-testid="smpp-session-refused">
                {s.refused > 0 ? <Badge tone="warning">{formatNumber(s.refused)}</Badge> : formatNumber(s.refused)}
              </td>
              <td className="num" data-testid="smpp-session-rate">
                {rate(s.rate_per_s)}
              </td>
              <td className="num">{formatNumber(s.delivered)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </ScrollArea>
  );
}
