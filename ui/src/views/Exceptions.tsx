import { useEffect, useRef, useState } from "react";
import type { Backend } from "../backend";
import { ExceptionList } from "./exceptions/ExceptionList";
import { ExceptionView } from "./exceptions/ExceptionView";

export interface ExceptionsProps {
  backend: Backend;
  /** The exception open in detail; uncontrolled (kept here) when not given. */
  openId?: number | null;
  onOpen?: (id: number) => void;
  onClose?: () => void;
  onOpenMessage?: (id: number) => void;
}

/**
 * The Exceptions section: what needs a person. Opening an item shows it, with its evidence and
 * the decision, in place of the queue; the queue stays as it was and takes the keyboard back on
 * the row that was opened.
 */
export function Exceptions({ backend, openId, onOpen, onClose, onOpenMessage }: ExceptionsProps) {
  const [ownId, setOwnId] = useState<number | null>(null);
  const controlled = openId !== undefined;
  const id = controlled ? openId : ownId;
  const open = (next: number): void => (controlled ? onOpen?.(next) : setOwnId(next));
  const close = (): void => (controlled ? onClose?.() : setOwnId(null));
  const openMessage = (m: number): void => onOpenMessage?.(m);

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
      listRef.current?.querySelector<HTMLElement>(`[data-testid="exception-row"][data-id="${back}"]`)?.focus();
    }
  }, [id]);

  return (
    <>
      <div ref={listRef} hidden={id !== null}>
        <ExceptionList backend={backend} onOpen={open} onOpenMessage={openMessage} />
      </div>
      {id !== null && <ExceptionView key={id} backend={backend} id={id} onClose={close} onOpenMessage={openMessage} />}
    </>
  );
}
