import { createContext, useContext, useMemo, type ReactNode } from "react";
import type { Me } from "../bindings/Me";
import { NOBODY, permissionsOf, type Permissions } from "./access";

export interface Access {
  readonly me: Me;
  readonly may: Permissions;
}

const AccessContext = createContext<Access>({ me: NOBODY, may: permissionsOf(NOBODY) });

/** Who is signed in, for every screen below it. */
export function AccessProvider({ me, children }: { me: Me; children: ReactNode }) {
  const value = useMemo(() => ({ me, may: permissionsOf(me) }), [me]);
  return <AccessContext.Provider value={value}>{children}</AccessContext.Provider>;
}

/** Who is signed in and what they may do; outside an AccessProvider, nobody who may do nothing. */
export function useAccess(): Access {
  return useContext(AccessContext);
}
