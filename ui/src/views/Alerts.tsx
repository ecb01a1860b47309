import { useId } from "react";
import type { Backend } from "../backend";
import type { AlertsOverview } from "../bindings/AlertsOverview";
import type { ChangeEvent } from "../bindings/ChangeEvent";
import { ErrorNotice } from "../components/ErrorNotice";
import type { NotesChoice } from "../desktop/notesChoice";
import { useBackendData } from "../hooks/useBackendData";
import { useI18n } from "../i18n/context";
import { AlertChannels } from "./alerts/AlertChannels";
import { AlertHistory } from "./alerts/AlertHistory";
import { AlertRules } from "./alerts/AlertRules";
import { FiringNow } from "./alerts/FiringNow";
import { NotifyToggle } from "./alerts/NotifyToggle";

export const loadAlerts = (backend: Backend): Promise<AlertsOverview> => backend.alerts();
/** An alert fired, reminded, was acknowledged or resolved: what shows alerts follows. */
export const alertChange = (event: ChangeEvent): boolean => event.entity === "alert";

/**
 * Alerts, for everyone who reads everything: what fires now (acknowledged by operators and
 * admins), what fired before, each rule's threshold, and the channels alerts go to (tested by
 * admins). `notes` is this computer's choice of notifications, where it can show them.
 */
export function Alerts({ backend, notes = null }: { backend: Backend; notes?: NotesChoice | null }) {
  const { t } = useI18n();
  const headingId = useId();
  const { state, reload } = useBackendData(backend, loadAlerts, { live: alertChange, coalesceMs: 300 });

  return (
    <div className="stack" data-testid="alerts">
      <section className="panel" aria-labelledby={headingId} aria-busy={state.status === "loading"}>
        <h2 id={headingId}>{t("alerts.title")}</h2>
        <p className="panel-intro">{t("alerts.intro")}</p>
        {notes !== null && <NotifyToggle choice={notes} />}
        {state.status === "loading" && (
          <p className="status" role="status" data-testid="alerts-loading">
            <span className="spinner" aria-hidden="true" />
            {t("alerts.loading")}
          </p>
        )}
        {state.status === "error" && <ErrorNotice title={t("alerts.error")} error={state.error} onRetry={reload} testId="alerts-error" />}
        {state.status === "ready" && !state.data.enabled && (
          <p className="notice notice-warning" data-testid="alerts-disabled">
            {t("alerts.disabled")}
          </p>
        )}
      </section>
      {state.status === "ready" && (
        <>
          <FiringNow alerts={state.data.alerts.filter((a) => a.resolvedAtMs === null)} backend={backend} onChanged={reload} />
          <AlertHistory alerts={state.data.alerts} />
          <AlertRules rules={state.data.rules} />
          <AlertChannels overview={state.data} backend={backend} onTested={reload} />
        </>
      )}
    </div>
  );
}
