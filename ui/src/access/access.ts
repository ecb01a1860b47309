import type { Me } from "../bindings/Me";
import type { Scope } from "../bindings/Scope";

/**
 * What the signed-in caller may do, read from `me` the way the engine decides it (engine
 * `access.rs`, `Caller::may`): screens show only the controls that would be let through. The
 * engine checks every request anyway; this only spares people buttons that would be refused.
 */
export interface Permissions {
  /** Compose, CSV import. */
  readonly send: boolean;
  /** Retry and cancel a message; mark replies read; change the opt-out list. */
  readonly act: boolean;
  /** Everything beyond messages: the inbox and the opt-out list (and exceptions, the dashboard, the audit log). */
  readonly readAll: boolean;
  /** Decide an exception. */
  readonly resolve: boolean;
  /** Export CSV. */
  readonly export: boolean;
  /** Settings, API keys, accounts and sessions; overriding a kind's retry limits. */
  readonly admin: boolean;
}

export function permissionsOf(me: Me): Permissions {
  const has = (scope: Scope): boolean => me.scopes.includes(scope);
  const reads = has("read:all") || has("read:own");
  return {
    send: has("send"),
    act: has("act") && reads,
    readAll: has("read:all"),
    resolve: has("act") && has("read:all"),
    export: has("export") && reads,
    admin: me.admin,
  };
}

/** The person at this computer, in the window: the admin, without a password. */
export const LOCAL_ADMIN: Me = {
  actor: "local user (desktop)",
  kind: "local",
  role: "admin",
  scopes: ["send", "read:all", "act", "export"],
  admin: true,
  only_own: false,
  csrf_token: null,
};

/** Nobody: what a screen rendered outside a signed-in app may do (nothing). */
export const NOBODY: Me = {
  actor: "",
  kind: "person",
  role: null,
  scopes: [],
  admin: false,
  only_own: false,
  csrf_token: null,
};
