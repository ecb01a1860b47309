// @vitest-environment happy-dom
import { afterEach, describe, expect, it } from "vitest";
import { FOLLOW_SYSTEM, hasChoice, preferredLanguages, readChoice, storageKey, writeChoice } from "./display";

afterEach(() => localStorage.clear());

describe("keeping a display choice", () => {
  it("keeps one per account, and this browser's last one apart", () => {
    expect(storageKey("Olga")).toBe("smsdesk.display.Olga");
    expect(storageKey(null)).toBe("smsdesk.display");
    writeChoice(localStorage, "Olga", { language: "ru", theme: "light" });
    expect(readChoice(localStorage, "Olga")).toEqual({ language: "ru", theme: "light" });
    expect(readChoice(localStorage, "Alice")).toEqual(FOLLOW_SYSTEM);
    expect(readChoice(localStorage, null)).toEqual(FOLLOW_SYSTEM);
    expect([hasChoice(localStorage, "Olga"), hasChoice(localStorage, "Alice")]).toEqual([true, false]);
  });

  it("follows the system for what is missing, unknown or unreadable", () => {
    localStorage.setItem("smsdesk.display.a", JSON.stringify({ language: "de", theme: "dark" }));
    localStorage.setItem("smsdesk.display.b", "{not json");
    localStorage.setItem("smsdesk.display.c", JSON.stringify({ language: "fr", theme: "sepia" }));
    localStorage.setItem("smsdesk.display.d", "null");
    expect(readChoice(localStorage, "a")).toEqual({ language: "system", theme: "dark" });
    expect(readChoice(localStorage, "b")).toEqual(FOLLOW_SYSTEM);
    expect(readChoice(localStorage, "c")).toEqual({ language: "fr", theme: "system" });
    expect(readChoice(localStorage, "d")).toEqual(FOLLOW_SYSTEM);
    expect(readChoice(null, "a"), "no storage: the system's").toEqual(FOLLOW_SYSTEM);
  });

  it("survives a storage that refuses (private mode): nothing kept, the system's choice", () => {
    const refusing = {
      getItem: () => {
        throw new Error("SecurityError");
      },
      setItem: () => {
        throw new Error("QuotaExceededError");
      },
      removeItem: () => {
        throw new Error("SecurityError");
      },
    } as unknown as Storage;
    expect(() => writeChoice(refusing, "Olga", { language: "fr", theme: "dark" })).not.toThrow();
    expect(readChoice(refusing, "Olga")).toEqual(FOLLOW_SYSTEM);
    expect(hasChoice(refusing, "Olga")).toBe(false);
  });
});

describe("the languages a choice gives", () => {
  it("are the system's when following it", () => {
    expect(preferredLanguages("system", ["de-DE", "ru-RU"])).toEqual(["de-DE", "ru-RU"]);
  });

  it("are the chosen language, with the system's region when it has that language", () => {
    expect(preferredLanguages("fr", ["en-US", "fr-CA"])).toEqual(["fr-CA"]);
    expect(preferredLanguages("ru", ["en-US"])).toEqual(["ru"]);
  });
});
