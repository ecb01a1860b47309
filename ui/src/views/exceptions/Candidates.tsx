import { useId } from "react";
import type { Candidate } from "../../bindings/Candidate";
import { Badge } from "../../components/Badge";
import { useI18n } from "../../i18n/context";
import { ShownNumber } from "../message/removed";

/**
 * A receipt that matched no message beside the tries whose outcome is unknown on its connection
 * (or, seen from a try, the receipts that matched nothing), each with the facts that agree or
 * differ. Nothing here attaches anything: that stays the operator's decision, below.
 */
export function Candidates({
  candidates,
  forReceipt,
  onOpenMessage,
  onOpenException,
}: {
  candidates: Candidate[];
  forReceipt: boolean;
  onOpenMessage: (id: number) => void;
  onOpenException: ((id: number) => void) | undefined;
}) {
  const { t, formatDateTime } = useI18n();
  const headingId = useId();
  return (
    <section aria-labelledby={headingId} data-testid="exception-candidates">
      <h3 id={headingId}>{t(forReceipt ? "candidates.title.receipt" : "candidates.title.attempt")}</h3>
      <p className="hint">{t("candidates.intro")}</p>
      {candidates.map((c) => (
        <article
          key={`${c.receipt.id}:${c.attempt.id}`}
          className="evidence-card"
          data-testid="candidate"
          data-message={c.attempt.message_id}
          data-receipt={c.receipt.id}
        >
          <h4>
            {forReceipt
              ? t("candidates.attempt", {
                  n: c.attempt.attempt_no,
                  id: String(c.attempt.message_id),
                  at: formatDateTime(c.attempt.sent_at_ms ?? c.attempt.created_at_ms),
                })
              : t("candidates.receipt", {
                  id: String(c.receipt.id),
                  at: formatDateTime(c.receipt.received_at_ms),
                })}
          </h4>
          {c.message !== null && (
            <p>
              <ShownNumber value={c.message.destination} /> <span className="message-body">{c.message.preview}</span>
            </p>
          )}
          <table className="facts-table" data-testid="candidate-facts">
            <thead>
              <tr>
                <th scope="col">{t("candidates.fact")}</th>
                <th scope="col">{t("candidates.receiptSays")}</th>
                <th scope="col">{t("candidates.attemptSays")}</th>
                <th scope="col">{t("candidates.verdict")}</th>
              </tr>
            </thead>
            <tbody>
              {c.facts.map((f) => (
                <tr key={f.field} data-field={f.field} data-agrees={f.agrees}>
                  <th scope="row">{t(`candidates.field.${f.field}`)}</th>
                  <td>
                    <code>{f.receipt}</code>
                  </td>
                  <td>
                    <code>{f.attempt}</code>
                  </td>
                  <td>
                    <Badge tone={f.agrees ? "success" : "warning"}>
                      {t(f.agrees ? "candidates.agrees" : "candidates.differs")}
                    </Badge>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          {c.facts.length === 0 && <p className="muted">{t("candidates.noFacts")}</p>}
          <div className="row-actions">
            <button
              type="button"
              className="button button-secondary button-small"
              onClick={() => onOpenMessage(c.attempt.message_id)}
            >
              {t("exception.openMessage", { id: String(c.attempt.message_id) })}
            </button>
            {!forReceipt && c.receipt_exception_id !== null && onOpenException !== undefined && (
              <button
                type="button"
                className="button button-secondary button-small"
                onClick={() => onOpenException(c.receipt_exception_id ?? 0)}
                data-testid="candidate-open-exception"
              >
                {t("candidates.openReceiptException", { id: String(c.receipt_exception_id) })}
              </button>
            )}
          </div>
        </article>
      ))}
    </section>
  );
}
