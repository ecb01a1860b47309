import { useId } from "react";
import type { Tombstone } from "../../bindings/Tombstone";
import { useI18n } from "../../i18n/context";
import { count } from "../../i18n/privacy/redacted";
import { auditActorWords } from "../../i18n/reasons/words";
import { RedactedCounts } from "./RedactedCounts";
import { ScrollArea } from "../../components/ScrollArea";

/** The latest removals: each retention run (one line per rule) and each erasure, newest first. */
export function RecentRemovals({ recent }: { recent: readonly Tombstone[] }) {
  const { t } = useI18n();
  const headingId = useId();
  return (
    <section className="panel" aria-labelledby={headingId} data-testid="privacy-recent">
      <h2 id={headingId}>{t("privacy.recent.title")}</h2>
      <p className="panel-intro">{t("privacy.recent.intro")}</p>
      {recent.length === 0 ? (
        <p className="empty" data-testid="privacy-recent-empty">
          {t("privacy.recent.empty")}
        </p>
      ) : (
        <ScrollArea>
          <table className="table table-stack" aria-labelledby={headingId} data-testid="privacy-recent-table">
            <thead>
              <tr>
                <th scope="col">{t("privacy.recent.col.when")}</th>
                <th scope="col">{t("privacy.recent.col.rule")}</th>
                <th scope="col">{t("privacy.recent.col.by")}</th>
                <th scope="col">{t("privacy.recent.col.removed")}</th>
              </tr>
            </thead>
            <tbody>
              {recent.map((r) => (
                <RemovalRow key={String(r.id)} removal={r} />
              ))}
            </tbody>
          </table>
        </ScrollArea>
      )}
    </section>
  );
}

function RemovalRow({ removal: r }: { removal: Tombstone }) {
  const { t, formatDateTime } = useI18n();
  const at = count(r.at);
  return (
    <tr data-testid="privacy-recent-row" data-id={String(r.id)} data-rule={r.rule}>
      <th scope="row" className="nowrap">
        <time dateTime={new Date(at).toISOString()}>{formatDateTime(at)}</time>
      </th>
      <td data-testid="privacy-recent-rule" data-label={t("privacy.recent.col.rule")}>
        {t(`privacy.rule.${r.rule}`)}
      </td>
      <td data-testid="privacy-recent-by" data-label={t("privacy.recent.col.by")}>
        {auditActorWords(r.actor, t)}
      </td>
      <td data-testid="privacy-recent-removed" data-label={t("privacy.recent.col.removed")}>
        {r.summary === null ? <span className="muted">{t("privacy.recent.unfinished")}</span> : <RedactedCounts redacted={r.summary} />}
      </td>
    </tr>
  );
}
