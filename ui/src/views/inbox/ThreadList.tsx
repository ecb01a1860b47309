import { useCallback, useId, useState, type FormEvent, type MouseEvent } from "react";
import type { Backend } from "../../backend";
import type { ChangeEvent } from "../../bindings/ChangeEvent";
import type { InboxFilter } from "../../bindings/InboxFilter";
import type { ThreadSummary } from "../../bindings/ThreadSummary";
import { Badge } from "../../components/Badge";
import { ErrorNotice } from "../../components/ErrorNotice";
import { FieldProblem } from "../../components/FieldProblem";
import { ListFooter } from "../../components/ListFooter";
import { numberExample } from "../../components/numberExamples";
import { shownWords } from "../../components/shownWords";
import { useOfficeCountry } from "../../components/useOfficeCountry";
import { formatRoute } from "../../hooks/useHashRoute";
import { usePagedList, type FetchPage, type PagedState } from "../../hooks/usePagedList";
import { useI18n } from "../../i18n/context";
import { IntentBadge } from "./words";

export const THREAD_PAGE_SIZE = 50;

export interface ThreadQuery {
  /** Digits of a number, or words of a reply. */
  readonly q: string;
  readonly unread: boolean;
}

export const ALL_THREADS: ThreadQuery = { q: "", unread: false };

export function toInboxFilter(query: ThreadQuery, cursor: string | null, limit: number | null): InboxFilter {
  const q = query.q.trim();
  return { q: q === "" ? null : q, unread: query.unread ? true : null, cursor, limit };
}

/** A new reply moves a thread and its counts; a number going on or off the list changes its badge. */
const showsChange = (event: ChangeEvent): boolean => event.entity === "inbox_message" || event.entity === "opt_out";

/** Follows an in-app link without reloading, unless the person asked for a new tab or window. */
export function follow(open: (() => void) | undefined) {
  return (event: MouseEvent<HTMLAnchorElement>): void => {
    if (open === undefined || event.ctrlKey || event.metaKey || event.shiftKey || event.button !== 0) return;
    event.preventDefault();
    open();
  };
}

/**
 * The conversations, the latest reply first, each with its number, its latest reply, when it came,
 * how many replies are not read yet and whether the number is on the opt-out list; searched by
 * digits of a number or words of a reply, or narrowed to unread ones, page by page, kept current.
 */
export function ThreadList({
  backend,
  selected,
  onOpen,
  labelledBy,
}: {
  backend: Backend;
  selected: string | null;
  onOpen?: (thread: string) => void;
  labelledBy: string;
}) {
  const { t } = useI18n();
  const searchId = useId();
  const searchHintId = useId();
  const searchErrorId = useId();
  const example = numberExample(useOfficeCountry(backend));
  const unreadId = useId();
  const [query, setQuery] = useState<ThreadQuery>(ALL_THREADS);
  const [typed, setTyped] = useState("");
  const fetchPage: FetchPage<ThreadSummary> = useCallback(
    (cursor, limit) => backend.listThreads(toInboxFilter(query, cursor, limit)),
    [backend, query],
  );
  const { state, loadMore, retry } = usePagedList(backend, fetchPage, {
    key: JSON.stringify(query),
    live: showsChange,
    pageSize: THREAD_PAGE_SIZE,
  });

  const search = (event: FormEvent<HTMLFormElement>): void => {
    event.preventDefault();
    setQuery({ ...query, q: typed.trim() });
  };
  const filtered = query.q !== "" || query.unread;
  // The engine's refusal of what was searched (a national number without the office's country):
  // said at the field, not as an empty list; it holds until another search.
  const refused = state.status === "error" && typed.trim() === query.q ? (state.error?.errors[0] ?? null) : null;

  return (
    <>
      <form
        className="form filters inbox-search"
        role="search"
        aria-label={t("inbox.search.label")}
        onSubmit={search}
        noValidate
        data-testid="inbox-search"
      >
        <div className="field">
          <label htmlFor={searchId}>{t("inbox.search")}</label>
          <input
            id={searchId}
            type="search"
            autoComplete="off"
            value={typed}
            onChange={(e) => setTyped(e.target.value)}
            aria-invalid={refused !== null ? "true" : undefined}
            aria-describedby={refused === null ? searchHintId : `${searchHintId} ${searchErrorId}`}
            data-testid="inbox-search-q"
          />
          <p className="hint" id={searchHintId}>
            {example === null ? t("inbox.search.hint") : t("number.inbox.hint.example", { national: example.national })}
          </p>
          {refused !== null && (
            <p className="field-problem" id={searchErrorId} role="alert" data-testid="inbox-search-error" data-code={refused.code}>
              <FieldProblem error={refused} />
            </p>
          )}
        </div>
        <div className="filter-actions">
          <button type="submit" className="button button-secondary" data-testid="inbox-search-submit">
            {t("inbox.search.submit")}
          </button>
        </div>
        <label className="choice inbox-unread-only" htmlFor={unreadId}>
          <input
            id={unreadId}
            type="checkbox"
            checked={query.unread}
            onChange={(e) => setQuery({ ...query, unread: e.target.checked })}
            data-testid="inbox-unread-only"
          />
          <span className="choice-label">{t("inbox.unreadOnly")}</span>
        </label>
      </form>
      {state.status === "loading" && (
        <p className="status" role="status" data-testid="threads-loading">
          <span className="spinner" aria-hidden="true" />
          {t("inbox.loading")}
        </p>
      )}
      {state.status === "error" && state.error !== null && refused === null && (
        <ErrorNotice title={t("inbox.error")} error={state.error} onRetry={retry} testId="threads-error" />
      )}
      {state.status === "ready" && (
        <Threads state={state} filtered={filtered} selected={selected} onOpen={onOpen} onMore={loadMore} labelledBy={labelledBy} />
      )}
    </>
  );
}

function Threads({
  state,
  filtered,
  selected,
  onOpen,
  onMore,
  labelledBy,
}: {
  state: PagedState<ThreadSummary>;
  filtered: boolean;
  selected: string | null;
  onOpen: ((thread: string) => void) | undefined;
  onMore: () => void;
  labelledBy: string;
}) {
  const i18n = useI18n();
  const { t } = i18n;
  const now = Date.now();
  return (
    <>
      {state.error !== null && <ErrorNotice title={t("inbox.errorMore")} error={state.error} testId="threads-more-error" />}
      {state.items.length === 0 ? (
        <p className="empty" data-testid="threads-empty">
          {filtered ? t("inbox.emptyFiltered") : t("inbox.empty")}
        </p>
      ) : (
        <ul className="thread-list" aria-labelledby={labelledBy} data-testid="threads">
          {state.items.map((s) => (
            <ThreadRow key={s.thread} summary={s} now={now} current={s.thread === selected} onOpen={onOpen} />
          ))}
        </ul>
      )}
      <ListFooter
        shown={state.items.length > 0 ? shownWords(state.items.length, i18n) : null}
        more={state.nextCursor !== null}
        loadingMore={state.loadingMore}
        onMore={onMore}
        testId="threads"
      />
    </>
  );
}

function ThreadRow({
  summary: s,
  now,
  current,
  onOpen,
}: {
  summary: ThreadSummary;
  now: number;
  current: boolean;
  onOpen: ((thread: string) => void) | undefined;
}) {
  const { t, formatAge, formatDateTime } = useI18n();
  const at = s.last.received_at_ms;
  return (
    <li>
      <a
        href={formatRoute({ section: "inbox", thread: s.thread })}
        onClick={follow(onOpen === undefined ? undefined : () => onOpen(s.thread))}
        className={s.unread > 0 ? "thread-row thread-unread" : "thread-row"}
        aria-current={current ? "true" : undefined}
        data-testid="thread-row"
        data-thread={s.thread}
        data-unread={s.unread}
        data-opted-out={s.opted_out}
      >
        <span className="thread-top">
          <span className="phone thread-number" data-testid="thread-number">
            {s.phone ?? s.thread}
          </span>
          <time dateTime={new Date(at).toISOString()} title={formatDateTime(at)} className="muted thread-time">
            {formatAge(at, now)}
          </time>
        </span>
        <span className="thread-last" data-testid="thread-last">
          {s.last.text}
        </span>
        <span className="badges">
          {s.unread > 0 && (
            <Badge tone="progress">
              <span data-testid="thread-unread">{t("inbox.unreadCount", { count: s.unread })}</span>
            </Badge>
          )}
          {s.opted_out && (
            <Badge tone="warning">
              <span data-testid="thread-opted-out">{t("inbox.optedOut")}</span>
            </Badge>
          )}
          <IntentBadge message={s.last} />
          <span className="muted hint">{t("inbox.replies", { count: s.replies })}</span>
        </span>
      </a>
    </li>
  );
}
