import { useEffect, useRef, useState } from "react";
import type { Backend } from "../backend";
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
  const [ownId, setOwnId] = useState<number | null>(null);
  const controlled = openId !== undefined;
  const id = controlled ? openId : ownId;
  const open = (next: number): void => (controlled ? onOpen?.(next) : setOwnId(next));
  const close = (): void => (controlled ? onClose?.() : setOwnId(null));

  const listRef = useRef<HTMLDivElement>(null);
  const lastOpened = useRef<number | null>(null);
  useEffect(() => {
    if (id !== null) {
      lastOpened.current = id;
      return;
    }
    const back = lastOpened.current;
    lastOpened.current = null;
    if (back !== null) {
      listRef.current?.querySelector<HTMLElement>(`[data-testid="message-row"][data-id="${back}"]`)?.focus();
    }
  }, [id]);

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
