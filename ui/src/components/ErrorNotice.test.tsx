// @vitest-environment happy-dom
import { afterEach, describe, expect, it } from "vitest";
import { BackendError } from "../backend";
import type { ErrorCode } from "../bindings/ErrorCode";
import { dictionaries } from "../i18n/i18n";
import { render, type Rendered } from "../test/dom";
import { ErrorNotice } from "./ErrorNotice";

let view: Rendered | undefined;
afterEach(async () => {
  await view?.unmount();
  view = undefined;
});

/** The codes the accounts, sign-in and server-hardening work added. */
const NEW_CODES: ErrorCode[] = [
  "csrf_token_missing",
  "setup_token_invalid",
  "method_not_allowed",
  "request_timeout",
  "name_taken",
  "last_admin",
  "attempts_exhausted",
  "uri_too_long",
  "host_not_allowed",
  "destination_not_allowed",
  "rate_limited",
  "too_many_attempts",
  "storage_full",
  "destination_opted_out",
  "not_sandbox",
];

async function explanation(code: ErrorCode, language: string, options?: { retryAfterSeconds: number }): Promise<HTMLElement> {
  view = await render(<ErrorNotice title="t" error={new BackendError(code, "the engine's words", options)} />, [language]);
  const notice = view.container.querySelector<HTMLElement>('[role="alert"]') as HTMLElement;
  return notice;
}

describe("ErrorNotice explains each new code in its own words", () => {
  for (const [language, locale] of [
    ["en-US", "en"],
    ["fr-FR", "fr"],
    ["ru-RU", "ru"],
  ] as const) {
    it(`in ${locale}`, async () => {
      const generic = dictionaries[locale]["error.generic"];
      const seen = new Set<string>();
      for (const code of NEW_CODES) {
        const notice = await explanation(code, language);
        const said = notice.querySelector("p")?.textContent ?? "";
        expect(said, `${code} must not get the generic sentence`).not.toBe(generic);
        expect(notice.textContent, "the engine's code and words are shown too").toContain(code);
        seen.add(said);
        await view?.unmount();
        view = undefined;
      }
      expect(seen.size, "each code has a sentence of its own").toBe(NEW_CODES.length);
    });
  }

  it("says when to try again, when the engine said so (Retry-After)", async () => {
    const notice = await explanation("rate_limited", "en-US", { retryAfterSeconds: 42 });
    expect(notice.querySelector('[data-testid="error-retry-after"]')?.textContent).toBe("Try again in 42 s.");
  });
});

describe("ErrorNotice says it once, in words", () => {
  it("leads with words, folds the code and the engine's English under Technical details, and names a setting by its label", async () => {
    const error = new BackendError("invalid", "invalid settings: intake.default_region: \"France\" is not a country code", {
      errors: [
        {
          field: "intake.default_region",
          code: "unknown_country",
          params: {},
          message: "\"France\" is not a country code",
        },
      ],
    });
    view = await render(<ErrorNotice title="The settings were not saved" error={error} testId="e" />, ["fr-FR"]);
    const notice = view.container.querySelector<HTMLElement>('[data-testid="e"]') as HTMLElement;
    const technical = notice.querySelector<HTMLDetailsElement>('[data-testid="error-technical"]');
    expect(technical?.open, "folded").toBe(false);
    expect(technical?.querySelector("summary")?.textContent).toBe("Détails techniques");
    expect(technical?.querySelector('[data-testid="error-code"]')?.textContent).toBe("invalid");
    expect(technical?.querySelector('[data-testid="error-message"]')?.textContent).toContain("is not a country code");
    // Outside the fold: the headline, one sentence, and the field in words; no raw key, no English.
    const open = [...notice.children].filter((c) => c !== technical).map((c) => c.textContent ?? "").join(" ");
    expect(open).not.toContain("intake.default_region");
    expect(open).not.toContain("not a country code");
    expect(notice.querySelector('[data-testid="field-errors"]')?.textContent).toBe(
      "Pays des numéros nationaux : Ce n’est pas un code de pays : indiquez les deux lettres du pays, par exemple FR, BE ou RU.",
    );
    expect(notice.querySelectorAll("p")).toHaveLength(1);
  });
});
