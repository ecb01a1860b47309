import { useMemo } from "react";
import type { Backend, Connection } from "./backend";
import type { ChangeEvent } from "./bindings/ChangeEvent";
import type { ConnectionStatus } from "./bindings/ConnectionStatus";
import type { Dashboard as DashboardData } from "./bindings/Dashboard";
import { AboutPanel } from "./components/AboutPanel";
import { useBackendData } from "./hooks/useBackendData";
import { formatRoute, SECTIONS, useHashRoute } from "./hooks/useHashRoute";
import { useSession } from "./hooks/useSession";
import { useI18n } from "./i18n/context";
import { shareSubscription } from "./live/sharedBackend";
import { ApiKeys } from "./views/ApiKeys";
import { AuditLog } from "./views/AuditLog";
import { Dashboard, SandboxBanner } from "./views/Dashboard";
import { DashboardCharts } from "./views/DashboardCharts";
import { Exceptions } from "./views/Exceptions";
import { Messages } from "./views/Messages";
import { Settings } from "./views/Settings";
import { SignIn } from "./views/SignIn";
import logoUrl from "../../icons/icon.svg";

/**
 * The app: in a browser, the sign-in screen until the engine accepts a key (and again as soon as
 * it stops accepting it); in the desktop window, the sections at once.
 */
export function App({ connection }: { connection: Connection }) {
  const { t } = useI18n();
  const { backend, signIn } = connection;
  const session = useSession(signIn?.session ?? null);
  const signedIn = signIn === null || session.key !== null;

  return (
    <>
      <header className="app-header">
        <div className="brand">
          <img className="brand-mark" src={logoUrl} alt="" width="32" height="32" />
          <h1 className="brand-name">{t("app.name")}</h1>
        </div>
        <p className="brand-tagline">{t("app.tagline")}</p>
        {signIn !== null && signedIn && (
          <button
            type="button"
            className="button button-secondary header-action"
            onClick={() => signIn.session.signOut()}
            data-testid="sign-out"
          >
            {t("session.signOut")}
          </button>
        )}
      </header>
      <main className="app-main">
        {signedIn ? (
          // A new key starts from a clean slate: nothing loaded with the previous one stays on screen.
          <Sections key={session.key ?? "operator"} backend={backend} />
        ) : (
          <SignIn signIn={signIn} refused={session.refused} />
        )}
      </main>
    </>
  );
}

const countsExceptions = (event: ChangeEvent): boolean => event.entity === "exception";
const anyChange = (): boolean => true;
const loadDashboard = (backend: Backend): Promise<DashboardData> => backend.dashboard();
const loadConnection = (backend: Backend): Promise<ConnectionStatus> => backend.connection();

/** The link's state is not a store change: the dashboard asks for it this often. */
export const CONNECTION_POLL_MS = 5_000;

/** The sections, one shown at a time, where the URL's fragment says (so Back and links work). */
export function Sections({ backend: direct }: { backend: Backend }) {
  const { t, formatNumber } = useI18n();
  // Every view's live updates share one subscription (over HTTP, one event stream).
  const backend = useMemo(() => shareSubscription(direct), [direct]);
  const [route, navigate] = useHashRoute();
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
  const openExceptions = dashboard.status === "ready" ? dashboard.data.open_exceptions_total : null;

  return (
    <>
      <SandboxBanner connection={connection} />
      <nav className="app-nav" aria-label={t("nav.label")}>
        <ul>
          {SECTIONS.map((s) => (
            <li key={s}>
              <a
                href={formatRoute(s === "messages" || s === "exceptions" ? { section: s, id: null } : { section: s })}
                className="nav-item"
                aria-current={s === route.section ? "page" : undefined}
                data-testid={`nav-${s}`}
              >
                {t(`nav.${s}`)}
                {s === "exceptions" && openExceptions !== null && openExceptions > 0 && (
                  <span className="nav-count" data-testid="nav-exceptions-count" data-count={openExceptions}>
                    <span aria-hidden="true">{formatNumber(openExceptions)}</span>
                    <span className="visually-hidden">{t("nav.openCount", { count: openExceptions })}</span>
                  </span>
                )}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      {route.section === "dashboard" && (
        <Dashboard
          dashboard={dashboard}
          connection={connection}
          onRetry={reloadDashboard}
          onRetryConnection={reloadConnection}
          charts={<DashboardCharts backend={backend} />}
        />
      )}
      {route.section === "messages" && (
        <Messages
          backend={backend}
          openId={route.id}
          onOpen={(id) => navigate({ section: "messages", id })}
          onClose={() => navigate({ section: "messages", id: null })}
          onOpenException={(id) => navigate({ section: "exceptions", id })}
        />
      )}
      {route.section === "exceptions" && (
        <Exceptions
          backend={backend}
          openId={route.id}
          onOpen={(id) => navigate({ section: "exceptions", id })}
          onClose={() => navigate({ section: "exceptions", id: null })}
          onOpenMessage={(id) => navigate({ section: "messages", id })}
        />
      )}
      {route.section === "audit" && (
        <AuditLog
          backend={backend}
          onOpenMessage={(id) => navigate({ section: "messages", id })}
          onOpenException={(id) => navigate({ section: "exceptions", id })}
        />
      )}
      {route.section === "settings" && <Settings backend={backend} />}
      {route.section === "keys" && <ApiKeys backend={backend} />}
      {route.section === "about" && <AboutPanel backend={backend} />}
    </>
  );
}
