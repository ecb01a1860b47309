import type { Stat } from "../../bindings/Stat";
import type { Translate } from "../../i18n/i18n";

/** The `message_state` values of SMPP 3.4 §5.2.28, 1 to 9, by their specification names (not translated). */
export const MESSAGE_STATES = [
  "ENROUTE",
  "DELIVERED",
  "EXPIRED",
  "DELETED",
  "UNDELIVERABLE",
  "ACCEPTED",
  "UNKNOWN",
  "REJECTED",
  "SKIPPED",
] as const;

export type MessageStateName = (typeof MESSAGE_STATES)[number];

/** A `message_state` means what the receipt text's status word for the same state means. */
const STAT_OF_STATE: Readonly<Record<MessageStateName, Stat>> = {
  ENROUTE: "ENROUTE",
  DELIVERED: "DELIVRD",
  EXPIRED: "EXPIRED",
  DELETED: "DELETED",
  UNDELIVERABLE: "UNDELIV",
  ACCEPTED: "ACCEPTD",
  UNKNOWN: "UNKNOWN",
  REJECTED: "REJECTD",
  SKIPPED: "SKIPPED",
};

/** The specification's name of a `message_state` value, or null for one it does not define. */
export function messageStateName(value: number): MessageStateName | null {
  return Number.isInteger(value) && value >= 1 && value <= MESSAGE_STATES.length ? (MESSAGE_STATES[value - 1] ?? null) : null;
}

/** What a status word (`stat:` in a receipt's text) says, in plain words; null when no word was read. */
export function statMeaning(stat: Stat | null, t: Translate): string {
  return stat === null ? t("receiptCode.stat.unknownWord") : t(`receiptCode.stat.${stat}`);
}

/** What a `message_state` value says, in plain words. */
export function messageStateMeaning(value: number, t: Translate): string {
  const name = messageStateName(value);
  return name === null ? t("receiptCode.messageState.other") : t(`receiptCode.stat.${STAT_OF_STATE[name]}`);
}

/** `err:` is the provider's own code, given as digits; all zeros ("000") means no error. */
export function isNoError(err: string): boolean {
  return /^0+$/.test(err.trim());
}

/** What an `err:` value is, in plain words: no error, or the provider's own code shown as given. */
export function errMeaning(err: string, t: Translate): string {
  return isNoError(err) ? t("receiptCode.err.none") : t("receiptCode.err.provider");
}
