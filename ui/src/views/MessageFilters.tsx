import { useEffect, useId, useState, type FormEvent } from "react";
import type { Backend, BackendError } from "../backend";
import type { DeliveryState } from "../bindings/DeliveryState";
import type { FieldError } from "../bindings/FieldError";
import type { MessageFilter } from "../bindings/MessageFilter";
import type { MessageKind } from "../bindings/MessageKind";
import type { QueueStatus } from "../bindings/QueueStatus";
import { DateTimeField } from "../components/DateTimeField";
import { FieldProblem } from "../components/FieldProblem";
import { numberExample } from "../components/numberExamples";
import { useOfficeCountry } from "../components/useOfficeCountry";
import { useI18n } from "../i18n/context";
import { ImportedWindow, importedWindow } from "./import/ImportedWindow";
import { DELIVERY_STATES, MESSAGE_KINDS, QUEUE_STATUSES } from "./labels";
import { NarrowingChips } from "./messages/NarrowingChips";
import { isNarrowed, narrowingFilter, type Narrowing } from "./messages/narrowing";

/** What the operator asked to see; empty means "any". */
export interface MessageQuery {
  readonly status: QueueStatus | "";
  readonly state: DeliveryState | "";
  readonly kind: MessageKind | "";
  readonly q: string;
  readonly destination: string;
  /** Created on or after this day (`YYYY-MM-DD`, as a date input gives it), in the user's time zone. */
  readonly from: string;
  /** Created on or before this day, the whole day included. */
  readonly to: string;
  /**
   * The messages an import queued: created from its first to its last (`<ms>..<ms>`, exact times),
   * as the import's "show them" link narrows the list; "" for any.
   */
  readonly imported?: string;
  /** Narrowed from elsewhere (a report's figure, through the address): shown as chips, each removable. */
  readonly narrowing?: Narrowing;
}

export const ANY_MESSAGE: MessageQuery = { status: "", state: "", kind: "", q: "", destination: "", from: "", to: "", imported: "" };

/**
 * The engine's refusal of the filter's phone number (the field errors of a 422 on `destination`:
 * a national number without the office's country, a number that is none), shown at the field
 * instead of a list; none for any other error.
 */
export function filterProblems(error: BackendError | null): FieldError[] {
  return (error?.errors ?? []).filter((e) => e.field === "destination");
}

/** Midnight at the start of a `YYYY-MM-DD` day in the user's time zone, `days` later; null when not a date. */
export function localDayStart(day: string, days = 0): number | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day.trim());
  if (m === null) return null;
  const [year, month, date] = [Number(m[1]), Number(m[2]) - 1, Number(m[3])];
  const start = new Date(year, month, date);
  start.setFullYear(year); // the constructor reads years 0 to 99 as 1900 to 1999
  // Date rolls 2026-02-30 over into March: such a day is not a date.
  if (start.getFullYear() !== year || start.getMonth() !== month || start.getDate() !== date) return null;
  start.setDate(date + days);
  return start.getTime();
}

/** Why the dates cannot be searched, if they cannot: a day that is not a date, or From after To. */
export function dateProblem(query: MessageQuery): "fromInvalid" | "toInvalid" | "fromAfterTo" | null {
  const from = query.from.trim() === "" ? null : localDayStart(query.from);
  const to = query.to.trim() === "" ? null : localDayStart(query.to);
  if (query.from.trim() !== "" && from === null) return "fromInvalid";
  if (query.to.trim() !== "" && to === null) return "toInvalid";
  if (from !== null && to !== null && from > to) return "fromAfterTo";
  return null;
}

/** Separators people put in a phone number, which the engine ignores. */
const NUMBER_SEPARATORS = /[\s.\-()/\u2010-\u2015\u2212]/g;

/**
 * Why the phone number cannot be searched, if it cannot: anything but digits (and separators)
 * with a + in front, a * at the end (a beginning) or in front (an ending); or a bare number of
 * fewer than 4 digits, which the engine reads as the end of numbers only from 4 digits on. The
 * engine decides the rest: a national number is read in its default region, else as an ending.
 */
export function destinationProblem(query: MessageQuery): "tooShort" | "notNumber" | null {
  const bare = query.destination.trim().replace(NUMBER_SEPARATORS, "");
  if (bare === "") return null;
  if (!/^(\+?\d+\*?|\*\d+)$/.test(bare)) return "notNumber";
  const international = bare.startsWith("+") || bare.startsWith("00");
  if (!international && !bare.endsWith("*") && bare.replace(/\D/g, "").length < 4) return "tooShort";
  return null;
}

/**
 * The engine's filter for a query and a page: blanks are left out, words trimmed. From is the
 * start of its day and To the start of the day after it (the engine's `to_ms` is exclusive), both
 * in the user's time zone, so To includes its whole day.
 */
export function toMessageFilter(query: MessageQuery, cursor: string | null, limit: number | null): MessageFilter {
  const text = (value: string): string | null => (value.trim() === "" ? null : value.trim());
  const window = importedWindow(query.imported ?? "");
  const narrowing = query.narrowing;
  // Every bound given holds: the latest start and the earliest end.
  const from = latest(localDayStart(query.from), window?.fromMs ?? null, narrowing?.from_ms ?? null);
  const to = earliest(localDayStart(query.to, 1), window === null ? null : window.toMs + 1, narrowing?.to_ms ?? null);
  const narrowed = narrowingFilter(narrowing);
  return {
    status: query.status === "" ? null : query.status,
    state: query.state === "" ? null : query.state,
    kind: query.kind === "" ? narrowed.kind : query.kind,
    channel: null,
    destination: text(query.destination),
    q: text(query.q),
    from_ms: from,
    to_ms: to,
    connection: narrowed.connection,
    route: narrowed.route,
    country: narrowed.country,
    sender: narrowed.sender,
    outcome: narrowed.outcome,
    command_status: narrowed.command_status,
    error_code: narrowed.error_code,
    cursor,
    limit,
  };
}

function latest(...bounds: (number | null)[]): number | null {
  const given = bounds.filter((b): b is number => b !== null);
  return given.length === 0 ? null : Math.max(...given);
}

function earliest(...bounds: (number | null)[]): number | null {
  const given = bounds.filter((b): b is number => b !== null);
  return given.length === 0 ? null : Math.min(...given);
}

export function isAny(query: MessageQuery): boolean {
  return toMessageFilterKey(query) === toMessageFilterKey(ANY_MESSAGE);
}

export function toMessageFilterKey(query: MessageQuery): string {
  return JSON.stringify(toMessageFilter(query, null, null));
}

/**
 * Filters over the list: a choice applies at once, typed words and dates when submitted (Enter or
 * Search), so that the list is not searched at every keystroke. Dates are whole days in the
 * user's time zone; From after To is refused next to the field, and nothing is searched.
 */
export function MessageFilters({
  applied,
  onApply,
  backend = null,
  problems = [],
}: {
  applied: MessageQuery;
  onApply: (query: MessageQuery) => void;
  /** Asked for the office's country, so that the number's hint gives an example of it. */
  backend?: Backend | null;
  /** The engine's refusal of the number applied (see {@link filterProblems}). */
  problems?: readonly FieldError[];
}) {
  const { t } = useI18n();
  const example = numberExample(useOfficeCountry(backend));
  const ids = {
    status: useId(),
    state: useId(),
    kind: useId(),
    q: useId(),
    destination: useId(),
    from: useId(),
    to: useId(),
    qHint: useId(),
    destHint: useId(),
    destError: useId(),
    toHint: useId(),
    dateError: useId(),
  };
  const [draft, setDraft] = useState<MessageQuery>(applied);
  const [problem, setProblem] = useState<ReturnType<typeof dateProblem>>(null);
  const [numberProblem, setNumberProblem] = useState<ReturnType<typeof destinationProblem>>(null);

  // Filters applied from elsewhere (a saved set) show here as if chosen.
  useEffect(() => {
    setDraft(applied);
    setProblem(null);
    setNumberProblem(null);
  }, [applied]);

  const apply = (next: MessageQuery): void => {
    const found = dateProblem(next);
    const number = destinationProblem(next);
    setProblem(found);
    setNumberProblem(number);
    if (found === null && number === null) onApply(next);
  };
  const choose = <K extends "status" | "state" | "kind">(key: K, value: MessageQuery[K]): void => {
    const next = { ...draft, [key]: value };
    setDraft(next);
    apply(next);
  };
  const submit = (event: FormEvent<HTMLFormElement>): void => {
    event.preventDefault();
    apply(draft);
  };
  const clear = (): void => {
    setDraft(ANY_MESSAGE);
    setProblem(null);
    setNumberProblem(null);
    onApply(ANY_MESSAGE);
  };
  // The engine's refusal holds for the number it was given, until another is searched.
  const engineProblem = draft.destination === applied.destination ? (problems[0] ?? null) : null;
  const fromWrong = problem === "fromInvalid";
  const toWrong = problem === "toInvalid" || problem === "fromAfterTo";
  const describedBy = (...idsOf: (string | false)[]): string => idsOf.filter((x) => x !== false).join(" ");

  return (
    <form
      className="form filters"
      onSubmit={submit}
      role="search"
      aria-label={t("filters.label")}
      noValidate
      data-testid="message-filters"
    >
      {isNarrowed(applied.narrowing) && (
        <NarrowingChips narrowing={applied.narrowing ?? {}} onChange={(narrowing) => onApply({ ...applied, narrowing })} />
      )}
      {(applied.imported ?? "") !== "" && (
        <ImportedWindow value={applied.imported ?? ""} onClear={() => onApply({ ...applied, imported: "" })} />
      )}
      <div className="field field-narrow">
        <label htmlFor={ids.status}>{t("filters.status")}</label>
        <select
          id={ids.status}
          value={draft.status}
          onChange={(e) => choose("status", e.target.value as QueueStatus | "")}
          data-testid="filter-status"
        >
          <option value="">{t("filters.any")}</option>
          {QUEUE_STATUSES.map((s) => (
            <option key={s} value={s}>
              {t(`queueStatus.${s}`)}
            </option>
          ))}
        </select>
      </div>
      <div className="field field-narrow">
        <label htmlFor={ids.state}>{t("filters.state")}</label>
        <select
          id={ids.state}
          value={draft.state}
          onChange={(e) => choose("state", e.target.value as DeliveryState | "")}
          data-testid="filter-state"
        >
          <option value="">{t("filters.any")}</option>
          {DELIVERY_STATES.map((s) => (
            <option key={s} value={s}>
              {t(`reportedState.${s}`)}
            </option>
          ))}
        </select>
      </div>
      <div className="field field-narrow">
        <label htmlFor={ids.kind}>{t("filters.kind")}</label>
        <select
          id={ids.kind}
          value={draft.kind}
          onChange={(e) => choose("kind", e.target.value as MessageKind | "")}
          data-testid="filter-kind"
        >
          <option value="">{t("filters.any")}</option>
          {MESSAGE_KINDS.map((k) => (
            <option key={k} value={k}>
              {t(`messageKind.${k}`)}
            </option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor={ids.q}>{t("filters.q")}</label>
        <input
          id={ids.q}
          type="search"
          value={draft.q}
          onChange={(e) => setDraft({ ...draft, q: e.target.value })}
          aria-describedby={ids.qHint}
          data-testid="filter-q"
        />
        <p className="hint" id={ids.qHint}>
          {t("filters.q.hint")}
        </p>
      </div>
      <div className="field">
        <label htmlFor={ids.destination}>{t("filters.destination")}</label>
        <input
          id={ids.destination}
          type="search"
          inputMode="tel"
          value={draft.destination}
          onChange={(e) => setDraft({ ...draft, destination: e.target.value })}
          aria-invalid={numberProblem !== null || engineProblem !== null ? "true" : undefined}
          aria-describedby={describedBy(ids.destHint, (numberProblem !== null || engineProblem !== null) && ids.destError)}
          data-testid="filter-destination"
        />
        <p className="hint" id={ids.destHint}>
          {example === null ? t("filters.destination.hint") : t("number.filter.hint.example", { ...example })}
        </p>
        {numberProblem !== null && (
          <p className="field-problem" id={ids.destError} role="alert" data-testid="filter-destination-error">
            {numberProblem === "tooShort" ? t("filters.destination.tooShort") : t("filters.destination.notNumber")}
          </p>
        )}
        {numberProblem === null && engineProblem !== null && (
          <p
            className="field-problem"
            id={ids.destError}
            role="alert"
            data-testid="filter-destination-error"
            data-code={engineProblem.code}
          >
            <FieldProblem error={engineProblem} />
          </p>
        )}
      </div>
      <div className="field field-narrow">
        <label htmlFor={ids.from}>{t("filters.from")}</label>
        <DateTimeField
          id={ids.from}
          value={draft.from}
          onChange={(from) => setDraft({ ...draft, from })}
          invalid={fromWrong}
          describedBy={fromWrong ? ids.dateError : undefined}
          testId="filter-from"
        />
        {fromWrong && (
          <p className="field-problem" id={ids.dateError} role="alert" data-testid="filter-date-error">
            {t("filters.dates.fromInvalid")}
          </p>
        )}
      </div>
      <div className="field field-narrow">
        <label htmlFor={ids.to}>{t("filters.to")}</label>
        <DateTimeField
          id={ids.to}
          value={draft.to}
          onChange={(to) => setDraft({ ...draft, to })}
          invalid={toWrong}
          describedBy={describedBy(ids.toHint, toWrong && ids.dateError)}
          testId="filter-to"
        />
        <p className="hint" id={ids.toHint}>
          {t("filters.to.hint")}
        </p>
        {toWrong && (
          <p className="field-problem" id={ids.dateError} role="alert" data-testid="filter-date-error">
            {problem === "fromAfterTo" ? t("filters.dates.fromAfterTo") : t("filters.dates.toInvalid")}
          </p>
        )}
      </div>
      <div className="row-actions filter-actions">
        <button type="submit" className="button" data-testid="filter-apply">
          {t("filters.apply")}
        </button>
        <button type="button" className="button button-secondary" onClick={clear} data-testid="filter-clear">
          {t("filters.clear")}
        </button>
      </div>
    </form>
  );
}
