import { describe, expect, it } from "vitest";
import { formatRoute, HOME, parseRoute } from "./useHashRoute";

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
    expect(parseRoute("#/password")).toEqual({ section: "password" });
    expect(parseRoute("#/inbox")).toEqual({ section: "inbox", thread: null });
    expect(parseRoute("#/inbox/%2B33612345626")).toEqual({ section: "inbox", thread: "+33612345626" });
    expect(parseRoute("#/inbox/INFO%2FSHOP")).toEqual({ section: "inbox", thread: "INFO/SHOP" });
    expect(parseRoute("#/inbox/%E0%A4%A")).toEqual({ section: "inbox", thread: null });
    expect(parseRoute("#/opt-outs")).toEqual({ section: "optouts" });
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
    for (const hash of ["#/dashboard", "#/messages", "#/messages/12", "#/exceptions", "#/exceptions/5", "#/audit", "#/keys", "#/settings", "#/settings/connect", "#/accounts", "#/password", "#/about", "#/inbox", "#/inbox/%2B33612345626", "#/opt-outs"]) {
      expect(formatRoute(parseRoute(hash))).toBe(hash);
    }
  });
});
