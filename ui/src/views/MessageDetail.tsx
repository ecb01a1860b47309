import { useCallback, useEffect, useId, useRef } from "react";
import { useAccess } from "../access/context";
import type { Backend } from "../backend";
import type { ChangeEvent } from "../bindings/ChangeEvent";
import type { MessageDetail as MessageDetailRecord } from "../bindings/MessageDetail";
import { ErrorNotice } from "../components/ErrorNotice";
import { DetailBar } from "../components/DetailBar";
import { useBackendData } from "../hooks/useBackendData";
import { useEscape } from "../hooks/useEscape";
import { useI18n } from "../i18n/context";
import { CopyToNew } from "./message/CopyToNew";
import { Flags } from "./message/Flags";
import { adviceOf, headline, needsCorrection } from "./message/headline";
import { MessageActions } from "./message/MessageActions";
import { networkEvidence } from "./message/words";
import { MessageHeader } from "./message/MessageHeader";
import { Statements } from "./message/Statements";
import { Timeline, timelineElementId } from "./message/Timeline";

/** Changes that can alter what the detail of message `id` shows, given the rows it shows now. */
export function concernsMessage(event: ChangeEvent, id: number, shown: MessageDetailRecord | null): boolean {
  switch (event.entity) {
    case "message":
    case "queue":
    case "projection":
      return event.id === id;
    case "attempt":
      // A new try comes with a queue change of its own; an answer changes a try already shown.
      return shown === null || shown.attempts.some((a) => a.id === event.id);
    case "receipt":
    case "logical_event":
    case "exception":
      // Any receipt may be this message's (it is matched after it is stored); exceptions are few.
      return true;
    default:
      return false;
  }
}

/** A copy carries the number and the text: not once either was removed (a hash or nothing would be copied). */
function copyable(detail: MessageDetailRecord): boolean {
  return detail.message.text_removed === null && detail.message.number_removed === null;
}

/**
 * One message in full: what was sent; what our queue did, what the network reported and what an
 * operator decided, as three statements; its flags; and its whole story with the evidence. Kept
 * current as changes are committed. Escape or "Back" returns to the list.
 */
export function MessageDetail({
  backend,
  id,
  onClose,
  onOpenException,
}: {
  backend: Backend;
  id: number;
  onClose: () => void;
  onOpenException: (id: number) => void;
}) {
  const { t } = useI18n();
  const { may } = useAccess();
  const headingId = useId();
  const headingRef = useRef<HTMLHeadingElement>(null);
  const rootRef = useRef<HTMLElement>(null);
  const shown = useRef<MessageDetailRecord | null>(null);

  const load = useCallback((b: Backend) => b.message(id), [id]);
  const live = useCallback((event: ChangeEvent) => concernsMessage(event, id, shown.current), [id]);
  const { state, reload } = useBackendData(backend, load, { live, coalesceMs: 250 });
  shown.current = state.status === "ready" ? state.data : null;

  useEscape(onClose);
  useEffect(() => headingRef.current?.focus(), [id]);

  const showReceipt = useCallback((receiptId: number) => {
    const item = rootRef.current?.querySelector<HTMLElement>(`#${timelineElementId("receipt", receiptId)}`);
    const evidence = item?.querySelector("details");
    if (evidence) evidence.open = true;
    item?.scrollIntoView?.({ block: "nearest" });
    evidence?.querySelector("summary")?.focus();
  }, []);

  return (
    <section
      className="panel detail"
      ref={rootRef}
      aria-labelledby={headingId}
      aria-busy={state.status === "loading"}
      data-testid="message-detail"
      data-id={id}
    >
      <DetailBar backLabel={t("detail.back")} onClose={onClose} />
      <h2 id={headingId} ref={headingRef} tabIndex={-1} data-testid="detail-heading">
        {state.status === "ready" ? headline(state.data, t) : t("detail.title", { id: String(id) })}
      </h2>
      {state.status === "ready" && may.send && needsCorrection(state.data) && copyable(state.data) && (
        <CopyToNew message={state.data.message} />
      )}
      {state.status === "loading" && (
        <p className="status" role="status" data-testid="detail-loading">
          <span className="spinner" aria-hidden="true" />
          {t("detail.loading")}
        </p>
      )}
      {state.status === "error" && (
        <ErrorNotice title={t("detail.error")} error={state.error} onRetry={reload} testId="detail-error" />
      )}
      {state.status === "ready" && (
        <>
          <MessageHeader detail={state.data} currency={state.data.currency} />
          <Flags flags={state.data.summary.flags} exceptions={state.data.exceptions} onOpenException={onOpenException} />
          <Statements detail={state.data} onShowReceipt={showReceipt} onOpenException={onOpenException} />
          {may.act && (
            <MessageActions
              backend={backend}
              messageId={id}
              status={state.data.queue.status}
              updatedAtMs={state.data.queue.updated_at_ms}
              advice={adviceOf(state.data)}
              evidence={networkEvidence(state.data)}
              onDone={reload}
            />
          )}
          <Timeline detail={state.data} onOpenException={onOpenException} />
        </>
      )}
    </section>
  );
}
