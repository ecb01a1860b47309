import type { Redacted } from "../../bindings/Redacted";
import { useI18n } from "../../i18n/context";
import { count, REDACTED_PARTS } from "../../i18n/privacy/redacted";

/** What a run or an erasure removed, one line per kind of thing it held; that it removed nothing when so. */
export function RedactedCounts({ redacted, testId }: { redacted: Redacted; testId?: string }) {
  const { t } = useI18n();
  const parts = REDACTED_PARTS.filter((part) => count(redacted[part]) > 0);
  if (parts.length === 0) {
    return (
      <p data-testid={testId} data-total="0">
        {t("privacy.redacted.none")}
      </p>
    );
  }
  return (
    <ul className="plain-list" data-testid={testId}>
      {parts.map((part) => (
        <li key={part} data-part={part} data-count={count(redacted[part])}>
          {t("privacy.redacted.part", { what: t(`privacy.redacted.${part}`), count: count(redacted[part]) })}
        </li>
      ))}
    </ul>
  );
}

/** Whether the write-ahead log was emptied after a removal (else its old pages go at the next checkpoint). */
export function WalLine({ emptied }: { emptied: boolean }) {
  const { t } = useI18n();
  return (
    <p className="hint" data-testid="privacy-wal" data-emptied={emptied}>
      {emptied ? t("privacy.wal.emptied") : t("privacy.wal.kept")}
    </p>
  );
}
