import { useId } from "react";
import { useAccess } from "../../access/context";
import type { Backend } from "../../backend";
import type { AlertView } from "../../bindings/AlertView";
import { Badge } from "../../components/Badge";
import { Fact, Facts } from "../../components/Facts";
import { useI18n } from "../../i18n/context";
import { alertFigures, alertSince, alertTitle } from "../../i18n/alerts/words";
import { auditActorWords } from "../../i18n/reasons/words";
import { AcknowledgeAlert } from "./AcknowledgeAlert";
import { NoticeList } from "./NoticeList";

/** Every alert that holds now, or the calm sentence when none does. */
export function FiringNow({ alerts, backend, onChanged }: { alerts: readonly AlertView[]; backend: Backend; onChanged: () => void }) {
  const { t } = useI18n();
  const headingId = useId();
  return (
    <section className="panel" aria-labelledby={headingId} data-testid="alerts-firing" data-count={alerts.length}>
      <h2 id={headingId}>{t("alerts.firing.title")}</h2>
      {alerts.length === 0 ? (
        <div className="alerts-calm" data-testid="alerts-none">
          <p className="alerts-calm-title">{t("alerts.firing.none")}</p>
          <p className="muted">{t("alerts.firing.calm")}</p>
        </div>
      ) : (
        <ul className="alert-list">
          {alerts.map((a) => (
            <li key={a.id}>
              <FiringAlert alert={a} backend={backend} onChanged={onChanged} />
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

/** One alert: what it is in words, since when, its figures, who acknowledged it, what the channels were told. */
function FiringAlert({ alert, backend, onChanged }: { alert: AlertView; backend: Backend; onChanged: () => void }) {
  const { t, formatDateTime } = useI18n();
  const { may } = useAccess();
  const titleId = useId();
  const acknowledged = alert.acknowledgedAtMs !== null;
  const since = alertSince(alert);
  return (
    <article
      className="alert-card"
      aria-labelledby={titleId}
      data-testid="alert-firing"
      data-id={alert.id}
      data-rule={alert.rule}
      data-acknowledged={acknowledged}
    >
      <h3 id={titleId}>
        <Badge tone={acknowledged ? "warning" : "danger"}>
          {acknowledged ? t("alerts.state.acknowledged") : t("alerts.state.firing")}
        </Badge>{" "}
        <span data-testid="alert-title">{alertTitle(alert.rule, alert.subject, t)}</span>
      </h3>
      <p className="muted">
        <time dateTime={new Date(since).toISOString()} data-testid="alert-since">
          {t("alerts.since", { time: formatDateTime(since) })}
        </time>
        {alert.repeatedAtMs !== null && <> · {t("alerts.repeated", { time: formatDateTime(alert.repeatedAtMs) })}</>}
      </p>
      <AlertFigures alert={alert} />
      <Acknowledgement alert={alert} />
      <NoticeList notices={alert.notices} />
      {may.resolve && !acknowledged && <AcknowledgeAlert backend={backend} alert={alert} onDone={onChanged} />}
    </article>
  );
}

/** The figures that made it fire, as last seen. */
function AlertFigures({ alert }: { alert: AlertView }) {
  const i18n = useI18n();
  const figures = alertFigures(alert, i18n);
  if (figures.length === 0) return null;
  return (
    <Facts testId="alert-figures">
      {figures.map((f) => (
        <Fact key={f.name} label={f.label} testId={`alert-figure-${f.name}`}>
          {f.english ? <span lang="en">{f.value}</span> : f.value}
        </Fact>
      ))}
    </Facts>
  );
}

/** Who acknowledged it, when, and what they wrote; or that nobody has, and what that means. */
function Acknowledgement({ alert }: { alert: AlertView }) {
  const { t, formatDateTime } = useI18n();
  if (alert.acknowledgedAtMs === null) {
    return (
      <p className="alert-ack-state" data-testid="alert-not-acknowledged">
        {t("alerts.notAcknowledged")}
      </p>
    );
  }
  return (
    <p className="alert-ack-state" data-testid="alert-acknowledged" data-by={alert.acknowledgedBy ?? ""}>
      {t("alerts.acknowledgedBy", {
        actor: auditActorWords(alert.acknowledgedBy ?? "", t),
        time: formatDateTime(alert.acknowledgedAtMs),
      })}{" "}
      <span className="alert-ack-note" data-testid="alert-ack-note-text">
        {alert.acknowledgementNote}
      </span>
    </p>
  );
}
