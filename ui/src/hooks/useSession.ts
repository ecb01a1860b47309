import { useSyncExternalStore } from "react";
import type { Session, SessionState } from "../backend";

/** Who the UI works for, re-rendering on every change. */
export function useSession(session: Session): SessionState {
  return useSyncExternalStore(session.subscribe, session.getState);
}
