// @vitest-environment happy-dom
import { act } from "react";
import { afterEach, describe, expect, it } from "vitest";
import { BackendError } from "../backend";
import type { Preview } from "../bindings/Preview";
import type { SubmitBatch } from "../bindings/SubmitBatch";
import type { SubmittedBatch } from "../bindings/SubmittedBatch";
import { byTestId, click, queryTestId, render, settle, type Rendered } from "../test/dom";
import { FakeBackend } from "../test/fakeBackend";
import { CsvImport } from "./CsvImport";

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
      rows: batch.messages.map((m, index) => ({
        index,
        destination: m.destination === "bad" ? null : m.destination,
        plan: { encoding: "gsm7", units: m.text.length, segments: 1, remaining_in_segment: 160 - m.text.length },
        errors:
          m.destination === "bad" ? [{ field: "destination", code: "invalid_number", message: "not a phone number" }] : [],
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
    await settle(20);
    expect(previews, "previews of at most 500").toEqual([500, 500, 203]);
    expect(byTestId(root, "import-counts").textContent).toBe("1,200 ready, 3 with errors");
    const bad = [...root.querySelectorAll<HTMLElement>('[data-testid="import-row"][data-ok="false"]')];
    expect(bad.map((r) => r.dataset["line"])).toEqual(["10", "700", "1000"]);
    expect(bad[0]?.textContent).toContain("destination: not a phone number");
    expect(bad[2]?.textContent).toContain("kind: must be otp, transactional or bulk");

    const button = byTestId(root, "import-submit");
    expect(button.textContent).toBe("Import the 1,200 valid rows");
    await click(button);
    await settle(20);
    expect(batches.map((b) => b.size)).toEqual([500, 500, 200]);
    expect(batches.some((b) => b.first === "bad"), "rows with errors are never sent").toBe(false);
    expect(byTestId(root, "import-done").textContent).toBe("1,200 messages queued.3 rows with errors were not sent.");
  });

  it("keeps each chunk's idempotency key across a retry and a re-import of the same file", async () => {
    const { backend, batches, failAt } = fakeEngine();
    view = await render(<CsvImport backend={backend} />);
    const root = view.container;
    await choose(root, bigFile());
    await settle(20);
    failAt(2);
    await click(byTestId(root, "import-submit"));
    await settle(20);
    expect(byTestId(root, "import-error").dataset["code"]).toBe("unreachable");
    expect(byTestId(root, "import-partial").textContent).toContain("500 of 1,200 messages were queued");
    await click(byTestId(root, "import-retry"));
    await settle(20);
    expect(queryTestId(root, "import-done")).not.toBeNull();
    const keys = batches.map((b) => b.key);
    expect(keys).toHaveLength(5);
    expect(keys[0]).toMatch(/^csv-sha256-[0-9a-f]{64}-0$/);
    expect(keys.slice(2), "the retry uses the first attempt's keys").toEqual([keys[0], keys[1], `${keys[0]?.slice(0, -2)}-2`]);

    // The same file chosen again gets the same keys: the engine replays instead of queuing twice.
    await choose(root, bigFile());
    await settle(20);
    await click(byTestId(root, "import-submit"));
    await settle(20);
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
              { field: "messages[3].destination", code: "destination_opted_out", message: "opted out of transactional messages" },
              { field: "messages[250].destination", code: "destination_opted_out", message: "opted out of transactional messages" },
            ],
          }),
        );
      }
      return submitBatch(batch, key);
    };
    view = await render(<CsvImport backend={backend} />);
    const root = view.container;
    await choose(root, bigFile());
    await settle(20);
    await click(byTestId(root, "import-submit"));
    await settle(20);
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
    await choose(root, bigFile());
    await settle(10);
    await settle(() => release[0]?.(), 10);
    const progress = byTestId(root, "import-progress");
    expect(progress.textContent).toBe("Checking rows: 500 of 1,203");
    expect(progress.querySelector("progress")?.getAttribute("value")).toBe("500");
    await settle(() => release[1]?.(), 10);
    await settle(() => release[2]?.(), 10);
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
});
