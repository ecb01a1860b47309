import type { AttemptView } from "../../bindings/AttemptView";
import { useI18n } from "../../i18n/context";
import { smppStatusMeaning } from "../../i18n/server/words";
import { Exact, Fact, Facts } from "../Facts";

/** Outcomes whose words say all the engine's sentence for them says. */
const WORDED_OUTCOMES: ReadonlySet<AttemptView["outcome"]> = new Set(["timeout", "link_lost"]);

/** One submit try as recorded before its PDU went out, and the SMSC's answer (or its absence). */
export function AttemptEvidence({ attempt: a }: { attempt: AttemptView }) {
  const { t, formatDateTimePrecise, formatNumber } = useI18n();
  const at = (ms: number | null) =>
    ms === null ? null : <time dateTime={new Date(ms).toISOString()}>{formatDateTimePrecise(ms)}</time>;
  return (
    <div className="evidence" data-testid="attempt-evidence" data-attempt-id={a.id}>
      <Facts testId="attempt-facts">
        <Fact label={t("attempt.try")}>{formatNumber(a.attempt_no)}</Fact>
        <Fact label={t("attempt.part")}>{formatNumber(a.segment_no)}</Fact>
        <Fact label={t("attempt.outcome")} testId="attempt-outcome">
          {t(`attemptOutcome.${a.outcome}`)}
        </Fact>
        <Fact label={t("attempt.commandStatus")} testId="attempt-command-status">
          {a.command_status === null ? null : (
            <>
              <code>{a.command_status_hex ?? String(a.command_status)}</code>
              {a.command_status_name !== null && <> {a.command_status_name}</>}
              {a.command_status_name !== null && <span className="muted"> — {smppStatusMeaning(a.command_status_name, t)}</span>}
            </>
          )}
        </Fact>
        <Fact label={t("attempt.providerId")} testId="attempt-provider-id">
          {a.provider_message_id === null ? null : <Exact value={a.provider_message_id} />}
        </Fact>
        <Fact label={t("attempt.providerIdNorm")}>
          {a.provider_id_norm === null ? null : <Exact value={a.provider_id_norm} />}
        </Fact>
        {/* The engine's own sentence, for what neither the status nor the outcome words above. */}
        <Fact label={t("attempt.error")}>
          {a.error === null || a.command_status_name !== null || WORDED_OUTCOMES.has(a.outcome) ? null : (
            <span lang="en">{a.error}</span>
          )}
        </Fact>
        <Fact label={t("attempt.recordedAt")}>{at(a.created_at_ms)}</Fact>
        <Fact label={t("attempt.sentAt")}>{at(a.sent_at_ms)}</Fact>
        <Fact label={t("attempt.answeredAt")}>{at(a.responded_at_ms)}</Fact>
        <Fact label={t("evidence.connection")}>{a.connection}</Fact>
        <Fact label={t("evidence.session")} testId="attempt-session">
          {a.session_id}
        </Fact>
        <Fact label={t("evidence.sequence")} testId="attempt-sequence">
          {a.sequence_number === null ? null : String(a.sequence_number)}
        </Fact>
        <Fact label={t("attempt.message")}>{String(a.message_id)}</Fact>
      </Facts>
    </div>
  );
}
