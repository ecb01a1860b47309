import { useId } from "react";
import type { ExceptionSummary } from "../../bindings/ExceptionSummary";
import { Badge } from "../../components/Badge";
import { Fact, Facts } from "../../components/Facts";
import { useI18n } from "../../i18n/context";
import { resolutionWords } from "../message/words";
import { EXCEPTION_STATUS_TONE } from "../tones";
import { ResolutionNote } from "./ResolutionNote";

/** What was decided about a closed exception, by whom, when and why. */
export function Resolution({ exception: e }: { exception: ExceptionSummary }) {
  const { t, formatDateTime } = useI18n();
  const headingId = useId();
  return (
    <section className="resolution" aria-labelledby={headingId} data-testid="resolution">
      <h3 id={headingId}>{t("resolution.title")}</h3>
      <p className="statement-lead">
        <Badge tone={EXCEPTION_STATUS_TONE[e.status]}>{t(`exceptionStatus.${e.status}`)}</Badge>
      </p>
      <Facts>
        <Fact label={t("resolution.what")} testId="resolution-what">
          {e.resolution === null ? t("resolution.none") : resolutionWords(e.resolution, t)}
        </Fact>
        <Fact label={t("resolution.note")} testId="resolution-note">
          <ResolutionNote exception={e} />
        </Fact>
        <Fact label={t("resolution.by")} testId="resolution-by">
          {e.resolved_by === "system" ? t("resolution.bySystem") : e.resolved_by}
        </Fact>
        <Fact label={t("resolution.at")} testId="resolution-at">
          {e.resolved_at_ms === null ? null : (
            <time dateTime={new Date(e.resolved_at_ms).toISOString()}>{formatDateTime(e.resolved_at_ms)}</time>
          )}
        </Fact>
      </Facts>
    </section>
  );
}
