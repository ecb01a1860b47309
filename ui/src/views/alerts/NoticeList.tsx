import type { NoticeView } from "../../bindings/NoticeView";
import { useI18n } from "../../i18n/context";

/** The engine's words for a failure (an SMTP or HTTP error) are English, and said so. */
export function NoticeDetail({ notice }: { notice: NoticeView }) {
  if (notice.detail === null || notice.detail === "") return null;
  return notice.outcome === "failed" ? <span lang="en">{notice.detail}</span> : <>{notice.detail}</>;
}

/** What each channel was told of an alert, oldest first: fired, reminded, resolved; sent, held back or failed. */
export function NoticeList({ notices }: { notices: readonly NoticeView[] }) {
  const { t, formatDateTime } = useI18n();
  return (
    <div className="alert-notices">
      <h4>{t("alerts.notices")}</h4>
      {notices.length === 0 ? (
        <p className="muted" data-testid="alert-notices-none">
          {t("alerts.notices.none")}
        </p>
      ) : (
        <ul className="alert-notice-list">
          {notices.map((n, i) => (
            <li key={i} data-testid="alert-notice" data-kind={n.kind} data-channel={n.channel} data-outcome={n.outcome}>
              <time dateTime={new Date(n.atMs).toISOString()}>{formatDateTime(n.atMs)}</time>
              {" · "}
              {t(`alerts.channel.${n.channel}`)}
              {" · "}
              {t(`alerts.kind.${n.kind}`)}
              {": "}
              <span className={n.outcome === "failed" ? "alert-outcome-failed" : undefined}>{t(`alerts.outcome.${n.outcome}`)}</span>
              {n.detail !== null && n.detail !== "" && (
                <>
                  {" — "}
                  <NoticeDetail notice={n} />
                </>
              )}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
