import { useAccess } from "../access/context";
import type { Backend } from "../backend";
import { useListDetail } from "../hooks/useListDetail";
import { Compose } from "./Compose";
import { CsvImport } from "./CsvImport";
import { MessageDetail } from "./MessageDetail";
import { MessageList } from "./MessageList";

export interface MessagesProps {
  backend: Backend;
  /** The message open in detail; uncontrolled (kept here) when not given. */
  openId?: number | null;
  onOpen?: (id: number) => void;
  onClose?: () => void;
  onOpenException?: (id: number) => void;
}

/**
 * The Messages section: what was sent and what became of it, and ways to send: one message
 * written here, or many imported from a CSV file. Opening a message shows its detail in place of
 * the list; a person who may not send (a viewer) sees no way to send. The list stays as it was (filters, pages loaded) and takes the keyboard back on the
 * row that was opened.
 */
export function Messages({ backend, openId, onOpen, onClose, onOpenException }: MessagesProps) {
  const { id, open, close, listRef } = useListDetail("message-row", openId, onOpen, onClose);
  const { may } = useAccess();

  return (
    <>
      <div className="stack" ref={listRef} hidden={id !== null}>
        {may.send && <Compose backend={backend} />}
        {may.send && <CsvImport backend={backend} />}
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
