import { useId, type ReactNode } from "react";
import { useAccess } from "../access/context";
import type { BackupStatus } from "../bindings/BackupStatus";
import type { ConnectionStatus } from "../bindings/ConnectionStatus";
import type { Dashboard as DashboardData } from "../bindings/Dashboard";
import type { LinkState } from "../bindings/LinkState";
import { Badge } from "../components/Badge";
import { ErrorNotice } from "../components/ErrorNotice";
import type { DataState } from "../hooks/useBackendData";
import { formatRoute } from "../hooks/useHashRoute";
import { useI18n } from "../i18n/context";
import { ConnectionFigures } from "./ConnectionControls";
import type { I18n } from "../i18n/i18n";
import { QUEUE_TONE, STATE_TONE, type Tone } from "./tones";
import { SpendNowList } from "./guardrails/SpendNow";
import type { SpendNow } from "../bindings/SpendNow";

export const LINK_TONE: Readonly<Record<LinkState["state"], Tone>> = {
  connecting: "progress",
  bound: "success",
  down: "danger",
  bind_refused: "danger",
  stopped: "warning",
};

/** The connection's state as a person says it: "Connected to the sandbox since 2 Dec 2026, 10:42 GMT+1". */
export function linkWords(status: ConnectionStatus, i18n: I18n): string {
  const { t } = i18n;
  const since = (ms: number): string => i18n.formatDateTime(ms);
  const link = status.link;
  switch (link.state) {
    case "bound":
      return status.sandbox
        ? t("link.bound.sandbox", { time: since(link.since_ms) })
        : t("link.bound", { time: since(link.since_ms) });
    case "connecting":
      return link.attempt <= 1 ? t("link.connecting") : t("link.reconnecting", { attempt: link.attempt });
    case "down":
      return t("link.down", {
        time: since(link.since_ms),
        error: link.error,
        seconds: Math.max(1, Math.ceil(link.retry_in_ms / 1000)),
      });
    case "bind_refused":
      return t("link.bindRefused", {
        name: link.name !== "" ? link.name : `0x${link.status.toString(16).padStart(8, "0")}`,
      });
    case "stopped":
      return t("link.stopped");
  }
}

/**
 * Across the top of every screen while the embedded sandbox SMSC is the connection, with the way
 * out: the guide to connecting the provider for an admin; for anyone else, who can do it.
 */
export function SandboxBanner({ connection }: { connection: DataState<ConnectionStatus> }) {
  const { t } = useI18n();
  const { may } = useAccess();
  if (connection.status !== "ready" || !connection.data.sandbox) return null;
  return (
    <div className="sandbox-banner" role="status" data-testid="sandbox-banner">
      <span data-testid="sandbox-banner-text">{t("sandbox.banner")}</span>{" "}
      {may.admin ? (
        <a href={formatRoute({ section: "settings", connect: true })} data-testid="sandbox-banner-connect">
          {t("sandbox.banner.connect")}
        </a>
      ) : (
        <span data-testid="sandbox-banner-admin">{t("sandbox.banner.askAdmin")}</span>
      )}
    </div>
  );
}

export interface DashboardProps {
  readonly dashboard: DataState<DashboardData>;
  readonly connection: DataState<ConnectionStatus>;
  /** Every connection; when there are several, each is shown with its name. */
  readonly links?: DataState<ConnectionStatus[]>;
  readonly onRetry: () => void;
  readonly onRetryConnection: () => void;
  /**
   * The pace of sending and the time the queue will take (it loads its own data). When given, it
   * is the one place the screen says how many messages wait: the queue card and the connections
   * leave that figure to it, so that one screen shows one queued figure, from one read.
   */
  readonly pace?: ReactNode;
  /** The charts (they load their own data, for the period the user picks). */
  readonly charts?: ReactNode;
  /** An admin's drain, disable and enable of a connection (none for the others). */
  readonly controls?: (status: ConnectionStatus) => ReactNode;
  /** The alerts firing now, first of all (they load their own data; nothing while none fires). */
  readonly alerts?: ReactNode;
  /** smsdesk's own SMPP server (it loads its own state; nothing unless it is enabled). */
  readonly smppServer?: ReactNode;
  /** The nodes that share the database (shown with several). */
  readonly nodes?: ReactNode;
}

/** How sending is going: the connection, the queue, what the network reported, what needs a person. */
export function Dashboard({
  dashboard,
  connection,
  links,
  onRetry,
  onRetryConnection,
  pace,
  charts,
  controls,
  alerts,
  smppServer,
  nodes,
}: DashboardProps) {
  const { t } = useI18n();
  const headingId = useId();
  const queuedInPace = pace !== undefined && pace !== null;
  return (
    <section className="panel" aria-labelledby={headingId} data-testid="dashboard">
      <h2 id={headingId}>{t("dashboard.title")}</h2>
      {alerts}
      <p className="panel-intro">{t("dashboard.intro")}</p>
      {links?.status === "ready" && links.data.length > 1 ? (
        <ConnectionsCard links={links.data} controls={controls} queuedInPace={queuedInPace} />
      ) : (
        <ConnectionCard
          connection={links?.status === "ready" && links.data.length === 1 ? { status: "ready", data: links.data[0]! } : connection}
          onRetry={onRetryConnection}
          controls={controls}
          queuedInPace={queuedInPace}
        />
      )}
      {pace}
      {smppServer}
      {nodes}
      {dashboard.status === "loading" && (
        <p className="status" role="status" data-testid="dashboard-loading">
          <span className="spinner" aria-hidden="true" />
          {t("dashboard.loading")}
        </p>
      )}
      {dashboard.status === "error" && (
        <ErrorNotice title={t("dashboard.error")} error={dashboard.error} onRetry={onRetry} testId="dashboard-error" />
      )}
      {dashboard.status === "ready" && <Figures data={dashboard.data} queuedInPace={queuedInPace} />}
      {charts}
    </section>
  );
}

/** A connection's figures without its queued count when the pace says it (one figure, one read). */
function figuresOf(status: ConnectionStatus, queuedInPace: boolean): ConnectionStatus {
  return queuedInPace ? { ...status, queued: null } : status;
}

function ConnectionCard({
  connection,
  onRetry,
  controls,
  queuedInPace,
}: {
  connection: DataState<ConnectionStatus>;
  onRetry: () => void;
  controls: DashboardProps["controls"];
  queuedInPace: boolean;
}) {
  const i18n = useI18n();
  const { t } = i18n;
  return (
    <div className="dashboard-connection" data-testid="dashboard-connection">
      <h3>{t("dashboard.connection")}</h3>
      {connection.status === "loading" && (
        <p className="status" role="status">
          <span className="spinner" aria-hidden="true" />
          {t("dashboard.connection.loading")}
        </p>
      )}
      {connection.status === "error" && (
        <ErrorNotice
          title={t("dashboard.connection.error")}
          error={connection.error}
          onRetry={onRetry}
          testId="connection-error"
        />
      )}
      {connection.status === "ready" && (
        <p
          className={`link-state link-${LINK_TONE[connection.data.link.state]}`}
          data-testid="link-state"
          data-state={connection.data.link.state}
        >
          {linkWords(connection.data, i18n)}
        </p>
      )}
      {connection.status === "ready" && connection.data.binds.length > 1 && <BindStates status={connection.data} />}
      {connection.status === "ready" && <ConnectionFigures status={figuresOf(connection.data, queuedInPace)} />}
      {connection.status === "ready" && controls?.(connection.data)}
    </div>
  );
}

/** Several connections: each one's name and link, and its binds when it opens several. */
function ConnectionsCard({
  links,
  controls,
  queuedInPace,
}: {
  links: readonly ConnectionStatus[];
  controls: DashboardProps["controls"];
  queuedInPace: boolean;
}) {
  const i18n = useI18n();
  return (
    <div className="dashboard-connection" data-testid="dashboard-connection">
      <h3>{i18n.t("dashboard.connections")}</h3>
      <ul className="connection-links" data-testid="connection-links">
        {links.map((link) => (
          <li key={link.connection} data-testid="connection-link" data-connection={link.connection}>
            <p
              className={`link-state link-${LINK_TONE[link.link.state]}`}
              data-testid="link-state"
              data-state={link.link.state}
            >
              <strong className="connection-name">{link.connection}</strong> {linkWords(link, i18n)}
            </p>
            {link.binds.length > 1 && <BindStates status={link} />}
            <ConnectionFigures status={figuresOf(link, queuedInPace)} />
            {controls?.(link)}
          </li>
        ))}
      </ul>
    </div>
  );
}

/** Each bind of a connection that opens several, numbered within its role ("Transmitter 2"). */
function BindStates({ status }: { status: ConnectionStatus }) {
  const i18n = useI18n();
  const seen = new Map<string, number>();
  return (
    <ul className="bind-states" data-testid="bind-states">
      {status.binds.map((bind, i) => {
        const n = (seen.get(bind.role) ?? 0) + 1;
        seen.set(bind.role, n);
        return (
          <li
            key={i}
            className={`link-state link-${LINK_TONE[bind.link.state]}`}
            data-testid="bind-state"
            data-role={bind.role}
            data-state={bind.link.state}
          >
            <span className="bind-role">{i18n.t(`bind.${bind.role}`, { n })}</span>{" "}
            {linkWords({ ...status, link: bind.link }, i18n)}
          </li>
        );
      })}
    </ul>
  );
}

function Figures({ data, queuedInPace }: { data: DashboardData; queuedInPace: boolean }) {
  const { t, formatNumber } = useI18n();
  const openKinds = data.open_exceptions.filter((e) => e.count > 0);
  const exceptionsHref = formatRoute({ section: "exceptions", id: null });
  return (
    <div className="dashboard-grid" data-testid="dashboard-figures">
      <div className="dashboard-card">
        <h3>{t("dashboard.created")}</h3>
        <dl className="count-list">
          <Count label={t("dashboard.created.today")} value={data.created_today} testId="created-today" />
          <Count label={t("dashboard.created.last24h")} value={data.created_last_24h} testId="created-24h" />
          <Count label={t("dashboard.created.total")} value={data.messages_total} testId="created-total" />
        </dl>
      </div>
      <div className="dashboard-card">
        <h3>{t("dashboard.exceptions")}</h3>
        {openKinds.length === 0 ? (
          <p className="muted" data-testid="exceptions-none">
            {t("dashboard.exceptions.none")}
          </p>
        ) : (
          <>
            <ul className="count-list">
              {openKinds.map((e) => (
                <li key={e.kind} data-testid="open-exception-count" data-kind={e.kind} data-count={e.count}>
                  <a href={exceptionsHref}>{t(`exceptionKind.${e.kind}`)}</a>
                  <span className="count">{formatNumber(e.count)}</span>
                </li>
              ))}
            </ul>
            <p className="dashboard-more">
              <a href={exceptionsHref} data-testid="exceptions-all">
                {t("dashboard.exceptions.all", { count: data.open_exceptions_total })}
              </a>
            </p>
          </>
        )}
      </div>
      {data.spend !== null && <SpendCard spend={data.spend} />}
      <BackupsCard backups={data.backups} />
      <div className="dashboard-card">
        <h3>{t("dashboard.queue")}</h3>
        <dl className="count-list">
          {data.queue.filter((q) => !(queuedInPace && q.status === "queued")).map((q) => (
            <Count
              key={q.status}
              label={<Badge tone={QUEUE_TONE[q.status]}>{t(`queueStatus.${q.status}`)}</Badge>}
              value={q.count}
              testId="queue-count"
              data={q.status}
            />
          ))}
        </dl>
      </div>
      <div className="dashboard-card">
        <h3>{t("dashboard.states")}</h3>
        <dl className="count-list">
          {data.states.map((s) => (
            <Count
              key={s.state}
              label={<Badge tone={STATE_TONE[s.state]}>{t(`deliveryState.${s.state}`)}</Badge>}
              value={s.count}
              testId="state-count"
              data={s.state}
            />
          ))}
        </dl>
      </div>
    </div>
  );
}

/** What was spent today and this month, against the limits (shown once a connection has prices). */
function SpendCard({ spend }: { spend: SpendNow }) {
  const { t } = useI18n();
  const { may } = useAccess();
  return (
    <div className="dashboard-card" data-testid="dashboard-spend">
      <h3>{t("dashboard.spend.title")}</h3>
      <SpendNowList spend={spend} testId="dashboard-spend-now" />
      {may.readAll && (
        <p className="dashboard-more">
          <a href={formatRoute({ section: "guardrails" })} data-testid="dashboard-spend-more">
            {t("dashboard.spend.more")}
          </a>
        </p>
      )}
    </div>
  );
}

/** When the last backup was taken, and whether one is taken every day. */
function BackupsCard({ backups }: { backups: BackupStatus }) {
  const { t, formatDateTime } = useI18n();
  return (
    <div className="dashboard-card" data-testid="dashboard-backups">
      <h3>{t("dashboard.backups")}</h3>
      {backups.last_backup_ms === null ? (
        <p className="muted" data-testid="backup-last" data-ms="">
          {t("dashboard.backups.none")}
        </p>
      ) : (
        <p data-testid="backup-last" data-ms={backups.last_backup_ms}>
          {t("dashboard.backups.last", { time: formatDateTime(backups.last_backup_ms) })}
        </p>
      )}
      <p className="muted" data-testid="backup-automatic" data-automatic={backups.automatic}>
        {backups.automatic ? t("dashboard.backups.daily", { days: backups.keep_days }) : t("dashboard.backups.off")}
      </p>
    </div>
  );
}

function Count({
  label,
  value,
  testId,
  data,
}: {
  label: ReactNode;
  value: number;
  testId: string;
  data?: string;
}) {
  const { formatNumber } = useI18n();
  return (
    <div className={value === 0 ? "count-row count-zero" : "count-row"} data-testid={testId} data-key={data} data-count={value}>
      <dt>{label}</dt>
      <dd className="count">{formatNumber(value)}</dd>
    </div>
  );
}
