import { useId } from "react";
import type { Backend } from "../backend";
import type { AlertView } from "../bindings/AlertView";
import { useBackendData } from "../hooks/useBackendData";
import { formatRoute } from "../hooks/useHashRoute";
import { useI18n } from "../i18n/context";
import { alertTitle } from "../i18n/alerts/words";
import { alertChange, loadAlerts } from "./Alerts";

/**
 * At the top of the dashboard while alerts fire (it loads them itself, and follows them): nothing
 * while none does, or while they cannot be read (the dashboard's own figures stand alone then).
 */
export function DashboardAlerts({ backend }: { backend: Backend }) {
  const { state } = useBackendData(backend, loadAlerts, { live: alertChange, coalesceMs: 300 });
  if (state.status !== "ready") return null;
  const firing = state.data.alerts.filter((a) => a.resolvedAtMs === null);
  return firing.length === 0 ? null : <FiringBanner alerts={firing} />;
}

/** Each firing alert's title, and the way to the Alerts screen. */
export function FiringBanner({ alerts }: { alerts: readonly AlertView[] }) {
  const { t } = useI18n();
  const headingId = useId();
  return (
    <section className="alerts-banner" aria-labelledby={headingId} data-testid="dashboard-alerts" data-count={alerts.length}>
      <h3 id={headingId}>{t("alerts.banner.title")}</h3>
      <ul>
        {alerts.map((a) => (
          <li key={a.id} data-testid="dashboard-alert" data-id={a.id} data-rule={a.rule} data-acknowledged={a.acknowledgedAtMs !== null}>
            {alertTitle(a.rule, a.subject, t)}
            {a.acknowledgedAtMs !== null && <span className="muted"> {t("alerts.banner.acknowledged")}</span>}
          </li>
        ))}
      </ul>
      <a href={formatRoute({ section: "alerts" })} data-testid="dashboard-alerts-open">
        {t("alerts.banner.open")}
      </a>
    </section>
  );
}
