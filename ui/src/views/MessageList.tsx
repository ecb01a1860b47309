import { useId } from "react";
import type { Backend } from "../backend";
import type { ChangeEvent } from "../bindings/ChangeEvent";
import type { MessageFilter } from "../bindings/MessageFilter";
import type { MessagePage } from "../bindings/MessagePage";
import type { MessageSummary } from "../bindings/MessageSummary";
import { Badge } from "../components/Badge";
import { ErrorNotice } from "../components/ErrorNotice";
import { useBackendData } from "../hooks/useBackendData";
import { useI18n } from "../i18n/context";
import { QUEUE_TONE, STATE_TONE } from "./tones";

export const FIRST_PAGE: MessageFilter = {
  status: null,
  state: null,
  kind: null,
  channel: null,
  destination: null,
  q: null,
  from_ms: null,
  to_ms: null,
  cursor: null,
  limit: 50,
};

const loadFirstPage = (backend: Backend): Promise<MessagePage> => backend.listMessages(FIRST_PAGE);

/** What a listed row shows changes with these: the message, its place in the queue, its computed state. */
const SHOWN_ENTITIES = new Set(["message", "queue", "projection"]);
const showsChange = (event: ChangeEvent): boolean => SHOWN_ENTITIES.has(event.entity);

/** The newest messages, kept current by the engine's change events. */
export function MessageList({ backend }: { backend: Backend }) {
  const { t } = useI18n();
  const headingId = useId();
  const { state, reload } = useBackendData(backend, loadFirstPage, { live: showsChange });

  return (
    <section className="panel" aria-labelledby={headingId} aria-busy={state.status === "loading"}>
      <h2 id={headingId}>{t("messages.title")}</h2>
      <p className="panel-intro">{t("messages.intro")}</p>
      {state.status === "loading" && (
        <p className="status" role="status" data-testid="messages-loading">
          <span className="spinner" aria-hidden="true" />
          {t("messages.loading")}
        </p>
      )}
      {state.status === "error" && (
        <ErrorNotice title={t("messages.error")} error={state.error} onRetry={reload} testId="messages-error" />
      )}
      {state.status === "ready" && <MessageTable page={state.data} labelledBy={headingId} />}
    </section>
  );
}

function MessageTable({ page, labelledBy }: { page: MessagePage; labelledBy: string }) {
  const { t } = useI18n();
  if (page.items.length === 0) {
    return (
      <p className="empty" data-testid="messages-empty">
        {t("messages.empty")}
      </p>
    );
  }
  return (
    <>
      <div className="table-scroll">
        <table className="table" aria-labelledby={labelledBy} data-testid="messages-table">
          <thead>
            <tr>
              <th scope="col" className="num">
                {t("messages.col.id")}
              </th>
              <th scope="col">{t("messages.col.destination")}</th>
              <th scope="col">{t("messages.col.status")}</th>
              <th scope="col">{t("messages.col.state")}</th>
              <th scope="col">{t("messages.col.created")}</th>
            </tr>
          </thead>
          <tbody>
            {page.items.map((m) => (
              <MessageRow key={m.id} message={m} />
            ))}
          </tbody>
        </table>
      </div>
      {page.next_cursor !== null && (
        <p className="muted table-note">{t("messages.more", { count: page.items.length })}</p>
      )}
    </>
  );
}

function MessageRow({ message: m }: { message: MessageSummary }) {
  const { t, formatDateTimeShort } = useI18n();
  return (
    <tr data-testid="message-row" data-id={m.id} data-status={m.status} data-state={m.state}>
      <td className="num">{m.id}</td>
      <td>
        <span className="phone" data-testid="message-destination">
          {m.destination}
        </span>
      </td>
      <td data-testid="message-status">
        <Badge tone={QUEUE_TONE[m.status]}>{t(`queueStatus.${m.status}`)}</Badge>
      </td>
      <td data-testid="message-state">
        <Badge tone={STATE_TONE[m.state]}>{t(`deliveryState.${m.state}`)}</Badge>
      </td>
      <td>
        <time dateTime={new Date(m.created_at_ms).toISOString()}>{formatDateTimeShort(m.created_at_ms)}</time>
      </td>
    </tr>
  );
}
