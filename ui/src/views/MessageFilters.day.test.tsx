// @vitest-environment happy-dom
import { afterEach, describe, expect, it } from "vitest";
import { BackendError } from "../backend";
import type { MessageFilter } from "../bindings/MessageFilter";
import type { SettingsView } from "../bindings/SettingsView";
import { byTestId, queryTestId, render, settle, submit, type, type Rendered } from "../test/dom";
import { FakeBackend } from "../test/fakeBackend";
import { Inbox } from "./Inbox";
import { MessageList } from "./MessageList";

let view: Rendered | undefined;
afterEach(async () => {
  await view?.unmount();
  view = undefined;
});

const NEEDS_COUNTRY = new BackendError("invalid_filter", "destination: a national number needs intake.default_region", {
  errors: [{ field: "destination", code: "country_needed" as never, params: {}, message: "a national number needs a country" }],
});

/** An engine that refuses a national number (no office country), and whose office is in `country` for an admin. */
function engine(country: string) {
  const backend = new FakeBackend();
  const asked: MessageFilter[] = [];
  backend.listMessages = (filter) => {
    asked.push(filter);
    if (filter.destination === "06 12 34 56 00") return Promise.reject(NEEDS_COUNTRY);
    return Promise.resolve({ items: [], next_cursor: null, scan_limited: false });
  };
  backend.listThreads = (filter) =>
    filter.q === "06 12 34 56 00"
      ? Promise.reject(
          new BackendError("invalid_filter", "q", {
            errors: [{ field: "q", code: "country_needed" as never, params: {}, message: "a national number needs a country" }],
          }),
        )
      : Promise.resolve({ items: [], next_cursor: null });
  backend.settings = () =>
    Promise.resolve({ fields: [{ key: "intake.default_region", value: country }] } as unknown as SettingsView);
  return { backend, asked };
}

describe("a number the engine cannot read, in the Messages filter", () => {
  it("is said at the field, in words, instead of a silent empty list", async () => {
    const { backend, asked } = engine("");
    view = await render(<MessageList backend={backend} />, ["fr-FR"]);
    await settle();
    const root = view.container;
    await type(byTestId<HTMLInputElement>(root, "filter-destination"), "06 12 34 56 00");
    await submit(byTestId<HTMLFormElement>(root, "message-filters"));
    await settle();
    expect(asked.at(-1)?.destination).toBe("06 12 34 56 00");
    const problem = byTestId(root, "filter-destination-error");
    expect(problem.dataset["code"]).toBe("country_needed");
    expect(problem.textContent).toContain("le pays du bureau n’est pas réglé");
    expect(byTestId(root, "filter-destination").getAttribute("aria-invalid")).toBe("true");
    expect(queryTestId(root, "messages-error"), "said once, at the field").toBeNull();
    expect(queryTestId(root, "messages-empty"), "no “0 messages”").toBeNull();
  });

  it("gives an example of the office's country in the hint", async () => {
    const { backend } = engine("FR");
    view = await render(<MessageList backend={backend} />);
    await settle();
    const input = byTestId<HTMLInputElement>(view.container, "filter-destination");
    const hint = view.container.querySelector(`#${CSS.escape(input.getAttribute("aria-describedby") ?? "")}`);
    expect(hint?.textContent).toBe(
      "As you write it (06 12 34 56 00, +33 6 12 34 56 00), its last digits (at least 4: 5600), or its beginning and * (+3361*).",
    );
  });
});

describe("a number the engine cannot read, in the Inbox search", () => {
  it("is said at the search field, in words", async () => {
    const { backend } = engine("");
    view = await render(<Inbox backend={backend} openThread={null} onOpenThread={() => {}} />, ["ru-RU"]);
    await settle();
    const root = view.container;
    await type(byTestId<HTMLInputElement>(root, "inbox-search-q"), "06 12 34 56 00");
    await submit(byTestId<HTMLFormElement>(root, "inbox-search"));
    await settle();
    const problem = byTestId(root, "inbox-search-error");
    expect(problem.dataset["code"]).toBe("country_needed");
    expect(problem.textContent).toContain("нужно задать страну офиса");
    expect(queryTestId(root, "threads-error")).toBeNull();
  });

  it("gives an example of the office's country in the hint", async () => {
    const { backend } = engine("RU");
    view = await render(<Inbox backend={backend} openThread={null} onOpenThread={() => {}} />);
    await settle();
    const input = byTestId<HTMLInputElement>(view.container, "inbox-search-q");
    const hint = view.container.querySelector(`#${CSS.escape(input.getAttribute("aria-describedby") ?? "")}`);
    expect(hint?.textContent).toBe("Digits of a number (such as 8 912 345-67-89) or words of a reply.");
  });
});
