// @vitest-environment happy-dom
import { act } from "react";
import { afterEach, describe, expect, it } from "vitest";
import { BackendError } from "../backend";
import type { Preview } from "../bindings/Preview";
import type { PreviewRow } from "../bindings/PreviewRow";
import type { SubmitMessage } from "../bindings/SubmitMessage";
import type { SubmitBatch } from "../bindings/SubmitBatch";
import type { SubmittedBatch } from "../bindings/SubmittedBatch";
import { byTestId, click, queryTestId, render, settle, type Rendered } from "../test/dom";
import { readImportFile } from "./csv";
import { FakeBackend } from "../test/fakeBackend";
import { CsvImport } from "./CsvImport";
import { ANY_MESSAGE, toMessageFilter } from "./MessageFilters";

let view: Rendered | undefined;
afterEach(async () => {
  await view?.unmount();
  view = undefined;
});

async function choose(root: HTMLElement, content: string): Promise<void> {
  const input = byTestId<HTMLInputElement>(root, "import-file");
  const file = new File([content], "contacts.csv", { type: "text/csv" });
  Object.defineProperty(input, "files", { value: [file], configurable: true });
  await act(async () => {
    input.dispatchEvent(new Event("change", { bubbles: true }));
  });
}

/** Lets the import run until it waits for the person (or is done, or stopped by a problem). */
async function settled(root: HTMLElement): Promise<void> {
  const quiet = () =>
    queryTestId(root, "import-progress") === null &&
    ["import-counts", "import-problem", "import-done", "import-error", "import-stopped"].some((id) => queryTestId(root, id) !== null);
  const deadline = Date.now() + 15_000;
  while (!quiet() && Date.now() < deadline) await settle(5);
}

/** 1203 rows: line 10 and 700 have a number the engine refuses, line 1000 an unknown kind. */
function bigFile(): string {
  const lines = ["destination,text,kind"];
  for (let line = 2; line <= 1204; line += 1) {
    const destination = line === 10 || line === 700 ? "bad" : `+336123${String(line).padStart(5, "0")}`;
    lines.push(`${destination},"Hello, number ${line}",${line === 1000 ? "promo" : ""}`);
  }
  return `${lines.join("\r\n")}\r\n`;
}

function fakeEngine() {
  const backend = new FakeBackend();
  const previews: number[] = [];
  const batches: { size: number; key: string | undefined; first: string | undefined }[] = [];
  let failOnce: number | null = null;
  backend.previewMessages = (batch: SubmitBatch): Promise<Preview> => {
    previews.push(batch.messages.length);
    return Promise.resolve({
      currency: "EUR",
      total_cost: null,
      rows: batch.messages.map((m, index) => ({
        cost: null,
        smart: null,
        index,
        destination: m.destination === "bad" ? null : m.destination,
        text: null,
        plan: { encoding: "gsm7", units: (m.text ?? "").length, segments: 1, remaining_in_segment: 160 - (m.text ?? "").length },
        errors:
          m.destination === "bad" ? [{ field: "destination", code: "invalid_number", params: {}, message: "not a phone number" }] : [],
      })),
    });
  };
  backend.submitBatch = (batch: SubmitBatch, key?: string): Promise<SubmittedBatch> => {
    batches.push({ size: batch.messages.length, key, first: batch.messages[0]?.destination });
    if (failOnce !== null && batches.length === failOnce) {
      failOnce = null;
      return Promise.reject(new BackendError("unreachable", "no answer"));
    }
    return Promise.resolve({ messages: batch.messages.map(() => ({}) as SubmittedBatch["messages"][number]) });
  };
  return { backend, previews, batches, failAt: (n: number) => (failOnce = n) };
}

describe("CsvImport", () => {
  it("checks the file in chunks, lists the errors, and imports only the valid rows", async () => {
    const { backend, previews, batches } = fakeEngine();
    view = await render(<CsvImport backend={backend} />);
    const root = view.container;
    await choose(root, bigFile());
    await settled(root);
    expect(previews, "previews of at most 500").toEqual([500, 500, 203]);
    expect(byTestId(root, "import-counts").textContent).toBe("1,200 ready, 3 with errors");
    const bad = [...root.querySelectorAll<HTMLElement>('[data-testid="import-row"][data-ok="false"]')];
    expect(bad.map((r) => r.dataset["line"])).toEqual(["10", "700", "1000"]);
    expect(bad[0]?.textContent).toContain("Phone number: This is not a phone number a message can be sent to.");
    expect(bad[2]?.textContent).toContain("Kind: must be otp, transactional or bulk");

    const button = byTestId(root, "import-submit");
    expect(button.textContent).toBe("Import the 1,200 valid rows");
    await click(button);
    await settled(root);
    expect(batches.map((b) => b.size)).toEqual([500, 500, 200]);
    expect(batches.some((b) => b.first === "bad"), "rows with errors are never sent").toBe(false);
    expect(byTestId(root, "import-done").textContent).toBe("1,200 messages queued.3 rows with errors were not sent.");
  });

  it("keeps each chunk's idempotency key across a retry and a re-import of the same file", async () => {
    const { backend, batches, failAt } = fakeEngine();
    view = await render(<CsvImport backend={backend} />);
    const root = view.container;
    await choose(root, bigFile());
    await settled(root);
    failAt(2);
    await click(byTestId(root, "import-submit"));
    await settled(root);
    expect(byTestId(root, "import-error").dataset["code"]).toBe("unreachable");
    expect(byTestId(root, "import-partial").textContent).toContain("500 of 1,200 messages were queued");
    await click(byTestId(root, "import-retry"));
    await settled(root);
    expect(queryTestId(root, "import-done")).not.toBeNull();
    const keys = batches.map((b) => b.key);
    expect(keys).toHaveLength(5);
    expect(keys[0]).toMatch(/^csv-sha256-[0-9a-f]{64}-0$/);
    expect(keys.slice(2), "the retry uses the first attempt's keys").toEqual([keys[0], keys[1], `${keys[0]?.slice(0, -2)}-2`]);

    // The same file chosen again gets the same keys: the engine replays instead of queuing twice.
    await choose(root, bigFile());
    await settled(root);
    await click(byTestId(root, "import-submit"));
    await settled(root);
    expect(batches.slice(5).map((b) => b.key)).toEqual(keys.slice(2));
  });

  it("names the rows refused because their number is on the opt-out list, by their line in the file", async () => {
    const { backend, batches } = fakeEngine();
    const submitBatch = backend.submitBatch;
    backend.submitBatch = (batch, key) => {
      if (batches.length === 1) {
        batches.push({ size: batch.messages.length, key, first: batch.messages[0]?.destination });
        // The second chunk: its rows 3 and 250 are for numbers on the opt-out list.
        return Promise.reject(
          new BackendError("destination_opted_out", "the destination is on the opt-out list", {
            errors: [
              { field: "messages[3].destination", code: "destination_opted_out", params: {}, message: "opted out of transactional messages" },
              { field: "messages[250].destination", code: "destination_opted_out", params: {}, message: "opted out of transactional messages" },
            ],
          }),
        );
      }
      return submitBatch(batch, key);
    };
    view = await render(<CsvImport backend={backend} />);
    const root = view.container;
    await choose(root, bigFile());
    await settled(root);
    await click(byTestId(root, "import-submit"));
    await settled(root);
    const error = byTestId(root, "import-error");
    expect(error.dataset["code"]).toBe("destination_opted_out");
    expect(error.textContent).toContain("This number is on the opt-out list");
    // Ready rows skip the invalid lines 10 and 700: the second chunk starts at ready row 500 (line 503).
    const lines = [...byTestId(root, "import-opted-out").querySelectorAll<HTMLElement>("li")];
    expect(lines.map((l) => l.dataset["line"])).toEqual(["506", "754"]);
    expect(lines[0]?.textContent).toBe("Line 506: +33612300506");
  });

  it("shows progress while checking", async () => {
    const { backend } = fakeEngine();
    const release: (() => void)[] = [];
    const preview = backend.previewMessages;
    backend.previewMessages = (batch) => new Promise((resolve) => release.push(() => resolve(preview(batch))));
    view = await render(<CsvImport backend={backend} />);
    const root = view.container;
    // Each chunk's check is answered once it was asked (reading and hashing the file take their time).
    const answer = async (k: number): Promise<void> => {
      const deadline = Date.now() + 15_000;
      while (release[k] === undefined && Date.now() < deadline) await settle(5);
      await settle(() => release[k]?.(), 10);
    };
    await choose(root, bigFile());
    await answer(0);
    const progress = byTestId(root, "import-progress");
    expect(progress.textContent).toBe("Checking rows: 500 of 1,203");
    expect(progress.querySelector("progress")?.getAttribute("value")).toBe("500");
    await answer(1);
    await answer(2);
    // The last answer is counted before the bar goes: a loaded machine takes longer than a tick.
    const gone = Date.now() + 15_000;
    while (queryTestId(root, "import-progress") !== null && Date.now() < gone) await settle(5);
    expect(queryTestId(root, "import-progress")).toBeNull();
    expect(byTestId(root, "import-counts").textContent).toBe("1,200 ready, 3 with errors");
  });

  it("explains a file it cannot read, and sends nothing", async () => {
    const { backend, previews } = fakeEngine();
    view = await render(<CsvImport backend={backend} />);
    const root = view.container;
    await choose(root, "\uFEFFphone,text\n+33612345600,hi\n");
    await settle(10);
    const problem = byTestId(root, "import-problem");
    expect(problem.dataset["code"]).toBe("unknown_column");
    expect(problem.textContent).toContain("“phone”");
    expect(previews).toEqual([]);
  });

  it("opens a labelled modal dialog whose Cancel (or Escape) queues nothing, listing only the rows with errors", async () => {
    const { backend, batches } = fakeEngine();
    view = await render(<CsvImport backend={backend} />);
    const root = view.container;
    await choose(root, bigFile());
    await settled(root);
    const dialog = byTestId(root, "import-dialog");
    expect(dialog.getAttribute("role")).toBe("dialog");
    expect(dialog.getAttribute("aria-modal")).toBe("true");
    const title = document.getElementById(dialog.getAttribute("aria-labelledby") ?? "");
    expect(title?.textContent).toBe("Import contacts.csv");
    expect(document.activeElement, "the dialog takes the keyboard, at its title").toBe(title);
    expect(root.querySelectorAll('[data-testid="import-row"]'), "only the rows with errors are listed").toHaveLength(3);
    expect(root.querySelector('[data-testid="import-row"][data-line="10"] code')?.textContent).toBe('bad,"Hello, number 10",');
    expect(byTestId(dialog, "import-submit").closest(".modal-head"), "Import sits in the head, above the rows").not.toBeNull();
    expect(byTestId(dialog, "import-cancel").closest(".modal-head")).not.toBeNull();

    // Tab goes round inside the dialog.
    const last = byTestId<HTMLButtonElement>(dialog, "import-download-rejected");
    last.focus();
    await act(async () => {
      last.dispatchEvent(new KeyboardEvent("keydown", { key: "Tab", bubbles: true, cancelable: true }));
    });
    expect(document.activeElement).toBe(byTestId(dialog, "import-submit"));

    await click(byTestId(dialog, "import-cancel"));
    expect(queryTestId(root, "import-dialog")).toBeNull();
    expect(batches, "nothing is queued on Cancel").toEqual([]);

    await choose(root, bigFile());
    await settled(root);
    await act(async () => {
      byTestId(root, "import-dialog").dispatchEvent(new KeyboardEvent("keydown", { key: "Escape", bubbles: true, cancelable: true }));
    });
    expect(queryTestId(root, "import-dialog")).toBeNull();
    expect(batches, "nor on Escape").toEqual([]);
    expect(queryTestId(root, "import-done")).toBeNull();
  });

  it("saves the rejected rows as a CSV: line, reason, then the row as written under the file's header", async () => {
    const { backend } = fakeEngine();
    const saved: { text: string; name: string }[] = [];
    backend.saveCsv = (text, name) => {
      saved.push({ text, name });
      return Promise.resolve(true);
    };
    view = await render(<CsvImport backend={backend} />);
    const root = view.container;
    await choose(root, bigFile());
    await settled(root);
    const button = byTestId(root, "import-download-rejected");
    expect(button.textContent).toBe("Download rejected rows (3)");
    await click(button);
    await settle();
    expect(saved.map((s) => s.name)).toEqual(["contacts-rejected.csv"]);
    expect(saved[0]?.text).toBe(
      [
        "line,reason,destination,text,kind",
        '10,Phone number: This is not a phone number a message can be sent to.,bad,"Hello, number 10",',
        '700,Phone number: This is not a phone number a message can be sent to.,bad,"Hello, number 700",',
        '1000,"Kind: must be otp, transactional or bulk",+33612301000,"Hello, number 1000",promo',
        "",
      ].join("\r\n"),
    );
    expect(byTestId(root, "import-rejected-saved").textContent).toBe("Rejected rows saved.");
    // Corrected, the file can be imported as it is: line and reason are left aside.
    const again = readImportFile(saved[0]?.text ?? "");
    expect(again.ok && again.rows.map((r) => r.line)).toEqual([2, 3, 4]);
  });

  it("checks and imports 10,000 rows in batches, showing n of N, with the import's kind and send time where rows give none", async () => {
    const { backend, previews, batches } = fakeEngine();
    const sent: SubmitBatch[] = [];
    const submit = backend.submitBatch;
    const release: (() => void)[] = [];
    backend.submitBatch = (batch, key) => {
      sent.push(batch);
      return new Promise((resolve) => release.push(() => resolve(submit(batch, key))));
    };
    const lines = ["destination,text,kind"];
    for (let i = 0; i < 10_000; i += 1) lines.push(`${i % 4000 === 5 ? "bad" : `+3361${String(i).padStart(7, "0")}`},Row ${i},${i === 1 ? "otp" : ""}`);
    view = await render(<CsvImport backend={backend} />);
    const root = view.container;
    await act(async () => {
      byTestId<HTMLSelectElement>(root, "import-kind").value = "bulk";
      byTestId<HTMLSelectElement>(root, "import-kind").dispatchEvent(new Event("change", { bubbles: true }));
    });
    await act(async () => {
      const when = byTestId<HTMLInputElement>(root, "import-when");
      Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, "value")?.set?.call(when, "2031-03-04T09:30");
      when.dispatchEvent(new Event("input", { bubbles: true }));
    });
    const preview = backend.previewMessages;
    let hold: (() => void) | null = null;
    backend.previewMessages = (batch) =>
      previews.length === 1 && hold === null
        ? new Promise((resolve) => (hold = () => resolve(preview(batch))))
        : preview(batch);
    await choose(root, `${lines.join("\n")}\n`);
    const deadline = Date.now() + 15_000;
    while (queryTestId(root, "import-progress")?.textContent !== "Checking rows: 500 of 10,000" && Date.now() < deadline) await settle(5);
    expect(byTestId(root, "import-progress").textContent, "the page is drawn between chunks").toBe("Checking rows: 500 of 10,000");
    // The next chunk is asked once the page was drawn: answer it then.
    while (hold === null && Date.now() < deadline) await settle(5);
    await settle(() => hold?.());
    await settled(root);
    expect(previews).toHaveLength(20);
    expect(byTestId(root, "import-counts").textContent).toBe("9,997 ready, 3 with errors");
    await click(byTestId(root, "import-submit"));
    await settle();
    expect(byTestId(root, "import-progress").textContent).toBe("Queuing messages: 0 of 9,997");
    await settle(() => release[0]?.(), 5);
    expect(byTestId(root, "import-progress").textContent).toBe("Queuing messages: 500 of 9,997");
    expect(byTestId<HTMLButtonElement>(root, "import-submit").disabled, "one import at a time").toBe(true);
    for (let i = 1; i < 20; i += 1) await settle(() => release[i]?.(), 5);
    expect(batches.map((b) => b.size)).toEqual([...Array(19).fill(500), 497]);
    expect(byTestId(root, "import-done").textContent).toContain("9,997 messages queued.");
    expect(queryTestId(root, "import-dialog"), "the dialog closes once done").toBeNull();
    const first = sent[0]?.messages ?? [];
    expect(first[0]).toMatchObject({ kind: "bulk", scheduled_at: new Date("2031-03-04T09:30").toISOString() });
    expect(first[1]?.kind, "a row's own kind stays").toBe("otp");
  }, 30_000);

  it("says once, in each language, that the send time is in the reader's time zone", async () => {
    for (const [language, zone] of [["en-US", "time zone"], ["fr-FR", "fuseau horaire"], ["ru-RU", "часовом поясе"]] as const) {
      view = await render(<CsvImport backend={fakeEngine().backend} />, [language]);
      const when = byTestId<HTMLInputElement>(view.container, "import-when");
      const hint = document.getElementById(when.getAttribute("aria-describedby") ?? "")?.textContent ?? "";
      expect(hint.split(zone).length - 1, `${language}: ${hint}`).toBe(1);
      await view.unmount();
      view = undefined;
    }
  });

  it("stops after the batch under way when Stop is pressed while importing", async () => {
    const { backend, batches } = fakeEngine();
    const submit = backend.submitBatch;
    const release: (() => void)[] = [];
    backend.submitBatch = (batch, key) => new Promise((resolve) => release.push(() => resolve(submit(batch, key))));
    view = await render(<CsvImport backend={backend} />);
    const root = view.container;
    await choose(root, bigFile());
    await settled(root);
    await click(byTestId(root, "import-submit"));
    await click(byTestId(root, "import-cancel"));
    expect(byTestId(root, "import-cancel").textContent).toBe("Stopping after this batch…");
    await settle(() => release[0]?.(), 5);
    expect(batches).toHaveLength(1);
    expect(byTestId(root, "import-stopped").textContent).toContain("500 of 1,200 messages were queued");
  });
});

describe("CsvImport with a template", () => {
  const reminder = {
    id: 4,
    name: "Reminder",
    text: "Hello {name}, see you on {date} at {time}.",
    placeholders: ["name", "date", "time"],
    created_at_ms: 0,
    created_by: "Olga",
  };

  /** The engine's answer for a row sent with Reminder: canned, as its types say. */
  const reminderRow = (m: SubmitMessage, index: number): PreviewRow => {
    const v = m.values ?? {};
    const absent = reminder.placeholders.filter((name) => v[name] === undefined);
    if (absent.length > 0) {
      const errors = absent.map((placeholder) => ({
        field: "values",
        code: "template_value_missing" as const,
        params: { placeholder, template: "Reminder" },
        message: `the template "Reminder" has {${placeholder}} and values give it none`,
      }));
      return { cost: null, smart: null, index, destination: m.destination, text: null, plan: null, errors };
    }
    const text = `Hello ${v["name"]}, see you on ${v["date"]} at ${v["time"]}.`;
    // Parts as GSM 7-bit counts them: 160 characters in one, 153 a part beyond.
    const segments = text.length <= 160 ? 1 : Math.ceil(text.length / 153);
    return { cost: null, smart: null, index, destination: m.destination, text, plan: { encoding: "gsm7", units: text.length, segments, remaining_in_segment: 0 }, errors: [] };
  };

  it("sends each row with the template and its columns' values, previews the first rows as the engine fills them, and lists a row missing a value", async () => {
    const { backend } = fakeEngine();
    backend.listTemplates = () => Promise.resolve([reminder]);
    const asked: SubmitMessage[] = [];
    backend.previewMessages = (batch) => {
      asked.push(...batch.messages);
      return Promise.resolve({ currency: "EUR", total_cost: null, rows: batch.messages.map(reminderRow) });
    };
    const sent: SubmitBatch[] = [];
    const submitBatch = backend.submitBatch;
    backend.submitBatch = (batch, key) => {
      sent.push(batch);
      return submitBatch(batch, key);
    };
    view = await render(<CsvImport backend={backend} />);
    await settle();
    const root = view.container;
    const picker = byTestId<HTMLSelectElement>(root, "import-template");
    picker.value = "4";
    await settle(() => picker.dispatchEvent(new Event("change", { bubbles: true })));
    const long = "x".repeat(200);
    await choose(
      root,
      `destination,Name,date,time\r\n+33612345600,Anna,Monday,10:00\r\n+33612345601,${long},Tuesday,11:00\r\n+33612345602,Léo,,9:00\r\n+33612345603,Zoé,Friday,16:00\r\n`,
    );
    await settled(root);
    expect(asked[0]).toEqual({ destination: "+33612345600", template: "Reminder", values: { name: "Anna", date: "Monday", time: "10:00" } });
    expect(asked[2]?.values, "an empty cell gives no value").toEqual({ name: "Léo", time: "9:00" });
    expect(byTestId(root, "import-counts").textContent).toBe("3 ready, 1 with errors");
    expect(byTestId(root, "import-options").textContent).toContain("Text: the template “Reminder”.");

    const preview = byTestId(root, "import-template-preview");
    const rows = [...preview.querySelectorAll<HTMLElement>('[data-testid="import-preview-row"]')];
    expect(rows.map((r) => r.dataset["line"]), "the first three rows, whatever their state").toEqual(["2", "3", "4"]);
    expect(rows[0]?.textContent).toContain("Hello Anna, see you on Monday at 10:00.");
    expect(rows.map((r) => byTestId(r, "import-preview-parts").textContent)).toEqual(["1", "2", "—"]);
    expect(rows[2]?.textContent).toContain("Not filled: a value is missing");

    const bad = root.querySelector<HTMLElement>('[data-testid="import-row"][data-line="4"]');
    expect(bad?.textContent).toContain("Values: no value for date (the file’s column of that name is missing or empty)");

    await click(byTestId(root, "import-submit"));
    await settled(root);
    expect(sent.flatMap((b) => b.messages.map((m) => [m.template, m.values?.["name"]]))).toEqual([
      ["Reminder", "Anna"],
      ["Reminder", long],
      ["Reminder", "Zoé"],
    ]);
  });

  it("offers no template choice when the office has none", async () => {
    const { backend } = fakeEngine();
    backend.listTemplates = () => Promise.resolve([]);
    view = await render(<CsvImport backend={backend} />);
    await settle();
    expect(queryTestId(view.container, "import-template")).toBeNull();
  });
});

describe("after an import", () => {
  it("links its messages: the list filtered on the time the engine created them, first to last", async () => {
    const backend = new FakeBackend();
    backend.previewMessages = (batch) =>
      Promise.resolve({
        currency: "EUR",
        total_cost: null,
        rows: batch.messages.map((m, index) => ({ cost: null, smart: null, index, destination: m.destination, text: null, plan: null, errors: [] })),
      });
    let created = 1_800_000_000_000;
    backend.submitBatch = (batch) =>
      Promise.resolve({
        messages: batch.messages.map(() => ({ created_at_ms: (created += 7) }) as SubmittedBatch["messages"][number]),
      });
    const shown: string[] = [];
    view = await render(<CsvImport backend={backend} onShowImported={(q) => shown.push(q)} />);
    const root = view.container;
    await choose(root, "destination,text\r\n+33612345600,One\r\n+33612345601,Two\r\n");
    await settled(root);
    await click(byTestId(root, "import-submit"));
    await settled(root);
    expect(byTestId(root, "import-done").textContent).toContain("2 messages queued.");
    const link = byTestId<HTMLAnchorElement>(root, "import-done-show");
    expect(link.getAttribute("href")).toBe("#/messages");
    await click(link);
    expect(shown).toEqual(["1800000000007..1800000000014"]);
    const filter = toMessageFilter({ ...ANY_MESSAGE, imported: shown[0] ?? "" }, null, null);
    expect([filter.from_ms, filter.to_ms], "to_ms is exclusive: the last message is in").toEqual([1_800_000_000_007, 1_800_000_000_015]);
  });

  it("says one message in the singular", async () => {
    const backend = new FakeBackend();
    backend.previewMessages = (batch) =>
      Promise.resolve({ currency: "EUR", total_cost: null, rows: batch.messages.map((m, index) => ({ cost: null, smart: null, index, destination: m.destination, text: null, plan: null, errors: [] })) });
    backend.submitBatch = (batch) =>
      Promise.resolve({ messages: batch.messages.map(() => ({ created_at_ms: 5 }) as SubmittedBatch["messages"][number]) });
    view = await render(<CsvImport backend={backend} />, ["fr-FR"]);
    const root = view.container;
    await choose(root, "destination,text\r\n+33612345600,Un\r\n");
    await settled(root);
    await click(byTestId(root, "import-submit"));
    await settled(root);
    expect(byTestId(root, "import-done").textContent).toContain("1 message mis en file d’attente.");
  });
});

describe("CsvImport and the costs", () => {
  it("shows what the ready rows would cost together, and each previewed row's cost, before anything is queued", async () => {
    const { backend, batches } = fakeEngine();
    // The file is checked in chunks of 500: the total adds up every chunk's rows, not only the last.
    backend.previewMessages = (batch) =>
      Promise.resolve({
        currency: "EUR",
        total_cost: "1.000",
        rows: batch.messages.map((m, index) => ({
          index,
          destination: m.destination === "bad" ? null : m.destination,
          text: null,
          plan: { encoding: "gsm7", units: 10, segments: m.destination.startsWith("+44") ? 2 : 1, remaining_in_segment: 150 },
          errors: m.destination === "bad" ? [{ field: "destination", code: "invalid_number", params: {}, message: "not a phone number" }] : [],
          cost: m.destination === "bad" ? null : m.destination.startsWith("+44") ? "0.160" : "0.050",
          smart: null,
        })),
      });
    view = await render(<CsvImport backend={backend} />);
    const root = view.container;
    const lines = ["destination,text"];
    for (let i = 0; i < 600; i += 1) lines.push(`+336123${String(i).padStart(5, "0")},Hello`);
    lines.push("+447700900123,Hello", "bad,Hello");
    await choose(root, `${lines.join("\r\n")}\r\n`);
    await settled(root);
    expect(byTestId(root, "import-cost").textContent, "600 × 0.050 + 0.160").toBe("Estimated cost of the ready rows: €30.160");
    const rows = [...root.querySelectorAll<HTMLElement>('[data-testid="import-preview-row"]')];
    expect(rows.map((r) => byTestId(r, "import-preview-cost").textContent)).toEqual(["€0.050", "€0.050", "€0.050"]);
    expect(rows[0]?.textContent).toContain("Hello");
    expect(batches, "nothing queued yet").toEqual([]);
  });

  it("shows no cost when no price covers the rows", async () => {
    const { backend } = fakeEngine();
    view = await render(<CsvImport backend={backend} />);
    const root = view.container;
    await choose(root, "destination,text\r\n+33612345600,Hello\r\n");
    await settled(root);
    expect(queryTestId(root, "import-cost")).toBeNull();
    expect(queryTestId(root, "import-template-preview")).toBeNull();
  });
});
