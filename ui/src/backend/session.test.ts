import { describe, expect, it } from "vitest";
import type { Me } from "../bindings/Me";
import { BackendError } from "./backend";
import { Session } from "./session";

function person(actor: string, role: Me["role"] = "operator"): Me {
  return {
    actor,
    kind: "person",
    role,
    scopes: ["send", "read:all", "act", "export"],
    admin: role === "admin",
    only_own: false,
    csrf_token: `csrf-of-${actor}`,
  };
}

const ended = () => new BackendError("unauthorized", "the session ended: sign in again");

describe("Session", () => {
  it("starts by asking who this is, and follows the answer: signed in, with the session's CSRF token", async () => {
    const session = new Session(() => Promise.resolve(person("Marie")));
    expect(session.getState()).toEqual({ phase: "checking" });
    expect(session.ticket).toBeNull();
    await session.check();
    const state = session.getState();
    expect(state.phase).toBe("signed_in");
    expect(session.csrfToken).toBe("csrf-of-Marie");
    expect(session.ticket).not.toBeNull();
  });

  it("is signed out when the engine answers unauthorized, and unavailable when it cannot answer", async () => {
    const out = new Session(() => Promise.reject(ended()));
    await out.check();
    expect(out.getState()).toEqual({ phase: "signed_out", why: null });
    expect(out.csrfToken, "no token without a session").toBeNull();

    const down = new Session(() => Promise.reject(new BackendError("unreachable", "connection refused")));
    await down.check();
    expect(down.getState()).toMatchObject({ phase: "unavailable", error: { code: "unreachable" } });
  });

  it("asks once while a check is under way", async () => {
    let asked = 0;
    const session = new Session(() => {
      asked += 1;
      return Promise.resolve(person("Marie"));
    });
    await Promise.all([session.check(), session.check()]);
    expect(asked).toBe(1);
  });

  it("a 401 ends the sign-in it was made under, saying why, and notifies", async () => {
    const session = new Session(() => Promise.resolve(person("Marie")));
    await session.check();
    const ticket = session.ticket;
    let notified = 0;
    session.subscribe(() => (notified += 1));
    session.refuse(ticket, ended());
    expect(session.getState()).toMatchObject({ phase: "signed_out", why: { kind: "ended", error: { code: "unauthorized" } } });
    expect(notified).toBe(1);
  });

  it("a late 401 from an earlier sign-in leaves the current one alone", async () => {
    const session = new Session(() => Promise.resolve(person("Marie")));
    await session.check();
    const marie = session.ticket;
    session.signedOut();
    session.signedIn(person("Paul"));
    expect(session.ticket).not.toBe(marie);
    session.refuse(marie, ended());
    expect(session.getState()).toMatchObject({ phase: "signed_in", me: { actor: "Paul" } });
  });

  it("keeps the ticket when the same person is asked about again (their role may change), and gives another person a new one", async () => {
    const session = new Session(() => Promise.resolve(person("Marie")));
    await session.check();
    const first = session.ticket;
    session.signedIn(person("Marie", "viewer"));
    expect(session.ticket, "the same person: what they see stays").toBe(first);
    expect(session.getState()).toMatchObject({ me: { role: "viewer" } });
    session.signedIn(person("Paul"));
    expect(session.ticket, "someone else: a clean slate").not.toBe(first);
  });

  it("keeps why the session ended when a later check finds nobody signed in", async () => {
    const session = new Session(() => Promise.reject(ended()));
    session.signedIn(person("Marie"));
    session.refuse(session.ticket, ended());
    await session.check();
    expect(session.getState()).toMatchObject({ phase: "signed_out", why: { kind: "ended" } });
  });
});
