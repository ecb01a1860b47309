import { useId } from "react";
import type { MessageDetail } from "../../bindings/MessageDetail";
import type { OperatorDecision } from "../../bindings/OperatorDecision";
import type { ReceiptView } from "../../bindings/ReceiptView";
import { Badge } from "../../components/Badge";
import { Exact, Fact, Facts } from "../../components/Facts";
import { useI18n } from "../../i18n/context";
import { QUEUE_TONE, STATE_TONE } from "../tones";
import { queueReasonWords } from "../../i18n/reasons/words";
import { neverAccepted } from "./headline";
import { failureReason, networkState, resolutionWords } from "./words";

/**
 * The three statements about a message, never merged: what our queue did, what the network
 * reported, and what an operator decided. Acceptance by the provider is not delivery, and a
 * receipt is the network's report, not proof that anyone read the message.
 */
export function Statements({
  detail,
  onShowReceipt,
  onOpenException,
}: {
  detail: MessageDetail;
  onShowReceipt: (receiptId: number) => void;
  onOpenException: (id: number) => void;
}) {
  return (
    <div className="statements">
      <QueueStatement detail={detail} />
      <NetworkStatement detail={detail} onShowReceipt={onShowReceipt} />
      {detail.operator_decision !== null && (
        <OperatorStatement decision={detail.operator_decision} onOpenException={onOpenException} />
      )}
    </div>
  );
}

function QueueStatement({ detail }: { detail: MessageDetail }) {
  const { t, formatDateTime, formatNumber } = useI18n();
  const headingId = useId();
  const q = detail.queue;
  const scheduledAt = detail.message.scheduled_at_ms;
  const says =
    q.status === "failed"
      ? t("queueSays.failed", { reason: failureReason(detail, t) })
      : q.status === "queued" && scheduledAt !== null && scheduledAt > Date.now()
        ? t("queueSays.scheduled", { when: formatDateTime(scheduledAt) })
        : t(`queueSays.${q.status}`);
  return (
    <section className="statement" aria-labelledby={headingId} data-testid="statement-queue" data-status={q.status}>
      <h3 id={headingId}>{t("statement.queue")}</h3>
      <p className="statement-lead">
        <Badge tone={QUEUE_TONE[q.status]}>{t(`queueStatus.${q.status}`)}</Badge>
      </p>
      <p data-testid="statement-queue-says">{says}</p>
      <Facts>
        <Fact label={t("queue.tries")} testId="queue-tries">
          {formatNumber(detail.summary.attempts)}
        </Fact>
        <Fact label={t("queue.nextTry")}>
          {q.status === "queued" ? formatDateTime(Math.max(q.next_attempt_at_ms, detail.message.created_at_ms)) : null}
        </Fact>
        <Fact label={t("queue.acceptedAt")}>{q.accepted_at_ms === null ? null : formatDateTime(q.accepted_at_ms)}</Fact>
        <Fact label={t("queue.providerIds")} testId="queue-provider-ids">
          {q.provider_message_ids.length === 0 ? null : (
            <span className="exact-list">
              {q.provider_message_ids.map((id, i) => (
                <Exact key={`${id}:${i}`} value={id} />
              ))}
            </span>
          )}
        </Fact>
        <Fact label={t("queue.lastError")} testId="queue-last-problem">
          {q.status === "failed" ? null : queueReasonWords(q, t)}
        </Fact>
        <Fact label={t("queue.updatedAt")}>{formatDateTime(q.updated_at_ms)}</Fact>
      </Facts>
    </section>
  );
}

function NetworkStatement({ detail, onShowReceipt }: { detail: MessageDetail; onShowReceipt: (id: number) => void }) {
  const { t, formatDateTime, formatNumber } = useI18n();
  const headingId = useId();
  const s = detail.state;
  const state = networkState(detail);
  const decided = s.rule === "operator_decision";
  // Refused before any acceptance: no receipt is on its way, and the page does not wait for one.
  const never = !decided && state === "pending" && neverAccepted(detail);
  const explained = decided
    ? t(s.reported_state === null ? "rule.underDecision.none" : "rule.underDecision")
    : never
      ? t("statement.network.neverAccepted.explained")
      : t(`rule.${s.rule}`);
  const receipts = new Map(detail.receipts.map((r) => [r.id, r]));
  const supporting = s.supporting_receipt_ids.map((id) => receipts.get(id) ?? id);
  const conflicting = s.conflicting_receipt_ids.map((id) => receipts.get(id) ?? id);
  return (
    <section
      className="statement"
      aria-labelledby={headingId}
      data-testid="statement-network"
      data-state={state}
      data-never-accepted={never ? "" : undefined}
    >
      <h3 id={headingId}>{t("statement.network")}</h3>
      <p className="statement-lead">
        <Badge tone={STATE_TONE[state]}>
          <span data-testid="statement-network-state">
            {never ? t("statement.network.neverAccepted") : t(`reportedState.${state}`)}
          </span>
        </Badge>
      </p>
      <p data-testid="statement-network-rule">{explained}</p>
      {s.parts.length > 0 && <PartStates detail={detail} />}
      <p className="hint">{t("statement.network.hint")}</p>
      {supporting.length > 0 && (
        <ReceiptRefs title={t("statement.network.basis")} receipts={supporting} onShow={onShowReceipt} testId="network-basis" />
      )}
      {conflicting.length > 0 && (
        <ReceiptRefs
          title={t("statement.network.contradicted")}
          receipts={conflicting}
          onShow={onShowReceipt}
          testId="network-conflicting"
        />
      )}
      <Facts>
        <Fact label={t("statement.network.rulesVersion")}>
          {s.rules_version === null ? null : formatNumber(s.rules_version)}
        </Fact>
        <Fact label={t("statement.network.updatedAt")}>{s.updated_at_ms === null ? null : formatDateTime(s.updated_at_ms)}</Fact>
      </Facts>
    </section>
  );
}

/** Where each part of a long message stands, by the same rules as a whole message. */
function PartStates({ detail }: { detail: MessageDetail }) {
  const { t } = useI18n();
  const parts = detail.state.parts;
  return (
    <div className="part-states" data-testid="network-parts">
      <h4>{t("statement.network.parts")}</h4>
      <ul>
        {parts.map((p) => (
          <li key={p.part} data-part={p.part} data-state={p.state}>
            {t("statement.network.part", { part: p.part, parts: parts.length })}{" "}
            <Badge tone={STATE_TONE[p.state]}>
              {p.rule === "no_report" ? t("statement.network.part.nothing") : t(`reportedState.${p.state}`)}
            </Badge>
            {p.conflict && (
              <>
                {" "}
                <Badge tone="danger">{t("flag.conflict")}</Badge>
              </>
            )}
          </li>
        ))}
      </ul>
    </div>
  );
}

function ReceiptRefs({
  title,
  receipts,
  onShow,
  testId,
}: {
  title: string;
  receipts: (ReceiptView | number)[];
  onShow: (id: number) => void;
  testId: string;
}) {
  const { t, formatDateTime } = useI18n();
  return (
    <div className="receipt-refs" data-testid={testId}>
      <h4>{title}</h4>
      <ul>
        {receipts.map((r) => {
          const id = typeof r === "number" ? r : r.id;
          return (
            <li key={id} data-receipt-id={id}>
              <button type="button" className="link-button" onClick={() => onShow(id)}>
                {t("receipt.refStart", { id: String(id) })}
              </button>
              {typeof r !== "number" && (
                <span className="muted">
                  {" "}
                  {r.reported_state === null ? "" : t(`reportedState.${r.reported_state}`)}
                  {r.stat_raw === null ? "" : ` (${r.stat_raw})`} · {formatDateTime(r.received_at_ms)}
                </span>
              )}
            </li>
          );
        })}
      </ul>
    </div>
  );
}

function OperatorStatement({
  decision: d,
  onOpenException,
}: {
  decision: OperatorDecision;
  onOpenException: (id: number) => void;
}) {
  const { t, formatDateTime } = useI18n();
  const headingId = useId();
  const chosen =
    d.state !== null
      ? t(`decidedState.${d.state}`)
      : d.resolution !== null
        ? resolutionWords(d.resolution, t)
        : t("decision.none");
  return (
    <section className="statement statement-decision" aria-labelledby={headingId} data-testid="statement-operator">
      <h3 id={headingId}>{t("statement.operator")}</h3>
      <p className="statement-lead" data-testid="statement-operator-state">
        {chosen}
      </p>
      <p className="hint">{t("statement.operator.hint")}</p>
      <Facts>
        <Fact label={t("decision.by")} testId="decision-by">
          {d.decided_by}
        </Fact>
        <Fact label={t("decision.at")}>{d.decided_at_ms === null ? null : formatDateTime(d.decided_at_ms)}</Fact>
        <Fact label={t("decision.note")} testId="decision-note">
          {d.note === null ? null : <q>{d.note}</q>}
        </Fact>
        <Fact label={t("decision.exception")}>
          <button type="button" className="link-button" onClick={() => onOpenException(d.exception_id)}>
            {t("exception.ref", { id: String(d.exception_id), kind: t(`exceptionKind.${d.exception_kind}`) })}
          </button>
        </Fact>
      </Facts>
    </section>
  );
}
