import { useEffect, useMemo, useState } from "react";
import { AccessProvider, useAccess } from "./access/context";
import type { Backend, Connection, PeopleAccess } from "./backend";
import type { ChangeEvent } from "./bindings/ChangeEvent";
import type { ConnectionStatus } from "./bindings/ConnectionStatus";
import type { LinkState } from "./bindings/LinkState";
import type { Dashboard as DashboardData } from "./bindings/Dashboard";
import type { InboxCounts } from "./bindings/InboxCounts";
import { AboutPanel } from "./components/AboutPanel";
import { AppNav } from "./components/AppNav";
import { ErrorNotice } from "./components/ErrorNotice";
import { UserMenu } from "./components/UserMenu";
import { notesChoiceFor, useAlertNotes } from "./desktop/notesChoice";
import { DisplayControls } from "./display/DisplayControls";
import { useBackendData, type DataState } from "./hooks/useBackendData";
import {
  ADMIN_SECTIONS,
  formatRoute,
  messagesPlaceOf,
  navSectionOf,
  READ_ALL_SECTIONS,
  SECTIONS,
  useHashRoute,
  type Section,
} from "./hooks/useHashRoute";
import { useSession } from "./hooks/useSession";
import { useI18n } from "./i18n/context";
import { shareSubscription } from "./live/sharedBackend";
import { Accounts } from "./views/Accounts";
import { Alerts } from "./views/Alerts";
import { ApiKeys } from "./views/ApiKeys";
import { AuditLog } from "./views/AuditLog";
import { ChangePassword } from "./views/ChangePassword";
import { Dashboard, SandboxBanner } from "./views/Dashboard";
import { ConnectionControls } from "./views/ConnectionControls";
import { DashboardAlerts } from "./views/DashboardAlerts";
import { DashboardCharts } from "./views/DashboardCharts";
import { DashboardPace } from "./views/DashboardPace";
import { DashboardNodes } from "./views/DashboardNodes";
import { DashboardSmppServer } from "./views/DashboardSmppServer";
import { Exceptions } from "./views/Exceptions";
import { Guardrails } from "./views/Guardrails";
import { Inbox } from "./views/Inbox";
import { Messages } from "./views/Messages";
import { OptOuts } from "./views/OptOuts";
import { Privacy } from "./views/Privacy";
import { Reports } from "./views/Reports";
import { Settings } from "./views/Settings";
import { ConnectProvider } from "./views/settings/ConnectProvider";
import { Setup } from "./views/Setup";
import { SignIn } from "./views/SignIn";
import logoUrl from "../../icons/icon.svg";

/**
 * The app: in a browser, the sign-in screen until a person signs in (and again as soon as their
 * session ends), or the setup screen on the first admin's link; in the desktop window, the
 * sections at once, as its computer's admin. What each person sees follows their role.
 */
export function App({ connection, setupToken = null }: { connection: Connection; setupToken?: string | null }) {
  const { t } = useI18n();
  const { backend, session, people } = connection;
  const state = useSession(session);
  // The setup link's page, until the first admin is made (then the address forgets the token).
  const [setup, setSetup] = useState(people === null ? null : setupToken);

  useEffect(() => {
    if (setup === null && state.phase === "checking") void session.check();
  }, [session, setup, state.phase]);

  const setupDone = (): void => {
    window.history.replaceState(null, "", `/${formatRoute({ section: "accounts" })}`);
    setSetup(null);
  };

  return (
    <>
      <header className="app-header">
        <div className="brand">
          <img className="brand-mark" src={logoUrl} alt="" width="32" height="32" />
          <h1 className="brand-name">{t("app.name")}</h1>
        </div>
        <p className="brand-tagline">{t("app.tagline")}</p>
        <div className="header-end">
          <DisplayControls />
          {setup === null && state.phase === "signed_in" && <UserMenu me={state.me} people={people} />}
        </div>
      </header>
      <main className="app-main">
        {setup !== null && people !== null ? (
          <Setup people={people} token={setup} onDone={setupDone} />
        ) : (
          <>
            {state.phase === "checking" && (
              <p className="status" role="status" data-testid="session-checking">
                <span className="spinner" aria-hidden="true" />
                {t("session.checking")}
              </p>
            )}
            {state.phase === "unavailable" && (
              <ErrorNotice
                title={t("session.unavailable")}
                error={state.error}
                onRetry={() => void session.check()}
                testId="session-unavailable"
              />
            )}
            {state.phase === "signed_out" && people !== null && <SignIn people={people} why={state.why} />}
            {state.phase === "signed_in" && (
              <AccessProvider me={state.me}>
                {/* Another person starts from a clean slate: nothing loaded for the previous one stays on screen. */}
                <Sections key={state.ticket} backend={backend} people={people} onMeChanged={() => void session.check()} />
              </AccessProvider>
            )}
          </>
        )}
      </main>
    </>
  );
}

const countsExceptions = (event: ChangeEvent): boolean => event.entity === "exception";
const anyChange = (): boolean => true;
const loadDashboard = (backend: Backend): Promise<DashboardData> => backend.dashboard();
const loadConnection = (backend: Backend): Promise<ConnectionStatus> => backend.connection();
const loadConnections = (backend: Backend): Promise<ConnectionStatus[]> => backend.connections();
const noConnections = (): Promise<ConnectionStatus[]> => Promise.resolve([]);
const countsReplies = (event: ChangeEvent): boolean => event.entity === "inbox_message";
const loadInboxCounts = (backend: Backend): Promise<InboxCounts> => backend.inboxCounts();
const noInboxCounts = (): Promise<InboxCounts | null> => Promise.resolve(null);

/** The link's state is not a store change: the dashboard asks for it this often. */
export const CONNECTION_POLL_MS = 5_000;

/**
 * The link the pace speaks of: sending goes on while any connection is bound (the routes fail
 * over to it), so the first bound one; else the first connection's trouble.
 */
export function sendingLink(links: DataState<ConnectionStatus[]>, connection: DataState<ConnectionStatus>): LinkState | null {
  if (links.status === "ready") {
    const bound = links.data.find((l) => l.link.state === "bound");
    if (bound !== undefined) return bound.link;
  }
  return connection.status === "ready" ? connection.data.link : null;
}

/** The sections, one shown at a time, where the URL's fragment says (so Back and links work). */
export function Sections({
  backend: direct,
  people = null,
  onMeChanged,
}: {
  backend: Backend;
  /** Present in a browser: what the own-password screen needs. */
  people?: PeopleAccess | null;
  /** Something the signed-in person did may have changed who they are (their own role). */
  onMeChanged?: () => void;
}) {
  const { me, may } = useAccess();
  // Every view's live updates share one subscription (over HTTP, one event stream).
  const backend = useMemo(() => shareSubscription(direct), [direct]);
  const [route, navigate] = useHashRoute();
  const messagesPlace = messagesPlaceOf(route);
  // What the list is narrowed to (a report's figure opened), kept while a message is open over it.
  const listQuery = route.section === "messages" ? (route.query ?? "") : "";
  const onDashboard = route.section === "dashboard";
  // The nav's count needs only exception changes; the dashboard shows figures any change may move.
  const { state: dashboard, reload: reloadDashboard } = useBackendData(backend, loadDashboard, {
    live: onDashboard ? anyChange : countsExceptions,
    coalesceMs: 500,
  });
  // The banner needs it once; the dashboard follows the link.
  const { state: connection, reload: reloadConnection } = useBackendData(backend, loadConnection, {
    ...(onDashboard ? { pollMs: CONNECTION_POLL_MS } : {}),
  });
  // Every connection, for the dashboard only (one card each when there are several).
  const { state: links, reload: reloadLinks } = useBackendData(backend, onDashboard ? loadConnections : noConnections, {
    ...(onDashboard ? { pollMs: CONNECTION_POLL_MS } : {}),
  });
  const openExceptions = dashboard.status === "ready" ? dashboard.data.open_exceptions_total : null;
  // The nav's unread count, for those who may read the inbox; it follows replies as they come and are read.
  const { state: inbox } = useBackendData<InboxCounts | null>(backend, may.readAll ? loadInboxCounts : noInboxCounts, {
    ...(may.readAll ? { live: countsReplies, coalesceMs: 300 } : {}),
  });
  const unread = inbox.status === "ready" && inbox.data !== null ? inbox.data.unread : null;
  // This computer's notifications of new alerts, wherever the person is in the app.
  const notes = useMemo(() => (may.readAll ? notesChoiceFor(window) : null), [may.readAll]);
  useAlertNotes(backend, notes);

  return (
    <>
      <SandboxBanner connection={connection} />
      <AppNav
        sections={SECTIONS.filter((s) => (may.admin || !ADMIN_SECTIONS.has(s)) && (may.readAll || !READ_ALL_SECTIONS.has(s)))}
        current={navSectionOf(route.section)}
        openExceptions={openExceptions}
        unread={unread}
      />
      {route.section === "dashboard" && (
        <Dashboard
          dashboard={dashboard}
          connection={connection}
          links={links}
          onRetry={reloadDashboard}
          onRetryConnection={reloadConnection}
          {...(may.readAll
            ? { pace: <DashboardPace backend={backend} link={sendingLink(links, connection)} /> }
            : {})}
          charts={<DashboardCharts backend={backend} />}
          {...(may.readAll ? { alerts: <DashboardAlerts backend={backend} /> } : {})}
          {...(may.readAll ? { smppServer: <DashboardSmppServer backend={backend} /> } : {})}
          {...(may.readAll ? { nodes: <DashboardNodes backend={backend} /> } : {})}
          {...(may.admin
            ? {
                controls: (status: ConnectionStatus) => (
                  <ConnectionControls backend={backend} status={status} onChanged={reloadLinks} />
                ),
              }
            : {})}
        />
      )}
      {messagesPlace !== null && (
        <Messages
          backend={backend}
          place={messagesPlace}
          openId={route.section === "messages" ? route.id : null}
          onOpen={(id) => navigate({ section: "messages", id, query: listQuery })}
          onClose={() => navigate({ section: "messages", id: null, query: listQuery })}
          onOpenException={(id) => navigate({ section: "exceptions", id })}
          narrowing={listQuery}
          onNarrowing={(query) => navigate({ section: "messages", id: null, query })}
        />
      )}
      {route.section === "reports" && may.readAll && (
        <Reports
          backend={backend}
          query={route.query ?? ""}
          onQuery={(query) => navigate({ section: "reports", query })}
        />
      )}
      {route.section === "exceptions" && (
        <Exceptions
          backend={backend}
          openId={route.id}
          {...(route.kind === undefined ? {} : { kind: route.kind })}
          onOpen={(id) => navigate({ section: "exceptions", id })}
          onClose={() => navigate({ section: "exceptions", id: null })}
          onOpenMessage={(id) => navigate({ section: "messages", id })}
        />
      )}
      {route.section === "inbox" && may.readAll && (
        <Inbox
          backend={backend}
          connection={connection}
          openThread={route.thread}
          onOpenThread={(thread) => navigate({ section: "inbox", thread })}
          onOpenMessage={(id) => navigate({ section: "messages", id })}
          {...(may.act ? { simulateReply: (from: string, text: string) => backend.sandboxReply({ from, text }) } : {})}
        />
      )}
      {route.section === "alerts" && may.readAll && <Alerts backend={backend} notes={notes} />}
      {route.section === "guardrails" && may.readAll && <Guardrails backend={backend} />}
      {route.section === "optouts" && may.readAll && (
        <OptOuts backend={backend} onOpenThread={(thread) => navigate({ section: "inbox", thread })} />
      )}
      {READ_ALL_SECTIONS.has(route.section) && !may.readAll && <NotForYou section={route.section} />}
      {route.section === "audit" && (
        <AuditLog
          backend={backend}
          onOpenMessage={(id) => navigate({ section: "messages", id })}
          onOpenException={(id) => navigate({ section: "exceptions", id })}
        />
      )}
      {ADMIN_SECTIONS.has(route.section) && !may.admin && <NotForYou section={route.section} />}
      {route.section === "settings" &&
        may.admin &&
        (route.connect === true ? (
          <ConnectProvider
            backend={backend}
            onClose={() => navigate({ section: "settings" })}
            onSwitched={reloadConnection}
          />
        ) : (
          <Settings backend={backend} />
        ))}
      {route.section === "keys" && may.admin && <ApiKeys backend={backend} />}
      {route.section === "accounts" && may.admin && <Accounts backend={backend} {...(onMeChanged ? { onChanged: onMeChanged } : {})} />}
      {route.section === "privacy" && may.admin && <Privacy backend={backend} />}
      {route.section === "about" && <AboutPanel backend={backend} />}
      {route.section === "password" &&
        (people !== null && me.kind === "person" ? <ChangePassword people={people} /> : <NotForYou section={route.section} />)}
    </>
  );
}

/** A section this person does not have (an address typed or kept from another sign-in). */
function NotForYou({ section }: { section: Section }) {
  const { t } = useI18n();
  const { me } = useAccess();
  return (
    <div className="notice notice-info" data-testid="not-for-you" data-section={section}>
      <h2>{t("notForYou.title")}</h2>
      <p>
        {section === "password"
          ? t("notForYou.password")
          : section === "reports"
            ? t("notForYou.reports")
            : READ_ALL_SECTIONS.has(section)
              ? t("notForYou.readAll")
              : t("notForYou.admin", { role: me.role === null ? "" : t(`role.${me.role}`) })}
      </p>
    </div>
  );
}
