import { useEffect, useId, useRef, useState } from "react";
import { asBackendError, type BackendError, type PeopleAccess } from "../backend";
import type { Me } from "../bindings/Me";
import { formatRoute } from "../hooks/useHashRoute";
import { useEscape } from "../hooks/useEscape";
import { useI18n } from "../i18n/context";
import { ErrorNotice } from "./ErrorNotice";

/**
 * Who is signed in, in the header: their name and role, and for a person in a browser a menu
 * with "Change password" and "Sign out". The window is its computer's admin: it only says so.
 */
export function UserMenu({ me, people }: { me: Me; people: PeopleAccess | null }) {
  const { t } = useI18n();
  const menuId = useId();
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<BackendError | null>(null);
  const rootRef = useRef<HTMLDivElement>(null);
  const buttonRef = useRef<HTMLButtonElement>(null);
  const role = me.role === null ? null : t(`role.${me.role}`);

  useEscape(() => {
    if (!open) return;
    setOpen(false);
    buttonRef.current?.focus();
  });

  // A click anywhere else closes the menu, as menus do.
  useEffect(() => {
    if (!open) return;
    const onPointer = (event: PointerEvent): void => {
      if (event.target instanceof Node && rootRef.current?.contains(event.target) !== true) setOpen(false);
    };
    document.addEventListener("pointerdown", onPointer);
    return () => document.removeEventListener("pointerdown", onPointer);
  }, [open]);

  if (people === null || me.kind !== "person") {
    return (
      <p className="user-menu header-action" data-testid="user-menu" data-kind={me.kind}>
        <span className="user-name" data-testid="user-name">
          {me.actor}
        </span>
        {role !== null && (
          <span className="user-role" data-testid="user-role" data-role={me.role}>
            {role}
          </span>
        )}
      </p>
    );
  }

  const signOut = (): void => {
    setBusy(true);
    setError(null);
    // On success the session changes and the app shows the sign-in screen.
    people.signOut().catch((e: unknown) => {
      setBusy(false);
      setError(asBackendError(e));
    });
  };

  return (
    <div className="user-menu header-action" ref={rootRef} data-testid="user-menu" data-kind={me.kind}>
      <button
        ref={buttonRef}
        type="button"
        className="button button-secondary user-menu-button"
        aria-expanded={open}
        aria-controls={menuId}
        onClick={() => setOpen((o) => !o)}
        data-testid="user-menu-button"
      >
        <span className="visually-hidden">{t("user.signedInAs")} </span>
        <span className="user-name" data-testid="user-name">
          {me.actor}
        </span>
        {role !== null && (
          <span className="user-role" data-testid="user-role" data-role={me.role}>
            {role}
          </span>
        )}
      </button>
      <div id={menuId} className="user-menu-panel" hidden={!open} data-testid="user-menu-panel">
        <p className="muted">{t("user.signedInAsRole", { name: me.actor, role: role ?? "" })}</p>
        <ul className="user-menu-items">
          <li>
            <a href={formatRoute({ section: "password" })} className="button button-secondary" onClick={() => setOpen(false)} data-testid="change-password-open">
              {t("user.changePassword")}
            </a>
          </li>
          <li>
            <button type="button" className="button" onClick={signOut} disabled={busy} data-testid="sign-out">
              {t("session.signOut")}
            </button>
          </li>
        </ul>
        {error !== null && <ErrorNotice title={t("user.signOutFailed")} error={error} testId="sign-out-error" />}
      </div>
    </div>
  );
}
