import { useCallback, useId, type MouseEvent } from "react";
import type { Backend } from "../backend";
import type { AuditEntry } from "../bindings/AuditEntry";
import type { ChangeEvent } from "../bindings/ChangeEvent";
import { ErrorNotice } from "../components/ErrorNotice";
import { ListFooter } from "../components/ListFooter";
import { shownWords } from "../components/shownWords";
import { formatRoute } from "../hooks/useHashRoute";
import { usePagedList, type FetchPage, type PagedState } from "../hooks/usePagedList";
import { useI18n } from "../i18n/context";
import { auditActorWords, auditDetailWords } from "../i18n/reasons/words";
import { auditActionWords, knownAuditAction } from "../i18n/server/words";
import { ScrollArea } from "../components/ScrollArea";

export const PAGE_SIZE = 50;

/** Only a new audit row changes the log (it is append-only). */
const showsChange = (event: ChangeEvent): boolean => event.entity === "audit";

export interface AuditLogProps {
  backend: Backend;
  onOpenMessage?: (id: number) => void;
  onOpenException?: (id: number) => void;
}

/**
 * The audit log: who did what and when, on which message or exception, with their note, newest
 * first, page by page, kept current as entries are added. A message or exception it names is a
 * link that opens it.
 */
export function AuditLog({ backend, onOpenMessage, onOpenException }: AuditLogProps) {
  const { t } = useI18n();
  const headingId = useId();
  const fetchPage: FetchPage<AuditEntry> = useCallback(
    (cursor, limit) => backend.auditLog({ cursor, limit }),
    [backend],
  );
  const { state, loadMore, retry } = usePagedList(backend, fetchPage, {
    key: "audit",
    live: showsChange,
    pageSize: PAGE_SIZE,
  });

  return (
    <section className="panel" aria-labelledby={headingId} aria-busy={state.status === "loading"}>
      <h2 id={headingId}>{t("audit.title")}</h2>
      <p className="panel-intro">{t("audit.intro")}</p>
      {state.status === "loading" && (
        <p className="status" role="status" data-testid="audit-loading">
          <span className="spinner" aria-hidden="true" />
          {t("audit.loading")}
        </p>
      )}
      {state.status === "error" && state.error !== null && (
        <ErrorNotice title={t("audit.error")} error={state.error} onRetry={retry} testId="audit-error" />
      )}
      {state.status === "ready" && (
        <AuditTable
          state={state}
          labelledBy={headingId}
          onMore={loadMore}
          onOpenMessage={onOpenMessage}
          onOpenException={onOpenException}
        />
      )}
    </section>
  );
}

function AuditTable({
  state,
  labelledBy,
  onMore,
  onOpenMessage,
  onOpenException,
}: {
  state: PagedState<AuditEntry>;
  labelledBy: string;
  onMore: () => void;
  onOpenMessage: ((id: number) => void) | undefined;
  onOpenException: ((id: number) => void) | undefined;
}) {
  const i18n = useI18n();
  const { t } = i18n;
  return (
    <>
      {state.error !== null && <ErrorNotice title={t("audit.errorMore")} error={state.error} testId="audit-more-error" />}
      {state.items.length === 0 ? (
        <p className="empty" data-testid="audit-empty">
          {t("audit.empty")}
        </p>
      ) : (
        <ScrollArea>
          <table className="table audit-table" aria-labelledby={labelledBy} data-testid="audit-table">
            <thead>
              <tr>
                <th scope="col">{t("audit.col.when")}</th>
                <th scope="col">{t("audit.col.who")}</th>
                <th scope="col">{t("audit.col.what")}</th>
                <th scope="col">{t("audit.col.subject")}</th>
                <th scope="col">{t("audit.col.note")}</th>
              </tr>
            </thead>
            <tbody>
              {state.items.map((e) => (
                <AuditRow key={e.id} entry={e} onOpenMessage={onOpenMessage} onOpenException={onOpenException} />
              ))}
            </tbody>
          </table>
        </ScrollArea>
      )}
      <ListFooter
        shown={state.items.length > 0 ? shownWords(state.items.length, i18n) : null}
        more={state.nextCursor !== null}
        loadingMore={state.loadingMore}
        onMore={onMore}
        testId="audit"
      />
    </>
  );
}

function AuditRow({
  entry: e,
  onOpenMessage,
  onOpenException,
}: {
  entry: AuditEntry;
  onOpenMessage: ((id: number) => void) | undefined;
  onOpenException: ((id: number) => void) | undefined;
}) {
  const { t, formatDateTime } = useI18n();
  const action = knownAuditAction(e.action);
  return (
    <tr data-testid="audit-row" data-id={e.id} data-action={e.action}>
      <td className="audit-when">
        <time dateTime={new Date(e.at_ms).toISOString()} data-testid="audit-when">
          {formatDateTime(e.at_ms)}
        </time>
      </td>
      <td data-testid="audit-who">{auditActorWords(e.actor, t)}</td>
      <td data-testid="audit-what">{action === null ? <code>{e.action}</code> : auditActionWords(action, t)}</td>
      <td data-testid="audit-subject">
        <Subject entry={e} onOpenMessage={onOpenMessage} onOpenException={onOpenException} />
      </td>
      <td className="audit-note" data-testid="audit-note">
        <AuditNote entry={e} />
      </td>
    </tr>
  );
}

/**
 * The note of an entry: what a person wrote, as they wrote it, and beside it what the engine
 * recorded (the number and how it came on the opt-out list, the settings changed...) worded in
 * the reader's language.
 */
function AuditNote({ entry: e }: { entry: AuditEntry }) {
  const { t } = useI18n();
  const facts = auditDetailWords(e, t);
  const note = e.note !== null && e.note.trim() !== "" ? e.note : null;
  if (note === null && facts === null) return <span className="muted">{t("audit.noNote")}</span>;
  return (
    <>
      {note !== null && <span data-testid="audit-note-text">{note}</span>}
      {note !== null && facts !== null && " "}
      {facts !== null && (
        <span className="muted" data-testid="audit-facts">
          {facts}
        </span>
      )}
    </>
  );
}

/** What the entry was about: a link for a message or an exception, words for anything else. */
function Subject({
  entry: e,
  onOpenMessage,
  onOpenException,
}: {
  entry: AuditEntry;
  onOpenMessage: ((id: number) => void) | undefined;
  onOpenException: ((id: number) => void) | undefined;
}) {
  const { t } = useI18n();
  const id = e.subject_id;
  // A link is a real link (it can be opened in a new tab); the app navigates itself when it can.
  const follow = (open: ((id: number) => void) | undefined, to: number) => (event: MouseEvent<HTMLAnchorElement>) => {
    if (open === undefined || event.ctrlKey || event.metaKey || event.shiftKey || event.button !== 0) return;
    event.preventDefault();
    open(to);
  };
  if (e.subject_type === "message" && id !== null) {
    return (
      <a
        href={formatRoute({ section: "messages", id })}
        onClick={follow(onOpenMessage, id)}
        className="nowrap"
        data-testid="audit-open-message"
      >
        {t("audit.subject.message", { id: String(id) })}
      </a>
    );
  }
  if (e.subject_type === "exception" && id !== null) {
    return (
      <a
        href={formatRoute({ section: "exceptions", id })}
        onClick={follow(onOpenException, id)}
        className="nowrap"
        data-testid="audit-open-exception"
      >
        {t("audit.subject.exception", { id: String(id) })}
      </a>
    );
  }
  if (e.subject_type === "api_key" && id !== null) return <>{t("audit.subject.apiKey", { id: String(id) })}</>;
  if (e.subject_type === "settings") return <>{t("audit.subject.settings")}</>;
  if (e.subject_type === "account" && id !== null) return <>{t("audit.subject.account", { id: String(id) })}</>;
  if (e.subject_type === "session" && id !== null) return <>{t("audit.subject.session", { id: String(id) })}</>;
  if (e.subject_type === "opt_out" && id !== null) return <>{t("audit.subject.optOut", { id: String(id) })}</>;
  if (e.subject_type === "template" && id !== null) return <>{t("audit.subject.template", { id: String(id) })}</>;
  if (e.subject_type === "redaction" && id !== null) return <>{t("audit.subject.redaction", { id: String(id) })}</>;
  if (e.subject_type === "alert" && id !== null) {
    return (
      <a href={formatRoute({ section: "alerts" })} className="nowrap" data-testid="audit-open-alert">
        {t("audit.subject.alert", { id: String(id) })}
      </a>
    );
  }
  if (e.subject_type === null) return <span className="muted">{t("audit.subject.none")}</span>;
  return (
    <code>
      {e.subject_type}
      {id === null ? "" : ` ${id}`}
    </code>
  );
}
