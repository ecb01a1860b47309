// @vitest-environment happy-dom
import { act } from "react";
import { afterEach, describe, expect, it } from "vitest";
import { LOCAL_ADMIN } from "../access/access";
import { App } from "../App";
import type { Me } from "../bindings/Me";
import { byTestId, render, settle, type Rendered } from "../test/dom";
import { browser, desktop } from "../test/fakePeople";
import { person } from "../test/fixtures";
import { DisplayProvider } from "./DisplayProvider";

const SYSTEM = ["en-US"];
const OLGA = person("operator", "Olga");
const ALICE = person("admin", "Alice");

let view: Rendered | undefined;
afterEach(async () => {
  await view?.unmount();
  view = undefined;
  localStorage.clear();
  delete document.documentElement.dataset["theme"];
  document.documentElement.lang = "";
  window.location.hash = "";
});

/** The app in a browser, as main.tsx puts it together, with `me` signed in (or nobody). */
async function browserApp(me: Me | null) {
  await view?.unmount();
  const b = browser();
  b.people.current = me;
  view = await render(
    <DisplayProvider session={b.people.session} system={SYSTEM} storage={localStorage}>
      <App connection={b.connection} />
    </DisplayProvider>,
  );
  await settle();
  return { ...b, root: view.container };
}

async function choose(root: HTMLElement, control: "display-language" | "display-theme", value: string): Promise<void> {
  const select = byTestId<HTMLSelectElement>(root, control);
  await act(async () => {
    select.value = value;
    select.dispatchEvent(new Event("change", { bubbles: true }));
  });
}

const text = (root: HTMLElement, id: string): string | null => byTestId(root, id).textContent;

describe("the display controls", () => {
  it("are two labelled selects in the header, each starting on Follow the system, the languages named in themselves", async () => {
    const { root } = await browserApp(OLGA);
    const header = root.querySelector("header") as HTMLElement;
    const language = byTestId<HTMLSelectElement>(header, "display-language");
    const theme = byTestId<HTMLSelectElement>(header, "display-theme");
    expect(language.closest("label")?.textContent).toMatch(/^Language/);
    expect(theme.closest("label")?.textContent).toMatch(/^Theme/);
    expect([language.value, theme.value]).toEqual(["system", "system"]);
    expect([...language.options].map((o) => [o.value, o.textContent, o.lang])).toEqual([
      ["system", "Follow the system", ""],
      ["en", "English", "en"],
      ["fr", "Français", "fr"],
      ["ru", "Русский", "ru"],
    ]);
    expect([...theme.options].map((o) => o.textContent)).toEqual(["Follow the system", "Light", "Dark"]);
  });
});

describe("the language", () => {
  it("switches every visible word at once when French is chosen, and sets the page's lang", async () => {
    const { root } = await browserApp(OLGA);
    expect(text(root, "nav-dashboard")).toBe("Dashboard");
    expect(document.documentElement.lang).toBe("en");

    await choose(root, "display-language", "fr");
    expect(text(root, "nav-dashboard")).toBe("Tableau de bord");
    expect(root.querySelector(".brand-tagline")?.textContent).not.toBe("SMS dispatch and delivery receipts");
    expect(byTestId(root, "display-theme").closest("label")?.textContent).toMatch(/^Thème/);
    expect(document.documentElement.lang).toBe("fr");

    await choose(root, "display-language", "ru");
    expect(text(root, "nav-dashboard")).toBe("Сводка");
    expect(document.documentElement.lang).toBe("ru");
  });

  it("survives a re-mount for the same account, and is not another account's", async () => {
    let { root } = await browserApp(OLGA);
    await choose(root, "display-language", "fr");

    ({ root } = await browserApp(OLGA));
    expect(byTestId<HTMLSelectElement>(root, "display-language").value).toBe("fr");
    expect(text(root, "nav-dashboard")).toBe("Tableau de bord");
    expect(document.documentElement.lang).toBe("fr");

    ({ root } = await browserApp(ALICE));
    expect(byTestId<HTMLSelectElement>(root, "display-language").value).toBe("system");
    expect(text(root, "nav-dashboard")).toBe("Dashboard");
    expect(document.documentElement.lang).toBe("en");
  });

  it("follows the account that signs in, and the sign-in screen keeps the last choice made on this browser", async () => {
    const { root, people } = await browserApp(OLGA);
    await choose(root, "display-language", "ru");
    await act(async () => people.signOut());
    await settle();
    expect(text(root, "sign-in"), "the sign-in screen is in the last choice").toContain("Вход");

    await act(async () => void (await people.signIn({ name: "Alice", password: "admin password" })));
    await settle();
    expect(text(root, "nav-dashboard"), "Alice chose nothing: the system's language").toBe("Dashboard");
  });

  it("carries a choice made on the sign-in screen into an account that has none of its own, never over one it has", async () => {
    localStorage.setItem("smsdesk.display.Alice", JSON.stringify({ language: "ru" }));
    const { root, people } = await browserApp(null);
    await choose(root, "display-language", "fr");
    await act(async () => void (await people.signIn({ name: "Olga", password: "operator password" })));
    await settle();
    expect(text(root, "nav-dashboard")).toBe("Tableau de bord");
    expect(JSON.parse(localStorage.getItem("smsdesk.display.Olga") ?? "null")).toEqual({ language: "fr" });

    await act(async () => people.signOut());
    await settle();
    await choose(root, "display-language", "en");
    await act(async () => void (await people.signIn({ name: "Alice", password: "admin password" })));
    await settle();
    expect(text(root, "nav-dashboard"), "Alice's own choice stands").toBe("Сводка");
  });
});

describe("the theme", () => {
  it("sets data-theme on the page for Light or Dark and removes it to follow the system", async () => {
    const { root } = await browserApp(OLGA);
    const html = document.documentElement;
    expect(html.dataset["theme"]).toBeUndefined();
    await choose(root, "display-theme", "dark");
    expect(html.dataset["theme"]).toBe("dark");
    await choose(root, "display-theme", "light");
    expect(html.dataset["theme"]).toBe("light");
    await choose(root, "display-theme", "system");
    expect(html.dataset["theme"]).toBeUndefined();
  });

  it("is kept per account too", async () => {
    let { root } = await browserApp(OLGA);
    await choose(root, "display-theme", "dark");
    ({ root } = await browserApp(ALICE));
    expect(document.documentElement.dataset["theme"]).toBeUndefined();
    ({ root } = await browserApp(OLGA));
    expect(document.documentElement.dataset["theme"]).toBe("dark");
    expect(byTestId<HTMLSelectElement>(root, "display-theme").value).toBe("dark");
  });
});

describe("keeping the choice", () => {
  it("stores it under the account's name, and Follow the system removes the stored override", async () => {
    const { root } = await browserApp(OLGA);
    await choose(root, "display-language", "fr");
    await choose(root, "display-theme", "dark");
    expect(JSON.parse(localStorage.getItem("smsdesk.display.Olga") ?? "null")).toEqual({ language: "fr", theme: "dark" });

    await choose(root, "display-language", "system");
    expect(JSON.parse(localStorage.getItem("smsdesk.display.Olga") ?? "null")).toEqual({ theme: "dark" });
    await choose(root, "display-theme", "system");
    expect(localStorage.getItem("smsdesk.display.Olga")).toBeNull();
    expect(localStorage.getItem("smsdesk.display"), "nor is it this browser's last choice any more").toBeNull();
  });

  it("keeps the desktop window's choice for its operator", async () => {
    const d = desktop(LOCAL_ADMIN);
    view = await render(
      <DisplayProvider session={d.connection.session} system={SYSTEM} storage={localStorage}>
        <App connection={d.connection} />
      </DisplayProvider>,
    );
    await settle();
    await choose(view.container, "display-language", "fr");
    expect(JSON.parse(localStorage.getItem(`smsdesk.display.${LOCAL_ADMIN.actor}`) ?? "null")).toEqual({ language: "fr" });
    expect(text(view.container, "nav-dashboard")).toBe("Tableau de bord");
  });
});
