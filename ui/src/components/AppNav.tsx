import { useEffect, useId, useState } from "react";
import { formatRoute, sectionRoute, type NavSection } from "../hooks/useHashRoute";
import { useI18n } from "../i18n/context";

/**
 * The sections, as tabs on one line where there is room; at phone width folded behind one
 * "Menu: <where you are>" button, so that the header and the menu take a small part of the
 * screen and the page starts near the top. Choosing a section folds it again.
 */
export function AppNav({
  sections,
  current,
  openExceptions,
  unread,
}: {
  sections: readonly NavSection[];
  /** Where the person is (null on a page of no section, such as their own password). */
  current: NavSection | null;
  openExceptions: number | null;
  unread: number | null;
}) {
  const { t, formatNumber } = useI18n();
  const listId = useId();
  const [open, setOpen] = useState(false);
  // A section chosen (or Back) folds the menu: the page is what the person came for.
  useEffect(() => setOpen(false), [current]);
  // Escape folds it while it is open (and only then: Escape belongs to dialogs otherwise).
  useEffect(() => {
    if (!open) return;
    const onKeyDown = (event: KeyboardEvent): void => {
      if (event.key === "Escape" && !event.defaultPrevented) setOpen(false);
    };
    document.addEventListener("keydown", onKeyDown);
    return () => document.removeEventListener("keydown", onKeyDown);
  }, [open]);
  const here = current === null ? null : t(`nav.${current}`);

  return (
    <nav className="app-nav" aria-label={t("nav.label")} data-open={open ? "true" : undefined}>
      <button
        type="button"
        className="nav-toggle"
        aria-expanded={open}
        aria-controls={listId}
        onClick={() => setOpen((o) => !o)}
        data-testid="nav-toggle"
      >
        <span className="nav-toggle-icon" aria-hidden="true" />
        {here === null ? t("nav.menu") : t("nav.menu.current", { section: here })}
      </button>
      <ul id={listId}>
        {sections.map((s) => (
          <li key={s}>
            <a
              href={formatRoute(sectionRoute(s))}
              className="nav-item"
              aria-current={s === current ? "page" : undefined}
              onClick={() => setOpen(false)}
              data-testid={`nav-${s}`}
            >
              {t(`nav.${s}`)}
              {s === "exceptions" && openExceptions !== null && openExceptions > 0 && (
                <span className="nav-count" data-testid="nav-exceptions-count" data-count={openExceptions}>
                  <span aria-hidden="true">{formatNumber(openExceptions)}</span>
                  <span className="visually-hidden">{t("nav.openCount", { count: openExceptions })}</span>
                </span>
              )}
              {s === "inbox" && unread !== null && unread > 0 && (
                <span className="nav-count nav-count-unread" data-testid="nav-inbox-count" data-count={unread}>
                  <span aria-hidden="true">{formatNumber(unread)}</span>
                  <span className="visually-hidden">{t("nav.unreadCount", { count: unread })}</span>
                </span>
              )}
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}
