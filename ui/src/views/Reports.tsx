import { useCallback, useId, useMemo, useState } from "react";
import { asBackendError, type Backend, type BackendError } from "../backend";
import type { ChangeEvent } from "../bindings/ChangeEvent";
import type { DeliveryReport } from "../bindings/DeliveryReport";
import type { ReportQuery } from "../bindings/ReportQuery";
import { ErrorNotice } from "../components/ErrorNotice";
import { useBackendData } from "../hooks/useBackendData";
import { useI18n } from "../i18n/context";
import { reportCsv, reportFileName } from "./reports/csv";
import { formatReportView, parseReportView, reportQuery, type ReportView } from "./reports/period";
import { ReportChart } from "./reports/ReportChart";
import { ReportControls } from "./reports/ReportControls";
import { ReportTable } from "./reports/ReportTable";

/** The figures move as messages are sent and receipts come. */
const movesFigures = (event: ChangeEvent): boolean => event.entity === "message" || event.entity === "projection";

const systemClock = (): Date => new Date();

/**
 * Reports: how messages fared over a period (today, yesterday, the last 7 or 30 days, this month,
 * chosen days, in the office's time), broken down by one or two dimensions, each group against
 * the period just before, with a chart over time and the table as a CSV file. Every count opens
 * the message list narrowed to the messages it counts. The period and breakdown are in the
 * address (`query`, after `?`), so Back, reload and a shared link keep them.
 */
export function Reports({
  backend,
  query,
  onQuery,
  now = systemClock,
}: {
  backend: Backend;
  query: string;
  onQuery: (query: string) => void;
  /** Today, for the periods up to now (tests give their own). */
  now?: () => Date;
}) {
  const { t, formatDateShort } = useI18n();
  const headingId = useId();
  const view = useMemo(() => parseReportView(query), [query]);
  const asked = useMemo(() => reportQuery(view, now()), [view, now]);
  const askedKey = JSON.stringify(asked);
  const load = useCallback(
    (b: Backend): Promise<DeliveryReport | null> => (asked === null ? Promise.resolve(null) : b.deliveryReport(asked)),
    // The query's content, not its identity, decides what to load.
    [askedKey],
  );
  const { state, reload } = useBackendData(backend, load, { live: movesFigures, coalesceMs: 2_000 });
  const setView = (next: ReportView): void => onQuery(formatReportView(next));
  const shown = state.status === "ready" ? state.data : null;
  // While another report loads, the previous one stays on screen, marked as such.
  const stale = shown !== null && asked !== null && !answers(shown, asked);

  return (
    <section className="panel reports" aria-labelledby={headingId} aria-busy={state.status === "loading" || stale} data-testid="reports">
      <h2 id={headingId}>{t("reports.title")}</h2>
      <p className="panel-intro">{t("reports.intro")}</p>
      <ReportControls view={view} onView={setView} now={now} />
      {state.status === "loading" && (
        <p className="status" role="status" data-testid="reports-loading">
          <span className="spinner" aria-hidden="true" />
          {t("reports.loading")}
        </p>
      )}
      {state.status === "error" && <ErrorNotice title={t("reports.error")} error={state.error} onRetry={reload} testId="reports-error" />}
      {shown !== null && (
        <div className="report-body" aria-busy={stale} data-stale={stale ? "true" : undefined}>
          <p className="muted report-shown" data-testid="reports-shown">
            {t("reports.shown", {
              from: formatDateShort(shown.from_ms),
              to: formatDateShort(shown.to_ms - 1),
              previousFrom: formatDateShort(shown.previous_from_ms),
              previousTo: formatDateShort(shown.from_ms - 1),
            })}
          </p>
          {shown.total.messages === 0 ? (
            <div className="empty" data-testid="reports-empty">
              <p>{t("reports.empty")}</p>
              <p className="muted">{t("reports.empty.hint")}</p>
            </div>
          ) : (
            <Figures report={shown} backend={backend} view={view} onView={setView} />
          )}
        </div>
      )}
    </section>
  );
}

/** Whether a report is the answer to a query (else an earlier one still shown). */
function answers(report: DeliveryReport, query: ReportQuery): boolean {
  return report.from_ms === query.from_ms && report.to_ms === query.to_ms && report.by.join(",") === (query.by ?? "");
}

function Figures({
  report,
  backend,
  view,
  onView,
}: {
  report: DeliveryReport;
  backend: Backend;
  view: ReportView;
  onView: (view: ReportView) => void;
}) {
  const { t, formatDateShort } = useI18n();
  const by = report.by.length === 0 ? t("reports.dimension.all") : report.by.map((d) => t(`reports.dimension.${d}`)).join(" / ");
  const caption = t("reports.caption", { by, from: formatDateShort(report.from_ms), to: formatDateShort(report.to_ms - 1) });
  return (
    <>
      <div className="list-tools">
        <DownloadCsv backend={backend} report={report} />
      </div>
      <ReportTable report={report} caption={caption} />
      <ReportChart report={report} metric={view.chart} onMetric={(chart) => onView({ ...view, chart })} />
    </>
  );
}

type Saving = { readonly kind: "idle" } | { readonly kind: "saved" } | { readonly kind: "failed"; readonly error: BackendError };

/** The table as shown, as a CSV file made here (a download in a browser, the save dialog in the window). */
function DownloadCsv({ backend, report }: { backend: Backend; report: DeliveryReport }) {
  const i18n = useI18n();
  const { t } = i18n;
  const [saving, setSaving] = useState<Saving>({ kind: "idle" });
  const save = (): void => {
    setSaving({ kind: "idle" });
    backend.saveCsv(reportCsv(report, i18n), reportFileName(report)).then(
      (saved) => setSaving(saved ? { kind: "saved" } : { kind: "idle" }),
      (e: unknown) => setSaving({ kind: "failed", error: asBackendError(e) }),
    );
  };
  return (
    <div className="export">
      <div className="row-actions">
        <button type="button" className="button button-secondary" onClick={save} data-testid="reports-csv">
          {t("reports.csv")}
        </button>
        <span role="status" className="muted" data-testid="reports-csv-status">
          {saving.kind === "saved" ? t("reports.csv.saved") : ""}
        </span>
      </div>
      {saving.kind === "failed" && <ErrorNotice title={t("reports.csv.error")} error={saving.error} testId="reports-csv-error" />}
    </div>
  );
}
