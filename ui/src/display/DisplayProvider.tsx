import { createContext, useCallback, useContext, useEffect, useLayoutEffect, useMemo, useReducer, useRef, type ReactNode } from "react";
import type { Session } from "../backend";
import { useSession } from "../hooks/useSession";
import { I18nProvider } from "../i18n/context";
import { createI18n } from "../i18n/i18n";
import { applyTheme, hasChoice, preferredLanguages, readChoice, writeChoice, type DisplayChoice } from "./display";

export interface Display {
  /** The choice in force for whoever uses the screens now (this browser's last one before sign-in). */
  readonly choice: DisplayChoice;
  /** Applies at once, and is kept for the signed-in account and as this browser's last choice. */
  choose(change: Partial<DisplayChoice>): void;
}

const DisplayContext = createContext<Display | null>(null);

/** The display choice and a way to change it; null outside a DisplayProvider (a lone component's test). */
export function useDisplay(): Display | null {
  return useContext(DisplayContext);
}

/**
 * The language and theme of the screens, kept per person: the signed-in account's choice (in a
 * browser, whoever the session says; in the window, its computer's operator), else this browser's
 * last choice, else the system's. Provides the I18n of that language to everything below, made
 * anew when the choice changes, and puts the language and theme on `<html>`.
 */
export function DisplayProvider({
  session,
  system,
  storage,
  children,
}: {
  session: Session;
  /** The system's preferred languages (`navigator.languages`), the same array from one render to the next. */
  system: readonly string[];
  /** Where choices are kept (`localStorage`); null keeps nothing. */
  storage: Storage | null;
  children: ReactNode;
}) {
  const state = useSession(session);
  const account = state.phase === "signed_in" ? state.me.actor : null;
  // Storage is read again whenever it changes (here, or in another tab of this browser).
  const [version, changed] = useReducer((n: number) => n + 1, 0);
  // A choice made before signing in carries into an account that has none of its own yet.
  const chosenSignedOut = useRef(false);
  const choice = useMemo(() => readChoice(storage, account), [storage, account, version]);

  const i18n = useMemo(() => createI18n(preferredLanguages(choice.language, system)), [choice.language, system]);

  useLayoutEffect(() => {
    if (account === null || !chosenSignedOut.current) return;
    chosenSignedOut.current = false;
    if (hasChoice(storage, account)) return;
    writeChoice(storage, account, readChoice(storage, null));
    changed();
  }, [storage, account]);

  useLayoutEffect(() => {
    const root = document.documentElement;
    root.lang = i18n.locale;
    applyTheme(root, choice.theme);
    document.title = i18n.t("app.name");
  }, [i18n, choice.theme]);

  useEffect(() => {
    window.addEventListener("storage", changed);
    return () => window.removeEventListener("storage", changed);
  }, []);

  const choose = useCallback(
    (change: Partial<DisplayChoice>): void => {
      const next = { ...choice, ...change };
      writeChoice(storage, account, next);
      if (account !== null) writeChoice(storage, null, next);
      else chosenSignedOut.current = true;
      changed();
    },
    [storage, account, choice],
  );

  const display = useMemo(() => ({ choice, choose }), [choice, choose]);
  return (
    <DisplayContext.Provider value={display}>
      <I18nProvider value={i18n}>{children}</I18nProvider>
    </DisplayContext.Provider>
  );
}
