import { useEffect, useRef, useState } from "react";
import type { RefObject } from "react";

/** What a list-with-detail section needs: which item is open, and how to open and close one. */
export interface ListDetail {
  /** The open item, or null while the list shows. */
  id: number | null;
  open: (id: number) => void;
  close: () => void;
  /** Put on the list's container: closing a detail gives the keyboard back to its row there. */
  listRef: RefObject<HTMLDivElement | null>;
}

/**
 * A list whose items open in place of it. The open item is controlled by the caller when
 * `openId` is given (an address in the URL), kept here otherwise. When the detail closes, focus
 * returns to the row that opened it (`[data-testid=<rowTestId>][data-id=<id>]`).
 */
export function useListDetail(
  rowTestId: string,
  openId: number | null | undefined,
  onOpen?: (id: number) => void,
  onClose?: () => void,
): ListDetail {
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
      listRef.current?.querySelector<HTMLElement>(`[data-testid="${rowTestId}"][data-id="${back}"]`)?.focus();
    }
  }, [id, rowTestId]);

  return { id, open, close, listRef };
}
