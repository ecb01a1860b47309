import type { Role } from "../../bindings/Role";
import type { Scope } from "../../bindings/Scope";

/** Every role, most powerful first (the engine's `Role::ALL`). */
export const ROLES: readonly Role[] = ["admin", "operator", "viewer"];

/** Every scope a key may get, in the engine's order (`Scope::ALL`). */
export const SCOPES: readonly Scope[] = ["send", "read:own", "read:all", "act", "export", "alerts", "metrics"];

/** What a new key gets unless asked otherwise (`Scope::DEFAULT`): a website that sends and follows its own messages. */
export const DEFAULT_SCOPES: readonly Scope[] = ["send", "read:own"];
