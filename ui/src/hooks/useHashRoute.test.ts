import { describe, expect, it } from "vitest";
import { formatRoute, HOME, messagesPlaceOf, messagesPlaceRoute, navSectionOf, parseRoute } from "./useHashRoute";

describe("routes", () => {
  it("read a section and an item from the fragment", () => {
    expect(parseRoute("#/messages/12")).toEqual({ section: "messages", id: 12 });
    expect(parseRoute("#/exceptions/5")).toEqual({ section: "exceptions", id: 5 });
    expect(parseRoute("#/exceptions")).toEqual({ section: "exceptions", id: null });
    expect(parseRoute("#/about")).toEqual({ section: "about" });
    expect(parseRoute("#/settings")).toEqual({ section: "settings" });
    expect(parseRoute("#/settings/connect")).toEqual({ section: "settings", connect: true });
    expect(parseRoute("#/settings/other")).toEqual({ section: "settings" });
    expect(parseRoute("#/dashboard")).toEqual({ section: "dashboard" });
    expect(parseRoute("#/audit")).toEqual({ section: "audit" });
    expect(parseRoute("#/keys/3")).toEqual({ section: "keys" });
    expect(parseRoute("#/accounts")).toEqual({ section: "accounts" });
    expect(parseRoute("#/privacy")).toEqual({ section: "privacy" });
    expect(parseRoute("#/alerts")).toEqual({ section: "alerts" });
    expect(parseRoute("#/password")).toEqual({ section: "password" });
    expect(parseRoute("#/inbox")).toEqual({ section: "inbox", thread: null });
    expect(parseRoute("#/inbox/%2B33612345626")).toEqual({ section: "inbox", thread: "+33612345626" });
    expect(parseRoute("#/inbox/INFO%2FSHOP")).toEqual({ section: "inbox", thread: "INFO/SHOP" });
    expect(parseRoute("#/inbox/%E0%A4%A")).toEqual({ section: "inbox", thread: null });
    expect(parseRoute("#/opt-outs")).toEqual({ section: "optouts" });
    expect(parseRoute("#/messages/new")).toEqual({ section: "compose" });
    expect(parseRoute("#/messages/import")).toEqual({ section: "import" });
    expect(parseRoute("#/reports")).toEqual({ section: "reports" });
    expect(parseRoute("#/reports?period=7d&by=connection")).toEqual({ section: "reports", query: "period=7d&by=connection" });
    expect(parseRoute("#/messages?connection=primary&outcome=failed,expired")).toEqual({
      section: "messages",
      id: null,
      query: "connection=primary&outcome=failed,expired",
    });
    expect(parseRoute("#/messages/12?connection=primary"), "a message open over a narrowed list").toEqual({
      section: "messages",
      id: 12,
      query: "connection=primary",
    });
    expect(parseRoute("#/messages/new/copy?to=%2B336&text=a%2Fb"), "the copy link is the compose form's").toEqual({ section: "compose" });
    expect(parseRoute("#/messages?"), "nothing after ? is no query").toEqual({ section: "messages", id: null });
  });

  it("read the Guardrails screen, and the exception queue narrowed to one kind", () => {
    expect(parseRoute("#/guardrails")).toEqual({ section: "guardrails" });
    expect(parseRoute("#/exceptions?kind=unusual_volume")).toEqual({ section: "exceptions", id: null, kind: "unusual_volume" });
    expect(parseRoute("#/exceptions?kind=nonsense"), "a kind this version does not know").toEqual({ section: "exceptions", id: null });
    for (const hash of ["#/guardrails", "#/exceptions?kind=unusual_volume"]) expect(formatRoute(parseRoute(hash))).toBe(hash);
  });

  it("fall back to the messages list for anything else", () => {
    for (const hash of ["", "#", "#/", "#/nowhere", "#/messages/abc", "#/messages/-1", "#/messages/0"]) {
      expect(parseRoute(hash).section).toBe("messages");
    }
    expect(parseRoute("#/messages/abc")).toEqual(HOME);
  });

  it("keep a thread's + and / in the address", () => {
    expect(formatRoute({ section: "inbox", thread: "+33612345626" })).toBe("#/inbox/%2B33612345626");
    expect(parseRoute(formatRoute({ section: "inbox", thread: "a/b c" }))).toEqual({ section: "inbox", thread: "a/b c" });
  });

  it("write back what they read", () => {
    for (const hash of ["#/dashboard", "#/messages", "#/messages/12", "#/exceptions", "#/exceptions/5", "#/audit", "#/keys", "#/settings", "#/settings/connect", "#/accounts", "#/privacy", "#/alerts", "#/password", "#/about", "#/inbox", "#/inbox/%2B33612345626", "#/opt-outs", "#/messages/new", "#/messages/import", "#/reports", "#/reports?period=30d&by=connection,country", "#/messages?sender=key:3&from_ms=1&to_ms=2", "#/messages/12?outcome=no_receipt"]) {
      expect(formatRoute(parseRoute(hash))).toBe(hash);
    }
  });
});

describe("the Messages section's places", () => {
  it("are the list, writing one message and importing a file, all under Messages in the navigation", () => {
    expect(messagesPlaceOf(parseRoute("#/messages"))).toBe("list");
    expect(messagesPlaceOf(parseRoute("#/messages/12")), "a message open is still the list's place").toBe("list");
    expect(messagesPlaceOf(parseRoute("#/messages/new"))).toBe("compose");
    expect(messagesPlaceOf(parseRoute("#/messages/import"))).toBe("import");
    expect(messagesPlaceOf(parseRoute("#/exceptions"))).toBeNull();
    expect(navSectionOf("compose")).toBe("messages");
    expect(navSectionOf("import")).toBe("messages");
    expect(navSectionOf("inbox")).toBe("inbox");
    expect(navSectionOf("password")).toBeNull();
  });

  it("each have an address that reads back as the same place", () => {
    for (const place of ["list", "compose", "import"] as const) {
      expect(messagesPlaceOf(parseRoute(formatRoute(messagesPlaceRoute(place))))).toBe(place);
    }
    expect(formatRoute(messagesPlaceRoute("compose"))).toBe("#/messages/new");
  });
});
