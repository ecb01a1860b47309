import type { QueueStatus } from "../../bindings/QueueStatus";
import type { RetryAdvice } from "../../bindings/RetryAdvice";
import type { RetryFact } from "../../bindings/RetryFact";
import type { RetryFactCode } from "../../bindings/RetryFactCode";
import type { MessageAction } from "../../bindings/MessageAction";
import { useI18n } from "../../i18n/context";
import { retryFactWords } from "../../i18n/reasons/words";
import type { NetworkEvidence } from "./words";
import { DuplicateEvidence } from "./RetryWarnings";

const has = (facts: readonly RetryFact[], ...codes: RetryFactCode[]): boolean => facts.some((f) => codes.includes(f.code));

/**
 * What confirming the advised facts says to the engine: a message the SMSC had (may arrive twice,
 * or rejected after its acceptance) confirms the duplicate; one that will fail again confirms the
 * permanent failure; one past its kind's limits (an admin's) overrides them.
 */
export function confirmedBy(facts: readonly RetryFact[]): Pick<MessageAction, "confirm_duplicate" | "override_limits" | "confirm_permanent_failure"> {
  return {
    confirm_duplicate: has(facts, "may_arrive_twice", "rejected_by_network"),
    override_limits: has(facts, "limit_reached", "expired"),
    ...(has(facts, "will_fail_again") ? { confirm_permanent_failure: true } : {}),
  };
}

/** One fact in words, marked with its code. */
function Fact({ fact }: { fact: RetryFact }) {
  const { t } = useI18n();
  return (
    <p data-testid="retry-fact" data-code={fact.code}>
      {retryFactWords(fact, t)}
    </p>
  );
}

/**
 * What stops a retry, first: the first fact in its own words under its title, the others after
 * it. Nothing here asks for a note: no note overcomes these.
 */
export function BlockedFacts({ advice }: { advice: RetryAdvice }) {
  const { t } = useI18n();
  const [first, ...rest] = advice.blocked;
  if (first === undefined) return null;
  return (
    <div className="notice notice-warning action-warning field-wide" role="alert" data-testid="retry-fact-blocked" data-code={first.code}>
      <h3>{t(`retryFact.title.${first.code}`)}</h3>
      <Fact fact={first} />
      {/* Blocked for this caller only: who may go past the limit says where to turn. */}
      {first.code === "limit_reached" && <p data-testid="limits-admin-only">{t("limits.adminOnly")}</p>}
      {rest.length > 0 && (
        <>
          <p className="muted">{t("retry.blocked.more")}</p>
          {rest.map((f) => (
            <Fact key={f.code} fact={f} />
          ))}
        </>
      )}
    </div>
  );
}

/**
 * What a retry must be confirmed for, before any note is written: the first fact under its title
 * (a network's rejection speaks of the rejection, not of arriving twice), each fact in words,
 * and, for a message the network had, the evidence of it.
 */
export function ConfirmFacts({
  facts,
  status,
  evidence,
}: {
  facts: readonly RetryFact[];
  status: QueueStatus;
  evidence: NetworkEvidence | null;
}) {
  const { t } = useI18n();
  const [first] = facts;
  if (first === undefined) return null;
  const rejected = has(facts, "rejected_by_network");
  const lead = rejected ? "rejected_by_network" : first.code;
  const ordered = [...facts].sort((a, b) => Number(b.code === lead) - Number(a.code === lead));
  return (
    <div
      className="notice notice-warning action-warning field-wide"
      role="alert"
      data-testid="retry-fact-confirm"
      data-code={lead}
    >
      <h3>{t(`retryFact.title.${lead}`)}</h3>
      {ordered.map((f) => (
        <Fact key={f.code} fact={f} />
      ))}
      {has(facts, "may_arrive_twice") && !rejected && <DuplicateEvidence status={status} evidence={evidence} />}
      <p>{t("retry.facts.noteNeeded")}</p>
    </div>
  );
}
