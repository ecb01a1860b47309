// @vitest-environment happy-dom
import { afterEach, describe, expect, it } from "vitest";
import { BackendError } from "../backend";
import type { PreviewRow } from "../bindings/PreviewRow";
import type { SubmitMessage } from "../bindings/SubmitMessage";
import type { Template } from "../bindings/Template";
import { dictionaries } from "../i18n/i18n";
import { byTestId, click, queryTestId, render, settle, submit, type, type Rendered } from "../test/dom";
import { FakeBackend } from "../test/fakeBackend";
import { Compose } from "./Compose";

let view: Rendered | undefined;
afterEach(async () => {
  await view?.unmount();
  view = undefined;
});

const DELAY = 5;

const REMINDER: Template = {
  id: 1,
  name: "Reminder",
  text: "Bonjour {name}, rendez-vous le {date}.",
  placeholders: ["name", "date"],
  created_at_ms: 0,
  created_by: "admin",
};

/** An office with the Reminder template, whose preview answers `row` and whose sends are kept (or refused by `refuse`). */
function office(row: (m: SubmitMessage) => Partial<PreviewRow> = () => ({}), refuse?: (m: SubmitMessage) => BackendError | null) {
  const backend = new FakeBackend();
  const sent: SubmitMessage[] = [];
  backend.listTemplates = () => Promise.resolve([REMINDER]);
  backend.previewMessages = (batch) =>
    Promise.resolve({
      currency: "EUR",
      total_cost: null,
      rows: batch.messages.map((m, index) => ({ cost: null, smart: null, index, destination: null, text: null, plan: null, errors: [], ...row(m) })),
    });
  backend.submitMessage = (message) => {
    const refusal = refuse?.(message) ?? null;
    if (refusal !== null) return Promise.reject(refusal);
    sent.push(message);
    return Promise.resolve({ id: 40 + sent.length } as never);
  };
  return { backend, sent };
}

async function choose(select: HTMLSelectElement, value: string): Promise<void> {
  select.value = value;
  await settle(() => select.dispatchEvent(new Event("change", { bubbles: true })));
}

describe("Compose checks the form itself", () => {
  it("is noValidate and says in its own words what is required, sending nothing", async () => {
    const { backend, sent } = office();
    view = await render(<Compose backend={backend} previewDelayMs={DELAY} />, ["fr-FR"]);
    const root = view.container;
    expect(byTestId<HTMLFormElement>(root, "send-form").noValidate).toBe(true);
    await submit(byTestId<HTMLFormElement>(root, "send-form"));
    await settle();
    expect(sent).toEqual([]);
    expect(byTestId(root, "send-destination-errors").textContent).toBe("Indiquez le numéro auquel envoyer le message.");
    expect(byTestId(root, "send-text-errors").textContent).toBe(dictionaries.fr["fieldError.required.text"]);
    expect(byTestId(root, "send-destination").getAttribute("aria-invalid")).toBe("true");
  });

  it("says at once, beside the number, that a national number needs the office's country", async () => {
    const { backend } = office((m) => ({
      errors:
        m.destination === "06 12 34 56 00"
          ? [{ field: "destination", code: "country_needed" as never, params: {}, message: "no country" }]
          : [],
    }));
    view = await render(<Compose backend={backend} previewDelayMs={DELAY} />);
    const root = view.container;
    await type(byTestId<HTMLInputElement>(root, "send-destination"), "06 12 34 56 00");
    await settle(DELAY * 4);
    expect(byTestId(root, "send-destination-errors").textContent).toContain(
      "This number has no country code and the office’s country is not set",
    );
  });

  it("clears an earlier “Queued as message 41” when a later send is refused", async () => {
    const { backend, sent } = office();
    view = await render(<Compose backend={backend} previewDelayMs={DELAY} />);
    const root = view.container;
    await type(byTestId<HTMLInputElement>(root, "send-destination"), "+33612345600");
    await type(byTestId<HTMLTextAreaElement>(root, "send-text"), "First");
    await submit(byTestId<HTMLFormElement>(root, "send-form"));
    await settle();
    expect(byTestId(root, "send-done").textContent).toBe("Queued as message 41.");
    await type(byTestId<HTMLTextAreaElement>(root, "send-text"), "Second");
    await type(byTestId<HTMLInputElement>(root, "send-later"), "2020-01-01 09:00");
    await submit(byTestId<HTMLFormElement>(root, "send-form"));
    await settle();
    expect(sent).toHaveLength(1);
    expect(queryTestId(root, "send-later-errors")).not.toBeNull();
    expect(queryTestId(root, "send-done"), "no stale success beside the refusal").toBeNull();
  });

  it("says how to write a time it cannot read, in the locale's order", async () => {
    const { backend, sent } = office();
    view = await render(<Compose backend={backend} previewDelayMs={DELAY} />, ["fr-FR"]);
    const root = view.container;
    await type(byTestId<HTMLInputElement>(root, "send-destination"), "+33612345600");
    await type(byTestId<HTMLTextAreaElement>(root, "send-text"), "Texte");
    await type(byTestId<HTMLInputElement>(root, "send-later"), "31/02/2030 09:00");
    await submit(byTestId<HTMLFormElement>(root, "send-form"));
    await settle();
    expect(sent).toEqual([]);
    expect(byTestId(root, "send-later-errors").textContent).toBe(
      "Ceci ne se lit pas comme une date : écrivez-la sous la forme jj/mm/aaaa hh:mm.",
    );
  });
});

describe("Compose with a template", () => {
  it("shows the engine's refusal of a missing value at that placeholder's field, then sends it filled", async () => {
    const { backend, sent } = office(undefined, (m) =>
      m.values?.["date"] === undefined || m.values["date"] === ""
        ? new BackendError("invalid", "template_value_missing", {
            errors: [
              {
                field: "values.date",
                code: "template_value_missing",
                params: { placeholder: "date", template: "Reminder" },
                message: "no value for {date}",
              },
            ],
          })
        : null,
    );
    view = await render(<Compose backend={backend} previewDelayMs={DELAY} />);
    const root = view.container;
    await settle();
    await choose(byTestId<HTMLSelectElement>(root, "template-picker"), "1");
    await type(byTestId<HTMLInputElement>(root, "send-destination"), "+33612345600");
    const field = (name: string) => root.querySelector<HTMLInputElement>(`[data-testid="send-value"][data-name="${name}"]`)!;
    await type(field("name"), "Anna");
    await submit(byTestId<HTMLFormElement>(root, "send-form"));
    await settle();
    expect(sent).toEqual([]);
    const problem = root.querySelector<HTMLElement>('[data-testid="send-value-problem"][data-name="date"]');
    expect(problem?.textContent).toBe("No value for date: give one.");
    expect(field("date").getAttribute("aria-invalid")).toBe("true");
    expect(field("date").getAttribute("aria-describedby")).toBe(problem?.id);
    expect(root.querySelector('[data-testid="send-value-problem"][data-name="name"]')).toBeNull();

    await type(field("date"), "lundi");
    await submit(byTestId<HTMLFormElement>(root, "send-form"));
    await settle();
    expect(sent).toEqual([
      { destination: "+33612345600", template: "Reminder", values: { name: "Anna", date: "lundi" }, kind: "transactional", smart_encoding: "typography" },
    ]);
  });

  it("asks before sending a written text that still holds a template's placeholder", async () => {
    const { backend, sent } = office();
    view = await render(<Compose backend={backend} previewDelayMs={DELAY} />);
    const root = view.container;
    await settle();
    await type(byTestId<HTMLInputElement>(root, "send-destination"), "+33612345600");
    await type(byTestId<HTMLTextAreaElement>(root, "send-text"), "Bonjour {name}, à lundi.");
    await submit(byTestId<HTMLFormElement>(root, "send-form"));
    await settle();
    expect(sent, "nothing goes before the person says so").toEqual([]);
    const ask = byTestId(root, "send-unfilled");
    expect(ask.querySelector("h3")?.textContent).toBe("The text still holds {name}");
    expect(ask.textContent).toContain("“Reminder”");

    await click(byTestId(root, "send-unfilled-send"));
    await settle();
    expect(sent).toEqual([{ destination: "+33612345600", text: "Bonjour {name}, à lundi.", kind: "transactional", smart_encoding: "typography" }]);
    expect(queryTestId(root, "send-unfilled")).toBeNull();
  });

  it("offers the template instead, with a field for each placeholder", async () => {
    const { backend, sent } = office();
    view = await render(<Compose backend={backend} previewDelayMs={DELAY} />);
    const root = view.container;
    await settle();
    await type(byTestId<HTMLInputElement>(root, "send-destination"), "+33612345600");
    await type(byTestId<HTMLTextAreaElement>(root, "send-text"), "Rendez-vous le {date}");
    await submit(byTestId<HTMLFormElement>(root, "send-form"));
    await settle();
    await click(byTestId(root, "send-unfilled-use"));
    await settle();
    expect(sent).toEqual([]);
    expect(byTestId<HTMLSelectElement>(root, "template-picker").value).toBe("1");
    const names = [...root.querySelectorAll<HTMLElement>('[data-testid="send-value"]')].map((f) => f.dataset["name"]);
    expect(names).toEqual(["name", "date"]);
  });

  it("sends a text whose braces name no template's placeholder without asking", async () => {
    const { backend, sent } = office();
    view = await render(<Compose backend={backend} previewDelayMs={DELAY} />);
    const root = view.container;
    await settle();
    await type(byTestId<HTMLInputElement>(root, "send-destination"), "+33612345600");
    await type(byTestId<HTMLTextAreaElement>(root, "send-text"), "Code {abc}");
    await submit(byTestId<HTMLFormElement>(root, "send-form"));
    await settle();
    expect(queryTestId(root, "send-unfilled")).toBeNull();
    expect(sent).toHaveLength(1);
  });
});
