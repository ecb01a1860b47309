import type { ReactNode } from "react";
import type { DeliveryReport } from "../../bindings/DeliveryReport";
import type { ReportDimension } from "../../bindings/ReportDimension";
import type { ReportFigures } from "../../bindings/ReportFigures";
import { useI18n } from "../../i18n/context";
import { countChange, formatLatency, formatPercent, messagesHref, shareChange, SHARES, type Share } from "./figures";
import { valueLabel } from "./values";
import { ScrollArea } from "../../components/ScrollArea";

const SHARE_COLUMNS: readonly { share: Share; outcome: string; column: "reports.col.delivered" | "reports.col.failed" | "reports.col.noReceipt"; testId: string }[] =
  SHARES.map(({ share, outcome }) =>
    share === "delivered_pct"
      ? { share, outcome, column: "reports.col.delivered", testId: "reports-delivered-link" }
      : share === "failed_pct"
        ? { share, outcome, column: "reports.col.failed", testId: "reports-failed-link" }
        : { share, outcome, column: "reports.col.noReceipt", testId: "reports-no-receipt-link" },
  );

/**
 * The report as a table: a row per group (its values, then its figures, each against the period
 * before), the totals last. Every count opens the messages it counts; at phone width each row
 * is a card, each figure under its column's name.
 */
export function ReportTable({ report, caption }: { report: DeliveryReport; caption: string }) {
  const i18n = useI18n();
  const { t } = i18n;
  const period = { fromMs: report.from_ms, toMs: report.to_ms };
  const dimensions: readonly (ReportDimension | null)[] = report.by.length === 0 ? [null] : report.by;
  const dimensionName = (d: ReportDimension | null): string => (d === null ? t("reports.dimension.all") : t(`reports.dimension.${d}`));

  return (
    <ScrollArea>
      <table className="table table-stack report-table" data-testid="reports-table">
        <caption className="report-caption">{caption}</caption>
        <thead>
          <tr>
            {dimensions.map((d) => (
              <th scope="col" key={d ?? "all"}>
                {dimensionName(d)}
              </th>
            ))}
            <th scope="col" className="numeric">{t("reports.col.messages")}</th>
            <th scope="col" className="numeric">{t("reports.col.parts")}</th>
            {SHARE_COLUMNS.map((c) => (
              <th scope="col" className="numeric" key={c.share}>
                {t(c.column)}
              </th>
            ))}
            <th scope="col" className="numeric">{t("reports.col.p50")}</th>
            <th scope="col" className="numeric">{t("reports.col.p95")}</th>
          </tr>
        </thead>
        <tbody>
          {report.by.length > 0 &&
            report.groups.map((g) => (
              <Row
                key={g.key.join("|")}
                testId="reports-row"
                dataKey={g.key.join("|")}
                labels={report.by.map((d, i) => valueLabel(d, g.key[i] ?? "", i18n, g.label[i] ?? null))}
                names={report.by.map(dimensionName)}
                figures={g.figures}
                previous={g.previous}
                href={(outcome) => messagesHref(report.by, g.key, period, outcome)}
              />
            ))}
        </tbody>
        <tfoot>
          <Row
            testId="reports-total"
            dataKey=""
            labels={[t("reports.total"), ...dimensions.slice(1).map(() => "")]}
            names={dimensions.map(dimensionName)}
            figures={report.total}
            previous={report.previous_total}
            href={(outcome) => messagesHref([], [], period, outcome)}
          />
        </tfoot>
      </table>
    </ScrollArea>
  );
}

function Row({
  testId,
  dataKey,
  labels,
  names,
  figures,
  previous,
  href,
}: {
  testId: string;
  dataKey: string;
  labels: readonly string[];
  names: readonly string[];
  figures: ReportFigures;
  previous: ReportFigures;
  href: (outcome: string | null) => string | null;
}) {
  const i18n = useI18n();
  const { t, formatNumber } = i18n;
  const messagesLink = href(null);
  return (
    <tr data-testid={testId} data-key={dataKey} data-delivered-pct={figures.delivered_pct ?? ""} data-failed={figures.failed + figures.expired}>
      {labels.map((label, i) =>
        i === 0 ? (
          <th scope="row" key={i} data-testid="reports-label">
            {label}
          </th>
        ) : (
          <td key={i} data-label={names[i]} data-testid="reports-label">
            {label}
          </td>
        ),
      )}
      <td className="numeric" data-label={t("reports.col.messages")}>
        <Linked href={messagesLink} testId="reports-messages-link">
          {formatNumber(figures.messages)}
        </Linked>
        <Change text={countChange(figures.messages, previous.messages, i18n)} testId="reports-messages-change" />
      </td>
      <td className="numeric" data-label={t("reports.col.parts")}>
        {formatNumber(figures.parts)}
      </td>
      {SHARE_COLUMNS.map((c) => {
        const value = figures[c.share];
        return (
          <td className="numeric" key={c.share} data-label={t(c.column)}>
            <Linked href={value === null ? null : href(c.outcome)} testId={c.testId}>
              {formatPercent(value, i18n.formatTag)}
            </Linked>
            <Change text={shareChange(value, previous[c.share], i18n)} testId={`${c.testId.replace("-link", "")}-change`} />
          </td>
        );
      })}
      <td className="numeric" data-label={t("reports.col.p50")}>
        {formatLatency(figures.latency_p50_ms, i18n)}
      </td>
      <td className="numeric" data-label={t("reports.col.p95")}>
        {formatLatency(figures.latency_p95_ms, i18n)}
      </td>
    </tr>
  );
}

/** A figure that opens the messages it counts, or the figure alone when the list cannot select them. */
function Linked({ href, testId, children }: { href: string | null; testId: string; children: ReactNode }) {
  if (href === null) return <span data-testid={`${testId}-none`}>{children}</span>;
  return (
    <a href={href} data-testid={testId}>
      {children}
    </a>
  );
}

/** The change against the period before, small under the figure; said in full to a screen reader. */
function Change({ text, testId }: { text: string | null; testId: string }) {
  const { t } = useI18n();
  if (text === null) return null;
  return (
    <span className="report-change" data-testid={testId} data-change={text}>
      <span aria-hidden="true">{text}</span>
      <span className="visually-hidden">{t("reports.change", { change: text })}</span>
    </span>
  );
}
