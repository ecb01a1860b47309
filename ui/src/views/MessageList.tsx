import { useCallback, useId, useState, type KeyboardEvent } from "react";
import { useAccess } from "../access/context";
import type { Backend } from "../backend";
import type { ChangeEntity } from "../bindings/ChangeEntity";
import type { ChangeEvent } from "../bindings/ChangeEvent";
import type { MessageFilter } from "../bindings/MessageFilter";
import type { MessageSummary } from "../bindings/MessageSummary";
import type { MessageTotal } from "../bindings/MessageTotal";
import { Badge } from "../components/Badge";
import { ErrorNotice } from "../components/ErrorNotice";
import { ListFooter } from "../components/ListFooter";
import { usePagedList, type FetchPage, type PagedState } from "../hooks/usePagedList";
import { rowReason } from "./message/rowReason";
import { ShownNumber } from "./message/removed";
import { useI18n } from "../i18n/context";
import { ExportCsv } from "./ExportCsv";
import { ATTENTION_FLAGS } from "./labels";
import {
  ANY_MESSAGE,
  filterProblems,
  isAny,
  MessageFilters,
  toMessageFilter,
  toMessageFilterKey,
  type MessageQuery,
} from "./MessageFilters";
import { SavedFilters } from "./SavedFilters";
import { QUEUE_TONE, STATE_TONE } from "./tones";
import { ScrollArea } from "../components/ScrollArea";

export const PAGE_SIZE = 50;

/** The first page with no filter. */
export const FIRST_PAGE: MessageFilter = toMessageFilter(ANY_MESSAGE, null, PAGE_SIZE);

/** What a listed row shows changes with these: the message, its place in the queue, its computed state. */
const SHOWN_ENTITIES: ReadonlySet<ChangeEntity> = new Set<ChangeEntity>(["message", "queue", "projection"]);
const showsChange = (event: ChangeEvent): boolean => SHOWN_ENTITIES.has(event.entity);

/** Opens a row from the keyboard as a click would (Enter, or Space as on a button). */
export function openOnKey(open: () => void) {
  return (event: KeyboardEvent<HTMLElement>): void => {
    if (event.target !== event.currentTarget) return;
    if (event.key === "Enter" || event.key === " ") {
      event.preventDefault();
      open();
    }
  };
}

/**
 * The messages, newest first, filtered, page by page ("Load more"), kept current by the engine's
 * change events, with how many the filters select, and exported as CSV as filtered. Filters can be
 * saved under a name and applied again in one click. A row opens the message (click, Enter or
 * Space). The filters are kept by the caller when `query` is given (so that they outlive the list),
 * here otherwise.
 */
export function MessageList({
  backend,
  onOpen,
  query: given,
  onQuery,
}: {
  backend: Backend;
  onOpen?: (id: number) => void;
  query?: MessageQuery;
  onQuery?: (query: MessageQuery) => void;
}) {
  const { t } = useI18n();
  const { may } = useAccess();
  const headingId = useId();
  const [own, setOwn] = useState<MessageQuery>(ANY_MESSAGE);
  const query = given ?? own;
  const setQuery = (next: MessageQuery): void => (onQuery ?? setOwn)(next);
  const fetchPage: FetchPage<MessageSummary> = useCallback(
    (cursor, limit) => backend.listMessages(toMessageFilter(query, cursor, limit)),
    [backend, query],
  );
  const { state, loadMore, stopSearching, retry } = usePagedList(backend, fetchPage, {
    key: toMessageFilterKey(query),
    live: showsChange,
    pageSize: PAGE_SIZE,
  });

  return (
    <section className="panel" aria-labelledby={headingId} aria-busy={state.status === "loading"}>
      <h2 id={headingId}>{t("messages.title")}</h2>
      <p className="panel-intro">{t("messages.intro")}</p>
      <MessageFilters applied={query} onApply={setQuery} backend={backend} problems={filterProblems(state.error)} />
      <div className="list-tools">
        <SavedFilters current={query} onApply={setQuery} />
        {may.export && <ExportCsv backend={backend} filter={toMessageFilter(query, null, null)} />}
      </div>
      {state.status === "ready" && <Total total={state.total} />}
      <Searching state={state} onStop={stopSearching} />
      {state.status === "loading" && !state.searching && (
        <p className="status" role="status" data-testid="messages-loading">
          <span className="spinner" aria-hidden="true" />
          {t("messages.loading")}
        </p>
      )}
      {state.status === "error" && state.error !== null && filterProblems(state.error).length === 0 && (
        <ErrorNotice title={t("messages.error")} error={state.error} onRetry={retry} testId="messages-error" />
      )}
      {state.status === "ready" && (
        <MessageTable state={state} filtered={!isAny(query)} labelledBy={headingId} onOpen={onOpen} onMore={loadMore} />
      )}
    </section>
  );
}

/**
 * How many messages the filters select: exactly, more than the engine counts up to, or at least
 * what it counted before it stopped (then how to get an exact figure). Nothing when the engine
 * gave no total.
 */
export function Total({ total }: { total: MessageTotal | null }) {
  const { t, plural } = useI18n();
  if (total === null) return null;
  const count = total.count;
  const form = plural(count);
  return (
    <p className="list-total" data-testid="messages-total" data-count={count} data-bound={total.bound}>
      {total.bound === "exact" && t(`messages.total.${form}`, { count })}
      {total.bound === "more_than" && t(`messages.total.moreThan.${form}`, { count })}
      {total.bound === "at_least" && (
        <>
          {t(`messages.total.atLeast.${form}`, { count })} <span className="muted">{t("messages.total.partial")}</span>
        </>
      )}
    </p>
  );
}

function Searching({ state, onStop }: { state: PagedState<MessageSummary>; onStop: () => void }) {
  const { t } = useI18n();
  return (
    <div aria-live="polite">
      {state.searching && (
        <p className="status" role="status" data-testid="messages-searching">
          <span className="spinner" aria-hidden="true" />
          {t("messages.searching")}
          <button type="button" className="button button-secondary button-small" onClick={onStop} data-testid="messages-stop">
            {t("messages.stop")}
          </button>
        </p>
      )}
    </div>
  );
}

function MessageTable({
  state,
  filtered,
  labelledBy,
  onOpen,
  onMore,
}: {
  state: PagedState<MessageSummary>;
  filtered: boolean;
  labelledBy: string;
  onOpen: ((id: number) => void) | undefined;
  onMore: () => void;
}) {
  const { t } = useI18n();
  const { items, nextCursor } = state;
  return (
    <>
      {state.error !== null && (
        <ErrorNotice title={t("messages.errorMore")} error={state.error} testId="messages-more-error" />
      )}
      {items.length === 0 ? (
        <p className="empty" data-testid="messages-empty">
          {filtered ? t("messages.noMatch") : t("messages.empty")}
        </p>
      ) : (
        <ScrollArea>
          <table className="table table-rows" aria-labelledby={labelledBy} data-testid="messages-table">
            <thead>
              <tr>
                <th scope="col" className="num">
                  {t("messages.col.id")}
                </th>
                <th scope="col">{t("messages.col.destination")}</th>
                <th scope="col">{t("messages.col.text")}</th>
                <th scope="col" className="statuses">{t("messages.col.statuses")}</th>
                <th scope="col">{t("messages.col.created")}</th>
              </tr>
            </thead>
            <tbody>
              {items.map((m) => (
                <MessageRow key={m.id} message={m} onOpen={onOpen} />
              ))}
            </tbody>
          </table>
        </ScrollArea>
      )}
      <ListFooter
        shown={items.length > 0 ? t("messages.shown", { count: items.length }) : null}
        more={nextCursor !== null && !state.searching}
        loadingMore={state.loadingMore}
        onMore={onMore}
        testId="messages"
      />
    </>
  );
}

function MessageRow({ message: m, onOpen }: { message: MessageSummary; onOpen: ((id: number) => void) | undefined }) {
  const { t, formatDateTime, formatDateShort, formatAxisTime } = useI18n();
  const open = onOpen === undefined ? undefined : () => onOpen(m.id);
  const flags = ATTENTION_FLAGS.filter((f) => m.flags.includes(f));
  const reason = rowReason(m, t);
  return (
    <tr
      className={open ? "row-link" : undefined}
      tabIndex={open ? 0 : undefined}
      onClick={open}
      onKeyDown={open ? openOnKey(open) : undefined}
      data-testid="message-row"
      data-id={m.id}
      data-destination={m.destination}
      data-status={m.status}
      data-state={m.state}
    >
      <td className="num">{m.id}</td>
      <td>
        <ShownNumber value={m.destination} testId="message-destination" />
      </td>
      <td className="preview" data-testid="message-preview">
        <span className="preview-text">
          {m.preview}
          {m.body_chars > m.preview.length && "…"}
        </span>
      </td>
      <td className="statuses">
        <span className="badges">
          <span data-testid="message-status">
            <Badge tone={QUEUE_TONE[m.status]}>{t(`queueStatus.${m.status}`)}</Badge>
            {m.status === "queued" && m.scheduled_at_ms !== null && m.scheduled_at_ms > Date.now() && (
              <span className="hint nowrap" data-testid="message-scheduled">
                {" "}
                {t("messages.scheduledFor", { when: formatDateTime(m.scheduled_at_ms) })}
              </span>
            )}
          </span>
          <span data-testid="message-state">
            <Badge tone={STATE_TONE[m.state]}>{t(`deliveryState.${m.state}`)}</Badge>
          </span>
        </span>
        {reason !== null && (
          <span className="hint row-reason" data-testid="message-reason">
            {t("messages.row.reason", { reason })}
          </span>
        )}
        <span className="badges" data-testid="message-flags">
          {flags.map((f) => (
            <Badge key={f} tone="warning">
              {t(`flag.${f}`)}
            </Badge>
          ))}
        </span>
      </td>
      <td className="created">
        <time dateTime={new Date(m.created_at_ms).toISOString()} title={formatDateTime(m.created_at_ms)}>
          <span className="nowrap">{formatDateShort(m.created_at_ms)}</span> <span className="nowrap">{formatAxisTime(m.created_at_ms)}</span>
        </time>
      </td>
    </tr>
  );
}
