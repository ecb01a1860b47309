import { useId, type ReactNode } from "react";
import type { ExceptionKind } from "../../bindings/ExceptionKind";
import type { ExceptionSummary } from "../../bindings/ExceptionSummary";
import { Badge } from "../../components/Badge";
import { useI18n } from "../../i18n/context";
import { ATTENTION_FLAGS, NOTED_FLAGS, type Flag } from "../labels";
import type { Tone } from "../tones";

const FLAG_TONE: Readonly<Record<Flag, Tone>> = {
  outcome_unknown: "warning",
  conflict: "danger",
  no_receipt: "warning",
  mismatch: "warning",
  id_disagree: "warning",
  late: "neutral",
  repeat: "neutral",
};

/** The exceptions that ask a person to decide about what a flag says. */
export const FLAG_EXCEPTIONS: Readonly<Record<Flag, readonly ExceptionKind[]>> = {
  outcome_unknown: ["outcome_unknown", "partly_sent"],
  conflict: ["conflicting_final"],
  no_receipt: ["no_receipt"],
  mismatch: [],
  id_disagree: ["ambiguous"],
  late: [],
  repeat: [],
};

/**
 * Every flag the message carries, each with one line saying what it means: first what needs a
 * look, each with "Decide…" leading to its open exception, and any other open exception of the
 * message; then what the evidence merely notes (a late or repeated receipt changed nothing).
 */
export function Flags({
  flags,
  exceptions = [],
  onOpenException,
}: {
  flags: readonly Flag[];
  exceptions?: readonly ExceptionSummary[];
  onOpenException?: (id: number) => void;
}) {
  const { t } = useI18n();
  const open = exceptions.filter((e) => e.status === "open");
  const attention = ATTENTION_FLAGS.filter((f) => flags.includes(f));
  const noted = NOTED_FLAGS.filter((f) => flags.includes(f));
  const forFlag = (f: Flag) => open.filter((e) => FLAG_EXCEPTIONS[f].includes(e.kind));
  const claimed = new Set(attention.flatMap((f) => forFlag(f).map((e) => e.id)));
  const others = open.filter((e) => !claimed.has(e.id));
  return (
    <>
      {(attention.length > 0 || others.length > 0) && (
        <FlagSection title={t("flags.title")} testId="flags">
          {attention.map((f) => (
            <li key={f} data-testid="flag" data-flag={f}>
              <Badge tone={FLAG_TONE[f]}>{t(`flag.${f}`)}</Badge> <span>{t(`flag.${f}.explained`)}</span>
              <DecideLinks exceptions={forFlag(f)} onOpen={onOpenException} />
            </li>
          ))}
          {others.map((e) => (
            <li key={`x${e.id}`} data-testid="flag-exception" data-kind={e.kind}>
              <Badge tone="warning">{t(`exceptionKind.${e.kind}`)}</Badge> <span>{t(`exceptionKind.${e.kind}.explained`)}</span>
              <DecideLinks exceptions={[e]} onOpen={onOpenException} />
            </li>
          ))}
        </FlagSection>
      )}
      {noted.length > 0 && (
        <FlagSection title={t("flags.noted")} testId="flags-noted">
          {noted.map((f) => (
            <li key={f} data-testid="flag" data-flag={f}>
              <Badge tone={FLAG_TONE[f]}>{t(`flag.${f}`)}</Badge> <span>{t(`flag.${f}.explained`)}</span>
            </li>
          ))}
        </FlagSection>
      )}
    </>
  );
}

function DecideLinks({ exceptions, onOpen }: { exceptions: readonly ExceptionSummary[]; onOpen: ((id: number) => void) | undefined }) {
  const { t } = useI18n();
  if (onOpen === undefined || exceptions.length === 0) return null;
  return (
    <>
      {exceptions.map((e) => (
        <span key={e.id}>
          {" "}
          <button
            type="button"
            className="link-button nowrap"
            onClick={() => onOpen(e.id)}
            aria-label={t("flags.decide.label", { id: String(e.id), kind: t(`exceptionKind.${e.kind}`) })}
            data-testid="flag-decide"
            data-exception={e.id}
          >
            {t("flags.decide")}
          </button>
        </span>
      ))}
    </>
  );
}

function FlagSection({ title, testId, children }: { title: string; testId: string; children: ReactNode }) {
  const headingId = useId();
  return (
    <section className="flags" aria-labelledby={headingId} data-testid={testId}>
      <h3 id={headingId}>{title}</h3>
      <ul>{children}</ul>
    </section>
  );
}
