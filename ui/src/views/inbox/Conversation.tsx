import { useEffect, useId, useRef, useState } from "react";
import { useAccess } from "../../access/context";
import type { Backend } from "../../backend";
import type { InboxMessage } from "../../bindings/InboxMessage";
import type { SentInThread } from "../../bindings/SentInThread";
import type { ThreadItem } from "../../bindings/ThreadItem";
import type { ThreadView } from "../../bindings/ThreadView";
import { Badge } from "../../components/Badge";
import { ErrorNotice } from "../../components/ErrorNotice";
import { formatRoute } from "../../hooks/useHashRoute";
import { useI18n } from "../../i18n/context";
import { AddOptOutForm, RemoveOptOutForm } from "../optouts/OptOutForms";
import { QUEUE_TONE, STATE_TONE } from "../tones";
import { ReplyComposer } from "./ReplyComposer";
import { follow } from "./ThreadList";
import { lineKey, useConversation } from "./useConversation";
import { byWords, IntentBadge, kindsWords, reasonWords } from "./words";

/** The newest reply among the lines shown, and whether any of them is unread. */
export function unreadShown(view: ThreadView): { newest: number | null; unread: boolean } {
  let newest: number | null = null;
  let unread = false;
  for (const item of view.items) {
    if (item.direction !== "received") continue;
    if (newest === null || item.id > newest) newest = item.id;
    if (item.read_at_ms === null) unread = true;
  }
  return { newest, unread };
}

/**
 * One conversation: the replies from a number beside the messages sent to it, in time order, as
 * a chat reads (sent on one side with where each stands, replies on the other); older lines on
 * demand. Opening it marks its replies read, up to the newest one shown, for those who may. Above,
 * the number's place on the opt-out list, with the evidence; below, a way to answer.
 */
export function Conversation({
  backend,
  thread,
  onOpenMessage,
}: {
  backend: Backend;
  thread: string;
  onOpenMessage?: (id: number) => void;
}) {
  const { t } = useI18n();
  const { may } = useAccess();
  const headingId = useId();
  const headingRef = useRef<HTMLHeadingElement>(null);
  const { state, loadOlder, reload } = useConversation(backend, thread);
  const view = state.view;
  const marked = useRef<number>(0);

  useEffect(() => headingRef.current?.focus(), [thread]);

  // Reading the conversation is what marks it read: up to the newest reply shown, no further.
  useEffect(() => {
    if (!may.act || view === null) return;
    const { newest, unread } = unreadShown(view);
    if (!unread || newest === null || newest <= marked.current) return;
    marked.current = newest;
    backend.markRead({ thread, up_to: newest }).catch(() => {
      // Marking is a convenience: the replies stay unread, and the next change tries again.
      marked.current = 0;
    });
  }, [backend, may.act, thread, view]);

  const who = view?.phone ?? thread;

  return (
    <section
      className="panel conversation"
      aria-labelledby={headingId}
      aria-busy={state.status === "loading"}
      data-testid="conversation"
      data-thread={thread}
    >
      <h2 id={headingId} ref={headingRef} tabIndex={-1}>
        {t("conversation.title", { who })}
      </h2>
      {state.status === "loading" && (
        <p className="status" role="status" data-testid="conversation-loading">
          <span className="spinner" aria-hidden="true" />
          {t("conversation.loading")}
        </p>
      )}
      {state.status === "error" && state.error !== null && (
        <ErrorNotice title={t("conversation.error")} error={state.error} onRetry={reload} testId="conversation-error" />
      )}
      {view !== null && (
        <>
          <OptOutStatus backend={backend} view={view} onChanged={reload} />
          {state.error !== null && <ErrorNotice title={t("conversation.errorMore")} error={state.error} />}
          {view.next_cursor !== null && (
            <div className="row-actions conversation-older">
              <button
                type="button"
                className="button button-secondary button-small"
                onClick={loadOlder}
                disabled={state.loadingOlder}
                data-testid="conversation-older"
              >
                {state.loadingOlder ? t("messages.loadingMore") : t("conversation.older")}
              </button>
            </div>
          )}
          <ol className="bubbles" aria-label={t("conversation.lines", { who })} data-testid="conversation-lines">
            {view.items.map((item) => (
              <Line key={lineKey(item)} item={item} onOpenMessage={onOpenMessage} />
            ))}
          </ol>
          {may.send && view.phone !== null && <ReplyComposer backend={backend} phone={view.phone} optOut={view.opt_out} />}
          {view.phone === null && (
            <p className="hint" data-testid="conversation-no-number">
              {t("conversation.noNumber")}
            </p>
          )}
        </>
      )}
    </section>
  );
}

function Line({ item, onOpenMessage }: { item: ThreadItem; onOpenMessage: ((id: number) => void) | undefined }) {
  return item.direction === "received" ? (
    <Reply message={item} />
  ) : (
    <Sent message={item} onOpenMessage={onOpenMessage} />
  );
}

function When({ at }: { at: number }) {
  const { formatDateTime } = useI18n();
  return (
    <time className="bubble-time" dateTime={new Date(at).toISOString()}>
      {formatDateTime(at)}
    </time>
  );
}

function Reply({ message: m }: { message: InboxMessage }) {
  const { t } = useI18n();
  const missing = m.parts_received < m.parts;
  return (
    <li className="bubble bubble-received" data-testid="thread-item" data-direction="received" data-id={m.id}>
      <p className="bubble-head">
        <span className="bubble-who">{t("conversation.reply")}</span> <When at={m.received_at_ms} />
      </p>
      <p className="bubble-text" data-testid="bubble-text">
        {m.text}
      </p>
      {(m.intent !== null || missing || m.read_at_ms === null) && (
        <p className="badges">
          <IntentBadge message={m} />
          {missing && (
            <Badge tone="warning">
              <span data-testid="reply-parts" title={t("conversation.partsMissing")}>
                {t("conversation.parts", { received: m.parts_received, parts: m.parts })}
              </span>
            </Badge>
          )}
          {m.read_at_ms === null && (
            <Badge tone="progress">
              <span data-testid="reply-unread">{t("conversation.new")}</span>
            </Badge>
          )}
        </p>
      )}
      {missing && <p className="hint">{t("conversation.partsMissing")}</p>}
    </li>
  );
}

function Sent({ message: m, onOpenMessage }: { message: SentInThread; onOpenMessage: ((id: number) => void) | undefined }) {
  const { t } = useI18n();
  return (
    <li
      className="bubble bubble-sent"
      data-testid="thread-item"
      data-direction="sent"
      data-id={m.id}
      data-status={m.status}
      data-state={m.state ?? undefined}
    >
      <p className="bubble-head">
        <a
          href={formatRoute({ section: "messages", id: m.id })}
          onClick={follow(onOpenMessage === undefined ? undefined : () => onOpenMessage(m.id))}
          className="bubble-who"
          data-testid="thread-open-message"
        >
          {t("conversation.sent", { id: String(m.id) })}
        </a>{" "}
        <When at={m.created_at_ms} />
      </p>
      <p className="bubble-text" data-testid="bubble-text">
        {m.text}
      </p>
      <p className="badges">
        <Badge tone={QUEUE_TONE[m.status]}>
          <span data-testid="sent-status">{t(`queueStatus.${m.status}`)}</span>
        </Badge>
        {m.state !== null && m.state !== "pending" && (
          <Badge tone={STATE_TONE[m.state]}>
            <span data-testid="sent-state">{t(`reportedState.${m.state}`)}</span>
          </Badge>
        )}
        {m.kind !== "transactional" && <Badge tone="neutral">{t(`messageKind.${m.kind}`)}</Badge>}
      </p>
    </li>
  );
}

/**
 * Where the number stands on the opt-out list: on it since when, why, on what evidence, with a
 * way off it (a note required); or not on it, with a way to put it on.
 */
function OptOutStatus({ backend, view, onChanged }: { backend: Backend; view: ThreadView; onChanged: () => void }) {
  const { t, formatDateTime } = useI18n();
  const { may } = useAccess();
  const headingId = useId();
  const [editing, setEditing] = useState(false);
  const entry = view.opt_out;
  const phone = view.phone;
  if (phone === null) return null;

  const done = (): void => {
    setEditing(false);
    onChanged();
  };

  if (entry !== null) {
    return (
      <section
        className="notice notice-warning thread-opt-out"
        aria-labelledby={headingId}
        data-testid="thread-opt-out"
        data-reason={entry.reason}
      >
        <h3 id={headingId}>{t("conversation.optedOut.title")}</h3>
        <p data-testid="thread-opt-out-since">
          {t("conversation.optedOut.since", { at: formatDateTime(entry.created_at_ms), why: reasonWords(entry, t) })}
        </p>
        {entry.reply_text !== null && (
          <p data-testid="thread-opt-out-evidence">
            {t("conversation.optedOut.evidence")} <q>{entry.reply_text}</q>
          </p>
        )}
        <p>{t("conversation.optedOut.kinds", { kinds: kindsWords(entry.kinds, t) })}</p>
        {entry.note !== null && <p>{t("conversation.optedOut.note", { note: entry.note })}</p>}
        {entry.reason !== "reply" && <p className="hint">{t("conversation.optedOut.by", { who: byWords(entry.created_by, t) })}</p>}
        {may.act &&
          (editing ? (
            <RemoveOptOutForm backend={backend} phone={phone} onDone={done} onCancel={() => setEditing(false)} testId="thread-remove" />
          ) : (
            <button type="button" className="button button-secondary" onClick={() => setEditing(true)} data-testid="thread-remove-open">
              {t("optOut.remove.open")}
            </button>
          ))}
      </section>
    );
  }

  return (
    <section className="thread-opt-in" aria-labelledby={headingId} data-testid="thread-not-opted-out">
      <h3 id={headingId} className="visually-hidden">
        {t("conversation.optOutList")}
      </h3>
      <p className="hint">{t("conversation.notOptedOut")}</p>
      {may.act &&
        (editing ? (
          <AddOptOutForm backend={backend} phone={phone} onDone={done} onCancel={() => setEditing(false)} testId="thread-add" />
        ) : (
          <button type="button" className="button button-secondary button-small" onClick={() => setEditing(true)} data-testid="thread-add-open">
            {t("optOut.add.open")}
          </button>
        ))}
    </section>
  );
}
