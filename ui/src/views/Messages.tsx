import type { Backend } from "../backend";
import { useListDetail } from "../hooks/useListDetail";
import { MessageDetail } from "./MessageDetail";
import { MessageList } from "./MessageList";
import { SendTestMessage } from "./SendTestMessage";

export interface MessagesProps {
  backend: Backend;
  /** The message open in detail; uncontrolled (kept here) when not given. */
  openId?: number | null;
  onOpen?: (id: number) => void;
  onClose?: () => void;
  onOpenException?: (id: number) => void;
}

/**
 * The Messages section: what was sent and what became of it, and a way to send one. Opening a
 * message shows its detail in place of the list; the list stays as it was (filters, pages
 * loaded) and takes the keyboard back on the row that was opened.
 */
export function Messages({ backend, openId, onOpen, onClose, onOpenException }: MessagesProps) {
  const { id, open, close, listRef } = useListDetail("message-row", openId, onOpen, onClose);

  return (
    <>
      <div className="stack" ref={listRef} hidden={id !== null}>
        <SendTestMessage backend={backend} />
        <MessageList backend={backend} onOpen={open} />
      </div>
      {id !== null && (
        <MessageDetail
          key={id}
          backend={backend}
          id={id}
          onClose={close}
          onOpenException={(x) => onOpenException?.(x)}
        />
      )}
    </>
  );
}
