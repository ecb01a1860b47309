// @vitest-environment happy-dom
import { act } from "react";
import { afterEach, describe, expect, it } from "vitest";
import type { MessageFilter } from "../bindings/MessageFilter";
import { byTestId, click, queryTestId, render, settle, submit, type, type Rendered } from "../test/dom";
import { FakeBackend } from "../test/fakeBackend";
import { ANY_MESSAGE, dateProblem, destinationProblem, localDayStart, toMessageFilter } from "./MessageFilters";
import { FIRST_PAGE, MessageList } from "./MessageList";

/** Runs `body` with the process in time zone `zone` (Node reads TZ again when it is assigned). */
function inZone<T>(zone: string, body: () => T): T {
  const before = process.env["TZ"];
  process.env["TZ"] = zone;
  try {
    return body();
  } finally {
    if (before === undefined) delete process.env["TZ"];
    else process.env["TZ"] = before;
  }
}

describe("date filters", () => {
  it("are whole days in the user's time zone, To included, across a daylight-saving change", () => {
    inZone("Europe/Paris", () => {
      // 29 March 2026 has 23 hours in Paris (clocks go from 02:00 to 03:00).
      const filter = toMessageFilter({ ...ANY_MESSAGE, from: "2026-03-29", to: "2026-03-29" }, null, 50);
      expect(filter.from_ms, "From is the local midnight starting the day").toBe(Date.UTC(2026, 2, 28, 23));
      expect(filter.to_ms, "To ends at the local midnight after the day (to_ms is exclusive)").toBe(
        Date.UTC(2026, 2, 29, 22),
      );
    });
    inZone("America/New_York", () => {
      expect(localDayStart("2026-11-30")).toBe(Date.UTC(2026, 10, 30, 5));
    });
  });

  it("leave blank days out and refuse days that do not exist", () => {
    const filter = toMessageFilter(ANY_MESSAGE, null, null);
    expect([filter.from_ms, filter.to_ms]).toEqual([null, null]);
    expect(localDayStart("2026-02-30"), "30 February is not rolled into March").toBeNull();
    expect(localDayStart("yesterday")).toBeNull();
    expect(dateProblem({ ...ANY_MESSAGE, from: "2026-02-30" })).toBe("fromInvalid");
    expect(dateProblem({ ...ANY_MESSAGE, from: "2026-03-02", to: "2026-03-01" })).toBe("fromAfterTo");
    expect(dateProblem({ ...ANY_MESSAGE, from: "2026-03-01", to: "2026-03-01" }), "one day is fine").toBeNull();
  });
});

let view: Rendered | undefined;
afterEach(async () => {
  await view?.unmount();
  view = undefined;
});

function recording() {
  const backend = new FakeBackend();
  const filters: MessageFilter[] = [];
  backend.listMessages = (filter) => {
    filters.push(filter);
    return Promise.resolve({ items: [], next_cursor: null, scan_limited: false });
  };
  return { backend, filters };
}

describe("the From and To fields", () => {
  it("search the chosen days when submitted, and say To includes its day", async () => {
    const { backend, filters } = recording();
    view = await render(<MessageList backend={backend} />);
    await settle();
    const root = view.container;
    const to = byTestId<HTMLInputElement>(root, "filter-to");
    expect(to.type, "the app's own date field, not the browser's").toBe("text");
    expect(to.placeholder, "written in the locale's order").toBe("mm/dd/yyyy");
    const hint = root.querySelector(`#${CSS.escape(to.getAttribute("aria-describedby") ?? "")}`);
    expect(hint?.textContent).toContain("To includes the whole day");

    await type(byTestId<HTMLInputElement>(root, "filter-from"), "2026-11-01");
    await type(to, "2026-11-30");
    await settle();
    expect(filters, "typing a date alone does not search").toEqual([FIRST_PAGE]);
    await submit(byTestId<HTMLFormElement>(root, "message-filters"));
    await settle();
    expect(filters.at(-1)).toEqual({
      ...FIRST_PAGE,
      from_ms: new Date(2026, 10, 1).getTime(),
      to_ms: new Date(2026, 11, 1).getTime(),
    });
  });

  it("refuse From after To next to the field, and send nothing until it is put right", async () => {
    const { backend, filters } = recording();
    view = await render(<MessageList backend={backend} />);
    await settle();
    const root = view.container;
    await type(byTestId<HTMLInputElement>(root, "filter-from"), "2026-11-30");
    await type(byTestId<HTMLInputElement>(root, "filter-to"), "2026-11-01");
    await submit(byTestId<HTMLFormElement>(root, "message-filters"));
    await settle();
    const error = byTestId(root, "filter-date-error");
    expect(error.textContent).toBe("From is after To: choose a From day on or before the To day.");
    expect(error.getAttribute("role")).toBe("alert");
    const to = byTestId<HTMLInputElement>(root, "filter-to");
    expect(to.getAttribute("aria-invalid")).toBe("true");
    expect(to.getAttribute("aria-describedby")?.split(" ")).toContain(error.id);
    expect(filters, "nothing is sent while the dates are wrong").toEqual([FIRST_PAGE]);

    await act(async () => {
      const status = byTestId<HTMLSelectElement>(root, "filter-status");
      status.value = "failed";
      status.dispatchEvent(new Event("change", { bubbles: true }));
    });
    await settle();
    expect(filters, "a choice does not slip the wrong dates through either").toEqual([FIRST_PAGE]);

    await type(byTestId<HTMLInputElement>(root, "filter-to"), "2026-12-01");
    await submit(byTestId<HTMLFormElement>(root, "message-filters"));
    await settle();
    expect(queryTestId(root, "filter-date-error")).toBeNull();
    expect(byTestId(root, "filter-to").getAttribute("aria-invalid")).toBeNull();
    expect(filters.at(-1)).toEqual({
      ...FIRST_PAGE,
      status: "failed",
      from_ms: new Date(2026, 10, 30).getTime(),
      to_ms: new Date(2026, 11, 2).getTime(),
    });

    await click(byTestId(root, "filter-clear"));
    await settle();
    expect(filters.at(-1)).toEqual(FIRST_PAGE);
    expect(byTestId<HTMLInputElement>(root, "filter-from").value).toBe("");
  });
});

describe("the phone number filter", () => {
  const problem = (destination: string) => destinationProblem({ ...ANY_MESSAGE, destination });

  it("takes a number as people write it, its last digits, or its beginning and *; the engine reads it", () => {
    for (const written of ["06 12 34 56 00", "06.12.34.56.00", "06-12-34-56-00", "+33 6 12 34 56 00", "33612345600", "0033612345600", "3456", "*3456", "+3361*", "06 12*", ""]) {
      expect(problem(written), written).toBeNull();
    }
  });

  it("refuses fewer than 4 digits of an ending, and what is not a number, next to the field and without searching", async () => {
    expect(problem("345")).toBe("tooShort");
    expect(problem("*34")).toBe("tooShort");
    for (const written of ["martin", "+33 6 12 34 56 0x", "*3456*", "3+456", "*", "+"]) {
      expect(problem(written), written).toBe("notNumber");
    }
    const { backend, filters } = recording();
    view = await render(<MessageList backend={backend} />);
    await settle();
    const root = view.container;
    const asked = filters.length;
    await type(byTestId<HTMLInputElement>(root, "filter-destination"), "456");
    await submit(byTestId<HTMLFormElement>(root, "message-filters"));
    await settle();
    expect(filters.length, "nothing is searched").toBe(asked);
    expect(byTestId(root, "filter-destination-error").textContent).toContain("at least 4 digits");
    expect(byTestId(root, "filter-destination").getAttribute("aria-invalid")).toBe("true");

    await type(byTestId<HTMLInputElement>(root, "filter-destination"), "3456");
    await submit(byTestId<HTMLFormElement>(root, "message-filters"));
    await settle();
    expect(filters.at(-1)).toEqual({ ...FIRST_PAGE, destination: "3456" });
    expect(queryTestId(root, "filter-destination-error")).toBeNull();
  });
});
