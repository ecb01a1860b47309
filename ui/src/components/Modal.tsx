import { useEffect, useRef, type KeyboardEvent, type ReactNode, type RefObject } from "react";

const FOCUSABLE = 'a[href], button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';

/**
 * A modal dialog: shown over the page (the page behind cannot be reached), labelled by its
 * heading, keeping the keyboard inside it (Tab and Shift+Tab go round), closed by Escape as by
 * its own Cancel. Focus goes to `initialFocus` (else the dialog) when it opens, and back to where
 * it was when it closes.
 */
export function Modal({
  labelledBy,
  onCancel,
  initialFocus,
  children,
  testId,
}: {
  labelledBy: string;
  onCancel: () => void;
  initialFocus?: RefObject<HTMLElement | null>;
  children: ReactNode;
  testId?: string;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const cancel = useRef(onCancel);
  cancel.current = onCancel;

  useEffect(() => {
    const dialog = ref.current;
    if (dialog === null) return;
    const before = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    if (!dialog.open) {
      try {
        dialog.showModal();
      } catch {
        dialog.setAttribute("open", "");
      }
    }
    (initialFocus?.current ?? dialog).focus();
    return () => {
      if (dialog.open) {
        try {
          dialog.close();
        } catch {
          dialog.removeAttribute("open");
        }
      }
      before?.focus();
    };
    // Opened once, when mounted.
  }, []); // eslint-disable-line react-hooks/exhaustive-deps

  const onKeyDown = (event: KeyboardEvent<HTMLDialogElement>): void => {
    if (event.key === "Escape") {
      event.preventDefault();
      event.stopPropagation();
      cancel.current();
      return;
    }
    if (event.key !== "Tab" || ref.current === null) return;
    const inside = [...ref.current.querySelectorAll<HTMLElement>(FOCUSABLE)].filter((e) => !e.hidden);
    const first = inside[0];
    const last = inside.at(-1);
    if (first === undefined || last === undefined) {
      event.preventDefault();
      return;
    }
    const active = document.activeElement;
    if (event.shiftKey && (active === first || active === ref.current || !ref.current.contains(active))) {
      event.preventDefault();
      last.focus();
    } else if (!event.shiftKey && (active === last || !ref.current.contains(active))) {
      event.preventDefault();
      first.focus();
    }
  };

  return (
    <dialog
      ref={ref}
      className="modal"
      role="dialog"
      aria-modal="true"
      aria-labelledby={labelledBy}
      tabIndex={-1}
      onKeyDown={onKeyDown}
      onCancel={(event) => {
        // Escape, as the browser reports it: the same as Cancel.
        event.preventDefault();
        cancel.current();
      }}
      data-testid={testId}
    >
      {children}
    </dialog>
  );
}
