import { useId } from "react";
import type { AlertView } from "../../bindings/AlertView";
import { useI18n } from "../../i18n/context";
import { alertTitle, durationWords } from "../../i18n/alerts/words";
import { auditActorWords } from "../../i18n/reasons/words";
import { ScrollArea } from "../../components/ScrollArea";

/** A closed alert: `resolvedAtMs` is known. */
type Closed = AlertView & { readonly resolvedAtMs: number };

/** The alerts that ended, the latest first: when each fired and ended, how long it lasted, who acknowledged it. */
export function AlertHistory({ alerts }: { alerts: readonly AlertView[] }) {
  const { t } = useI18n();
  const headingId = useId();
  const closed = alerts
    .filter((a): a is Closed => a.resolvedAtMs !== null)
    .sort((a, b) => b.resolvedAtMs - a.resolvedAtMs || b.id - a.id);
  return (
    <section className="panel" aria-labelledby={headingId} data-testid="alerts-history">
      <h2 id={headingId}>{t("alerts.history.title")}</h2>
      <p className="panel-intro">{t("alerts.history.intro")}</p>
      {closed.length === 0 ? (
        <p className="empty" data-testid="alerts-history-empty">
          {t("alerts.history.empty")}
        </p>
      ) : (
        <ScrollArea>
          <table className="table table-stack" aria-labelledby={headingId}>
            <thead>
              <tr>
                <th scope="col">{t("alerts.history.col.alert")}</th>
                <th scope="col">{t("alerts.history.col.fired")}</th>
                <th scope="col">{t("alerts.history.col.resolved")}</th>
                <th scope="col">{t("alerts.history.col.lasted")}</th>
                <th scope="col">{t("alerts.history.col.acknowledged")}</th>
              </tr>
            </thead>
            <tbody>
              {closed.map((a) => (
                <HistoryRow key={a.id} alert={a} />
              ))}
            </tbody>
          </table>
        </ScrollArea>
      )}
    </section>
  );
}

function HistoryRow({ alert: a }: { alert: Closed }) {
  const { t, formatDateTime } = useI18n();
  const moment = (ms: number) => <time dateTime={new Date(ms).toISOString()}>{formatDateTime(ms)}</time>;
  return (
    <tr data-testid="alert-history-row" data-id={a.id} data-rule={a.rule} data-acknowledged={a.acknowledgedAtMs !== null}>
      <th scope="row" data-testid="alert-history-title">
        {alertTitle(a.rule, a.subject, t)}
      </th>
      <td data-label={t("alerts.history.col.fired")}>{moment(a.firedAtMs)}</td>
      <td data-label={t("alerts.history.col.resolved")}>{moment(a.resolvedAtMs)}</td>
      <td data-label={t("alerts.history.col.lasted")} data-testid="alert-history-lasted">
        {durationWords(a.resolvedAtMs - a.firedAtMs, t)}
      </td>
      <td data-label={t("alerts.history.col.acknowledged")} data-testid="alert-history-ack">
        {a.acknowledgedAtMs === null ? (
          <span className="muted">{t("alerts.history.notAcknowledged")}</span>
        ) : (
          <>
            {t("alerts.history.ackBy", { actor: auditActorWords(a.acknowledgedBy ?? "", t), time: formatDateTime(a.acknowledgedAtMs) })}
            {a.acknowledgementNote !== null && (
              <span className="alert-ack-note" data-testid="alert-history-note">
                {a.acknowledgementNote}
              </span>
            )}
          </>
        )}
      </td>
    </tr>
  );
}
