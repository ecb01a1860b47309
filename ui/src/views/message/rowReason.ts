import type { MessageSummary } from "../../bindings/MessageSummary";
import type { Translate } from "../../i18n/i18n";
import { reasonWords } from "../../i18n/reasons/words";

/**
 * Why a failed or held message is where it is, for its row under its state, by the same words as
 * the detail's queue row; null for any other (and for a failed one whose row carries no reason:
 * a problem recorded before reasons were).
 */
export function rowReason(m: MessageSummary, t: Translate): string | null {
  if (m.status !== "failed" && m.status !== "held") return null;
  if (m.reason !== null) return reasonWords(m.reason, t) ?? null;
  return m.status === "held" ? t("detail.reason.held") : null;
}
