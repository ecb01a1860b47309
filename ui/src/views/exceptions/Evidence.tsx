import { useId } from "react";
import type { EvidenceItem } from "../../bindings/EvidenceItem";
import { AttemptEvidence } from "../../components/evidence/AttemptEvidence";
import { ReceiptEvidence } from "../../components/evidence/ReceiptEvidence";
import { useI18n } from "../../i18n/context";

/**
 * The exception's evidence side by side, each receipt with what decides in view (its status word
 * first) and every other field folded: the decision comes right after it.
 */
export function Evidence({ items }: { items: EvidenceItem[] }) {
  const { t } = useI18n();
  const headingId = useId();
  return (
    <section aria-labelledby={headingId}>
      <h3 id={headingId}>{t("exception.evidence")}</h3>
      {items.length === 0 ? (
        <p className="muted">{t("exception.evidence.none")}</p>
      ) : (
        <div className="evidence-grid" data-testid="exception-evidence">
          {items.map((item, i) => (
            <article
              key={`${item.role}:${item.receipt?.id ?? ""}:${item.attempt?.id ?? ""}:${i}`}
              className="evidence-card"
              data-testid="evidence-item"
              data-role={item.role}
            >
              <h4>
                {t(`evidenceRole.${item.role}`)}
                {item.receipt !== null && <span className="muted"> · {t("receipt.ref", { id: String(item.receipt.id) })}</span>}
                {item.attempt !== null && (
                  <span className="muted">
                    {" "}
                    · {t("attempt.ref", { n: item.attempt.attempt_no, id: String(item.attempt.message_id) })}
                  </span>
                )}
              </h4>
              <p className="hint">{t(`evidenceRole.${item.role}.explained`)}</p>
              {item.receipt !== null && <ReceiptEvidence receipt={item.receipt} fold />}
              {item.attempt !== null && <AttemptEvidence attempt={item.attempt} />}
            </article>
          ))}
        </div>
      )}
    </section>
  );
}
