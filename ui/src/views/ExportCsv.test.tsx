// @vitest-environment happy-dom
import { act } from "react";
import { afterEach, describe, expect, it } from "vitest";
import { BackendError, type ExportOptions } from "../backend";
import type { MessageFilter } from "../bindings/MessageFilter";
import { byTestId, click, queryTestId, render, settle, submit, type, type Rendered } from "../test/dom";
import { FakeBackend } from "../test/fakeBackend";
import { FIRST_PAGE, MessageList } from "./MessageList";

/** A backend whose export the test drives: it reports progress and ends when told. */
function exporting() {
  const backend = new FakeBackend();
  backend.listMessages = () => Promise.resolve({ items: [], next_cursor: null, scan_limited: false });
  const asked: { filter: MessageFilter; options: ExportOptions | undefined }[] = [];
  let finish: (result: number | null) => void = () => {};
  let fail: (error: unknown) => void = () => {};
  backend.exportMessages = (filter, options) => {
    asked.push({ filter, options });
    return new Promise((resolve, reject) => {
      finish = resolve;
      fail = reject;
      options?.signal?.addEventListener("abort", () =>
        reject(new BackendError("cancelled", "the export was cancelled")),
      );
    });
  };
  return {
    backend,
    asked,
    progress: async (done: number, total: number) => settle(() => asked.at(-1)?.options?.onProgress?.({ done, total })),
    finish: async (result: number | null) => settle(() => finish(result)),
    fail: async (error: unknown) => settle(() => fail(error)),
  };
}

let view: Rendered | undefined;
afterEach(async () => {
  await view?.unmount();
  view = undefined;
});

describe("Export CSV", () => {
  it("exports exactly the filtered set, with a progress bar and the count, and ends with how many", async () => {
    const x = exporting();
    view = await render(<MessageList backend={x.backend} />);
    await settle();
    const root = view.container;
    await act(async () => {
      const kind = byTestId<HTMLSelectElement>(root, "filter-kind");
      kind.value = "otp";
      kind.dispatchEvent(new Event("change", { bubbles: true }));
    });
    await type(byTestId<HTMLInputElement>(root, "filter-from"), "2026-11-02");
    await submit(byTestId<HTMLFormElement>(root, "message-filters"));
    await settle();

    await click(byTestId(root, "export-start"));
    expect(x.asked.map((a) => a.filter)).toEqual([
      { ...FIRST_PAGE, kind: "otp", from_ms: new Date(2026, 10, 2).getTime(), limit: null },
    ]);
    expect(byTestId<HTMLButtonElement>(root, "export-start").disabled, "one export at a time").toBe(true);
    expect(byTestId(root, "export-preparing").textContent).toBe("Preparing the export…");

    await x.progress(0, 1200);
    await x.progress(500, 1200);
    const bar = byTestId(root, "export-progress");
    expect(bar.getAttribute("role")).toBe("progressbar");
    expect(bar.getAttribute("aria-valuenow")).toBe("500");
    expect(bar.getAttribute("aria-valuemax")).toBe("1200");
    expect(bar.getAttribute("aria-label")).toBe("Export progress");
    expect(byTestId(root, "export-count").textContent).toBe("500 of 1,200 messages");

    await x.finish(1200);
    expect(queryTestId(root, "export-progress")).toBeNull();
    expect(byTestId(root, "export-done").textContent).toBe("1,200 messages exported.");
    expect(byTestId<HTMLButtonElement>(root, "export-start").disabled).toBe(false);
  });

  it("can be cancelled, which aborts the export and says nothing was saved", async () => {
    const x = exporting();
    view = await render(<MessageList backend={x.backend} />, ["fr-FR"]);
    await settle();
    const root = view.container;
    await click(byTestId(root, "export-start"));
    await x.progress(10, 100);
    const signal = x.asked[0]?.options?.signal;
    expect(signal?.aborted).toBe(false);
    await click(byTestId(root, "export-cancel"));
    await settle();
    expect(signal?.aborted, "the export itself is told to stop").toBe(true);
    expect(byTestId(root, "export-cancelled").textContent).toBe("Export annulé : rien n’a été enregistré.");
    expect(queryTestId(root, "export-cancel")).toBeNull();
  });

  it("goes back to rest when the save dialog is closed without a file", async () => {
    const x = exporting();
    view = await render(<MessageList backend={x.backend} />);
    await settle();
    const root = view.container;
    await click(byTestId(root, "export-start"));
    await x.finish(null);
    expect(queryTestId(root, "export-done")).toBeNull();
    expect(queryTestId(root, "export-preparing")).toBeNull();
    expect(byTestId<HTMLButtonElement>(root, "export-start").disabled).toBe(false);
  });

  it("says so when the window cannot open a save dialog, and shows other failures with a retry", async () => {
    const x = exporting();
    view = await render(<MessageList backend={x.backend} />);
    await settle();
    const root = view.container;
    await click(byTestId(root, "export-start"));
    await x.fail(new BackendError("dialog_unavailable", "no portal"));
    const notice = byTestId(root, "export-no-dialog");
    expect(notice.getAttribute("role")).toBe("alert");
    expect(notice.textContent).toContain("The save dialog could not be opened");
    expect(notice.textContent).toContain("smsdesk export --csv");

    await click(byTestId(root, "export-start"));
    await x.fail(new BackendError("invalid_filter", "limit must be between 1 and 500"));
    expect(queryTestId(root, "export-no-dialog")).toBeNull();
    const error = byTestId(root, "export-error");
    expect(error.textContent).toContain("Could not export the messages");
    await click(error.querySelector("button")!);
    expect(x.asked, "Retry starts the export again").toHaveLength(3);
  });
});
