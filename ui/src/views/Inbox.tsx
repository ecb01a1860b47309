import { useId, useState } from "react";
import type { Backend } from "../backend";
import type { ConnectionStatus } from "../bindings/ConnectionStatus";
import type { DataState } from "../hooks/useBackendData";
import { useI18n } from "../i18n/context";
import { Conversation } from "./inbox/Conversation";
import { SimulateReply } from "./inbox/SimulateReply";
import { ThreadList } from "./inbox/ThreadList";

export interface InboxProps {
  backend: Backend;
  /** The connection as the app knows it: the sandbox offers to play a handset's reply. */
  connection?: DataState<ConnectionStatus>;
  /** The conversation open; uncontrolled (kept here) when not given. */
  openThread?: string | null;
  onOpenThread?: (thread: string) => void;
  onOpenMessage?: (id: number) => void;
  /** How the sandbox is asked to play a reply; none where that cannot be asked. */
  simulateReply?: (from: string, text: string) => Promise<void>;
}

/**
 * The Inbox: replies from handsets, one conversation per number, beside what was sent to it. The
 * conversations are listed on one side (the latest reply first); the one opened shows on the
 * other, and stays in the address so that it can be linked to and reloaded.
 */
export function Inbox({ backend, connection, openThread, onOpenThread, onOpenMessage, simulateReply }: InboxProps) {
  const { t } = useI18n();
  const headingId = useId();
  const [ownThread, setOwnThread] = useState<string | null>(null);
  const controlled = openThread !== undefined;
  const thread = controlled ? openThread : ownThread;
  const open = (next: string): void => (controlled ? onOpenThread?.(next) : setOwnThread(next));
  const sandbox = connection?.status === "ready" && connection.data.sandbox;

  return (
    <div className="inbox" data-testid="inbox">
      <section className="panel inbox-threads" aria-labelledby={headingId}>
        <h2 id={headingId}>{t("inbox.title")}</h2>
        <p className="panel-intro">{t("inbox.intro")}</p>
        <ThreadList backend={backend} selected={thread} onOpen={open} labelledBy={headingId} />
        {sandbox && simulateReply !== undefined && (
          <SimulateReply send={simulateReply} defaultFrom={thread !== null && thread.startsWith("+") ? thread : null} />
        )}
      </section>
      {thread === null ? (
        <section className="panel conversation conversation-none" aria-label={t("conversation.none.label")} data-testid="conversation-none">
          <p className="empty">{t("conversation.none")}</p>
        </section>
      ) : (
        <Conversation key={thread} backend={backend} thread={thread} {...(onOpenMessage ? { onOpenMessage } : {})} />
      )}
    </div>
  );
}
