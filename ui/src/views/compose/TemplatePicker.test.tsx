// @vitest-environment happy-dom
import { afterEach, describe, expect, it } from "vitest";
import { BackendError } from "../../backend";
import type { Me } from "../../bindings/Me";
import type { NewTemplate } from "../../bindings/NewTemplate";
import type { PreviewRow } from "../../bindings/PreviewRow";
import type { SubmitMessage } from "../../bindings/SubmitMessage";
import type { Template } from "../../bindings/Template";
import { byTestId, click, queryTestId, render, settle, type, type Rendered } from "../../test/dom";
import { FakeBackend } from "../../test/fakeBackend";
import { person, T0 } from "../../test/fixtures";
import { Compose } from "../Compose";

let view: Rendered | undefined;
afterEach(async () => {
  await view?.unmount();
  view = undefined;
});

/** A template as the engine lists it, with the placeholders it read in its text. */
function template(id: number, name: string, text: string, placeholders: string[]): Template {
  return { id, name, text, placeholders, created_at_ms: T0, created_by: "Olga" };
}

/** The placeholders the engine reads in the texts the tests save. */
const READ: Readonly<Record<string, string[]>> = { "Dear {name}, your code is {code}.": ["name", "code"] };

/** An office with `templates`, whose saves and deletions change it; every request is kept. */
function office(templates: Template[]) {
  const backend = new FakeBackend();
  let list = [...templates];
  const created: NewTemplate[] = [];
  const deleted: number[] = [];
  let lists = 0;
  backend.previewMessages = () => Promise.resolve({ currency: "EUR", total_cost: null, rows: [] });
  backend.listTemplates = () => {
    lists += 1;
    return Promise.resolve(list);
  };
  backend.createTemplate = (t) => {
    created.push(t);
    if (list.some((x) => x.name.toLowerCase() === t.name.toLowerCase())) {
      return Promise.reject(new BackendError("name_taken", `a template named "${t.name}" exists already`));
    }
    const saved = template(90 + created.length, t.name, t.text, READ[t.text] ?? []);
    list = [...list, saved];
    return Promise.resolve(saved);
  };
  backend.deleteTemplate = (id) => {
    deleted.push(id);
    list = list.filter((x) => x.id !== id);
    return Promise.resolve();
  };
  return { backend, created, deleted, lists: () => lists };
}

const REMINDER = template(1, "Reminder", "Hello {name}, see you on {date}.", ["name", "date"]);
const SHIPPED = template(2, "Shipped", "Your order has shipped.", []);

const missing = (placeholder: string) => ({
  field: "values",
  code: "template_value_missing" as const,
  params: { placeholder, template: "Reminder" },
  message: `the template "Reminder" has {${placeholder}} and values give it none`,
});

/** The engine's answers to a preview of Reminder, by the values given: canned, as its types say. */
function reminderPreview(m: SubmitMessage): PreviewRow {
  const row: PreviewRow = { cost: null, smart: null, index: 0, destination: null, text: null, plan: null, errors: [] };
  if (m.template !== "Reminder") return row;
  const given = `${m.values?.["name"] ?? ""}|${m.values?.["date"] ?? ""}`;
  switch (given) {
    case "|":
      return { ...row, errors: [missing("name"), missing("date")] };
    case "Anna|":
      return { ...row, errors: [missing("date")] };
    case "Anna|Monday":
      return {
        ...row,
        text: "Hello Anna, see you on Monday.",
        plan: { encoding: "gsm7", unicode_because: null, units: 30, segments: 1, remaining_in_segment: 130 },
      };
    default:
      throw new Error(`no canned answer for ${given}`);
  }
}

async function compose(backend: FakeBackend, me?: Me) {
  view = await render(<Compose backend={backend} previewDelayMs={5} />, ["en-US"], me);
  await settle();
  return view.container;
}

async function choose(select: HTMLSelectElement, value: string): Promise<void> {
  select.value = value;
  await settle(() => select.dispatchEvent(new Event("change", { bubbles: true })));
}

describe("templates in compose", () => {
  it("picking a template asks a value for each of its placeholders, and shows what the engine fills and names", async () => {
    const { backend } = office([REMINDER, SHIPPED]);
    const asked: SubmitMessage[] = [];
    backend.previewMessages = (batch) => {
      asked.push(...batch.messages);
      return Promise.resolve({ currency: "EUR", total_cost: null, rows: batch.messages.map(reminderPreview) });
    };
    const sent: SubmitMessage[] = [];
    backend.submitMessage = (m) => {
      sent.push(m);
      return Promise.reject(new BackendError("stopping", "not in this test"));
    };
    const root = await compose(backend);
    const picker = byTestId<HTMLSelectElement>(root, "template-picker");
    expect([...picker.options].map((o) => o.text)).toEqual(["No template", "Reminder", "Shipped"]);
    await choose(picker, "1");
    expect(queryTestId(root, "send-text"), "the template is the text").toBeNull();
    expect(byTestId(root, "send-template-text").textContent).toBe("Hello {name}, see you on {date}.");
    const fields = [...root.querySelectorAll<HTMLInputElement>('[data-testid="send-value"]')];
    expect(fields.map((f) => f.dataset["name"]), "a field for each placeholder the engine read").toEqual(["name", "date"]);
    await settle(20);
    expect(asked.at(-1)).toMatchObject({ template: "Reminder", values: { name: "", date: "" } });
    expect(asked.at(-1)?.text, "no text beside the template").toBeUndefined();
    expect(byTestId(root, "send-placeholders").textContent).toBe("Fill in {name}, {date}: the message is not sent without them.");

    await type(fields[0]!, "Anna");
    await settle(20);
    expect(byTestId(root, "send-placeholders").textContent, "as the engine names them").toBe(
      "Fill in {date}: the message is not sent without them.",
    );
    expect(queryTestId(root, "send-filled")).toBeNull();
    await type(fields[1]!, "Monday");
    await settle(20);
    expect(byTestId(root, "send-filled").textContent).toBe("Hello Anna, see you on Monday.");
    expect(byTestId(root, "send-counter").textContent).toContain("1 part");
    expect(queryTestId(root, "send-placeholders"), "nothing left to fill in").toBeNull();

    await type(byTestId<HTMLInputElement>(root, "send-destination"), "+33612345678");
    await click(byTestId(root, "send-submit"));
    await settle();
    expect(sent).toEqual([
      { destination: "+33612345678", template: "Reminder", values: { name: "Anna", date: "Monday" }, kind: "transactional", smart_encoding: "typography" },
    ]);
  });

  it("choosing no template again keeps the text as the engine filled it, to edit", async () => {
    const { backend } = office([REMINDER]);
    backend.previewMessages = (batch) => Promise.resolve({ currency: "EUR", total_cost: null, rows: batch.messages.map(reminderPreview) });
    const root = await compose(backend);
    await choose(byTestId<HTMLSelectElement>(root, "template-picker"), "1");
    const fields = [...root.querySelectorAll<HTMLInputElement>('[data-testid="send-value"]')];
    await type(fields[0]!, "Anna");
    await type(fields[1]!, "Monday");
    await settle(20);
    await choose(byTestId<HTMLSelectElement>(root, "template-picker"), "");
    expect(byTestId<HTMLTextAreaElement>(root, "send-text").value).toBe("Hello Anna, see you on Monday.");
    expect(queryTestId(root, "send-template")).toBeNull();
  });

  it("saves the text written as a template for the office, and offers it at once", async () => {
    const { backend, created, lists } = office([SHIPPED]);
    const root = await compose(backend, person("operator"));
    const open = byTestId<HTMLButtonElement>(root, "template-save-open");
    expect(open.disabled, "nothing to save yet").toBe(true);
    await type(byTestId<HTMLTextAreaElement>(root, "send-text"), "Dear {name}, your code is {code}.");
    await click(open);
    const save = byTestId<HTMLButtonElement>(root, "template-save");
    expect(save.disabled, "a template needs a name").toBe(true);
    await type(byTestId<HTMLInputElement>(root, "template-name"), "  Code  ");
    await click(save);
    await settle();
    expect(created).toEqual([{ name: "Code", text: "Dear {name}, your code is {code}." }]);
    expect(byTestId(root, "template-done").textContent).toBe("Saved as the template “Code”.");
    expect(lists(), "the list is read again").toBe(2);
    const picker = byTestId<HTMLSelectElement>(root, "template-picker");
    expect([...picker.options].map((o) => o.text)).toContain("Code");
    expect(picker.value, "the new template is the one chosen").toBe("91");
  });

  it("says so when the name is taken, and keeps what was typed", async () => {
    const { backend } = office([SHIPPED]);
    const root = await compose(backend);
    await type(byTestId<HTMLTextAreaElement>(root, "send-text"), "Shipped again");
    await click(byTestId(root, "template-save-open"));
    await type(byTestId<HTMLInputElement>(root, "template-name"), "shipped");
    await click(byTestId(root, "template-save"));
    await settle();
    expect(byTestId(root, "template-save-error").textContent).toContain("A template with this name exists already");
    expect(byTestId<HTMLInputElement>(root, "template-name").value).toBe("shipped");
  });

  it("deletes the chosen template once confirmed, for everyone", async () => {
    const { backend, deleted } = office([REMINDER, SHIPPED]);
    const root = await compose(backend);
    expect(queryTestId(root, "template-delete"), "nothing chosen, nothing to delete").toBeNull();
    await choose(byTestId<HTMLSelectElement>(root, "template-picker"), "2");
    await click(byTestId(root, "template-delete"));
    expect(byTestId(root, "template-delete-box").textContent).toContain("Delete the template “Shipped” for everyone in the office?");
    expect(deleted, "not before it is confirmed").toEqual([]);
    await click(byTestId(root, "template-delete-confirm"));
    await settle();
    expect(deleted).toEqual([2]);
    expect(byTestId(root, "template-done").textContent).toBe("The template “Shipped” was deleted.");
    const picker = byTestId<HTMLSelectElement>(root, "template-picker");
    expect([...picker.options].map((o) => o.text)).toEqual(["No template", "Reminder"]);
  });

  it("a viewer may pick a template but not save or delete one", async () => {
    const { backend } = office([REMINDER]);
    const root = await compose(backend, person("viewer"));
    await choose(byTestId<HTMLSelectElement>(root, "template-picker"), "1");
    expect(queryTestId(root, "template-save-open")).toBeNull();
    expect(queryTestId(root, "template-delete")).toBeNull();
  });

  it("a key that reads only its own messages is not offered templates, nor asked for them", async () => {
    const { backend, lists } = office([REMINDER]);
    const key: Me = { ...person("operator"), kind: "key", role: null, scopes: ["send", "read:own"], only_own: true };
    const root = await compose(backend, key);
    expect(queryTestId(root, "template-field")).toBeNull();
    expect(lists()).toBe(0);
  });
});
