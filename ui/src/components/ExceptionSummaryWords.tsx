import type { ExceptionSummary } from "../bindings/ExceptionSummary";
import { useI18n } from "../i18n/context";
import { exceptionSummaryText } from "../i18n/server/words";

/**
 * Why an exception was opened, in the reader's language; for one opened by an older version that
 * recorded only the engine's English sentence, that sentence, marked as English.
 */
export function ExceptionSummaryWords({ exception }: { exception: ExceptionSummary }) {
  const { t } = useI18n();
  const words = exceptionSummaryText(exception, t);
  return words === null ? <span lang="en">{exception.summary}</span> : <span data-code={exception.summary_code}>{words}</span>;
}
