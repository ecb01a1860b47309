import { useId, useMemo, useState, type FormEvent } from "react";
import { useAccess } from "../access/context";
import { useI18n } from "../i18n/context";
import { isAny, type MessageQuery } from "./MessageFilters";
import {
  deviceStorage,
  isApplied,
  readSaved,
  writeSaved,
  savedFiltersKey,
  withoutSaved,
  withSaved,
  type SavedFilter,
} from "./savedFilters";

/**
 * The filters a person keeps under names: one click applies a set, another deletes it, and the
 * filters applied now can be saved under a new name (or replace a set of that name). Kept on this
 * device for the account signed in (see `savedFiltersKey`). `storage` is for tests.
 */
export function SavedFilters({
  current,
  onApply,
  storage = deviceStorage(),
}: {
  current: MessageQuery;
  onApply: (query: MessageQuery) => void;
  storage?: Storage | null;
}) {
  const { t } = useI18n();
  const { me } = useAccess();
  const key = savedFiltersKey(me);
  const ids = { label: useId(), name: useId(), hint: useId() };
  const [list, setList] = useState<readonly SavedFilter[]>(() => readSaved(storage, key));
  const [naming, setNaming] = useState(false);
  const [name, setName] = useState("");
  const [note, setNote] = useState<string | null>(null);
  const applied = useMemo(() => list.find((f) => isApplied(f, current))?.name ?? null, [list, current]);

  const keep = (next: SavedFilter[], done: string): void => {
    setList(next);
    setNote(writeSaved(storage, key, next) ? done : t("savedFilters.unavailable"));
  };
  const open = (): void => {
    if (isAny(current)) {
      setNote(t("savedFilters.nothing"));
      return;
    }
    setNote(null);
    setName(applied ?? "");
    setNaming(true);
  };
  const save = (event: FormEvent<HTMLFormElement>): void => {
    event.preventDefault();
    if (name.trim() === "") return;
    keep(withSaved(list, name, current), t("savedFilters.saved", { name: name.trim() }));
    setNaming(false);
  };
  const remove = (gone: string): void => keep(withoutSaved(list, gone), t("savedFilters.deleted", { name: gone }));

  return (
    <div className="saved-filters" role="group" aria-labelledby={ids.label} data-testid="saved-filters">
      <span className="saved-filters-label" id={ids.label}>
        {t("savedFilters.label")}
      </span>
      {list.length === 0 ? (
        <span className="hint" data-testid="saved-filters-none">
          {t("savedFilters.none")}
        </span>
      ) : (
        <ul className="saved-filter-list">
          {list.map((f) => (
            <li key={f.name} className="saved-filter" data-testid="saved-filter" data-name={f.name}>
              <button
                type="button"
                className="chip"
                title={t("savedFilters.apply", { name: f.name })}
                aria-current={f.name === applied ? "true" : undefined}
                onClick={() => onApply(f.query)}
                data-testid="saved-filter-apply"
              >
                {f.name === applied && <span aria-hidden="true">✓ </span>}
                {f.name}
                {f.name === applied && <span className="visually-hidden"> ({t("savedFilters.applied")})</span>}
              </button>
              <button
                type="button"
                className="chip-delete"
                aria-label={t("savedFilters.delete", { name: f.name })}
                title={t("savedFilters.delete", { name: f.name })}
                onClick={() => remove(f.name)}
                data-testid="saved-filter-delete"
              >
                <span aria-hidden="true">×</span>
              </button>
            </li>
          ))}
        </ul>
      )}
      {naming ? (
        <form className="saved-filter-form" onSubmit={save} noValidate data-testid="saved-filter-form">
          <label htmlFor={ids.name}>{t("savedFilters.name")}</label>
          <input
            id={ids.name}
            type="text"
            value={name}
            maxLength={60}
            required
            autoFocus
            onChange={(e) => setName(e.target.value)}
            aria-describedby={ids.hint}
            data-testid="saved-filter-name"
          />
          <button type="submit" className="button button-small" disabled={name.trim() === ""} data-testid="saved-filter-save">
            {t("savedFilters.save")}
          </button>
          <button
            type="button"
            className="button button-secondary button-small"
            onClick={() => setNaming(false)}
            data-testid="saved-filter-cancel"
          >
            {t("savedFilters.cancel")}
          </button>
          <p className="hint" id={ids.hint}>
            {t("savedFilters.name.hint")}
          </p>
        </form>
      ) : (
        <button type="button" className="button button-secondary button-small" onClick={open} data-testid="saved-filter-save-open">
          {t("savedFilters.saveOpen")}
        </button>
      )}
      <p className="saved-filters-note" aria-live="polite" data-testid="saved-filters-note">
        {note}
      </p>
    </div>
  );
}
