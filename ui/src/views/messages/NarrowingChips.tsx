import { useId } from "react";
import { useI18n } from "../../i18n/context";
import { isDimension, valueLabel } from "../reports/values";
import { NARROWING_FIELDS, without, type Narrowing, type NarrowingField } from "./narrowing";

interface Chip {
  readonly field: NarrowingField | "period";
  readonly text: string;
}

/**
 * Over the filters while the list is narrowed from a report: each narrowing as a chip in words
 * ("Connection: primary", "Outcome: Failed or Expired", the period), so the operator sees why the
 * list holds what it holds, and each removable on its own.
 */
export function NarrowingChips({ narrowing, onChange }: { narrowing: Narrowing; onChange: (next: Narrowing) => void }) {
  const i18n = useI18n();
  const { t, formatDateTime } = i18n;
  const labelId = useId();
  const chips: Chip[] = [];
  for (const field of NARROWING_FIELDS) {
    const value = narrowing[field];
    if (value === undefined || !isDimension(field)) continue;
    chips.push({
      field,
      text: t("narrowing.chip", { name: t(`reports.dimension.${field}`), value: valueLabel(field, value, i18n) }),
    });
  }
  if (narrowing.from_ms !== undefined || narrowing.to_ms !== undefined) {
    chips.push({
      field: "period",
      text: t("narrowing.period", {
        from: narrowing.from_ms === undefined ? "…" : formatDateTime(narrowing.from_ms),
        to: narrowing.to_ms === undefined ? "…" : formatDateTime(narrowing.to_ms),
      }),
    });
  }
  if (chips.length === 0) return null;

  return (
    <div className="saved-filters narrowing field-wide" role="group" aria-labelledby={labelId} data-testid="narrowing">
      <span className="saved-filters-label" id={labelId}>
        {t("narrowing.label")}
      </span>
      <ul className="saved-filter-list">
        {chips.map((chip) => (
          <li key={chip.field} className="saved-filter" data-testid="narrowing-chip" data-field={chip.field}>
            <span className="narrowing-text">{chip.text}</span>
            <button
              type="button"
              className="chip-delete"
              aria-label={t("narrowing.remove", { filter: chip.text })}
              title={t("narrowing.remove", { filter: chip.text })}
              onClick={() => onChange(without(narrowing, chip.field))}
              data-testid="narrowing-remove"
            >
              <span aria-hidden="true">×</span>
            </button>
          </li>
        ))}
      </ul>
    </div>
  );
}
