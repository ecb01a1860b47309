// @vitest-environment happy-dom
import { act } from "react";
import { afterEach, describe, expect, it } from "vitest";
import type { NavSection } from "../hooks/useHashRoute";
import { byTestId, click, render, type Rendered } from "../test/dom";
import { AppNav } from "./AppNav";

const ALL: NavSection[] = ["dashboard", "reports", "messages", "inbox", "exceptions", "alerts", "optouts", "audit", "settings", "keys", "accounts", "privacy", "about"];

let rendered: Rendered | undefined;
afterEach(async () => {
  await rendered?.unmount();
  rendered = undefined;
});

async function nav(current: NavSection | null, languages = ["en-US"]): Promise<HTMLElement> {
  rendered = await render(<AppNav sections={ALL} current={current} openExceptions={3} unread={null} />, languages);
  return rendered.container;
}

const toggle = (root: HTMLElement) => byTestId<HTMLButtonElement>(root, "nav-toggle");
const opened = (root: HTMLElement) => root.querySelector("nav")?.hasAttribute("data-open") ?? false;

describe("the sections' menu", () => {
  it("folds behind one button that says where the person is, and names the list it opens", async () => {
    const root = await nav("settings");
    expect(toggle(root).textContent).toBe("Menu: Settings");
    expect(toggle(root).getAttribute("aria-expanded")).toBe("false");
    const list = root.querySelector("nav ul");
    expect(toggle(root).getAttribute("aria-controls")).toBe(list?.id);
    expect([...root.querySelectorAll(".nav-item")].map((a) => a.getAttribute("data-testid"))).toEqual(ALL.map((s) => `nav-${s}`));
    expect(byTestId(root, "nav-settings").getAttribute("aria-current")).toBe("page");
    expect(byTestId(root, "nav-exceptions-count").textContent).toContain("3 open");
    expect(opened(root)).toBe(false);
  });

  it("opens and folds with the button, with Escape, and when a section is chosen", async () => {
    const root = await nav("messages", ["fr-FR"]);
    expect(toggle(root).textContent).toBe("Menu : Messages");
    await click(toggle(root));
    expect(toggle(root).getAttribute("aria-expanded")).toBe("true");
    expect(opened(root)).toBe(true);
    await click(toggle(root));
    expect(opened(root)).toBe(false);

    await click(toggle(root));
    await act(async () => {
      document.dispatchEvent(new KeyboardEvent("keydown", { key: "Escape", bubbles: true }));
    });
    expect(opened(root), "Escape folds it").toBe(false);

    await click(toggle(root));
    byTestId(root, "nav-audit").addEventListener("click", (e) => e.preventDefault());
    await click(byTestId(root, "nav-audit"));
    expect(opened(root), "a section chosen folds it").toBe(false);
  });

  it("leaves Escape to others while folded", async () => {
    const root = await nav("messages");
    const event = new KeyboardEvent("keydown", { key: "Escape", bubbles: true, cancelable: true });
    await act(async () => {
      document.dispatchEvent(event);
    });
    expect(event.defaultPrevented).toBe(false);
    expect(opened(root)).toBe(false);
  });

  it("says Menu alone on a page of no section", async () => {
    const root = await nav(null, ["ru-RU"]);
    expect(toggle(root).textContent).toBe("Меню");
  });
});
