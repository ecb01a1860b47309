// @vitest-environment happy-dom
import { afterEach, describe, expect, it } from "vitest";
import { BackendError } from "../../backend";
import type { CreatedSmppAccount } from "../../bindings/CreatedSmppAccount";
import type { NewSmppAccount } from "../../bindings/NewSmppAccount";
import { byTestId, click, queryTestId, render, settle, submit, type, type Rendered } from "../../test/dom";
import { FakeBackend } from "../../test/fakeBackend";
import { CreateSmppAccount } from "./CreateSmppAccount";

const NO_LIMITS = { per_minute: null, per_day: null, destination_prefixes: [], countries: [], otp_countries: [] };

let view: Rendered | undefined;
afterEach(async () => {
  await view?.unmount();
  view = undefined;
});

/** The form alone, over a backend that makes every account asked for. */
async function form(languages = ["en-US"]) {
  const backend = new FakeBackend();
  const created: NewSmppAccount[] = [];
  const made: CreatedSmppAccount[] = [];
  let starts = 0;
  backend.createSmppAccount = (a) => {
    created.push(a);
    return Promise.resolve({
      info: {
        id: 9,
        name: a.name,
        tps: a.tps ?? 10,
        window: a.window ?? 10,
        kinds: a.kinds ?? ["transactional"],
        scopes: ["send", "read:own"],
        created_at_ms: 0,
        created_by: "Alice",
        revoked_at_ms: null,
      },
      password: "Kp7xQ2mZ",
    });
  };
  view = await render(
    <CreateSmppAccount backend={backend} onCreated={(c) => made.push(c)} onStart={() => (starts += 1)}>
      <p data-testid="shown-under">under the form</p>
    </CreateSmppAccount>,
    languages,
  );
  await settle();
  return { backend, created, made, starts: () => starts, root: view.container };
}

const field = (root: HTMLElement, id: string) => byTestId<HTMLInputElement>(root, id);

describe("the form that makes an SMPP account", () => {
  it("starts at 10 submits a second, a window of 10 and transactional messages, with a hint for each", async () => {
    const { root } = await form();
    expect(root.querySelector("h2")?.textContent).toBe("Create an SMPP account");
    expect(field(root, "smpp-account-tps").value).toBe("10");
    expect(field(root, "smpp-account-window").value).toBe("10");
    expect(["otp", "transactional", "bulk"].map((k) => field(root, `smpp-account-kind-${k}`).checked)).toEqual([false, true, false]);
    expect(byTestId(root, "smpp-account-default-kind").textContent).toBe(
      "A submit without a service_type is sent as the first kind ticked: Transactional.",
    );
    const name = field(root, "smpp-account-name");
    expect(document.getElementById(name.getAttribute("aria-describedby") ?? "")?.textContent).toContain("1 to 15 letters, digits");
    expect(byTestId<HTMLButtonElement>(root, "smpp-account-submit").disabled, "a name first").toBe(true);
    expect(byTestId(root, "shown-under").textContent).toBe("under the form");
  });

  it("sends the kinds ticked, in order, the first being the default, and says what blocks it", async () => {
    const { root, created, made, starts } = await form();
    await type(field(root, "smpp-account-name"), "lab.1");
    await click(field(root, "smpp-account-kind-bulk"));
    await click(field(root, "smpp-account-kind-otp"));
    expect(byTestId(root, "smpp-account-default-kind").textContent).toContain("One-time codes");
    await click(field(root, "smpp-account-kind-otp"));
    await click(field(root, "smpp-account-kind-transactional"));
    await click(field(root, "smpp-account-kind-bulk"));
    expect(byTestId(root, "smpp-account-blocked").textContent).toBe("Tick at least one kind of message.");
    await click(field(root, "smpp-account-kind-bulk"));
    await click(field(root, "smpp-account-kind-otp"));

    await type(field(root, "smpp-account-name"), "has space");
    expect(byTestId(root, "smpp-account-blocked").textContent).toBe("A System ID is 1 to 15 letters, digits, -, _ or ., without spaces.");
    expect(field(root, "smpp-account-name").getAttribute("aria-invalid")).toBe("true");
    await type(field(root, "smpp-account-name"), "a-name-too-long-16");
    expect(byTestId(root, "smpp-account-blocked").textContent, "pasted longer than SMPP's 15").toContain("1 to 15");
    await type(field(root, "smpp-account-name"), "lab.1");
    await type(field(root, "smpp-account-tps"), "0");
    expect(byTestId(root, "smpp-account-blocked").textContent).toBe("Submits per second: a whole number from 1 to 10,000.");
    expect(field(root, "smpp-account-tps").getAttribute("aria-invalid")).toBe("true");
    await type(field(root, "smpp-account-tps"), "50");
    await type(field(root, "smpp-account-window"), "1001");
    expect(byTestId(root, "smpp-account-blocked").textContent).toBe("The window: a whole number from 1 to 1,000.");
    expect(byTestId<HTMLButtonElement>(root, "smpp-account-submit").disabled).toBe(true);
    await type(field(root, "smpp-account-window"), "20");
    await submit(byTestId<HTMLFormElement>(root, "smpp-account-form"));
    await settle();
    expect(created).toEqual([{ name: "lab.1", tps: 50, window: 20, kinds: ["otp", "bulk"], limits: NO_LIMITS }]);
    expect(made.map((m) => m.password)).toEqual(["Kp7xQ2mZ"]);
    expect(starts(), "the password shown before goes as a new one is asked for").toBe(1);
    expect(field(root, "smpp-account-tps").value, "back to the defaults").toBe("10");
    expect(field(root, "smpp-account-kind-transactional").checked).toBe(true);
  });

  it("shows the engine's refusals beside their fields, and keeps what was typed", async () => {
    const { backend, root, made } = await form();
    backend.createSmppAccount = () =>
      Promise.reject(
        new BackendError("invalid", "2 fields are invalid", {
          errors: [
            { field: "name", code: "conflict", params: {}, message: "an SMPP account named pbx exists: revoke it first, or give its password anew" },
            { field: "tps", code: "out_of_range", params: {}, message: "tps is 1 to 10000" },
          ],
        }),
      );
    await type(field(root, "smpp-account-name"), "pbx");
    await submit(byTestId<HTMLFormElement>(root, "smpp-account-form"));
    await settle();
    const name = field(root, "smpp-account-name");
    expect(name.value).toBe("pbx");
    expect(name.getAttribute("aria-invalid")).toBe("true");
    const nameProblem = name.closest(".field")?.querySelector('[data-testid="field-errors"]');
    expect(nameProblem?.textContent).toBe("An account with this name exists: revoke it first, or give it a new password.");
    expect(name.getAttribute("aria-describedby")?.split(" ")).toContain(nameProblem?.id);
    expect(field(root, "smpp-account-tps").closest(".field")?.querySelector('[data-testid="field-errors"]')?.textContent).toBe(
      "Outside the allowed range.",
    );
    const notice = byTestId(root, "smpp-account-create-error");
    expect(notice.textContent).toContain("The SMPP account was not created");
    expect(notice.textContent, "each field named in words").toContain("Submits per second: Outside the allowed range.");
    expect(made).toEqual([]);

    await type(name, "pbx2");
    expect(name.closest(".field")?.querySelector('[data-testid="field-errors"]'), "gone once edited").toBeNull();
    expect(queryTestId(root, "smpp-account-create-error")).toBeNull();
  });

  it("speaks French and Russian", async () => {
    const fr = await form(["fr-FR"]);
    expect(byTestId(fr.root, "smpp-account-default-kind").textContent).toBe(
      "Un envoi sans service_type part comme le premier type coché : Transactionnels.",
    );
    await view?.unmount();
    view = undefined;
    const ru = await form(["ru-RU"]);
    expect(ru.root.querySelector("h2")?.textContent).toBe("Создать SMPP-аккаунт");
  });
});
