import { useSyncExternalStore } from "react";
import type { ApiKeySession, SessionState } from "../backend";

/** The window needs no key: it is always "signed in" as the operator. */
const OPERATOR: SessionState = { key: null, refused: null };
const subscribeToNothing = (): (() => void) => () => {};
const operatorState = (): SessionState => OPERATOR;

/** The browser's sign-in state, re-rendering on every change; for the window, a constant. */
export function useSession(session: ApiKeySession | null): SessionState {
  return useSyncExternalStore(session?.subscribe ?? subscribeToNothing, session?.getState ?? operatorState);
}
