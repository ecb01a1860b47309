import { useId, useState } from "react";
import type { Backend } from "../backend";
import type { ChangeEvent } from "../bindings/ChangeEvent";
import type { PrivacyOverview } from "../bindings/PrivacyOverview";
import { ErrorNotice } from "../components/ErrorNotice";
import { useBackendData } from "../hooks/useBackendData";
import { useI18n } from "../i18n/context";
import { EraseNumberPanel } from "./privacy/EraseNumber";
import { RecentRemovals } from "./privacy/RecentRemovals";
import { RetentionInForce, RunRetention } from "./privacy/Retention";
import { SubjectAccessPanel } from "./privacy/SubjectAccess";

const loadOverview = (backend: Backend): Promise<PrivacyOverview> => backend.privacyOverview();
// A run (the daily one too) and an erasure are audited as they end: the latest removals follow.
const removalsChange = (event: ChangeEvent): boolean => event.entity === "audit";

/**
 * Personal data, an admin's: how long personal content is kept and a run now, the latest
 * removals, and a number's requests: to be given everything held about it, or to be erased.
 */
export function Privacy({ backend }: { backend: Backend }) {
  const { t } = useI18n();
  const headingId = useId();
  const { state, reload } = useBackendData(backend, loadOverview, { live: removalsChange, coalesceMs: 500 });
  // A record shown before an erasure may hold what was just erased: the lookup starts afresh.
  const [erasures, setErasures] = useState(0);
  const erased = (): void => {
    setErasures((n) => n + 1);
    reload();
  };

  return (
    <div className="stack" data-testid="privacy">
      <section className="panel" aria-labelledby={headingId} aria-busy={state.status === "loading"}>
        <h2 id={headingId}>{t("privacy.title")}</h2>
        <p className="panel-intro">{t("privacy.intro")}</p>
        {state.status === "loading" && (
          <p className="status" role="status" data-testid="privacy-loading">
            <span className="spinner" aria-hidden="true" />
            {t("privacy.loading")}
          </p>
        )}
        {state.status === "error" && <ErrorNotice title={t("privacy.error")} error={state.error} onRetry={reload} testId="privacy-error" />}
        {state.status === "ready" && <RetentionInForce retention={state.data.retention} />}
        <RunRetention backend={backend} onRan={reload} />
      </section>
      {state.status === "ready" && <RecentRemovals recent={state.data.recent} />}
      <SubjectAccessPanel key={erasures} backend={backend} />
      <EraseNumberPanel backend={backend} onErased={erased} />
    </div>
  );
}
