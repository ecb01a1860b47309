import { describe, expect, it } from "vitest";
import { createI18n, dictionaries, LOCALES, pickLocale, placeholdersOf, type MessageKey } from "./i18n";

const referenceKeys = Object.keys(dictionaries.en).sort() as MessageKey[];

describe("dictionaries", () => {
  it("offer English, French and Russian", () => {
    expect(LOCALES.sort()).toEqual(["en", "fr", "ru"]);
  });

  for (const locale of LOCALES) {
    describe(locale, () => {
      const dictionary = dictionaries[locale];

      it("has exactly the English keys", () => {
        expect(Object.keys(dictionary).sort(), `${locale} must define every key and no other`).toEqual(referenceKeys);
      });

      it("has a non-empty message for every key", () => {
        const empty = referenceKeys.filter((key) => dictionary[key].trim() === "");
        expect(empty, `${locale} messages must not be empty`).toEqual([]);
      });

      it("uses the same placeholders as English for every key", () => {
        const mismatched = referenceKeys.filter(
          (key) => placeholdersOf(dictionary[key]).join(",") !== placeholdersOf(dictionaries.en[key]).join(","),
        );
        expect(mismatched, `${locale} messages must keep English's {placeholders}`).toEqual([]);
      });
    });
  }
});

describe("placeholdersOf", () => {
  it("finds every name between braces", () => {
    expect(placeholdersOf("Open {url} for {name}")).toEqual(["name", "url"]);
    expect(placeholdersOf("no placeholders")).toEqual([]);
  });
});

describe("pickLocale", () => {
  it("takes the first preferred language that has a dictionary", () => {
    expect(pickLocale(["de-DE", "fr-CA", "ru"])).toEqual({ locale: "fr", formatTag: "fr-CA" });
    expect(pickLocale(["ru-RU"])).toEqual({ locale: "ru", formatTag: "ru-RU" });
    expect(pickLocale(["FR"])).toEqual({ locale: "fr", formatTag: "fr" });
  });

  it("falls back to English", () => {
    expect(pickLocale(["de-DE", "ja"]).locale).toBe("en");
    expect(pickLocale([]).locale).toBe("en");
    expect(pickLocale([""]).locale).toBe("en");
  });
});

describe("t", () => {
  it("translates and fills placeholders", () => {
    const { t } = createI18n(["fr-FR"]);
    expect(t("about.title")).toBe(dictionaries.fr["about.title"]);
    expect(t("about.httpUrl.open", { url: "http://127.0.0.1:8080" })).toBe(
      "Ouvrir http://127.0.0.1:8080 dans un navigateur",
    );
  });
});

describe("formatting follows the locale", () => {
  it("formats numbers", () => {
    expect(createI18n(["en-US"]).formatNumber(12345)).toBe("12,345");
    expect(createI18n(["fr-FR"]).formatNumber(12345)).toBe("12\u202f345");
    expect(createI18n(["ru-RU"]).formatNumber(12345)).toBe("12\u00a0345");
  });

  it("shows every moment one way: the locale's date and time, with the time zone", () => {
    const at = Date.UTC(2026, 11, 2, 13, 2, 5, 7);
    const paris = { timeZone: "Europe/Paris" };
    expect(createI18n(["en-GB"], paris).formatDateTime(at)).toBe("2 Dec 2026, 14:02 GMT+1");
    expect(createI18n(["en-US"], paris).formatDateTime(at)).toBe("Dec 2, 2026, 2:02 PM GMT+1");
    expect(createI18n(["fr-FR"], paris).formatDateTime(at)).toBe("2 déc. 2026, 14:02 UTC+1");
    expect(createI18n(["ru-RU"], paris).formatDateTime(at)).toBe("2 дек. 2026 г., 14:02 GMT+1");
    expect(createI18n(["en-GB"], { timeZone: "Asia/Kolkata" }).formatDateTime(at)).toBe("2 Dec 2026, 18:32 GMT+5:30");
    expect(createI18n(["en-GB"], { timeZone: "UTC" }).formatDateTime(at), "UTC is named too").toMatch(/13:02 (GMT|UTC)/);
  });

  it("has no second format: the old compact and time-only names give the same text", () => {
    const at = Date.UTC(2026, 11, 2, 13, 2, 5, 7);
    const fr = createI18n(["fr-FR"], { timeZone: "Europe/Paris" });
    expect(fr.formatDateTimeShort(at)).toBe(fr.formatDateTime(at));
    expect(fr.formatTime(at)).toBe(fr.formatDateTime(at));
  });

  it("keeps chart axis labels short and days in UTC", () => {
    const at = Date.UTC(2026, 11, 2, 23, 30, 0);
    const fr = createI18n(["fr-FR"], { timeZone: "Europe/Paris" });
    expect(fr.formatAxisTime(at), "the local time of day").toBe("00:30");
    expect(fr.formatUtcDay(at), "the UTC day, whatever the zone").toBe("2 déc. 2026");
    expect(fr.formatAxisUtcDay(at)).toBe("2 déc.");
    expect(createI18n(["en-US"], { timeZone: "Europe/Paris" }).formatAxisTime(at)).toBe("12:30 AM");
  });
});

describe("plural forms follow the language", () => {
  it("pick one of the forms each catalogue writes", () => {
    const en = createI18n(["en-US"]);
    expect([1, 2, 5, 1000000].map(en.plural)).toEqual(["one", "other", "other", "other"]);
    const fr = createI18n(["fr-FR"]);
    expect([0, 1, 2, 1000000].map(fr.plural), "French says 0 message, 1 million de messages").toEqual(["one", "one", "other", "many"]);
    const ru = createI18n(["ru-RU"]);
    expect([1, 2, 5, 21, 22, 11, 10000].map(ru.plural)).toEqual(["one", "few", "many", "one", "few", "many", "many"]);
  });

  it("give a message in the form its count needs, with the count in the locale's digits", () => {
    const say = (tag: string, count: number): string => {
      const { t, plural } = createI18n([tag]);
      return t(`messages.total.${plural(count)}`, { count });
    };
    expect(say("en-US", 1)).toBe("1 message");
    expect(say("en-US", 1234)).toBe("1,234 messages");
    expect(say("fr-FR", 1234)).toBe("1\u202f234 messages");
    expect(say("fr-FR", 1000000)).toBe("1\u202f000\u202f000 de messages");
    expect(say("ru-RU", 1)).toBe("1 сообщение");
    expect(say("ru-RU", 3)).toBe("3 сообщения");
    expect(say("ru-RU", 1234)).toBe("1\u00a0234 сообщения");
    expect(say("ru-RU", 25)).toBe("25 сообщений");
  });
});

describe("ages and precise times follow the locale", () => {
  const now = Date.UTC(2026, 10, 29, 12, 0, 0);

  it("says how long ago in the largest whole unit", () => {
    const en = createI18n(["en-US"]);
    expect(en.formatAge(now - 20_000, now)).toBe("now");
    expect(en.formatAge(now - 5 * 60_000, now)).toBe("5 minutes ago");
    expect(en.formatAge(now - 3 * 3_600_000 - 59_000, now)).toBe("3 hours ago");
    expect(en.formatAge(now - 2 * 86_400_000, now)).toBe("2 days ago");
    expect(en.formatAge(now + 60_000, now), "a clock ahead of ours is not the future").toBe("now");
    expect(createI18n(["fr-FR"]).formatAge(now - 3 * 3_600_000, now)).toBe("il y a 3 heures");
    expect(createI18n(["ru-RU"]).formatAge(now - 3 * 3_600_000, now)).toBe("3 часа назад");
  });

  it("shows evidence times to the millisecond, in the same format with the zone", () => {
    const paris = { timeZone: "Europe/Paris" };
    expect(createI18n(["en-GB"], paris).formatDateTimePrecise(now + 5_007)).toBe("29 Nov 2026, 13:00:05.007 GMT+1");
    expect(createI18n(["fr-FR"], paris).formatDateTimePrecise(now + 5_007)).toBe("29 nov. 2026, 13:00:05,007 UTC+1");
  });
});
