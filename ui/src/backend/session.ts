import type { FirstAdmin } from "../bindings/FirstAdmin";
import type { Me } from "../bindings/Me";
import type { PasswordChange } from "../bindings/PasswordChange";
import type { SetupState } from "../bindings/SetupState";
import type { SignIn } from "../bindings/SignIn";
import { asBackendError, ERROR_CODES, type BackendError } from "./backend";

/** Why the browser is signed out, when it did not sign out itself. */
export type SignedOutWhy =
  /** The engine stopped accepting the session (it expired, was ended by an admin, or the account was disabled). */
  | { readonly kind: "ended"; readonly error: BackendError }
  /** The person changed their password, which ends their sessions: they sign in with the new one. */
  | { readonly kind: "password_changed" };

export type SessionState =
  /** Asking the engine who this is. */
  | { readonly phase: "checking" }
  /** The engine could not say (not reachable, or an answer this UI does not understand). */
  | { readonly phase: "unavailable"; readonly error: BackendError }
  | { readonly phase: "signed_out"; readonly why: SignedOutWhy | null }
  /**
   * `ticket` changes with each sign-in (never with a mere refresh of `me`): what a request
   * made under one sign-in carries, so that its late 401 cannot end the next one.
   */
  | { readonly phase: "signed_in"; readonly me: Me; readonly ticket: number };

/**
 * Who the UI works for, shared by every request and the event stream, notifying its subscribers
 * on every change (the app then shows the sign-in screen, or the sections for that person).
 * `whoAmI` asks the engine (`GET /api/v1/me`, or the window's `me` command): an `unauthorized`
 * answer means signed out, anything else that fails leaves the UI unable to say.
 */
export class Session {
  readonly #whoAmI: () => Promise<Me>;
  readonly #listeners = new Set<() => void>();
  #state: SessionState = { phase: "checking" };
  #tickets = 0;
  #checking: Promise<void> | null = null;

  constructor(whoAmI: () => Promise<Me>) {
    this.#whoAmI = whoAmI;
  }

  /** The same object until the next change (what React's useSyncExternalStore needs). */
  readonly getState = (): SessionState => this.#state;

  readonly subscribe = (listener: () => void): (() => void) => {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  };

  /** The current sign-in's ticket; null when signed out. */
  get ticket(): number | null {
    return this.#state.phase === "signed_in" ? this.#state.ticket : null;
  }

  /** What state-changing requests of this sign-in carry in `X-CSRF-Token` (none in the window). */
  get csrfToken(): string | null {
    return this.#state.phase === "signed_in" ? this.#state.me.csrf_token : null;
  }

  /**
   * Asks the engine who this is and follows its answer. Calls made while one is under way share
   * it. The same person keeps their ticket (what they see stays); anyone else gets a new one.
   */
  check(): Promise<void> {
    this.#checking ??= this.#whoAmI()
      .then(
        (me) => this.signedIn(me),
        (error: unknown) => {
          const e = asBackendError(error);
          if (e.code === ERROR_CODES.unauthorized) {
            // A reason already given (the session ended) is kept for the sign-in screen to say.
            this.#set({ phase: "signed_out", why: this.#state.phase === "signed_out" ? this.#state.why : null });
          } else {
            this.#set({ phase: "unavailable", error: e });
          }
        },
      )
      .finally(() => {
        this.#checking = null;
      });
    return this.#checking;
  }

  /** The engine says this is `me`: a new ticket unless it is who was already signed in. */
  signedIn(me: Me): void {
    const current = this.#state;
    if (current.phase === "signed_in" && current.me.actor === me.actor && current.me.kind === me.kind) {
      this.#set({ phase: "signed_in", me, ticket: current.ticket });
      return;
    }
    this.#tickets += 1;
    this.#set({ phase: "signed_in", me, ticket: this.#tickets });
  }

  signedOut(why: SignedOutWhy | null = null): void {
    this.#set({ phase: "signed_out", why });
  }

  /**
   * The engine answered 401 to a request made under `ticket`. A request from a sign-in already
   * replaced says nothing about the current one, so only the current sign-in ends.
   */
  refuse(ticket: number | null, error: BackendError): void {
    if (ticket === null || this.ticket !== ticket) return;
    this.#set({ phase: "signed_out", why: { kind: "ended", error } });
  }

  #set(state: SessionState): void {
    this.#state = state;
    for (const listener of [...this.#listeners]) listener();
  }
}

/**
 * What a browser does that the window never needs: signing in and out with an account, creating
 * the first admin with the setup link, changing one's own password. Each keeps the `Session` in
 * step with the engine.
 */
export interface PeopleAccess {
  readonly session: Session;
  /** Rejects with `unauthorized` (wrong name or password) or `too_many_attempts` (with the wait). */
  signIn(credentials: SignIn): Promise<Me>;
  signOut(): Promise<void>;
  /** Whether the first admin may still be created (public: asked before anyone is signed in). */
  setupState(): Promise<SetupState>;
  /** Creates the first admin with the setup link's token, and signs them in. */
  createFirstAdmin(first: FirstAdmin): Promise<Me>;
  /**
   * Changes the signed-in person's password. A wrong current password rejects with
   * `unauthorized` and leaves the session alone. The engine ends the person's sessions with the
   * change; if it ended this one too, the session is signed out saying why.
   */
  changePassword(change: PasswordChange): Promise<void>;
}
