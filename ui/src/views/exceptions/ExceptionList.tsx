import { useCallback, useEffect, useId, useState } from "react";
import { useAccess } from "../../access/context";
import type { Backend } from "../../backend";
import type { ChangeEvent } from "../../bindings/ChangeEvent";
import type { ExceptionFilter } from "../../bindings/ExceptionFilter";
import type { ExceptionKind } from "../../bindings/ExceptionKind";
import type { ExceptionStatus } from "../../bindings/ExceptionStatus";
import type { ExceptionSummary } from "../../bindings/ExceptionSummary";
import { Badge } from "../../components/Badge";
import { ErrorNotice } from "../../components/ErrorNotice";
import { ListFooter } from "../../components/ListFooter";
import { usePagedList, type FetchPage, type PagedState } from "../../hooks/usePagedList";
import { useI18n } from "../../i18n/context";
import { EXCEPTION_KINDS, EXCEPTION_STATUSES } from "../labels";
import { openOnKey } from "../MessageList";
import { resolutionWords } from "../message/words";
import { EXCEPTION_STATUS_TONE } from "../tones";
import { ExceptionSummaryWords } from "../../components/ExceptionSummaryWords";
import { BulkResolve } from "./BulkResolve";
import { ShownNumber } from "../message/removed";
import { ScrollArea } from "../../components/ScrollArea";

export interface ExceptionQuery {
  readonly status: ExceptionStatus | "";
  readonly kind: ExceptionKind | "";
}

/** What needs a person: open items first of all. */
export const OPEN_EXCEPTIONS: ExceptionQuery = { status: "open", kind: "" };

export const PAGE_SIZE = 50;

export function toExceptionFilter(query: ExceptionQuery, cursor: string | null, limit: number | null): ExceptionFilter {
  return {
    status: query.status === "" ? null : query.status,
    kind: query.kind === "" ? null : query.kind,
    cursor,
    limit,
  };
}

const showsChange = (event: ChangeEvent): boolean => event.entity === "exception";

/** The exception queue, newest first, filtered by status and kind, page by page. */
export function ExceptionList({
  backend,
  onOpen,
  onOpenMessage,
  kind,
}: {
  backend: Backend;
  onOpen: (id: number) => void;
  onOpenMessage: (id: number) => void;
  /** Open exceptions of this kind only, as a link asked; the person may change it. */
  kind?: ExceptionKind;
}) {
  const { t } = useI18n();
  const headingId = useId();
  const statusId = useId();
  const kindId = useId();
  const { may } = useAccess();
  const [query, setQueryOnly] = useState<ExceptionQuery>(kind === undefined ? OPEN_EXCEPTIONS : { status: "open", kind });
  // Open exceptions chosen for one decision together; another filter starts afresh.
  const [selected, setSelectedOnly] = useState<ReadonlySet<number>>(new Set());
  // The bulk panel stays once opened, to show each outcome, until the selection is cleared.
  const [bulk, setBulk] = useState(false);
  const setSelected = (next: ReadonlySet<number>): void => {
    setSelectedOnly(next);
    if (next.size > 0) setBulk(true);
  };
  const clear = (): void => {
    setSelectedOnly(new Set());
    setBulk(false);
  };
  const setQuery = (q: ExceptionQuery): void => {
    setQueryOnly(q);
    clear();
  };
  // A link to one kind followed while the queue is shown narrows it again.
  useEffect(() => {
    if (kind !== undefined) setQuery({ status: "open", kind });
  }, [kind]);
  const fetchPage: FetchPage<ExceptionSummary> = useCallback(
    (cursor, limit) => backend.listExceptions(toExceptionFilter(query, cursor, limit)),
    [backend, query],
  );
  const { state, loadMore, retry } = usePagedList(backend, fetchPage, {
    key: JSON.stringify(query),
    live: showsChange,
    pageSize: PAGE_SIZE,
  });

  return (
    <section className="panel" aria-labelledby={headingId} aria-busy={state.status === "loading"}>
      <h2 id={headingId}>{t("exceptions.title")}</h2>
      <p className="panel-intro">{t("exceptions.intro")}</p>
      <form
        className="form filters"
        role="search"
        aria-label={t("filters.label")}
        onSubmit={(e) => e.preventDefault()}
        data-testid="exception-filters"
      >
        <div className="field field-narrow">
          <label htmlFor={statusId}>{t("filters.exceptionStatus")}</label>
          <select
            id={statusId}
            value={query.status}
            onChange={(e) => setQuery({ ...query, status: e.target.value as ExceptionStatus | "" })}
            data-testid="exception-filter-status"
          >
            <option value="">{t("filters.any")}</option>
            {EXCEPTION_STATUSES.map((s) => (
              <option key={s} value={s}>
                {t(`exceptionStatus.${s}`)}
              </option>
            ))}
          </select>
        </div>
        <div className="field field-narrow">
          <label htmlFor={kindId}>{t("filters.exceptionKind")}</label>
          <select
            id={kindId}
            value={query.kind}
            onChange={(e) => setQuery({ ...query, kind: e.target.value as ExceptionKind | "" })}
            data-testid="exception-filter-kind"
          >
            <option value="">{t("filters.any")}</option>
            {EXCEPTION_KINDS.map((k) => (
              <option key={k} value={k}>
                {t(`exceptionKind.${k}`)}
              </option>
            ))}
          </select>
        </div>
      </form>
      {state.status === "loading" && (
        <p className="status" role="status" data-testid="exceptions-loading">
          <span className="spinner" aria-hidden="true" />
          {t("exceptions.loading")}
        </p>
      )}
      {state.status === "error" && state.error !== null && (
        <ErrorNotice title={t("exceptions.error")} error={state.error} onRetry={retry} testId="exceptions-error" />
      )}
      {state.status === "ready" && may.resolve && bulk && (
        <BulkResolve
          backend={backend}
          selected={state.items.filter((e) => selected.has(e.id))}
          onDone={(decided) => setSelectedOnly((cur) => new Set([...cur].filter((id) => !decided.includes(id))))}
          onClear={clear}
        />
      )}
      {state.status === "ready" && (
        <ExceptionTable
          state={state}
          selection={may.resolve ? { selected, onChange: setSelected } : null}
          open={query.status === "open" && query.kind === ""}
          labelledBy={headingId}
          onOpen={onOpen}
          onOpenMessage={onOpenMessage}
          onMore={loadMore}
        />
      )}
    </section>
  );
}

interface Selection {
  readonly selected: ReadonlySet<number>;
  readonly onChange: (next: ReadonlySet<number>) => void;
}

function ExceptionTable({
  state,
  selection,
  open,
  labelledBy,
  onOpen,
  onOpenMessage,
  onMore,
}: {
  state: PagedState<ExceptionSummary>;
  /** Null: no selecting (the person may not decide). */
  selection: Selection | null;
  open: boolean;
  labelledBy: string;
  onOpen: (id: number) => void;
  onOpenMessage: (id: number) => void;
  onMore: () => void;
}) {
  const { t } = useI18n();
  const now = Date.now();
  const selectable = state.items.filter((e) => e.status === "open").map((e) => e.id);
  const allSelected = selection !== null && selectable.length > 0 && selectable.every((id) => selection.selected.has(id));
  const toggle = (id: number, on: boolean): void => {
    if (selection === null) return;
    const next = new Set(selection.selected);
    if (on) next.add(id);
    else next.delete(id);
    selection.onChange(next);
  };
  return (
    <>
      {state.error !== null && <ErrorNotice title={t("exceptions.errorMore")} error={state.error} />}
      {state.items.length === 0 ? (
        <p className="empty" data-testid="exceptions-empty">
          {open ? t("exceptions.emptyOpen") : t("exceptions.empty")}
        </p>
      ) : (
        <ScrollArea>
          <table className="table table-rows" aria-labelledby={labelledBy} data-testid="exceptions-table">
            <thead>
              <tr>
                {selection !== null && (
                  <th scope="col" className="select">
                    <input
                      type="checkbox"
                      checked={allSelected}
                      disabled={selectable.length === 0}
                      onChange={(e) => selection.onChange(e.target.checked ? new Set(selectable) : new Set())}
                      aria-label={t("exceptions.selectAll")}
                      data-testid="exception-select-all"
                    />
                  </th>
                )}
                <th scope="col" className="num">
                  {t("exceptions.col.id")}
                </th>
                <th scope="col">{t("exceptions.col.kind")}</th>
                <th scope="col">{t("exceptions.col.summary")}</th>
                <th scope="col">{t("exceptions.col.message")}</th>
                <th scope="col">{t("exceptions.col.age")}</th>
                <th scope="col">{t("exceptions.col.status")}</th>
              </tr>
            </thead>
            <tbody>
              {state.items.map((e) => (
                <ExceptionRow
                  key={e.id}
                  exception={e}
                  now={now}
                  selected={selection === null ? null : selection.selected.has(e.id)}
                  onSelect={(on) => toggle(e.id, on)}
                  onOpen={onOpen}
                  onOpenMessage={onOpenMessage}
                />
              ))}
            </tbody>
          </table>
        </ScrollArea>
      )}
      <ListFooter
        shown={state.items.length > 0 ? t("exceptions.shown", { count: state.items.length }) : null}
        more={state.nextCursor !== null}
        loadingMore={state.loadingMore}
        onMore={onMore}
        testId="exceptions"
      />
    </>
  );
}

function ExceptionRow({
  exception: e,
  now,
  selected,
  onSelect,
  onOpen,
  onOpenMessage,
}: {
  exception: ExceptionSummary;
  now: number;
  /** Null: no selecting. */
  selected: boolean | null;
  onSelect: (on: boolean) => void;
  onOpen: (id: number) => void;
  onOpenMessage: (id: number) => void;
}) {
  const { t, formatAge, formatDateTime } = useI18n();
  const open = (): void => onOpen(e.id);
  const messageId = e.message_id;
  return (
    <tr
      className="row-link"
      tabIndex={0}
      onClick={open}
      onKeyDown={openOnKey(open)}
      data-testid="exception-row"
      data-id={e.id}
      data-kind={e.kind}
      data-status={e.status}
      data-message-id={messageId ?? undefined}
    >
      {selected !== null && (
        <td className="select" onClick={(event) => event.stopPropagation()}>
          {e.status === "open" && (
            <input
              type="checkbox"
              checked={selected}
              onChange={(event) => onSelect(event.target.checked)}
              onKeyDown={(event) => event.stopPropagation()}
              aria-label={t("exceptions.select", { id: String(e.id) })}
              data-testid="exception-select"
            />
          )}
        </td>
      )}
      <td className="num">{e.id}</td>
      <td data-testid="exception-kind">{t(`exceptionKind.${e.kind}`)}</td>
      <td className="preview">
        <span className="preview-text">
          <ExceptionSummaryWords exception={e} />
        </span>
      </td>
      <td>
        {messageId === null ? (
          <span className="muted">{t("exceptions.noMessage")}</span>
        ) : (
          <>
            <button
              type="button"
              className="link-button nowrap"
              onClick={(event) => {
                event.stopPropagation();
                onOpenMessage(messageId);
              }}
              onKeyDown={(event) => event.stopPropagation()}
              data-testid="exception-message"
            >
              {t("exceptions.messageRef", { id: String(messageId) })}
            </button>
            {e.destination !== null && (
              <div>
                <ShownNumber value={e.destination} className="phone muted" />
              </div>
            )}
          </>
        )}
      </td>
      <td className="nowrap">
        <time
          dateTime={new Date(e.created_at_ms).toISOString()}
          title={formatDateTime(e.created_at_ms)}
          data-testid="exception-age"
        >
          {formatAge(e.created_at_ms, now)}
        </time>
      </td>
      <td data-testid="exception-status">
        <Badge tone={EXCEPTION_STATUS_TONE[e.status]}>{t(`exceptionStatus.${e.status}`)}</Badge>
        {e.resolution !== null && <div className="hint">{resolutionWords(e.resolution, t)}</div>}
      </td>
    </tr>
  );
}
