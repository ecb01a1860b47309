import { useId, type ReactNode } from "react";
import type { DeliveryView } from "../../bindings/DeliveryView";
import type { ExceptionSummary } from "../../bindings/ExceptionSummary";
import type { MessageDetail } from "../../bindings/MessageDetail";
import type { TimelineEntry } from "../../bindings/TimelineEntry";
import { Badge } from "../../components/Badge";
import { Disclosure } from "../../components/Disclosure";
import { AttemptEvidence } from "../../components/evidence/AttemptEvidence";
import { isNoError } from "../../components/evidence/receiptCodes";
import { ReceiptEvidence } from "../../components/evidence/ReceiptEvidence";
import { Exact, Fact, Facts } from "../../components/Facts";
import { useI18n } from "../../i18n/context";
import { MessageRecordFacts } from "./MessageHeader";
import { buildTimeline, groupByPart, type TimelineItem, type TimelineItemKind } from "./timeline";
import { ExceptionSummaryWords } from "../../components/ExceptionSummaryWords";
import { auditActorWords, auditDetailWords } from "../../i18n/reasons/words";
import { auditActionText, smppStatusText } from "../../i18n/server/words";
import { resolutionWords, webhookValue } from "./words";
import { ResolutionNote } from "../exceptions/ResolutionNote";
import { ScrollArea } from "../../components/ScrollArea";

/** A mark per kind, beside its name (the name is what counts; the mark only helps the eye). */
const ICON: Readonly<Record<TimelineItemKind, string>> = {
  created: "✉",
  attempt: "↑",
  attempt_result: "↩",
  receipt: "↓",
  exception_opened: "⚠",
  exception_closed: "✓",
  audit: "✎",
  webhook: "⇄",
};

export function timelineElementId(kind: TimelineItemKind, refId: number): string {
  return `timeline-${kind}-${refId}`;
}

/** Everything that happened to the message, oldest first, each with its evidence on demand. */
export function Timeline({
  detail,
  onOpenException,
}: {
  detail: MessageDetail;
  onOpenException: (id: number) => void;
}) {
  const { t } = useI18n();
  const headingId = useId();
  const parts = detail.message.segments;
  const groups = groupByPart(buildTimeline(detail), parts);
  return (
    <section className="timeline-section" aria-labelledby={headingId}>
      <h3 id={headingId}>{t("timeline.title")}</h3>
      <p className="hint">{t(parts > 1 ? "timeline.intro.parts" : "timeline.intro")}</p>
      {groups.map((g) => (
        <div key={g.part ?? "whole"} className="timeline-group" data-testid="timeline-group" data-part={g.part ?? ""}>
          {parts > 1 && (
            <h4>{g.part === null ? t("timeline.group.whole") : t("timeline.group.part", { part: g.part, parts })}</h4>
          )}
          {g.items.length === 0 ? (
            <p className="muted">{t("timeline.group.empty")}</p>
          ) : (
            <ol className="timeline" data-testid="timeline">
              {g.items.map((item) => (
                <Item key={item.key} item={item} detail={detail} onOpenException={onOpenException} />
              ))}
            </ol>
          )}
        </div>
      ))}
    </section>
  );
}

function refOf(item: TimelineItem): number {
  return item.kind === "webhook" ? item.delivery.id : item.entry.ref_id;
}

function Item({
  item,
  detail,
  onOpenException,
}: {
  item: TimelineItem;
  detail: MessageDetail;
  onOpenException: (id: number) => void;
}) {
  const { t, formatDateTimePrecise } = useI18n();
  return (
    <li
      className={`timeline-item timeline-${item.kind}`}
      id={timelineElementId(item.kind, refOf(item))}
      data-testid="timeline-item"
      data-kind={item.kind}
      data-ref={refOf(item)}
    >
      <div className="timeline-head">
        <span className="timeline-icon" aria-hidden="true">
          {ICON[item.kind]}
        </span>
        <span className="timeline-kind">{t(`timelineKind.${item.kind}`)}</span>
        <time className="timeline-time" dateTime={new Date(item.at).toISOString()} data-testid="timeline-time">
          {formatDateTimePrecise(item.at)}
        </time>
      </div>
      <div className="timeline-line" data-testid="timeline-line">
        <Line item={item} detail={detail} onOpenException={onOpenException} />
      </div>
      <Disclosure summary={t("timeline.evidence")} testId="timeline-evidence" className="timeline-evidence">
        <Evidence item={item} detail={detail} />
      </Disclosure>
    </li>
  );
}

/** The engine's own sentence for an entry, kept as written (in English) for whoever has to quote it. */
function EngineRecord({ entry }: { entry: TimelineEntry }) {
  const { t } = useI18n();
  return (
    <Facts>
      <Fact label={t("timeline.engineRecord")}>
        <span lang="en">{entry.summary}</span>
      </Fact>
    </Facts>
  );
}

function Line({
  item,
  detail,
  onOpenException,
}: {
  item: TimelineItem;
  detail: MessageDetail;
  onOpenException: (id: number) => void;
}): ReactNode {
  const { t } = useI18n();
  const parts = detail.message.segments;
  switch (item.kind) {
    case "created":
      return t("timeline.created", { channel: t(`channel.${detail.message.channel}`) });
    case "attempt": {
      const a = item.attempt;
      if (a === null) return <span lang="en">{item.entry.summary}</span>;
      return (
        <>
          {t("timeline.attempt", { n: a.attempt_no })}
          {/* The session and sequence number are the PDU's ids: they are in the evidence below. */}
          {parts > 1 && <> {t("timeline.part", { part: a.segment_no, parts })}</>}
        </>
      );
    }
    case "attempt_result": {
      const a = item.attempt;
      if (a === null) return <span lang="en">{item.entry.summary}</span>;
      return (
        <>
          {t(`timeline.result.${a.outcome}`, { n: a.attempt_no })}
          {parts > 1 && <> {t("timeline.part", { part: a.segment_no, parts })}</>}
          {a.provider_message_id !== null && (
            <>
              {" "}
              <span className="muted">{t("timeline.providerId")}</span> <Exact value={a.provider_message_id} />
            </>
          )}
          {a.outcome !== "accepted" && a.command_status_name !== null && (
            <span className="muted"> {smppStatusText(a.command_status_name, t)}</span>
          )}
        </>
      );
    }
    case "receipt": {
      const r = item.receipt;
      if (r === null) return <span lang="en">{item.entry.summary}</span>;
      const s = detail.state;
      return (
        <>
          {t(`timeline.receipt.${r.kind}`)}
          {r.reported_state !== null && <>: {t(`reportedState.${r.reported_state}`)}</>}
          {r.status_unreadable && (
            <>
              {" "}
              <Badge tone="warning">
                <span data-testid="receipt-unreadable">{t("receipt.unreadable")}</span>
              </Badge>
            </>
          )}
          {parts > 1 && r.message_parts.length > 0 && r.message_parts.length < parts && (
            <span className="muted">
              {" "}
              {r.message_parts.length === 1
                ? t("timeline.part", { part: r.message_parts[0] ?? 0, parts })
                : t("timeline.parts", { list: r.message_parts.join(", "), parts })}
            </span>
          )}
          {r.stat_raw !== null && (
            <span className="muted" data-testid="timeline-receipt-codes">
              {" "}
              ({r.stat_raw}
              {r.err === null ? "" : `, ${isNoError(r.err) ? t("receiptCode.err.none") : t("receiptCode.timeline.err", { err: r.err })}`})
            </span>
          )}{" "}
          {r.is_repeat && <Badge tone="warning">{t("receipt.repeat")}</Badge>}{" "}
          {item.late && <Badge tone="warning">{t("receipt.late")}</Badge>}{" "}
          {s.supporting_receipt_ids.includes(r.id) && <Badge tone="progress">{t("receipt.basis")}</Badge>}{" "}
          {s.conflicting_receipt_ids.includes(r.id) && <Badge tone="danger">{t("receipt.conflicting")}</Badge>}
        </>
      );
    }
    case "exception_opened":
    case "exception_closed": {
      const e = item.exception;
      if (e === null) return <span lang="en">{item.entry.summary}</span>;
      return (
        <>
          {item.kind === "exception_opened"
            ? t("timeline.exceptionOpened", { kind: t(`exceptionKind.${e.kind}`) })
            : t("timeline.exceptionClosed", {
                outcome: e.resolution === null ? t(`exceptionStatus.${e.status}`) : resolutionWords(e.resolution, t),
                who: e.resolved_by ?? "—",
              })}{" "}
          <button type="button" className="link-button" onClick={() => onOpenException(e.id)}>
            {t("exception.open", { id: String(e.id) })}
          </button>
        </>
      );
    }
    case "audit": {
      const line = detail.audit.find((a) => a.id === item.entry.ref_id);
      if (line === undefined) return <span lang="en">{item.entry.summary}</span>;
      const who = auditActorWords(line.actor, t);
      const what = auditActionText(line.action, t);
      // What a person wrote, else what the engine recorded, in the reader's words.
      const note = line.note !== null && line.note !== "" ? line.note : auditDetailWords(line, t);
      return note === null ? t("timeline.audit", { who, what }) : t("timeline.auditNote", { who, what, note });
    }
    case "webhook": {
      const d = item.delivery;
      return t("timeline.webhook", {
        value: webhookValue(d.field, d.value, t),
        status: t(`webhookStatus.${d.status}`),
      });
    }
  }
}

function Evidence({ item, detail }: { item: TimelineItem; detail: MessageDetail }): ReactNode {
  const { t } = useI18n();
  switch (item.kind) {
    case "created":
      return (
        <>
          <MessageRecordFacts message={detail.message} route={detail.queue.route} pinned={detail.queue.pinned} />
          <EngineRecord entry={item.entry} />
        </>
      );
    case "attempt":
    case "attempt_result":
      return (
        <>
          {item.attempt === null ? <p className="muted">{t("timeline.noRow")}</p> : <AttemptEvidence attempt={item.attempt} />}
          <EngineRecord entry={item.entry} />
        </>
      );
    case "receipt":
      return (
        <>
          {item.receipt === null ? (
            <p className="muted">{t("timeline.noRow")}</p>
          ) : (
            <ReceiptEvidence receipt={item.receipt} late={item.late} />
          )}
          <EngineRecord entry={item.entry} />
        </>
      );
    case "exception_opened":
    case "exception_closed":
      return (
        <>
          {item.exception === null ? (
            <p className="muted">{t("timeline.noRow")}</p>
          ) : (
            <ExceptionFacts exception={item.exception} />
          )}
          <EngineRecord entry={item.entry} />
        </>
      );
    case "audit":
      return (
        <Facts>
          <Fact label={t("timeline.auditEntry")}>{String(item.entry.ref_id)}</Fact>
          <Fact label={t("timeline.engineRecord")}>
            <span lang="en">{item.entry.summary}</span>
          </Fact>
        </Facts>
      );
    case "webhook":
      return <WebhookEvidence delivery={item.delivery} />;
  }
}

export function ExceptionFacts({ exception: e }: { exception: ExceptionSummary }) {
  const { t, formatDateTime } = useI18n();
  return (
    <Facts>
      <Fact label={t("exception.kind")}>{t(`exceptionKind.${e.kind}`)}</Fact>
      <Fact label={t("exception.status")}>{t(`exceptionStatus.${e.status}`)}</Fact>
      <Fact label={t("exception.summary")}>
        <ExceptionSummaryWords exception={e} />
      </Fact>
      <Fact label={t("exception.openedAt")}>{formatDateTime(e.created_at_ms)}</Fact>
      <Fact label={t("resolution.what")}>{e.resolution === null ? null : resolutionWords(e.resolution, t)}</Fact>
      <Fact label={t("resolution.note")}>
        <ResolutionNote exception={e} />
      </Fact>
      <Fact label={t("resolution.by")}>{e.resolved_by === "system" ? t("resolution.bySystem") : e.resolved_by}</Fact>
      <Fact label={t("resolution.at")}>{e.resolved_at_ms === null ? null : formatDateTime(e.resolved_at_ms)}</Fact>
    </Facts>
  );
}

/** What the integration's server answered to one POST, or why there was no answer. */
function tryAnswer(httpStatus: number | null, error: string | null): string {
  if (httpStatus === null) return error ?? "—";
  return error === null ? `HTTP ${httpStatus}` : `HTTP ${httpStatus} — ${error}`;
}

function WebhookEvidence({ delivery: d }: { delivery: DeliveryView }) {
  const { t, formatDateTimePrecise, formatNumber } = useI18n();
  return (
    <div className="evidence" data-testid="webhook-evidence">
      <Facts>
        <Fact label={t("webhook.field")}>{t(`webhookField.${d.field}`)}</Fact>
        <Fact label={t("webhook.value")}>
          <span data-value={d.value}>{webhookValue(d.field, d.value, t)}</span>
        </Fact>
        <Fact label={t("webhook.status")}>{t(`webhookStatus.${d.status}`)}</Fact>
        <Fact label={t("webhook.tries")}>{formatNumber(d.attempts)}</Fact>
        <Fact label={t("webhook.deliveredAt")}>{d.deliveredAt === null ? null : formatDateTimePrecise(d.deliveredAt)}</Fact>
        <Fact label={t("webhook.nextTry")}>{d.status === "pending" ? formatDateTimePrecise(d.nextAttemptAt) : null}</Fact>
        <Fact label={t("webhook.lastError")}>{d.lastError}</Fact>
        <Fact label={t("webhook.key")}>{String(d.apiKeyId)}</Fact>
      </Facts>
      {d.tries.length > 0 && (
        <ScrollArea>
          <table className="table table-compact">
            <thead>
              <tr>
                <th scope="col">{t("webhook.try.at")}</th>
                <th scope="col">{t("webhook.try.url")}</th>
                <th scope="col">{t("webhook.try.answer")}</th>
                <th scope="col" className="num">
                  {t("webhook.try.duration")}
                </th>
              </tr>
            </thead>
            <tbody>
              {d.tries.map((x) => (
                <tr key={x.id}>
                  <td>{formatDateTimePrecise(x.at)}</td>
                  <td className="wrap">
                    <code>{x.url}</code>
                  </td>
                  <td>{tryAnswer(x.httpStatus, x.error)}</td>
                  <td className="num">{t("webhook.try.ms", { ms: formatNumber(x.durationMs) })}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollArea>
      )}
    </div>
  );
}
