import { useId, useState, type FormEvent } from "react";
import type { DeliveryState } from "../bindings/DeliveryState";
import type { MessageFilter } from "../bindings/MessageFilter";
import type { MessageKind } from "../bindings/MessageKind";
import type { QueueStatus } from "../bindings/QueueStatus";
import { useI18n } from "../i18n/context";
import { DELIVERY_STATES, MESSAGE_KINDS, QUEUE_STATUSES } from "./labels";

/** What the operator asked to see; empty means "any". */
export interface MessageQuery {
  readonly status: QueueStatus | "";
  readonly state: DeliveryState | "";
  readonly kind: MessageKind | "";
  readonly q: string;
  readonly destination: string;
}

export const ANY_MESSAGE: MessageQuery = { status: "", state: "", kind: "", q: "", destination: "" };

/** The engine's filter for a query and a page: blanks are left out, words trimmed. */
export function toMessageFilter(query: MessageQuery, cursor: string | null, limit: number | null): MessageFilter {
  const text = (value: string): string | null => (value.trim() === "" ? null : value.trim());
  return {
    status: query.status === "" ? null : query.status,
    state: query.state === "" ? null : query.state,
    kind: query.kind === "" ? null : query.kind,
    channel: null,
    destination: text(query.destination),
    q: text(query.q),
    from_ms: null,
    to_ms: null,
    cursor,
    limit,
  };
}

export function isAny(query: MessageQuery): boolean {
  return toMessageFilterKey(query) === toMessageFilterKey(ANY_MESSAGE);
}

export function toMessageFilterKey(query: MessageQuery): string {
  return JSON.stringify(toMessageFilter(query, null, null));
}

/**
 * Filters over the list: a choice applies at once, typed words when submitted (Enter or
 * Search), so that the list is not searched at every keystroke.
 */
export function MessageFilters({ applied, onApply }: { applied: MessageQuery; onApply: (query: MessageQuery) => void }) {
  const { t } = useI18n();
  const ids = {
    status: useId(),
    state: useId(),
    kind: useId(),
    q: useId(),
    destination: useId(),
    qHint: useId(),
    destHint: useId(),
  };
  const [draft, setDraft] = useState<MessageQuery>(applied);

  const choose = <K extends "status" | "state" | "kind">(key: K, value: MessageQuery[K]): void => {
    const next = { ...draft, [key]: value };
    setDraft(next);
    onApply(next);
  };
  const submit = (event: FormEvent<HTMLFormElement>): void => {
    event.preventDefault();
    onApply(draft);
  };
  const clear = (): void => {
    setDraft(ANY_MESSAGE);
    onApply(ANY_MESSAGE);
  };

  return (
    <form className="form filters" onSubmit={submit} role="search" aria-label={t("filters.label")} data-testid="message-filters">
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
          aria-describedby={ids.destHint}
          data-testid="filter-destination"
        />
        <p className="hint" id={ids.destHint}>
          {t("filters.destination.hint")}
        </p>
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
