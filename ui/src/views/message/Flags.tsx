import { useId } from "react";
import { Badge } from "../../components/Badge";
import { useI18n } from "../../i18n/context";
import { FLAGS, type Flag } from "../labels";
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

/** Every flag the message carries, each with one line saying what it means. */
export function Flags({ flags }: { flags: readonly Flag[] }) {
  const { t } = useI18n();
  const headingId = useId();
  if (flags.length === 0) return null;
  const shown = FLAGS.filter((f) => flags.includes(f));
  return (
    <section className="flags" aria-labelledby={headingId} data-testid="flags">
      <h3 id={headingId}>{t("flags.title")}</h3>
      <ul>
        {shown.map((f) => (
          <li key={f} data-testid="flag" data-flag={f}>
            <Badge tone={FLAG_TONE[f]}>{t(`flag.${f}`)}</Badge> <span>{t(`flag.${f}.explained`)}</span>
          </li>
        ))}
      </ul>
    </section>
  );
}
