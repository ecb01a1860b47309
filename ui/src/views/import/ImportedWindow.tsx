import { useI18n } from "../../i18n/context";

/** The time an import queued its messages in: from the first to the last, in ms. */
export interface Window {
  readonly fromMs: number;
  readonly toMs: number;
}

/** `<from>..<to>` as the list's query keeps an import's window. */
export function importedQuery(window: Window): string {
  return `${Math.floor(window.fromMs)}..${Math.ceil(window.toMs)}`;
}

/** The window a query names, or null when it names none (or cannot be read). */
export function importedWindow(value: string): Window | null {
  const m = /^(\d+)\.\.(\d+)$/.exec(value.trim());
  if (m === null) return null;
  const [fromMs, toMs] = [Number(m[1]), Number(m[2])];
  return fromMs <= toMs ? { fromMs, toMs } : null;
}

/** Over the filters while the list shows one import's messages: which, and the way back to all. */
export function ImportedWindow({ value, onClear }: { value: string; onClear: () => void }) {
  const { t, formatDateTimePrecise } = useI18n();
  const window = importedWindow(value);
  if (window === null) return null;
  return (
    <div className="notice notice-info field-wide" data-testid="filter-imported" data-window={value}>
      <p>{t("filters.imported", { from: formatDateTimePrecise(window.fromMs), to: formatDateTimePrecise(window.toMs) })}</p>
      <button type="button" className="link-button" onClick={onClear} data-testid="filter-imported-clear">
        {t("filters.imported.clear")}
      </button>
    </div>
  );
}
