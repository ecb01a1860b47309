import { BackendError, Session, type Connection, type PeopleAccess } from "../backend";
import type { FirstAdmin } from "../bindings/FirstAdmin";
import type { Me } from "../bindings/Me";
import type { PasswordChange } from "../bindings/PasswordChange";
import type { SetupState } from "../bindings/SetupState";
import type { SignIn } from "../bindings/SignIn";
import { FakeBackend } from "./fakeBackend";
import { person } from "./fixtures";

/** The engine's answer to a wrong name or password. */
export const WRONG = () => new BackendError("unauthorized", "wrong name or password");

/**
 * A browser's sign-in against an engine that knows a few accounts (name → password and who they
 * are), keeping its Session in step as HttpBackend does. `gate`, when set, holds every answer
 * until it resolves.
 */
export class FakePeople implements PeopleAccess {
  readonly session: Session;
  readonly accounts = new Map<string, { password: string; me: Me }>([
    ["Olga", { password: "operator password", me: person("operator", "Olga") }],
    ["Alice", { password: "admin password", me: person("admin", "Alice") }],
    ["Victor", { password: "viewer password", me: person("viewer", "Victor") }],
  ]);
  readonly calls: string[] = [];
  current: Me | null = null;
  setupOpen = false;
  setupToken = "setup_good";
  gate: Promise<void> | undefined;
  /** The next sign-in's refusal instead of checking the password (a test's too_many_attempts). */
  refuseNext: BackendError | null = null;

  constructor() {
    this.session = new Session(async () => {
      this.calls.push("me");
      await this.gate;
      if (this.current === null) throw new BackendError("unauthorized", "sign in");
      return this.current;
    });
  }

  async signIn({ name, password }: SignIn): Promise<Me> {
    this.calls.push(`signIn ${name}`);
    await this.gate;
    const refusal = this.refuseNext;
    this.refuseNext = null;
    if (refusal !== null) throw refusal;
    const account = this.accounts.get(name);
    if (account === undefined || account.password !== password) throw WRONG();
    this.current = account.me;
    this.session.signedIn(account.me);
    return account.me;
  }

  async signOut(): Promise<void> {
    this.calls.push("signOut");
    await this.gate;
    this.current = null;
    this.session.signedOut();
  }

  async setupState(): Promise<SetupState> {
    this.calls.push("setupState");
    await this.gate;
    return { open: this.setupOpen };
  }

  async createFirstAdmin({ token, name, password }: FirstAdmin): Promise<Me> {
    this.calls.push(`createFirstAdmin ${name}`);
    await this.gate;
    if (!this.setupOpen || token !== this.setupToken) {
      throw new BackendError("setup_token_invalid", "unknown, used or expired setup link");
    }
    const me = person("admin", name);
    this.accounts.set(name, { password, me });
    this.setupOpen = false;
    this.current = me;
    this.session.signedIn(me);
    return me;
  }

  /** As the engine does: the change ends the person's other sessions; this one goes on. */
  async changePassword({ current, new: next }: PasswordChange): Promise<void> {
    this.calls.push("changePassword");
    await this.gate;
    const me = this.current;
    const account = me === null ? undefined : this.accounts.get(me.actor);
    if (me === null || account === undefined || account.password !== current) {
      throw new BackendError("invalid", "current: the current password is not right", {
        errors: [{ field: "current", code: "wrong_password", params: {}, message: "the current password is not right" }],
      });
    }
    account.password = next;
  }

  /** The engine ends the session (expired, revoked by an admin) and the next request hears 401. */
  endSession(): void {
    this.current = null;
    this.session.refuse(this.session.ticket, new BackendError("unauthorized", "the session ended: sign in again"));
  }
}

/** A browser's connection: the fake engine's operations, and its people's sign-in. */
export function browser(): { connection: Connection; backend: FakeBackend; people: FakePeople } {
  const backend = new FakeBackend();
  backend.listMessages = () => Promise.resolve({ items: [], next_cursor: null, scan_limited: false });
  const people = new FakePeople();
  return { connection: { backend, session: people.session, people }, backend, people };
}

/** The window's connection: its computer's admin, without signing in. */
export function desktop(me: Me): { connection: Connection; backend: FakeBackend } {
  const backend = new FakeBackend();
  backend.listMessages = () => Promise.resolve({ items: [], next_cursor: null, scan_limited: false });
  backend.me = () => Promise.resolve(me);
  return { connection: { backend, session: new Session(() => backend.me()), people: null }, backend };
}
