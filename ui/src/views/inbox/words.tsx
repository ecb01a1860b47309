import type { InboxMessage } from "../../bindings/InboxMessage";
import type { MessageKind } from "../../bindings/MessageKind";
import type { OptOutEntry } from "../../bindings/OptOutEntry";
import { Badge } from "../../components/Badge";
import { useI18n } from "../../i18n/context";
import type { Translate } from "../../i18n/i18n";
import { MESSAGE_KINDS } from "../labels";

/** What a reply asked for when its whole text is a keyword: "Opt-out: STOP", "Opt-in: START". */
export function IntentBadge({ message: m }: { message: Pick<InboxMessage, "intent" | "keyword"> }) {
  const { t } = useI18n();
  if (m.intent === "opt_out") {
    return (
      <Badge tone="warning">
        <span data-testid="reply-intent" data-intent="opt_out">
          {m.keyword === null ? t("reply.optOut") : t("reply.optOutKeyword", { keyword: m.keyword })}
        </span>
      </Badge>
    );
  }
  if (m.intent === "opt_in") {
    return (
      <Badge tone="success">
        <span data-testid="reply-intent" data-intent="opt_in">
          {m.keyword === null ? t("reply.optIn") : t("reply.optInKeyword", { keyword: m.keyword })}
        </span>
      </Badge>
    );
  }
  return null;
}

/** The kinds of message an entry stops, in the screen's words and order. */
export function kindsWords(kinds: readonly MessageKind[], t: Translate): string {
  return MESSAGE_KINDS.filter((k) => kinds.includes(k))
    .map((k) => t(`messageKind.${k}`))
    .join(", ");
}

/** Why a number is on the list: a reply, a person, or an import (who is `byWords`). */
export function reasonWords(entry: OptOutEntry, t: Translate): string {
  switch (entry.reason) {
    case "reply":
      return t("optOut.reason.reply");
    case "operator":
      return t("optOut.reason.operator");
    case "import":
      return t("optOut.reason.import");
    default:
      return entry.reason;
  }
}

/** Why a number came off the list (history). */
export function removedWords(entry: OptOutEntry, t: Translate): string | null {
  if (entry.removed_at_ms === null) return null;
  switch (entry.removed_reason) {
    case "reply":
      return t("optOut.removed.reply");
    case null:
      return t("optOut.removed.other", { who: byWords(entry.removed_by ?? "", t) });
    default:
      return t("optOut.removed.operator", { who: byWords(entry.removed_by ?? "", t) });
  }
}

/**
 * Who did it, in words: smsdesk itself, the person at the number (by their reply: the engine names
 * such an actor by the number alone, "+33…", and wrote "+33… (reply)" before), or a person or key
 * by name.
 */
export function byWords(actor: string, t: Translate): string {
  if (actor === "system") return t("optOut.bySystem");
  if (actor.endsWith(" (reply)") || /^\+\d{6,15}$/.test(actor)) return t("optOut.byHandset");
  if (actor === "operator") return t("audit.actor.operator");
  return actor;
}
