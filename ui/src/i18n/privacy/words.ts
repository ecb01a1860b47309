import type { Tombstone } from "../../bindings/Tombstone";
import type { I18n } from "../i18n";
import { auditActorWords } from "../reasons/words";

/** Why content was removed, as said after a dash: "retention (text_days)", "erased by Alice". */
export function removalWhy(tombstone: Tombstone, t: I18n["t"]): string {
  return tombstone.rule === "erasure"
    ? t("message.removed.erasure", { actor: auditActorWords(tombstone.actor, t) })
    : t("message.removed.retention", { rule: tombstone.rule });
}
