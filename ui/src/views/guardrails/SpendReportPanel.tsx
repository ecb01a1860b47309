import { useCallback, useId, useMemo, useState, type FormEvent } from "react";
import { asBackendError, type Backend, type BackendError } from "../../backend";
import type { ChangeEvent } from "../../bindings/ChangeEvent";
import type { SpendQuery } from "../../bindings/SpendQuery";
import type { SpendReport } from "../../bindings/SpendReport";
import { DateTimeField } from "../../components/DateTimeField";
import { ErrorNotice } from "../../components/ErrorNotice";
import { useBackendData } from "../../hooks/useBackendData";
import { useI18n } from "../../i18n/context";
import { periodBounds, PERIODS, type Period } from "../reports/period";
import { isoDay, spendCsv, spendFileName } from "./csv";
import { formatAmount, formatMicros } from "./money";
import { countryWords, senderWords } from "./words";
import { ScrollArea } from "../../components/ScrollArea";

/** Lines the table shows at most; the CSV file holds them all. */
export const SPEND_TABLE_LIMIT = 200;

/** Costs are counted as messages are written (and their connection known when tried). */
const movesSpend = (event: ChangeEvent): boolean => event.entity === "message" || event.entity === "queue";

const systemClock = (): Date => new Date();

interface Chosen {
  readonly period: Period;
  readonly from: string;
  readonly to: string;
}

/** What the engine is asked for a chosen period; null when chosen days cannot be read. */
export function spendQuery(chosen: Chosen, now: Date): SpendQuery | null {
  const bounds = periodBounds(chosen, now);
  if (bounds === null) return null;
  return { from_ms: bounds.fromMs, to_ms: bounds.toMs, utc_offset_minutes: -new Date(bounds.fromMs).getTimezoneOffset() };
}

/**
 * The spend report: what was spent over a chosen period (this month first), per day, API key or
 * sender, connection and country, with its total and the table as a CSV file.
 */
export function SpendReportPanel({ backend, now = systemClock }: { backend: Backend; now?: () => Date }) {
  const { t, formatDateShort, formatTag } = useI18n();
  const ids = { heading: useId(), period: useId(), from: useId(), to: useId(), problem: useId() };
  const [chosen, setChosen] = useState<Chosen>({ period: "month", from: "", to: "" });
  const [range, setRange] = useState({ from: "", to: "" });
  const [invalid, setInvalid] = useState(false);
  const asked = useMemo(() => spendQuery(chosen, now()), [chosen, now]);
  const askedKey = JSON.stringify(asked);
  const load = useCallback(
    (b: Backend): Promise<SpendReport | null> => (asked === null ? Promise.resolve(null) : b.spendReport(asked)),
    // The query's content, not its identity, decides what to load.
    [askedKey],
  );
  const { state, reload } = useBackendData(backend, load, { live: movesSpend, coalesceMs: 1_000 });
  const shown = state.status === "ready" ? state.data : null;
  const stale = shown !== null && asked !== null && (shown.from_ms !== asked.from_ms || shown.to_ms !== asked.to_ms);

  const choosePeriod = (period: Period): void => {
    setInvalid(false);
    if (period !== "range") {
      setChosen({ period, from: "", to: "" });
      return;
    }
    // Chosen days start as the days shown until now.
    const bounds = periodBounds(chosen, now());
    const days = bounds === null ? range : { from: isoDay(bounds.fromMs), to: isoDay(bounds.toMs - 1) };
    setRange(days);
    setChosen({ period, ...days });
  };
  const show = (event: FormEvent<HTMLFormElement>): void => {
    event.preventDefault();
    const next = { period: "range" as const, ...range };
    if (periodBounds(next, now()) === null) {
      setInvalid(true);
      return;
    }
    setInvalid(false);
    setChosen(next);
  };

  return (
    <section className="panel" aria-labelledby={ids.heading} aria-busy={state.status === "loading" || stale} data-testid="spend-report">
      <h2 id={ids.heading}>{t("guardrails.report.title")}</h2>
      <p className="panel-intro">{t("guardrails.report.intro")}</p>
      <form className="form filters report-controls spend-controls" onSubmit={show} noValidate data-testid="spend-controls">
        <div className="field field-narrow">
          <label htmlFor={ids.period}>{t("reports.period")}</label>
          <select id={ids.period} value={chosen.period} onChange={(e) => choosePeriod(e.target.value as Period)} data-testid="spend-period">
            {PERIODS.map((p) => (
              <option key={p} value={p}>
                {t(`reports.period.${p}`)}
              </option>
            ))}
          </select>
        </div>
        {chosen.period === "range" && (
          <>
            <div className="field field-narrow">
              <label htmlFor={ids.from}>{t("reports.range.from")}</label>
              <DateTimeField
                id={ids.from}
                value={range.from}
                onChange={(from) => setRange((r) => ({ ...r, from }))}
                invalid={invalid}
                describedBy={invalid ? ids.problem : undefined}
                testId="spend-from"
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
                testId="spend-to"
              />
            </div>
            <div className="row-actions filter-actions">
              <button type="submit" className="button" data-testid="spend-range-apply">
                {t("reports.range.apply")}
              </button>
            </div>
            {invalid && (
              <p className="field-problem field-wide" id={ids.problem} role="alert" data-testid="spend-range-error">
                {t("reports.range.invalid")}
              </p>
            )}
          </>
        )}
      </form>
      {state.status === "loading" && (
        <p className="status" role="status" data-testid="spend-loading">
          <span className="spinner" aria-hidden="true" />
          {t("guardrails.report.loading")}
        </p>
      )}
      {state.status === "error" && (
        <ErrorNotice title={t("guardrails.report.error")} error={state.error} onRetry={reload} testId="spend-error" />
      )}
      {shown !== null && (
        <div className="report-body" aria-busy={stale} data-stale={stale ? "true" : undefined}>
          <p className="spend-total" data-testid="spend-total" data-total={shown.total} data-currency={shown.currency}>
            {t("guardrails.report.total", {
              from: formatDateShort(shown.from_ms),
              to: formatDateShort(shown.to_ms - 1),
              total: formatAmount(shown.total, shown.currency, formatTag),
            })}
          </p>
          {shown.lines.length === 0 ? (
            <p className="muted" data-testid="spend-empty">
              {t("guardrails.report.empty")}
            </p>
          ) : (
            <>
              <div className="list-tools">
                <DownloadSpendCsv backend={backend} report={shown} />
              </div>
              <SpendTable report={shown} />
            </>
          )}
        </div>
      )}
    </section>
  );
}

function SpendTable({ report }: { report: SpendReport }) {
  const { t, formatDateShort, formatNumber, formatTag } = useI18n();
  const captionId = useId();
  const lines = report.lines.slice(0, SPEND_TABLE_LIMIT);
  return (
    <>
      <ScrollArea>
        <table className="table table-stack" aria-labelledby={captionId} data-testid="spend-table">
          <caption id={captionId} className="visually-hidden">
            {t("guardrails.report.caption", { from: formatDateShort(report.from_ms), to: formatDateShort(report.to_ms - 1) })}
          </caption>
          <thead>
            <tr>
              <th scope="col">{t("guardrails.report.col.day")}</th>
              <th scope="col">{t("guardrails.report.col.sender")}</th>
              <th scope="col">{t("guardrails.report.col.connection")}</th>
              <th scope="col">{t("guardrails.report.col.country")}</th>
              <th scope="col" className="num">
                {t("guardrails.report.col.messages")}
              </th>
              <th scope="col" className="num">
                {t("guardrails.report.col.parts")}
              </th>
              <th scope="col" className="num">
                {t("guardrails.report.col.cost")}
              </th>
            </tr>
          </thead>
          <tbody>
            {lines.map((l) => (
              <tr
                key={`${l.day_ms}|${l.sender}|${l.connection}|${l.country}`}
                data-testid="spend-line"
                data-sender={l.sender}
                data-country={l.country}
                data-cost={l.cost}
              >
                <td data-label={t("guardrails.report.col.day")}>{formatDateShort(l.day_ms)}</td>
                <td data-label={t("guardrails.report.col.sender")}>{senderWords(l.sender, l.label, t)}</td>
                <td data-label={t("guardrails.report.col.connection")}>
                  {l.connection === "" ? <span className="muted">{t("guardrails.report.notTried")}</span> : l.connection}
                </td>
                <td data-label={t("guardrails.report.col.country")}>{countryWords(l.country, formatTag, t)}</td>
                <td className="num" data-label={t("guardrails.report.col.messages")}>
                  {formatNumber(l.messages)}
                </td>
                <td className="num" data-label={t("guardrails.report.col.parts")}>
                  {formatNumber(l.parts)}
                </td>
                <td className="num" data-label={t("guardrails.report.col.cost")} data-testid="spend-line-cost">
                  {formatMicros(l.cost, report.currency, formatTag)}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </ScrollArea>
      {lines.length < report.lines.length && (
        <p className="table-note muted" data-testid="spend-shown">
          {t("guardrails.report.shown", { shown: lines.length, total: report.lines.length })}
        </p>
      )}
    </>
  );
}

type Saving = { readonly kind: "idle" } | { readonly kind: "saved" } | { readonly kind: "failed"; readonly error: BackendError };

/** The report as a CSV file made here (a download in a browser, the save dialog in the window). */
function DownloadSpendCsv({ backend, report }: { backend: Backend; report: SpendReport }) {
  const { t } = useI18n();
  const [saving, setSaving] = useState<Saving>({ kind: "idle" });
  const save = (): void => {
    setSaving({ kind: "idle" });
    backend.saveCsv(spendCsv(report, t), spendFileName(report)).then(
      (saved) => setSaving(saved ? { kind: "saved" } : { kind: "idle" }),
      (e: unknown) => setSaving({ kind: "failed", error: asBackendError(e) }),
    );
  };
  return (
    <div className="export">
      <div className="row-actions">
        <button type="button" className="button button-secondary" onClick={save} data-testid="spend-csv">
          {t("guardrails.report.csv")}
        </button>
        <span role="status" className="muted" data-testid="spend-csv-status">
          {saving.kind === "saved" ? t("guardrails.report.csv.saved") : ""}
        </span>
      </div>
      {saving.kind === "failed" && <ErrorNotice title={t("guardrails.report.csv.error")} error={saving.error} testId="spend-csv-error" />}
    </div>
  );
}
