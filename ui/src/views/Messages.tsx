import { useEffect, useMemo, useRef, useState, type RefObject } from "react";
import { useAccess } from "../access/context";
import type { Backend } from "../backend";
import { formatRoute, messagesPlaceRoute, type MessagesPlace } from "../hooks/useHashRoute";
import { useListDetail } from "../hooks/useListDetail";
import { useI18n } from "../i18n/context";
import { Compose } from "./Compose";
import { CsvImport } from "./CsvImport";
import { MessageDetail } from "./MessageDetail";
import { ANY_MESSAGE, type MessageQuery } from "./MessageFilters";
import { MessageList } from "./MessageList";
import { formatNarrowing, parseNarrowing } from "./messages/narrowing";

export interface MessagesProps {
  backend: Backend;
  /** Which of the section's places shows: the list (the default), writing one message, or importing a file. */
  place?: MessagesPlace;
  /** The message open in detail; uncontrolled (kept here) when not given. */
  openId?: number | null;
  onOpen?: (id: number) => void;
  onClose?: () => void;
  onOpenException?: (id: number) => void;
  /**
   * What the address narrows the list to (after `?`: a report's figure opened), and how to change
   * it (a chip removed, the filters cleared); kept here when not given.
   */
  narrowing?: string;
  onNarrowing?: (query: string) => void;
}

/**
 * The Messages section: what was sent and what became of it (the list), and, each in a place of
 * its own with an address, ways to send: one message written here (`#/messages/new`), or many
 * imported from a CSV file (`#/messages/import`). Links at the top lead from one place to the
 * others; a person who may not send (a viewer) has only the list. Opening a message shows its
 * detail in place of the list; the list's filters stay as they were while another place shows,
 * and the list takes the keyboard back on the row that was opened.
 */
export function Messages({ backend, place = "list", openId, onOpen, onClose, onOpenException, narrowing, onNarrowing }: MessagesProps) {
  const { id, open, close, listRef } = useListDetail("message-row", openId, onOpen, onClose);
  const { may } = useAccess();
  const [chosen, setChosen] = useState<MessageQuery>(ANY_MESSAGE);
  const [ownNarrowing, setOwnNarrowing] = useState("");
  const address = narrowing ?? ownNarrowing;
  // The filters chosen here, narrowed as the address says (so Back, reload and a link keep it).
  const query = useMemo<MessageQuery>(() => ({ ...chosen, narrowing: parseNarrowing(address) }), [chosen, address]);
  const setQuery = (next: MessageQuery): void => {
    const { narrowing: nextNarrowing, ...rest } = next;
    setChosen(rest);
    const written = formatNarrowing(nextNarrowing ?? {});
    if (written !== formatNarrowing(parseNarrowing(address))) (onNarrowing ?? setOwnNarrowing)(written);
  };
  useFocusOnPlace(place, listRef);

  return (
    <>
      <div className="stack" ref={listRef} hidden={id !== null}>
        {may.send && <Places place={place} />}
        {place === "list" && <MessageList backend={backend} onOpen={open} query={query} onQuery={setQuery} />}
        {place !== "list" && !may.send && <NotAllowed />}
        {place === "compose" && may.send && <Compose backend={backend} onOpenMessage={open} />}
        {place === "import" && may.send && (
          <CsvImport backend={backend} onShowImported={(imported) => setQuery({ ...ANY_MESSAGE, imported })} />
        )}
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

const PLACES: readonly { place: MessagesPlace; testId: string; label: "messages.tab.list" | "messages.tab.new" | "messages.tab.import" }[] = [
  { place: "list", testId: "messages-tab-list", label: "messages.tab.list" },
  { place: "compose", testId: "messages-tab-new", label: "messages.tab.new" },
  { place: "import", testId: "messages-tab-import", label: "messages.tab.import" },
];

/** The links between the section's places, the current one marked (in words to assistive technology, and by more than colour on screen). */
function Places({ place }: { place: MessagesPlace }) {
  const { t } = useI18n();
  return (
    <nav className="subnav" aria-label={t("messages.places")} data-testid="messages-places">
      <ul>
        {PLACES.map((p) => (
          <li key={p.place}>
            <a
              href={formatRoute(messagesPlaceRoute(p.place))}
              className="subnav-item"
              aria-current={p.place === place ? "page" : undefined}
              data-testid={p.testId}
            >
              {t(p.label)}
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}

/** An address of a place to send from, opened by someone who may not send. */
function NotAllowed() {
  const { t } = useI18n();
  return (
    <div className="notice notice-info" data-testid="not-for-you" data-section="compose">
      <h2>{t("notForYou.title")}</h2>
      <p>{t("messages.notAllowed")}</p>
    </div>
  );
}

/**
 * When the place changes (not when the section first shows), its heading takes the focus, so that
 * the keyboard and a screen reader start from the place now shown rather than from the link.
 */
function useFocusOnPlace(place: MessagesPlace, container: RefObject<HTMLDivElement | null>): void {
  const shown = useRef(place);
  useEffect(() => {
    if (shown.current === place) return;
    shown.current = place;
    const heading = container.current?.querySelector<HTMLElement>(".subnav ~ * h2, .subnav ~ h2");
    if (heading) {
      heading.tabIndex = -1;
      heading.focus();
    }
  }, [place, container]);
}
