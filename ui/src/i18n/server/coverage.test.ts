import { describe, expect, it } from "vitest";
import {
  AUDIT_ACTIONS,
  ERROR_CODES,
  FIELD_CODES,
  SMPP_STATUS_NAMES,
  SUMMARY_CODES,
  WEAK_PASSWORD_REASONS,
} from "../../bindings/codes";
import { EXPLAINED_CODES } from "../../components/ErrorNotice";
import { dictionaries, LOCALES } from "../i18n";

/**
 * Every code the engine speaks to people with has words in every language: a new code without a
 * translation fails here (the lists are generated from the engine's own enums and tables).
 */
const NEEDED: Record<string, readonly string[]> = {
  "field errors": FIELD_CODES.map((c) => `fieldError.${c}`),
  "weak password reasons": WEAK_PASSWORD_REASONS.map((r) => `fieldError.weak_password.${r}`),
  "exception summaries": SUMMARY_CODES.map((c) => `exceptionSummary.${c}`),
  "audit actions": AUDIT_ACTIONS.map((a) => `audit.action.${a}`),
  "SMPP statuses": SMPP_STATUS_NAMES.map((n) => `smppStatus.${n}`),
};

describe("every server code has words", () => {
  for (const locale of LOCALES) {
    for (const [what, keys] of Object.entries(NEEDED)) {
      it(`${what} in ${locale}`, () => {
        const dictionary: Record<string, string> = dictionaries[locale];
        expect(keys.filter((k) => !Object.hasOwn(dictionary, k))).toEqual([]);
      });
    }
  }

  it("every error code has its own explanation, not the generic one", () => {
    const explained: Record<string, string> = EXPLAINED_CODES;
    expect(ERROR_CODES.filter((c) => explained[c] === undefined)).toEqual([]);
  });

  it("the lists are not empty (the generated file was read)", () => {
    for (const list of [ERROR_CODES, FIELD_CODES, SUMMARY_CODES, AUDIT_ACTIONS, SMPP_STATUS_NAMES]) {
      expect(list.length).toBeGreaterThan(5);
    }
  });
});
