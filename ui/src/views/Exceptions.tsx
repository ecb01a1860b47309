import type { Backend } from "../backend";
import type { ExceptionKind } from "../bindings/ExceptionKind";
import { useListDetail } from "../hooks/useListDetail";
import { ExceptionList } from "./exceptions/ExceptionList";
import { ExceptionView } from "./exceptions/ExceptionView";

export interface ExceptionsProps {
  backend: Backend;
  /** The exception open in detail; uncontrolled (kept here) when not given. */
  openId?: number | null;
  onOpen?: (id: number) => void;
  onClose?: () => void;
  onOpenMessage?: (id: number) => void;
  /** The queue narrowed to one kind, as a link asked (`#/exceptions?kind=unusual_volume`). */
  kind?: ExceptionKind;
}

/**
 * The Exceptions section: what needs a person. Opening an item shows it, with its evidence and
 * the decision, in place of the queue; the queue stays as it was and takes the keyboard back on
 * the row that was opened.
 */
export function Exceptions({ backend, openId, onOpen, onClose, onOpenMessage, kind }: ExceptionsProps) {
  const { id, open, close, listRef } = useListDetail("exception-row", openId, onOpen, onClose);
  const openMessage = (m: number): void => onOpenMessage?.(m);
  return (
    <>
      <div ref={listRef} hidden={id !== null}>
        <ExceptionList backend={backend} onOpen={open} onOpenMessage={openMessage} {...(kind === undefined ? {} : { kind })} />
      </div>
      {id !== null && (
        <ExceptionView
          key={id}
          backend={backend}
          id={id}
          onClose={close}
          onOpenMessage={openMessage}
          onOpenException={open}
        />
      )}
    </>
  );
}
