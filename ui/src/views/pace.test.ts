import { describe, expect, it } from "vitest";
import type { LinkState } from "../bindings/LinkState";
import { createI18n } from "../i18n/i18n";
import { pace } from "../test/fixtures";
import { aboutDuration, answerWithinMs, formatRate, paceNote, paceStatus, paceWords, secondsFor } from "./pace";

const en = createI18n(["en-US"]);
const down: LinkState = { state: "down", error: "connection refused", since_ms: 0, retry_in_ms: 5_000 };
const bound: LinkState = { state: "bound", session_id: "s", since_ms: 0 };


describe("durations and rates in words", () => {
  it("rounds a duration as a person would", () => {
    expect(aboutDuration(0, "en-US"), "never less than a second").toBe("1 second");
    expect(aboutDuration(19.2, "en-US")).toBe("20 seconds");
    expect(aboutDuration(474, "en-US")).toBe("8 minutes");
    expect(aboutDuration(2_000, "en-US"), "20,000 messages at 10/s").toBe("33 minutes");
    expect(aboutDuration(3_580, "en-US"), "not “60 minutes”").toBe("1 hour");
    expect(aboutDuration(9_000, "en-US")).toBe("2.5 hours");
    expect(aboutDuration(40 * 3_600, "en-US")).toBe("40 hours");
    expect(aboutDuration(5 * 86_400, "en-US")).toBe("5 days");
    expect(aboutDuration(9_000, "fr-FR")).toBe("2,5\u00a0heures");
    expect(aboutDuration(2_000, "ru-RU")).toBe("33 минуты");
  });

  it("gives a rate whole from 10 up, to a tenth below", () => {
    expect(formatRate(1_000, "en-US")).toBe("1,000");
    expect(formatRate(9.96, "en-US")).toBe("10");
    expect(formatRate(2.46, "en-US")).toBe("2.5");
    expect(formatRate(0.42, "fr-FR")).toBe("0,4");
  });

  it("times a campaign at a rate, and says how fast a window needs its answers", () => {
    expect(secondsFor(20_000, 10)).toBe(2_000);
    expect(secondsFor(20_000, 1_000)).toBe(20);
    expect(secondsFor(7, 2)).toBe(4);
    expect(secondsFor(0, 10)).toBe(0);
    expect(answerWithinMs(10, 10)).toBe(1_000);
    expect(answerWithinMs(10, 1_500)).toBe(6);
  });
});

describe("the pace in plain words", () => {
  it("says what is queued, how fast it goes against whose limit, and how long is left", () => {
    expect(paceWords(pace({ queued: 4_738, sent_last_minute_per_s: 10, eta_seconds: 474 }), en)).toBe(
      "4,738 due now · sending at 10/s (the account’s limit) · about 8 minutes left",
    );
    expect(
      paceWords(pace({ queued: 4_738, sent_last_minute_per_s: 2.5, eta_seconds: 1_896 }), en),
      "below the limit, the limit is not named",
    ).toBe("4,738 due now · sending at 2.5/s · about 32 minutes left");
  });

  it("before anything goes out, times the queue at the limit", () => {
    expect(paceWords(pace({ queued: 20_000, eta_seconds: 2_000 }), en)).toBe(
      "20,000 due now · to go at up to 10/s (the account’s limit) · about 33 minutes left",
    );
  });

  it("names the sandbox’s own pace while it is the connection", () => {
    const sandbox = pace({ connection: "sandbox", tps_limit: 1_000, window: 64, max_rate_per_s: 1_000 });
    expect(paceNote(sandbox, en)).toBe("Nothing waiting to be sent · at most 1,000/s (the sandbox’s own pace)");
    expect(paceWords({ ...sandbox, queued: 20_000, sent_last_minute_per_s: 990, eta_seconds: 21 }, en)).toBe(
      "20,000 due now · sending at 990/s (the sandbox’s own pace) · about 21 seconds left",
    );
  });

  it("shows a dash when nothing waits, with what the limit would allow beneath it", () => {
    const idle = pace();
    expect(paceWords(idle, en)).toBe("—");
    expect(paceWords(idle, en, down), "idle is idle, link or no link").toBe("—");
    expect(paceStatus(idle, down)).toBe("idle");
    expect(paceNote(idle, en)).toBe("Nothing waiting to be sent · at most 10/s (the account’s limit)");
    expect(paceNote(pace({ queued: 1 }), en), "no note while something waits").toBeNull();
  });

  it("says sending is paused while the link is not up, and promises no time", () => {
    const busy = pace({ queued: 4_738, sent_last_minute_per_s: 10, eta_seconds: 474 });
    expect(paceWords(busy, en, down)).toBe("4,738 due now · paused: link down");
    expect(paceWords(busy, en, { state: "bind_refused", status: 14, name: "ESME_RINVPASWD", since_ms: 0 })).toBe(
      "4,738 due now · paused: link down",
    );
    expect(paceWords(busy, en, { state: "connecting", attempt: 3 }), "reconnecting after a loss").toBe(
      "4,738 due now · paused: link down",
    );
    expect(paceWords(busy, en, { state: "connecting", attempt: 1 })).toBe("4,738 due now · paused: connecting");
    expect(paceStatus(busy, down)).toBe("paused");
    expect(paceWords(busy, en, bound)).toBe("4,738 due now · sending at 10/s (the account’s limit) · about 8 minutes left");
    expect([paceStatus(busy, bound), paceStatus(pace({ queued: 3 }), bound)]).toEqual(["sending", "waiting"]);
    expect(paceWords(busy, createI18n(["fr-FR"]), down)).toBe("4\u202f738 à envoyer maintenant · en pause : liaison coupée");
    expect(paceWords(busy, createI18n(["ru-RU"]), down)).toBe("к отправке сейчас: 4\u00a0738 · пауза: связь потеряна");
  });

  it("speaks French and Russian too", () => {
    const busy = pace({ queued: 4_738, sent_last_minute_per_s: 10, eta_seconds: 474 });
    expect(paceNote(pace(), createI18n(["fr-FR"]))).toBe("Rien en attente d’envoi · au plus 10/s (la limite du compte)");
    expect(paceWords(busy, createI18n(["fr-FR"]))).toBe(
      "4\u202f738 à envoyer maintenant · envoi à 10/s (la limite du compte) · encore 8 minutes environ",
    );
    expect(paceWords(busy, createI18n(["ru-RU"]))).toBe(
      "к отправке сейчас: 4\u00a0738 · отправка: 10/с (лимит провайдера) · до конца — примерно 8 минут",
    );
  });
});
