// @vitest-environment happy-dom
import { act } from "react";
import { afterEach, describe, expect, it } from "vitest";
import { BackendError } from "../backend";
import type { NewOptOut } from "../bindings/NewOptOut";
import type { OptOutFilter } from "../bindings/OptOutFilter";
import type { OptOutImport } from "../bindings/OptOutImport";
import type { RemoveOptOut } from "../bindings/RemoveOptOut";
import { byTestId, click, queryTestId, render, settle, submit, type, type Rendered } from "../test/dom";
import { FakeBackend } from "../test/fakeBackend";
import { optOutEntry, person, T0 } from "../test/fixtures";
import { OptOutExport } from "./optouts/OptOutExport";
import { lineErrors } from "./optouts/OptOutImport";
import { OptOuts } from "./OptOuts";

let view: Rendered | undefined;
afterEach(async () => {
  await view?.unmount();
  view = undefined;
});

const all = (root: ParentNode, id: string): HTMLElement[] => [...root.querySelectorAll<HTMLElement>(`[data-testid="${id}"]`)];

const ended = optOutEntry(2, {
  phone: "+33612345600",
  reason: "operator",
  note: "Asked by phone",
  inbox_message_id: null,
  reply_text: null,
  created_by: "Olga",
  removed_at_ms: T0 + 3_600_000,
  removed_by: "Alice",
  removed_reason: "operator",
  removed_note: "Added by mistake",
});

function engine() {
  const backend = new FakeBackend();
  const filters: OptOutFilter[] = [];
  const adds: NewOptOut[] = [];
  const removals: RemoveOptOut[] = [];
  const imports: OptOutImport[] = [];
  backend.listOptOuts = (filter) => {
    filters.push(filter);
    const items = filter.history === true ? [optOutEntry(1), ended] : [optOutEntry(1)];
    return Promise.resolve({ items, next_cursor: null, current: 1 });
  };
  backend.addOptOut = (optOut) => {
    adds.push(optOut);
    return Promise.resolve({ entry: optOutEntry(3, { phone: "+33612345677", reason: "operator" }), added: true, held_messages: [12, 13] });
  };
  backend.removeOptOut = (removal) => {
    removals.push(removal);
    return Promise.resolve();
  };
  backend.importOptOuts = (file) => {
    imports.push(file);
    return Promise.resolve({ added: 2, already: 1, held_messages: file.dry_run ? [5, 6, 7] : [5, 6, 7], dry_run: file.dry_run });
  };
  return { backend, filters, adds, removals, imports };
}

async function show(e: ReturnType<typeof engine>, me = person("operator")) {
  view = await render(<OptOuts backend={e.backend} />, ["en-US"], me);
  await settle();
  return view.container;
}

async function choose(root: HTMLElement, content: string, name = "stop-list.csv"): Promise<void> {
  const input = byTestId<HTMLInputElement>(root, "optout-import-file");
  const file = new File([content], name, { type: "text/csv" });
  Object.defineProperty(input, "files", { value: [file], configurable: true });
  await act(async () => {
    input.dispatchEvent(new Event("change", { bubbles: true }));
  });
  await settle();
}

describe("the opt-out list", () => {
  it("shows each number with what it stops, why, its evidence (linking to the conversation), since when, by whom and the note", async () => {
    const e = engine();
    const root = await show(e);
    expect(e.filters[0]).toEqual({ q: null, history: null, cursor: null, limit: 50 });
    expect(byTestId(root, "optouts-current").textContent).toBe("Numbers on the list now: 1");
    const [row] = all(root, "optout-row");
    expect(byTestId(row!, "optout-phone").textContent).toBe("+33612345628");
    expect(byTestId(row!, "optout-kinds").textContent).toBe("Transactional, Bulk");
    expect(byTestId(row!, "optout-reason").textContent).toBe("A stop word in their reply");
    expect(byTestId(row!, "optout-reply").textContent).toBe("Arrêt");
    expect(byTestId(row!, "optout-open-thread").getAttribute("href")).toBe("#/inbox/%2B33612345628");
    expect(byTestId(row!, "optout-since").getAttribute("datetime")).toBe(new Date(T0 + 120_000).toISOString());
    expect(byTestId(row!, "optout-by").textContent).toBe("The number’s owner");
    const headers = [...root.querySelectorAll("thead th")].map((h) => h.textContent);
    expect(headers).toEqual(["Number", "Stops", "Why", "Evidence", "Since", "By", "Note", "Actions"]);
    expect(root.querySelector("thead .visually-hidden"), "the actions column is named where it is seen").toBeNull();
    // At phone width each row is a card: every value cell carries its column's name to show above it.
    const labels = [...row!.querySelectorAll("td")].map((c) => c.getAttribute("data-label"));
    expect(labels).toEqual([...headers.slice(1, 7), null]);
    expect(root.querySelector("table")?.classList.contains("table-stack")).toBe(true);
  });

  it("searches by digits, and shows the history on demand with when and why a number came off", async () => {
    const e = engine();
    const root = await show(e);
    await type(byTestId<HTMLInputElement>(root, "optouts-search-q"), "12 34");
    await submit(byTestId<HTMLFormElement>(root, "optouts-search"));
    await settle();
    expect(e.filters.at(-1)).toEqual({ q: "12 34", history: null, cursor: null, limit: 50 });
    await click(byTestId(root, "optouts-history"));
    await settle();
    expect(e.filters.at(-1)).toEqual({ q: "12 34", history: true, cursor: null, limit: 50 });
    const rows = all(root, "optout-row");
    expect(rows.map((r) => r.dataset["current"])).toEqual(["true", "false"]);
    const off = byTestId(rows[1]!, "optout-ended").textContent ?? "";
    expect(off).toContain("Off the list");
    expect(off).toContain("Taken off by Alice");
    expect(off).toContain("Added by mistake");
    expect(byTestId(rows[1]!, "optout-reason").textContent).toBe("Added by hand");
    expect(byTestId(rows[1]!, "optout-by").textContent).toBe("Olga");
    expect(queryTestId(rows[1]!, "optout-remove-open"), "an ended entry cannot be ended again").toBeNull();
  });

  it("follows changes to the list", async () => {
    const e = engine();
    const root = await show(e);
    const before = e.filters.length;
    await settle(() => e.backend.emit({ entity: "opt_out", id: 9 }), 400);
    expect(e.filters.length).toBeGreaterThan(before);
    expect(all(root, "optout-row")).toHaveLength(1);
  });
});

describe("changing the list", () => {
  it("puts a number on it, stopping transactional and bulk messages unless chosen otherwise, and says what was held", async () => {
    const e = engine();
    const root = await show(e);
    const kinds = [...byTestId(root, "optout-add-kinds").querySelectorAll<HTMLInputElement>("input")];
    expect(kinds.map((k) => [k.value, k.checked])).toEqual([
      ["otp", false],
      ["transactional", true],
      ["bulk", true],
    ]);
    expect(byTestId<HTMLButtonElement>(root, "optout-add-submit").disabled, "no number yet").toBe(true);
    expect(byTestId(root, "optout-add-blocked").textContent).toBe("Type the number.");
    await type(byTestId<HTMLInputElement>(root, "optout-add-phone"), "+33 6 12 34 56 77");
    await type(byTestId<HTMLTextAreaElement>(root, "optout-add-note"), "Asked by mail");
    await submit(byTestId<HTMLFormElement>(root, "optout-add"));
    await settle();
    expect(e.adds).toEqual([{ phone: "+33 6 12 34 56 77", note: "Asked by mail", kinds: ["transactional", "bulk"] }]);
    const done = byTestId(root, "optout-add-done");
    expect(done.textContent).toContain("+33612345677 is on the opt-out list now.");
    expect(done.textContent).toContain("Messages held for a person: 2.");
  });

  it("needs at least one kind", async () => {
    const e = engine();
    const root = await show(e);
    await type(byTestId<HTMLInputElement>(root, "optout-add-phone"), "+33612345677");
    await click(byTestId(root, "optout-add-kind-transactional"));
    await click(byTestId(root, "optout-add-kind-bulk"));
    expect(byTestId<HTMLButtonElement>(root, "optout-add-submit").disabled).toBe(true);
    expect(byTestId(root, "optout-add-blocked").textContent).toBe("Choose at least one kind of message.");
  });

  it("shows a refused number at its field in the reader's words, once", async () => {
    const e = engine();
    e.backend.addOptOut = () =>
      Promise.reject(
        new BackendError("invalid", "invalid", { errors: [{ field: "phone", code: "invalid_number", params: {}, message: "not a phone number" }] }),
      );
    const root = await show(e);
    await type(byTestId<HTMLInputElement>(root, "optout-add-phone"), "hello");
    await submit(byTestId<HTMLFormElement>(root, "optout-add"));
    await settle();
    const problem = byTestId(root, "optout-add-phone-error");
    expect(problem.textContent).toContain("This is not a phone number a message can be sent to.");
    expect(queryTestId(root, "optout-add-error"), "not said a second time in a notice").toBeNull();
    const phone = byTestId(root, "optout-add-phone");
    expect(phone.getAttribute("aria-invalid")).toBe("true");
    expect(phone.getAttribute("aria-describedby")).toContain(problem.id);
  });

  it("takes a number off only with a note", async () => {
    const e = engine();
    const root = await show(e);
    await click(byTestId(root, "optout-remove-open"));
    const button = byTestId<HTMLButtonElement>(root, "optout-remove-submit");
    expect(button.disabled).toBe(true);
    expect(byTestId(root, "optout-remove-blocked").textContent).toBe("Write a note to say why.");
    await type(byTestId<HTMLTextAreaElement>(root, "optout-remove-note"), "   ");
    expect(button.disabled, "blanks are not a note").toBe(true);
    await type(byTestId<HTMLTextAreaElement>(root, "optout-remove-note"), "Called back: wants reminders again");
    await submit(byTestId<HTMLFormElement>(root, "optout-remove"));
    await settle();
    expect(e.removals).toEqual([{ phone: "+33612345628", note: "Called back: wants reminders again" }]);
    expect(queryTestId(root, "optout-remove"), "the form closes").toBeNull();
  });
});

describe("importing a file", () => {
  it("checks it first (a dry run) and says what would happen; only confirming imports it", async () => {
    const e = engine();
    const root = await show(e);
    const csv = "phone,note\n+33612345601,by mail\n+33612345602\n+33612345628\n";
    await choose(root, csv);
    expect(e.imports).toEqual([{ csv, dry_run: true }]);
    expect(byTestId(root, "optout-import-counts").textContent).toBe(
      "To add: 2. Already on the list: 1. Waiting messages that will be held: 3.",
    );
    expect(byTestId(root, "optout-import-plan").textContent).toContain("Nothing has changed yet.");
    await click(byTestId(root, "optout-import-confirm"));
    await settle();
    expect(e.imports).toEqual([
      { csv, dry_run: true },
      { csv, dry_run: false },
    ]);
    const done = byTestId(root, "optout-import-done").textContent ?? "";
    expect(done).toContain("Put on the list: 2. Already on it: 1.");
    expect(done).toContain("Messages held for a person: 3.");
  });

  it("can be cancelled after the check: nothing is imported", async () => {
    const e = engine();
    const root = await show(e);
    await choose(root, "+33612345601\n");
    await click(byTestId(root, "optout-import-cancel"));
    await settle();
    expect(e.imports.map((i) => i.dry_run)).toEqual([true]);
    expect(queryTestId(root, "optout-import-plan")).toBeNull();
  });

  it("names every invalid line of a refused file, and offers nothing to confirm", async () => {
    const e = engine();
    e.backend.importOptOuts = (file) => {
      e.imports.push(file);
      return Promise.reject(
        new BackendError("invalid", "2 invalid fields", {
          errors: [
            { field: "lines[5]", code: "invalid_number", params: {}, message: "“call me” is not a phone number" },
            { field: "lines[3]", code: "invalid_number", params: {}, message: "“+33” is too short" },
          ],
        }),
      );
    };
    const root = await show(e);
    await choose(root, "phone\n+33612345601\n+33\n+33612345602\ncall me\n");
    const refused = byTestId(root, "optout-import-refused");
    expect(refused.textContent).toContain("Nothing was put on the list");
    expect([...byTestId(refused, "optout-import-lines").querySelectorAll("li")].map((l) => l.textContent)).toEqual([
      "Line 3: “+33” is too short",
      "Line 5: “call me” is not a phone number",
    ]);
    expect(queryTestId(root, "optout-import-confirm")).toBeNull();
    expect(e.imports).toHaveLength(1);
  });

  it("reads the engine's line names", () => {
    expect(
      lineErrors([
        { field: "lines[12]", code: "invalid", params: {}, message: "twelve" },
        { field: "csv", code: "too_many", params: {}, message: "too many lines" },
        { field: "lines[2]", code: "invalid", params: {}, message: "two" },
      ]),
    ).toEqual({
      lines: [
        { line: 2, message: "two" },
        { line: 12, message: "twelve" },
      ],
      other: [{ field: "csv", code: "too_many", params: {}, message: "too many lines" }],
    });
  });
});

describe("exporting", () => {
  it("saves the list and says how many numbers it holds; a closed save dialog saves nothing and says nothing", async () => {
    const backend = new FakeBackend();
    const answers: (number | null)[] = [2, null];
    backend.saveOptOuts = () => Promise.resolve(answers.shift() ?? null);
    view = await render(<OptOutExport backend={backend} />);
    await click(byTestId(view.container, "optouts-export-start"));
    await settle();
    const done = byTestId(view.container, "optouts-export-done");
    expect(done.dataset["count"]).toBe("2");
    expect(done.textContent).toBe("Saved: 2 numbers.");
    await click(byTestId(view.container, "optouts-export-start"));
    await settle();
    expect(view.container.querySelector('[data-testid="optouts-export-done"]')).toBeNull();
  });
});

describe("access", () => {
  it("a viewer reads the list and its evidence, and sees no way to change or export it", async () => {
    const e = engine();
    const root = await show(e, person("viewer"));
    expect(all(root, "optout-row")).toHaveLength(1);
    expect(queryTestId(root, "optout-open-thread")).not.toBeNull();
    for (const control of ["optout-add", "optout-import", "optout-remove-open", "optouts-export"]) {
      expect(queryTestId(root, control), control).toBeNull();
    }
    const headers = [...root.querySelectorAll("thead th")].map((h) => h.textContent);
    expect(headers, "no actions column").not.toContain("Actions");
  });

  it("an operator changes the list and exports it", async () => {
    const root = await show(engine(), person("operator"));
    for (const control of ["optout-add", "optout-import", "optout-remove-open", "optouts-export"]) {
      expect(queryTestId(root, control), control).not.toBeNull();
    }
  });
});
