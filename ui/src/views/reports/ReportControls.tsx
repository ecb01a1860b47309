import { useEffect, useId, useState, type FormEvent } from "react";
import type { ReportDimension } from "../../bindings/ReportDimension";
import { DateTimeField } from "../../components/DateTimeField";
import { useI18n } from "../../i18n/context";
import { periodBounds, PERIODS, type Period, type ReportView } from "./period";
import { isDimension, REPORT_DIMENSIONS } from "./values";

/** `YYYY-MM-DD` of a local day. */
function dayOf(ms: number): string {
  const d = new Date(ms);
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, "0")}-${String(d.getDate()).padStart(2, "0")}`;
}

/**
 * The report's period and breakdown. A period or a dimension chosen applies at once; chosen days
 * when shown (Show, or Enter), checked first.
 */
export function ReportControls({ view, onView, now }: { view: ReportView; onView: (view: ReportView) => void; now: () => Date }) {
  const { t } = useI18n();
  const ids = { period: useId(), by: useId(), then: useId(), from: useId(), to: useId(), problem: useId() };
  const [range, setRange] = useState({ from: view.from, to: view.to });
  // Days in the address that cannot be read (typed by hand) are said wrong at once.
  const unreadable = view.period === "range" && periodBounds(view, now()) === null;
  const [invalid, setInvalid] = useState(unreadable);
  useEffect(() => {
    setRange({ from: view.from, to: view.to });
    setInvalid(unreadable);
  }, [view.from, view.to, unreadable]);

  const choosePeriod = (period: Period): void => {
    if (period !== "range") {
      onView({ ...view, period, from: "", to: "" });
      return;
    }
    // Chosen days start as the days shown until now, so the report stays until others are chosen.
    const shown = periodBounds(view, now());
    onView({
      ...view,
      period,
      from: shown === null ? view.from : dayOf(shown.fromMs),
      to: shown === null ? view.to : dayOf(shown.toMs - 1),
    });
  };
  const chooseBy = (first: string, second: string): void => {
    const by = [first, second].filter(isDimension);
    onView({ ...view, by: isDimension(first) ? [...new Set(by)] : [] });
  };
  const show = (event: FormEvent<HTMLFormElement>): void => {
    event.preventDefault();
    const next = { ...view, period: "range" as const, ...range };
    if (periodBounds(next, now()) === null) {
      setInvalid(true);
      return;
    }
    setInvalid(false);
    onView(next);
  };
  const first = view.by[0] ?? "";
  const second = view.by[1] ?? "";
  const dimensionOptions = (skip: ReportDimension | "") =>
    REPORT_DIMENSIONS.filter((d) => d !== skip).map((d) => (
      <option key={d} value={d}>
        {t(`reports.dimension.${d}`)}
      </option>
    ));

  return (
    <form className="form filters report-controls" onSubmit={show} noValidate data-testid="reports-controls">
      <div className="field field-narrow">
        <label htmlFor={ids.period}>{t("reports.period")}</label>
        <select id={ids.period} value={view.period} onChange={(e) => choosePeriod(e.target.value as Period)} data-testid="reports-period">
          {PERIODS.map((p) => (
            <option key={p} value={p}>
              {t(`reports.period.${p}`)}
            </option>
          ))}
        </select>
      </div>
      {view.period === "range" && (
        <>
          <div className="field field-narrow">
            <label htmlFor={ids.from}>{t("reports.range.from")}</label>
            <DateTimeField
              id={ids.from}
              value={range.from}
              onChange={(from) => setRange((r) => ({ ...r, from }))}
              invalid={invalid}
              describedBy={invalid ? ids.problem : undefined}
              testId="reports-from"
            />
          </div>
          <div className="field field-narrow">
            <label htmlFor={ids.to}>{t("reports.range.to")}</label>
            <DateTimeField
              id={ids.to}
              value={range.to}
              onChange={(to) => setRange((r) => ({ ...r, to }))}
              invalid={invalid}
              describedBy={invalid ? ids.problem : undefined}
              testId="reports-to"
            />
          </div>
          <div className="row-actions filter-actions">
            <button type="submit" className="button" data-testid="reports-range-apply">
              {t("reports.range.apply")}
            </button>
          </div>
          {invalid && (
            <p className="field-problem field-wide" id={ids.problem} role="alert" data-testid="reports-range-error">
              {t("reports.range.invalid")}
            </p>
          )}
        </>
      )}
      <div className="field field-narrow">
        <label htmlFor={ids.by}>{t("reports.by")}</label>
        <select id={ids.by} value={first} onChange={(e) => chooseBy(e.target.value, second)} data-testid="reports-by">
          <option value="">{t("reports.by.none")}</option>
          {dimensionOptions("")}
        </select>
      </div>
      {first !== "" && (
        <div className="field field-narrow">
          <label htmlFor={ids.then}>{t("reports.by.second")}</label>
          <select id={ids.then} value={second} onChange={(e) => chooseBy(first, e.target.value)} data-testid="reports-by-second">
            <option value="">{t("reports.by.second.none")}</option>
            {dimensionOptions(first)}
          </select>
        </div>
      )}
    </form>
  );
}
