import { describe, expect, it } from "vitest";
import { createI18n } from "../../i18n/i18n";
import { countChange, formatLatency, formatPercent, messagesHref, shareChange } from "./figures";

const en = createI18n(["en-US"]);
const fr = createI18n(["fr-FR"]);
const ru = createI18n(["ru-RU"]);
const PERIOD = { fromMs: 1_000, toMs: 2_000 };

describe("a report's figures", () => {
  it("show shares as the locale writes a percentage", () => {
    expect(formatPercent(97.14, "en-US")).toBe("97.1%");
    expect(formatPercent(97.14, "fr-FR")).toBe("97,1\u00a0%");
    expect(formatPercent(null, "en-US")).toBe("–");
  });

  it("compare a count with the period before in per cent, and say new when it had none", () => {
    expect(countChange(112, 100, en)).toBe("+12%");
    expect(countChange(50, 200, en)).toBe("-75%");
    expect(countChange(100, 100, en)).toBe("0%");
    expect(countChange(3, 0, en)).toBe("new");
    expect(countChange(0, 0, en)).toBeNull();
    expect(countChange(112, 100, fr)).toBe("+12\u00a0%");
    expect(countChange(3, 0, ru)).toBe("новое");
  });

  it("compare a share with the period before in points", () => {
    expect(shareChange(97.2, 94, en)).toBe("+3.2 pts");
    expect(shareChange(25, 62.5, en)).toBe("-37.5 pts");
    expect(shareChange(94, 94, en)).toBe("0 pts");
    expect(shareChange(97.2, 94, fr)).toBe("+3,2 pts");
    expect(shareChange(97.2, 94, ru)).toBe("+3,2 п. п.");
    expect(shareChange(50, null, en), "none before").toBe("new");
    expect(shareChange(null, 50, en), "none now").toBeNull();
  });

  it("show a latency percentile as the bound it is, in the unit that reads best", () => {
    expect(formatLatency(12_000, en)).toBe("≤ 12 sec");
    expect(formatLatency(90_000, en)).toBe("≤ 1.5 min");
    expect(formatLatency(7_200_000, en)).toBe("≤ 2 hr");
    expect(formatLatency(null, en)).toBe("–");
  });
});

describe("a figure's link", () => {
  it("opens the message list with the group's values, the period and the outcomes counted", () => {
    expect(messagesHref(["connection"], ["backup"], PERIOD, "failed,expired")).toBe(
      "#/messages?connection=backup&outcome=failed,expired&from_ms=1000&to_ms=2000",
    );
    expect(messagesHref(["connection", "country"], ["primary", ""], PERIOD)).toBe(
      "#/messages?connection=primary&country=&from_ms=1000&to_ms=2000",
    );
    expect(messagesHref([], [], PERIOD, "delivered"), "the totals").toBe("#/messages?outcome=delivered&from_ms=1000&to_ms=2000");
    expect(messagesHref(["sender"], ["key:3"], PERIOD)).toBe("#/messages?sender=key:3&from_ms=1000&to_ms=2000");
  });

  it("narrows a group of outcomes to the share's, and opens nothing when they share none", () => {
    expect(messagesHref(["outcome"], ["failed"], PERIOD, "failed,expired")).toBe("#/messages?outcome=failed&from_ms=1000&to_ms=2000");
    expect(messagesHref(["outcome"], ["pending"], PERIOD, "delivered")).toBeNull();
  });

  it("opens nothing for a command status the list cannot select", () => {
    expect(messagesHref(["command_status"], ["11"], PERIOD)).toBe("#/messages?command_status=11&from_ms=1000&to_ms=2000");
    expect(messagesHref(["command_status"], [""], PERIOD)).toBeNull();
  });
});
