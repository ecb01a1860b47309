import { Fragment, useCallback, useId, useState, type FormEvent } from "react";
import { useAccess } from "../access/context";
import type { Backend } from "../backend";
import type { ChangeEvent } from "../bindings/ChangeEvent";
import type { OptOutEntry } from "../bindings/OptOutEntry";
import type { OptOutFilter } from "../bindings/OptOutFilter";
import { Badge } from "../components/Badge";
import { ErrorNotice } from "../components/ErrorNotice";
import { ListFooter } from "../components/ListFooter";
import { formatRoute } from "../hooks/useHashRoute";
import { usePagedList, type FetchPage, type Page, type PagedState } from "../hooks/usePagedList";
import { useI18n } from "../i18n/context";
import { follow } from "./inbox/ThreadList";
import { byWords, kindsWords, reasonWords, removedWords } from "./inbox/words";
import { OptOutExport } from "./optouts/OptOutExport";
import { AddOptOutForm, RemoveOptOutForm } from "./optouts/OptOutForms";
import { OptOutImport } from "./optouts/OptOutImport";
import { ScrollArea } from "../components/ScrollArea";

export const OPT_OUT_PAGE_SIZE = 50;

export interface OptOutQuery {
  /** Digits of a number. */
  readonly q: string;
  /** Also numbers taken off the list. */
  readonly history: boolean;
}

export function toOptOutFilter(query: OptOutQuery, cursor: string | null, limit: number | null): OptOutFilter {
  const q = query.q.trim();
  return { q: q === "" ? null : q, history: query.history ? true : null, cursor, limit };
}

const showsChange = (event: ChangeEvent): boolean => event.entity === "opt_out";

/**
 * The opt-out list: numbers nothing is sent to, each with why, since when, by whom and its
 * evidence (the reply that asked, which opens its conversation); searched, with its history on
 * demand. Those who may act put numbers on it by hand or from a file, and take them off with a
 * note; those who may export save it as CSV.
 */
export function OptOuts({ backend, onOpenThread }: { backend: Backend; onOpenThread?: (thread: string) => void }) {
  const { t } = useI18n();
  const { may } = useAccess();
  const headingId = useId();
  const searchId = useId();
  const searchHintId = useId();
  const historyId = useId();
  const [query, setQuery] = useState<OptOutQuery>({ q: "", history: false });
  const [typed, setTyped] = useState("");
  const [current, setCurrent] = useState<number | null>(null);
  const fetchPage: FetchPage<OptOutEntry> = useCallback(
    async (cursor, limit): Promise<Page<OptOutEntry>> => {
      const page = await backend.listOptOuts(toOptOutFilter(query, cursor, limit));
      setCurrent(page.current);
      return page;
    },
    [backend, query],
  );
  const { state, loadMore, retry } = usePagedList(backend, fetchPage, {
    key: JSON.stringify(query),
    live: showsChange,
    pageSize: OPT_OUT_PAGE_SIZE,
  });

  const search = (event: FormEvent<HTMLFormElement>): void => {
    event.preventDefault();
    setQuery({ ...query, q: typed.trim() });
  };

  return (
    <div className="stack" data-testid="optouts">
      <section className="panel" aria-labelledby={headingId} aria-busy={state.status === "loading"}>
        <h2 id={headingId}>{t("optOuts.title")}</h2>
        <p className="panel-intro">{t("optOuts.intro")}</p>
        {current !== null && (
          <p className="optout-current" data-testid="optouts-current" data-count={current}>
            {t("optOuts.current", { count: current })}
          </p>
        )}
        <form className="form filters" role="search" aria-label={t("optOuts.search.label")} onSubmit={search} data-testid="optouts-search">
          <div className="field">
            <label htmlFor={searchId}>{t("optOuts.search")}</label>
            <input
              id={searchId}
              type="search"
              inputMode="tel"
              autoComplete="off"
              value={typed}
              onChange={(e) => setTyped(e.target.value)}
              aria-describedby={searchHintId}
              data-testid="optouts-search-q"
            />
            <p className="hint" id={searchHintId}>
              {t("optOuts.search.hint")}
            </p>
          </div>
          <div className="filter-actions">
            <button type="submit" className="button button-secondary" data-testid="optouts-search-submit">
              {t("inbox.search.submit")}
            </button>
          </div>
          <label className="choice optout-history" htmlFor={historyId}>
            <input
              id={historyId}
              type="checkbox"
              checked={query.history}
              onChange={(e) => setQuery({ ...query, history: e.target.checked })}
              data-testid="optouts-history"
            />
            <span className="choice-label">{t("optOuts.history")}</span>
          </label>
        </form>
        {may.export && <OptOutExport backend={backend} />}
        {state.status === "loading" && (
          <p className="status" role="status" data-testid="optouts-loading">
            <span className="spinner" aria-hidden="true" />
            {t("optOuts.loading")}
          </p>
        )}
        {state.status === "error" && state.error !== null && (
          <ErrorNotice title={t("optOuts.error")} error={state.error} onRetry={retry} testId="optouts-error" />
        )}
        {state.status === "ready" && (
          <OptOutTable
            backend={backend}
            state={state}
            filtered={query.q !== ""}
            history={query.history}
            labelledBy={headingId}
            onMore={loadMore}
            onChanged={retry}
            onOpenThread={onOpenThread}
          />
        )}
      </section>
      {may.act && <AddPanel backend={backend} />}
      {may.act && <OptOutImport backend={backend} />}
    </div>
  );
}

function AddPanel({ backend }: { backend: Backend }) {
  const { t } = useI18n();
  const headingId = useId();
  return (
    <section className="panel" aria-labelledby={headingId}>
      <h2 id={headingId}>{t("optOut.add.title")}</h2>
      <p className="panel-intro">{t("optOut.add.intro")}</p>
      <AddOptOutForm backend={backend} />
    </section>
  );
}

function OptOutTable({
  backend,
  state,
  filtered,
  history,
  labelledBy,
  onMore,
  onChanged,
  onOpenThread,
}: {
  backend: Backend;
  state: PagedState<OptOutEntry>;
  filtered: boolean;
  history: boolean;
  labelledBy: string;
  onMore: () => void;
  onChanged: () => void;
  onOpenThread: ((thread: string) => void) | undefined;
}) {
  const { t } = useI18n();
  const { may } = useAccess();
  const [removing, setRemoving] = useState<number | null>(null);
  const columns = 7 + (history ? 1 : 0) + (may.act ? 1 : 0);
  return (
    <>
      {state.error !== null && <ErrorNotice title={t("optOuts.errorMore")} error={state.error} testId="optouts-more-error" />}
      {state.items.length === 0 ? (
        <p className="empty" data-testid="optouts-empty">
          {filtered ? t("optOuts.emptyFiltered") : t("optOuts.empty")}
        </p>
      ) : (
        <ScrollArea>
          <table className="table optout-table table-stack" aria-labelledby={labelledBy} data-testid="optouts-table">
            <thead>
              <tr>
                <th scope="col">{t("optOuts.col.phone")}</th>
                <th scope="col">{t("optOuts.col.kinds")}</th>
                <th scope="col">{t("optOuts.col.reason")}</th>
                <th scope="col">{t("optOuts.col.evidence")}</th>
                <th scope="col">{t("optOuts.col.since")}</th>
                <th scope="col">{t("optOuts.col.by")}</th>
                <th scope="col">{t("optOuts.col.note")}</th>
                {history && <th scope="col">{t("optOuts.col.ended")}</th>}
                {may.act && <th scope="col">{t("optOuts.col.actions")}</th>}
              </tr>
            </thead>
            <tbody>
              {state.items.map((e) => (
                <Fragment key={e.id}>
                  <OptOutRow
                    entry={e}
                    history={history}
                    removing={removing === e.id}
                    onRemove={() => setRemoving(removing === e.id ? null : e.id)}
                    onOpenThread={onOpenThread}
                  />
                  {removing === e.id && e.removed_at_ms === null && (
                    <tr className="editor-row">
                      <td colSpan={columns}>
                        <RemoveOptOutForm
                          backend={backend}
                          phone={e.phone}
                          onDone={() => {
                            setRemoving(null);
                            onChanged();
                          }}
                          onCancel={() => setRemoving(null)}
                        />
                      </td>
                    </tr>
                  )}
                </Fragment>
              ))}
            </tbody>
          </table>
        </ScrollArea>
      )}
      <ListFooter
        shown={state.items.length > 0 ? t("optOuts.shown", { count: state.items.length }) : null}
        more={state.nextCursor !== null}
        loadingMore={state.loadingMore}
        onMore={onMore}
        testId="optouts"
      />
    </>
  );
}

function OptOutRow({
  entry: e,
  history,
  removing,
  onRemove,
  onOpenThread,
}: {
  entry: OptOutEntry;
  history: boolean;
  removing: boolean;
  onRemove: () => void;
  onOpenThread: ((thread: string) => void) | undefined;
}) {
  const { t, formatDateTime } = useI18n();
  const { may } = useAccess();
  const ended = e.removed_at_ms !== null;
  return (
    <tr data-testid="optout-row" data-phone={e.phone} data-reason={e.reason} data-current={!ended}>
      <th scope="row" className="phone nowrap" data-testid="optout-phone">
        {e.phone}
      </th>
      <td data-testid="optout-kinds" data-label={t("optOuts.col.kinds")}>
        {kindsWords(e.kinds, t)}
      </td>
      <td className="optout-reason" data-testid="optout-reason" data-label={t("optOuts.col.reason")}>
        {reasonWords(e, t)}
      </td>
      <td className="optout-evidence" data-testid="optout-evidence" data-label={t("optOuts.col.evidence")}>
        {e.reply_text === null ? (
          <span className="muted">{t("optOuts.noEvidence")}</span>
        ) : (
          <>
            <q data-testid="optout-reply">{e.reply_text}</q>{" "}
            <a
              href={formatRoute({ section: "inbox", thread: e.phone })}
              onClick={follow(onOpenThread === undefined ? undefined : () => onOpenThread(e.phone))}
              data-testid="optout-open-thread"
            >
              {t("optOuts.openThread")}
            </a>
          </>
        )}
      </td>
      <td className="optout-since" data-label={t("optOuts.col.since")}>
        <time dateTime={new Date(e.created_at_ms).toISOString()} data-testid="optout-since">
          {formatDateTime(e.created_at_ms)}
        </time>
      </td>
      <td data-testid="optout-by" data-label={t("optOuts.col.by")}>
        {byWords(e.created_by, t)}
      </td>
      <td className="audit-note" data-testid="optout-note" data-label={t("optOuts.col.note")}>
        {e.note === null ? <span className="muted">{t("audit.noNote")}</span> : e.note}
      </td>
      {history && (
        <td data-testid="optout-ended" data-label={t("optOuts.col.ended")}>
          {ended ? (
            <>
              <Badge tone="neutral">{t("optOuts.ended")}</Badge>{" "}
              <time dateTime={new Date(e.removed_at_ms ?? 0).toISOString()}>
                {formatDateTime(e.removed_at_ms ?? 0)}
              </time>
              <div className="hint">{removedWords(e, t)}</div>
              {e.removed_note !== null && <div className="hint">{e.removed_note}</div>}
            </>
          ) : (
            <Badge tone="warning">{t("optOuts.onList")}</Badge>
          )}
        </td>
      )}
      {may.act && (
        <td>
          {!ended && (
            <button
              type="button"
              className="button button-secondary button-small nowrap"
              onClick={onRemove}
              aria-expanded={removing}
              data-testid="optout-remove-open"
            >
              {t("optOut.remove.open")}
            </button>
          )}
        </td>
      )}
    </tr>
  );
}
