// @vitest-environment happy-dom
import { afterEach, describe, expect, it } from "vitest";
import type { CreatedSmppAccount } from "../../bindings/CreatedSmppAccount";
import { byTestId, click, render, settle, type Rendered } from "../../test/dom";
import { OnePassword } from "./OnePassword";

const CREATED: CreatedSmppAccount = {
  info: {
    id: 7,
    name: "pbx",
    tps: 10,
    window: 10,
    kinds: ["transactional"],
    scopes: ["send", "read:own"],
    created_at_ms: 1_765_000_000_000,
    created_by: "Alice",
    revoked_at_ms: null,
  },
  password: "Kp7xQ2mZ",
};

let view: Rendered | undefined;
afterEach(async () => {
  await view?.unmount();
  view = undefined;
  Reflect.deleteProperty(navigator, "clipboard");
});

async function show(from: "create" | "reset", languages = ["en-US"]): Promise<HTMLElement> {
  view = await render(<OnePassword revealed={{ from, account: CREATED }} />, languages);
  return view.container;
}

describe("an SMPP account's password, shown once", () => {
  it("says whose it is, what the system binds with, and that it cannot be shown again", async () => {
    const root = await show("create");
    expect(root.querySelector("h3")?.textContent).toBe("SMPP account pbx created");
    expect(byTestId(root, "smpp-password-value").textContent).toBe("Kp7xQ2mZ");
    expect(byTestId(root, "smpp-password-value").closest("pre")?.classList.contains("secret"), "selected whole with a click").toBe(true);
    expect(root.textContent).toContain("The system binds with the System ID pbx and this password:");
    expect(byTestId(root, "smpp-password-warning").textContent).toBe("Copy it now: it is not stored and cannot be shown again.");
    await view?.unmount();
    const reset = await show("reset");
    expect(reset.querySelector("h3")?.textContent).toBe("New password for pbx");
  });

  it("copies the password, or says to copy it by hand where there is no clipboard", async () => {
    const copied: string[] = [];
    Object.defineProperty(navigator, "clipboard", {
      value: { writeText: (text: string) => (copied.push(text), Promise.resolve()) },
      configurable: true,
    });
    const root = await show("create");
    expect(byTestId(root, "smpp-password-copied").textContent).toBe("");
    await click(byTestId(root, "smpp-password-copy"));
    await settle();
    expect(copied).toEqual(["Kp7xQ2mZ"]);
    expect(byTestId(root, "smpp-password-copied").textContent).toBe("Copied.");
    expect(byTestId(root, "smpp-password-copied").getAttribute("role"), "said to a screen reader").toBe("status");

    Object.defineProperty(navigator, "clipboard", { value: undefined, configurable: true });
    await click(byTestId(root, "smpp-password-copy"));
    expect(byTestId(root, "smpp-password-copied").textContent).toBe("Could not copy it here: select the password and copy it.");
  });

  it("says so when the clipboard refuses", async () => {
    Object.defineProperty(navigator, "clipboard", {
      value: { writeText: () => Promise.reject(new Error("not allowed")) },
      configurable: true,
    });
    const root = await show("reset");
    await click(byTestId(root, "smpp-password-copy"));
    await settle();
    expect(byTestId(root, "smpp-password-copied").dataset["state"]).toBe("failed");
  });

  it("speaks French and Russian", async () => {
    const fr = await show("create", ["fr-FR"]);
    expect(byTestId(fr, "smpp-password-warning").textContent).toBe(
      "Copiez-le maintenant : il n’est pas conservé et ne pourra plus être affiché.",
    );
    await view?.unmount();
    const ru = await show("reset", ["ru-RU"]);
    expect(ru.querySelector("h3")?.textContent).toBe("Новый пароль для pbx");
    expect(byTestId(ru, "smpp-password-copy").textContent).toBe("Копировать");
  });
});
