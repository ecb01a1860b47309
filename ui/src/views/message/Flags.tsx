import { useId } from "react";
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

/** Every flag the message carries, each with one line saying what it means: first what needs a
 * look, then what the evidence merely notes (a late or repeated receipt changed nothing). */
export function Flags({ flags }: { flags: readonly Flag[] }) {
  const { t } = useI18n();
  const attention = ATTENTION_FLAGS.filter((f) => flags.includes(f));
  const noted = NOTED_FLAGS.filter((f) => flags.includes(f));
  return (
    <>
      <FlagList title={t("flags.title")} flags={attention} testId="flags" />
      <FlagList title={t("flags.noted")} flags={noted} testId="flags-noted" />
    </>
  );
}

function FlagList({ title, flags, testId }: { title: string; flags: readonly Flag[]; testId: string }) {
  const { t } = useI18n();
  const headingId = useId();
  if (flags.length === 0) return null;
  return (
    <section className="flags" aria-labelledby={headingId} data-testid={testId}>
      <h3 id={headingId}>{title}</h3>
      <ul>
        {flags.map((f) => (
          <li key={f} data-testid="flag" data-flag={f}>
            <Badge tone={FLAG_TONE[f]}>{t(`flag.${f}`)}</Badge> <span>{t(`flag.${f}.explained`)}</span>
          </li>
        ))}
      </ul>
    </section>
  );
}
