import type { Tombstone } from "../../bindings/Tombstone";
import { useI18n } from "../../i18n/context";
import { count } from "../../i18n/privacy/redacted";
import { removalWhy } from "../../i18n/privacy/words";

/** A number retention or an erasure replaced: its keyed hash, `h:` then 32 hexadecimal digits. */
export function isNumberHash(value: string): boolean {
  return /^h:[0-9a-f]{32}$/i.test(value);
}

/**
 * A phone number as a list shows it; a removed one (its keyed hash) says so rather than look
 * like a number.
 */
export function ShownNumber({ value, className = "phone", testId }: { value: string; className?: string; testId?: string }) {
  const { t } = useI18n();
  if (!isNumberHash(value)) {
    return (
      <span className={className} data-testid={testId}>
        {value}
      </span>
    );
  }
  return (
    <span className="muted number-removed" data-testid={testId} data-removed="true" title={value}>
      {t("message.numberRemoved.short")}
    </span>
  );
}

/** When content was removed, as an ISO time for `<time>` and in the reader's words. */
function useRemovedAt(tombstone: Tombstone): { iso: string; shown: string } {
  const { formatDateTime } = useI18n();
  const at = count(tombstone.at);
  return { iso: new Date(at).toISOString(), shown: formatDateTime(at) };
}

/** In place of a message's text once removed: when, and by which rule or who erased it. */
export function TextRemoved({ tombstone }: { tombstone: Tombstone }) {
  const { t } = useI18n();
  const { iso, shown } = useRemovedAt(tombstone);
  return (
    <p className="message-removed" data-testid="message-text-removed" data-rule={tombstone.rule} data-at={iso}>
      {t("message.textRemoved", { at: shown, why: removalWhy(tombstone, t) })}
    </p>
  );
}

/** In place of a message's number once removed: that it is kept only as a keyed hash, since when and why. */
export function NumberRemoved({ tombstone, hash }: { tombstone: Tombstone; hash: string }) {
  const { t } = useI18n();
  const { iso, shown } = useRemovedAt(tombstone);
  return (
    <span data-testid="message-number-removed" data-rule={tombstone.rule} data-at={iso}>
      <span className="number-removed">{t("message.numberRemoved")}</span>
      <span className="hint number-removed-when">
        {t("message.numberRemoved.when", { at: shown, why: removalWhy(tombstone, t) })}{" "}
        <code className="wrap" data-testid="message-number-hash">
          {hash}
        </code>
      </span>
    </span>
  );
}
