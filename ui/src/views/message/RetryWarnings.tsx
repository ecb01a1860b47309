import type { BackendError } from "../../backend";
import type { QueueStatus } from "../../bindings/QueueStatus";
import { useI18n } from "../../i18n/context";
import { permanentReason, type NetworkEvidence } from "./words";

/** The strongest evidence that the network had the message already, in one sentence. */
export function DuplicateEvidence({ status, evidence }: { status: QueueStatus; evidence: NetworkEvidence | null }) {
  const { t, formatDateTime } = useI18n();
  const says =
    evidence?.kind === "delivered"
      ? t("retry.duplicate.delivered", { when: formatDateTime(evidence.atMs), receipt: evidence.receiptId })
      : evidence?.kind === "accepted"
        ? t("retry.duplicate.acceptedAt", { when: formatDateTime(evidence.atMs) })
        : status === "outcome_unknown"
          ? t("retry.duplicate.outcome_unknown")
          : t("retry.duplicate.other");
  return (
    <p data-testid="retry-duplicate-evidence" data-evidence={evidence?.kind ?? status}>
      {says}
    </p>
  );
}

/** The engine asked: sending the message again may deliver it twice, naming the strongest evidence. */
export function DuplicateWarning({ status, evidence }: { status: QueueStatus; evidence: NetworkEvidence | null }) {
  const { t } = useI18n();
  return (
    <>
      <h3>{t("retry.duplicate.title")}</h3>
      <DuplicateEvidence status={status} evidence={evidence} />
      <p>{t("retry.duplicate.noteNeeded")}</p>
    </>
  );
}

/** The engine said its last try was refused for good: why, in plain words, and that retrying will fail again. */
export function PermanentWarning({ error }: { error: BackendError }) {
  const { t } = useI18n();
  const status = error.commandStatus;
  return (
    <>
      <h3>{t("retry.permanent.title")}</h3>
      <p data-testid="retry-permanent-reason" data-status={status ?? ""}>
        {t(`retry.permanent.${permanentReason(status)}`, { status: status ?? "?" })}
      </p>
      <p>{t("retry.permanent.again")}</p>
      <p>{t("retry.permanent.noteNeeded")}</p>
    </>
  );
}
