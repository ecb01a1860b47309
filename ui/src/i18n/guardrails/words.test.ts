import { describe, expect, it } from "vitest";
import type { FieldError } from "../../bindings/FieldError";
import { auditDetailWords, reasonWords } from "../reasons/words";
import { createI18n } from "../i18n";
import { fieldProblem } from "../server/words";

const en = createI18n(["en"]).t;
const fr = createI18n(["fr"]).t;
const ru = createI18n(["ru"]).t;

const error = (code: FieldError["code"], params: Record<string, string>): FieldError => ({ field: "destination", code, params, message: "the engine's English" });

describe("the guardrails' refusals in words", () => {
  it("a country refused says whose list refused it and for which kind", () => {
    expect(fieldProblem(error("country_not_allowed", { country: "GB", kind: "otp", whose: "office" }), en)).toBe(
      "One-time codes are not sent to GB: the office sends them only to the countries of its guardrails (guardrails.otp_countries).",
    );
    expect(fieldProblem(error("country_not_allowed", { country: "US", kind: "transactional", whose: "key" }), en)).toBe(
      "This API key may not send to US.",
    );
    expect(fieldProblem(error("country_not_allowed", { country: "", kind: "bulk", whose: "office" }), en)).toBe(
      "Messages are not sent to numbers whose country is not known: the office sends only to the countries of its guardrails (guardrails.countries).",
    );
    expect(fieldProblem(error("country_not_allowed", { country: "GB", kind: "otp", whose: "office" }), fr)).toContain(
      "Les codes à usage unique ne sont pas envoyés vers GB",
    );
    expect(fieldProblem(error("country_not_allowed", { country: "GB", kind: "otp", whose: "office" }), ru)).toContain(
      "Одноразовые коды не отправляются в GB",
    );
  });

  it("a velocity limit says which limit and when to try again", () => {
    expect(fieldProblem(error("velocity_limit", { limit: "number", max: "3", minutes: "10", retry_after: "42" }), en)).toBe(
      "This number was sent 3 one-time codes within 10 min already: try again in 42 s.",
    );
    expect(fieldProblem(error("velocity_limit", { limit: "prefix", max: "30", minutes: "60", retry_after: "1500" }), en)).toBe(
      "Numbers starting like this one were sent 30 one-time codes in the last hour already: try again in 25 min.",
    );
  });

  it("a spend limit says whose, over which period, what was spent and what this would cost", () => {
    const e = error("spend_limit", { limit: "day", whose: "office", max: "100.00", spent: "99.95", cost: "0.10", currency: "EUR" });
    expect(fieldProblem(e, en)).toBe(
      "This would go past the office’s spend limit per day (100.00 EUR): 99.95 EUR spent today, and this would cost 0.10 EUR more.",
    );
    expect(fieldProblem({ ...e, params: { ...e.params, whose: "key", limit: "month" } }, fr)).toContain("plafond de dépense par mois de cette clé d’API");
  });

  it("a code held for a surge says how many codes went to its country against the usual", () => {
    expect(reasonWords({ code: "unusual_volume", params: { country: "NG", count: "42", average: "1.5" } }, en)).toBe(
      "Held: 42 one-time codes to NG in the last hour, where 1.5 an hour is usual. Release it if the surge is genuine, or cancel it.",
    );
  });

  it("the audit log words a refusal and a hold", () => {
    expect(auditDetailWords({ action: "guardrail.refused", details: { reason: "country_not_allowed", countries: ["GB", "GB"], refused: 2 } }, en)).toBe(
      "Country not allowed: GB",
    );
    expect(auditDetailWords({ action: "guardrail.refused", details: { reason: "spend_limit", limit: "day" } }, en)).toBe("Spend limit");
    expect(auditDetailWords({ action: "message.hold_unusual_volume", details: { country: "NG", count: 42, average: "1.5" } }, en)).toBe(
      "42 codes to NG in the hour, 1.5 an hour usual",
    );
  });
});
