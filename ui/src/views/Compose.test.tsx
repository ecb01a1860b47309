// @vitest-environment happy-dom
import { afterEach, describe, expect, it } from "vitest";
import type { PreviewRow } from "../bindings/PreviewRow";
import type { SubmitBatch } from "../bindings/SubmitBatch";
import { createI18n } from "../i18n/i18n";
import { BackendError } from "../backend";
import { byTestId, queryTestId, render, settle, submit, type, type Rendered } from "../test/dom";
import { FakeBackend } from "../test/fakeBackend";
import { Compose, counterText } from "./Compose";

let view: Rendered | undefined;
afterEach(async () => {
  await view?.unmount();
  view = undefined;
});

const { t } = createI18n(["en"]);

describe("counterText", () => {
  it("says the encoding, the parts and what is left", () => {
    expect(counterText(t, { encoding: "gsm7", units: 115, segments: 1, remaining_in_segment: 45 })).toBe(
      "GSM 7-bit · 1 part · 45 characters left",
    );
    expect(counterText(t, { encoding: "ucs2", units: 122, segments: 2, remaining_in_segment: 12 })).toBe(
      "Unicode (UCS-2) · 2 parts · 12 left in this part",
    );
    expect(counterText(t, { encoding: "gsm7", units: 300, segments: 2, remaining_in_segment: 6 })).toBe(
      "GSM 7-bit · 2 parts · 6 left in this part",
    );
  });

  it("names the character that makes a text Unicode", () => {
    const plan = { encoding: "ucs2", units: 30, segments: 1, remaining_in_segment: 40, unicode_because: "ê" } as const;
    expect(counterText(t, plan)).toBe("Unicode (UCS-2) because of “ê” · 1 part · 40 characters left");
    expect(counterText(createI18n(["fr"]).t, plan)).toContain("à cause de « ê »");
    expect(counterText(createI18n(["ru"]).t, plan)).toContain("из-за «ê»");
  });

  it("has words in French and Russian", () => {
    const plan = { encoding: "ucs2", units: 122, segments: 2, remaining_in_segment: 12 } as const;
    expect(counterText(createI18n(["fr"]).t, plan)).toBe("Unicode (UCS-2) · 2 parties · 12 restants dans cette partie");
    expect(counterText(createI18n(["ru"]).t, plan)).toBe("Юникод (UCS-2) · частей: 2 · осталось в этой части: 12");
  });
});

/** A backend whose preview answers with `answer(message)` and records each request. */
function previewing(answer: (m: SubmitBatch["messages"][number]) => PreviewRow) {
  const backend = new FakeBackend();
  const asked: SubmitBatch[] = [];
  backend.previewMessages = (batch) => {
    asked.push(batch);
    return Promise.resolve({ currency: "EUR", total_cost: null, rows: batch.messages.map(answer) });
  };
  return { backend, asked };
}

const DELAY = 20;

describe("Compose", () => {
  it("shows the live counter and the number as it will be sent, once typing pauses", async () => {
    const { backend, asked } = previewing((m) => ({
      cost: null,
      smart: null,
      index: 0,
      destination: m.destination === "" ? null : "+33612345600",
      text: null,
      plan: (m.text ?? "").includes("é")
        ? { encoding: "ucs2", units: 82, segments: 2, remaining_in_segment: 52 }
        : { encoding: "gsm7", units: (m.text ?? "").length, segments: 1, remaining_in_segment: 160 - (m.text ?? "").length },
      errors: [],
    }));
    view = await render(<Compose backend={backend} previewDelayMs={DELAY} />);
    const root = view.container;
    await type(byTestId<HTMLInputElement>(root, "send-destination"), "06 12 34 56 00");
    await type(byTestId<HTMLTextAreaElement>(root, "send-text"), "Hello");
    expect(asked, "nothing is asked while typing").toHaveLength(0);
    await settle(DELAY * 3);
    expect(asked).toEqual([{ messages: [{ destination: "06 12 34 56 00", text: "Hello", kind: "transactional", smart_encoding: "typography" }] }]);
    expect(byTestId(root, "send-counter").textContent).toBe("GSM 7-bit · 1 part · 155 characters left");
    expect(byTestId(root, "send-normalised").textContent).toBe("Will be sent to +33612345600");

    await type(byTestId<HTMLTextAreaElement>(root, "send-text"), "Café");
    await settle(DELAY * 3);
    expect(byTestId(root, "send-counter").textContent).toBe("Unicode (UCS-2) · 2 parts · 52 left in this part");
  });

  it("shows a field's errors under it only once the person typed in it", async () => {
    const { backend } = previewing((m) => ({
      cost: null,
      smart: null,
      index: 0,
      destination: null,
      text: null,
      plan: (m.text ?? "") === "" ? null : { encoding: "gsm7", units: (m.text ?? "").length, segments: 1, remaining_in_segment: 150 },
      errors: [
        { field: "destination", code: "invalid_number", params: {}, message: "not a phone number" },
        ...(m.text === "" ? [{ field: "text", code: "required" as const, params: {}, message: "a message needs a text" }] : []),
      ],
    }));
    view = await render(<Compose backend={backend} previewDelayMs={DELAY} />);
    const root = view.container;
    await type(byTestId<HTMLInputElement>(root, "send-destination"), "12");
    await settle(DELAY * 3);
    expect(byTestId(root, "send-destination-errors").textContent).toBe("This is not a phone number a message can be sent to.");
    expect(byTestId(root, "send-destination").getAttribute("aria-invalid")).toBe("true");
    expect(queryTestId(root, "send-text-errors"), "the text was not typed in yet").toBeNull();
    expect(byTestId(root, "send-text").getAttribute("aria-invalid")).toBe("false");
    expect(queryTestId(root, "send-normalised")).toBeNull();
  });

  it("drops an answer to an older text", async () => {
    const backend = new FakeBackend();
    const pending: ((row: PreviewRow) => void)[] = [];
    backend.previewMessages = () =>
      new Promise((resolve) => pending.push((row) => resolve({ currency: "EUR", total_cost: null, rows: [row] })));
    view = await render(<Compose backend={backend} previewDelayMs={DELAY} />);
    const root = view.container;
    await type(byTestId<HTMLTextAreaElement>(root, "send-text"), "a");
    await settle(DELAY * 3);
    await type(byTestId<HTMLTextAreaElement>(root, "send-text"), "ab");
    await settle(DELAY * 3);
    const row = (units: number): PreviewRow => ({
      cost: null,
      smart: null,
      index: 0,
      destination: null,
      text: null,
      plan: { encoding: "gsm7", units, segments: 1, remaining_in_segment: 160 - units },
      errors: [],
    });
    await settle(() => pending[1]?.(row(2)));
    await settle(() => pending[0]?.(row(1)));
    expect(byTestId(root, "send-counter").textContent).toBe("GSM 7-bit · 1 part · 158 characters left");
  });
});

/** A `datetime-local` value for `ms`, in this computer's zone. */
function localValue(ms: number): string {
  const d = new Date(ms);
  const two = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())}T${two(d.getHours())}:${two(d.getMinutes())}`;
}

describe("Compose: send later", () => {
  const sending = () => {
    const { backend } = previewing(() => ({ cost: null, smart: null, index: 0, destination: null, text: null, plan: null, errors: [] }));
    const sent: Parameters<typeof backend.submitMessage>[0][] = [];
    backend.submitMessage = (message) => {
      sent.push(message);
      return Promise.resolve({ id: 41 } as never);
    };
    return { backend, sent };
  };

  it("sends the time picked, read in the person's zone (which it names), as scheduled_at, and says when it goes", async () => {
    const { backend, sent } = sending();
    view = await render(<Compose backend={backend} previewDelayMs={DELAY} />);
    const root = view.container;
    // The zone is named as every time shown names it ("GMT+1" beside "2 Dec 2026, 14:02 GMT+1").
    const shownZone = createI18n(["en-US"]).formatDateTime(Date.now()).split(" ").at(-1) ?? "";
    expect(byTestId(root, "send-later-zone").textContent).toContain(`(${shownZone})`);
    const later = localValue(Date.now() + 2 * 86_400_000);
    await type(byTestId<HTMLInputElement>(root, "send-destination"), "+33612345600");
    await type(byTestId<HTMLTextAreaElement>(root, "send-text"), "Your appointment is tomorrow");
    await type(byTestId<HTMLInputElement>(root, "send-later"), later);
    await submit(byTestId<HTMLFormElement>(root, "send-form"));
    await settle();
    expect(sent).toEqual([
      {
        destination: "+33612345600",
        text: "Your appointment is tomorrow",
        kind: "transactional",
        smart_encoding: "typography",
        scheduled_at: new Date(later).toISOString(),
      },
    ]);
    expect(byTestId(root, "send-done").textContent).toBe(
      `Queued as message 41, to be sent at ${createI18n(["en-US"]).formatDateTime(new Date(later).getTime())}.`,
    );
    expect(byTestId<HTMLInputElement>(root, "send-later").value, "the next message goes now unless told").toBe("");
  });

  it("sends no scheduled_at when no time is picked", async () => {
    const { backend, sent } = sending();
    view = await render(<Compose backend={backend} previewDelayMs={DELAY} />);
    const root = view.container;
    await type(byTestId<HTMLInputElement>(root, "send-destination"), "+33612345600");
    await type(byTestId<HTMLTextAreaElement>(root, "send-text"), "Now");
    await submit(byTestId<HTMLFormElement>(root, "send-form"));
    await settle();
    expect(sent).toEqual([{ destination: "+33612345600", text: "Now", kind: "transactional", smart_encoding: "typography" }]);
    expect(byTestId(root, "send-done").textContent).toBe("Queued as message 41.");
  });

  it("refuses a time already past beside the field, and sends nothing", async () => {
    const { backend, sent } = sending();
    view = await render(<Compose backend={backend} previewDelayMs={DELAY} />);
    const root = view.container;
    await type(byTestId<HTMLInputElement>(root, "send-destination"), "+33612345600");
    await type(byTestId<HTMLTextAreaElement>(root, "send-text"), "Too late");
    await type(byTestId<HTMLInputElement>(root, "send-later"), localValue(Date.now() - 3_600_000));
    await submit(byTestId<HTMLFormElement>(root, "send-form"));
    await settle();
    expect(sent).toEqual([]);
    expect(byTestId(root, "send-later-errors").textContent).toBe(
      "This time has passed: choose a later one, or clear it to send now.",
    );
    expect(byTestId(root, "send-later").getAttribute("aria-invalid")).toBe("true");
  });

  it("shows the engine's refusal of the time under the field", async () => {
    const { backend } = sending();
    backend.submitMessage = () =>
      Promise.reject(
        new BackendError("invalid", "scheduled_at: has already passed", {
          errors: [{ field: "scheduled_at", code: "in_past", params: {}, message: "scheduled_at \"…\" has already passed" }],
        }),
      );
    view = await render(<Compose backend={backend} previewDelayMs={DELAY} />);
    const root = view.container;
    await type(byTestId<HTMLInputElement>(root, "send-destination"), "+33612345600");
    await type(byTestId<HTMLTextAreaElement>(root, "send-text"), "Later");
    await type(byTestId<HTMLInputElement>(root, "send-later"), localValue(Date.now() + 60 * 60_000));
    await submit(byTestId<HTMLFormElement>(root, "send-form"));
    await settle();
    expect(byTestId(root, "send-later-errors").textContent).toBe("This time has passed: choose a later one, or clear it to send now.");
  });
});
