// @vitest-environment happy-dom
import { afterEach, describe, expect, it } from "vitest";
import type { PreviewRow } from "../bindings/PreviewRow";
import type { SubmitBatch } from "../bindings/SubmitBatch";
import type { SubmitMessage } from "../bindings/SubmitMessage";
import type { SubmittedMessage } from "../bindings/SubmittedMessage";
import { createI18n } from "../i18n/i18n";
import { byTestId, click, queryTestId, render, settle, submit, type, type Rendered } from "../test/dom";
import { FakeBackend } from "../test/fakeBackend";
import { Compose, smartText } from "./Compose";

let view: Rendered | undefined;
afterEach(async () => {
  await view?.unmount();
  view = undefined;
});

const DELAY = 20;
const SENTENCE =
  "Bonjour, votre rendez-vous de l’après-midi est confirmé « demain » à 14h30 au cabinet. Merci de prévenir en cas d’absence.";

/**
 * A backend previewing as the engine does with prices of 0.05 for France: the sentence takes two
 * UCS-2 parts as written and one GSM 7-bit part with smart encoding; a one-time code to a British
 * number is refused for its country.
 */
function office() {
  const backend = new FakeBackend();
  const asked: SubmitBatch[] = [];
  const sent: SubmitMessage[] = [];
  backend.previewMessages = (batch) => {
    asked.push(batch);
    const rows = batch.messages.map((m, index): PreviewRow => {
      const british = m.destination.startsWith("+44");
      const smart = (m.smart_encoding ?? "off") !== "off" && (m.text ?? "").includes("’");
      const errors =
        british && m.kind === "otp"
          ? [
              {
                field: "destination",
                code: "country_not_allowed" as const,
                params: { country: "GB", kind: "otp", whose: "office" },
                message: "+447700900123 is a number in GB, which is not among the office's countries for one-time codes",
              },
            ]
          : [];
      const ucs2 = { encoding: "ucs2" as const, units: 121, segments: 2, remaining_in_segment: 13, unicode_because: "’" };
      const gsm7 = { encoding: "gsm7" as const, units: 121, segments: 1, remaining_in_segment: 39 };
      return {
        index,
        destination: british ? "+447700900123" : "+33612345600",
        text: null,
        plan: smart ? gsm7 : ucs2,
        errors,
        cost: errors.length > 0 ? null : smart ? "0.050" : "0.100",
        smart: smart ? { replaced: 4, characters: "’«»", text_as_given: m.text ?? "", before: ucs2 } : null,
      };
    });
    return Promise.resolve({ currency: "EUR", total_cost: null, rows });
  };
  backend.submitMessage = (m) => {
    sent.push(m);
    return Promise.resolve({ id: 12, created_at_ms: 0 } as unknown as SubmittedMessage);
  };
  return { backend, asked, sent };
}

async function write(root: HTMLElement, destination: string, text: string): Promise<void> {
  await type(byTestId<HTMLInputElement>(root, "send-destination"), destination);
  await type(byTestId<HTMLTextAreaElement>(root, "send-text"), text);
  await settle(DELAY * 3);
}

describe("Compose and the guardrails", () => {
  it("replaces typographic characters by default and says what it saves, with the message's cost", async () => {
    const { backend, asked, sent } = office();
    view = await render(<Compose backend={backend} previewDelayMs={DELAY} />);
    const root = view.container;
    expect(byTestId<HTMLInputElement>(root, "send-smart-encoding").checked, "on by default").toBe(true);
    await write(root, "06 12 34 56 00", SENTENCE);
    expect(asked.at(-1)?.messages[0]?.smart_encoding, "the preview asks as the send will").toBe("typography");
    expect(byTestId(root, "send-counter").textContent).toBe("GSM 7-bit · 1 part · 39 characters left");
    expect(byTestId(root, "send-smart").textContent).toBe("2 parts → 1 part: 4 characters replaced (’ « »)");
    expect(byTestId(root, "send-cost").textContent).toBe("Estimated cost: €0.050");
    await submit(byTestId<HTMLFormElement>(root, "send-form"));
    await settle();
    expect(sent[0]?.smart_encoding).toBe("typography");
  });

  it("sends the text as written once smart encoding is turned off, and the counter says so", async () => {
    const { backend, asked, sent } = office();
    view = await render(<Compose backend={backend} previewDelayMs={DELAY} />);
    const root = view.container;
    await write(root, "06 12 34 56 00", SENTENCE);
    await click(byTestId(root, "send-smart-encoding"));
    await settle(DELAY * 3);
    expect(asked.at(-1)?.messages[0]?.smart_encoding).toBe("off");
    expect(queryTestId(root, "send-smart")).toBeNull();
    expect(byTestId(root, "send-counter").textContent).toContain("2 parts");
    expect(byTestId(root, "send-cost").textContent).toBe("Estimated cost: €0.100");
    await submit(byTestId<HTMLFormElement>(root, "send-form"));
    await settle();
    expect(sent[0]?.smart_encoding).toBe("off");
  });

  it("says a one-time code's country is refused before anything is sent, and shows no cost for it", async () => {
    const { backend } = office();
    view = await render(<Compose backend={backend} previewDelayMs={DELAY} />);
    const root = view.container;
    const kind = byTestId<HTMLSelectElement>(root, "send-kind");
    kind.value = "otp";
    kind.dispatchEvent(new Event("change", { bubbles: true }));
    await write(root, "+447700900123", "Your code: 123456");
    expect(byTestId(root, "send-destination-errors").textContent).toBe(
      "One-time codes are not sent to GB: the office sends them only to the countries of its guardrails (guardrails.otp_countries).",
    );
    expect(queryTestId(root, "send-cost")).toBeNull();
  });

  it("words the saving in French and Russian", () => {
    const note = { replaced: 4, characters: "’«»", text_as_given: SENTENCE, before: { encoding: "ucs2" as const, units: 121, segments: 2, remaining_in_segment: 13 } };
    const after = { encoding: "gsm7" as const, units: 121, segments: 1, remaining_in_segment: 39 };
    expect(smartText(createI18n(["fr"]), note, after)).toBe("2 parties → 1 partie : 4 caractères remplacés (’ « »)");
    expect(smartText(createI18n(["ru"]), note, after)).toBe("частей: 2 → 1 часть: заменено 4 символа (’ « »)");
    expect(smartText(createI18n(["en"]), { ...note, replaced: 1, characters: "’" }, { ...after, segments: 2 })).toBe(
      "1 character replaced (’)",
    );
  });
});
