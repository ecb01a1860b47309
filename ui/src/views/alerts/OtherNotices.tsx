import { useId } from "react";
import type { NoticeView } from "../../bindings/NoticeView";
import { useI18n } from "../../i18n/context";
import { NoticeDetail } from "./NoticeList";
import { ScrollArea } from "../../components/ScrollArea";

/** The latest test alerts and daily summaries, newest first, with what became of each. */
export function OtherNotices({ notices }: { notices: readonly NoticeView[] }) {
  const { t, formatDateTime } = useI18n();
  const headingId = useId();
  return (
    <div className="alert-other" data-testid="alerts-other">
      <h3 id={headingId}>{t("alerts.other.title")}</h3>
      {notices.length === 0 ? (
        <p className="empty" data-testid="alerts-other-empty">
          {t("alerts.other.empty")}
        </p>
      ) : (
        <ScrollArea>
          <table className="table table-stack" aria-labelledby={headingId}>
            <thead>
              <tr>
                <th scope="col">{t("alerts.other.col.when")}</th>
                <th scope="col">{t("alerts.other.col.what")}</th>
                <th scope="col">{t("alerts.other.col.channel")}</th>
                <th scope="col">{t("alerts.other.col.outcome")}</th>
                <th scope="col">{t("alerts.other.col.detail")}</th>
              </tr>
            </thead>
            <tbody>
              {notices.map((n, i) => (
                <tr key={i} data-testid="alerts-other-row" data-kind={n.kind} data-channel={n.channel} data-outcome={n.outcome}>
                  <th scope="row" className="nowrap">
                    <time dateTime={new Date(n.atMs).toISOString()}>{formatDateTime(n.atMs)}</time>
                  </th>
                  <td data-label={t("alerts.other.col.what")}>{t(`alerts.kind.${n.kind}`)}</td>
                  <td data-label={t("alerts.other.col.channel")}>{t(`alerts.channel.${n.channel}`)}</td>
                  <td data-label={t("alerts.other.col.outcome")}>{t(`alerts.outcome.${n.outcome}`)}</td>
                  <td data-label={t("alerts.other.col.detail")}>
                    <NoticeDetail notice={n} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollArea>
      )}
    </div>
  );
}
