// @vitest-environment happy-dom
import { afterEach, describe, expect, it } from "vitest";
import { BackendError } from "../backend";
import type { ConnectionAction } from "../bindings/ConnectionAction";
import type { ConnectionStatus } from "../bindings/ConnectionStatus";
import { byTestId, click, queryTestId, render, settle, type, type Rendered } from "../test/dom";
import { FakeBackend } from "../test/fakeBackend";
import { IDLE_CONNECTION } from "../test/fixtures";
import { ConnectionControls, ConnectionFigures } from "./ConnectionControls";

const NOW = Date.UTC(2026, 11, 3, 9, 0, 0);

const primary: ConnectionStatus = {
  connection: "primary",
  sandbox: false,
  link: { state: "bound", session_id: "primary#1@1", since_ms: NOW - 60_000 },
  binds: [],
  ...IDLE_CONNECTION,
  queued: 1234,
  accepted_per_s: 41.26,
  tps_limit: 50,
};

let view: Rendered | undefined;
afterEach(async () => {
  await view?.unmount();
  view = undefined;
});

describe("a connection's figures and an admin's commands", () => {
  it("says what waits for it, its rate against its limit, and who holds it since when", async () => {
    view = await render(<ConnectionFigures status={primary} />);
    const figures = byTestId(view.container, "connection-figures");
    expect(figures.dataset["queued"]).toBe("1234");
    expect(figures.textContent).toContain("1,234 queued for it");
    expect(figures.textContent).toContain("41.3/s accepted of 50/s");
    expect(queryTestId(figures, "connection-hold")).toBeNull();
    await view.unmount();

    const held = { ...primary, hold: { hold: "draining" as const, since_ms: NOW, actor: "anna", note: "provider maintenance" } };
    view = await render(<ConnectionFigures status={held} />);
    const again = byTestId(view.container, "connection-figures");
    expect(byTestId(again, "connection-hold").dataset["hold"]).toBe("draining");
    expect(again.textContent).toContain("Draining");
    expect(again.textContent).toContain("by anna since");
    expect(again.textContent).toContain("(provider maintenance)");
  });

  it("asks once more, sends the command with the note, and reloads; a refusal is shown and changes nothing", async () => {
    const sent: ConnectionAction[] = [];
    let changed = 0;
    const backend = new FakeBackend();
    backend.commandConnection = (action) => {
      sent.push(action);
      return Promise.resolve();
    };
    view = await render(<ConnectionControls backend={backend} status={primary} onChanged={() => changed++} />);
    const root = view.container;
    expect(queryTestId(root, "connection-enable"), "nothing to enable").toBeNull();
    await click(byTestId(root, "connection-drain"));
    expect(root.textContent).toContain("primary will take no new messages");
    expect(sent, "nothing before the confirmation").toEqual([]);
    await type(byTestId<HTMLInputElement>(root, "connection-note"), "  provider maintenance ");
    await click(byTestId(root, "connection-confirm"));
    await settle();
    expect(sent).toEqual([{ connection: "primary", command: "drain", note: "provider maintenance" }]);
    expect(changed).toBe(1);
    await view.unmount();

    const disabled = { ...primary, hold: { hold: "disabled" as const, since_ms: NOW, actor: "anna", note: null } };
    backend.commandConnection = () => Promise.reject(new BackendError("not_found", "connection \"primary\" not found"));
    view = await render(<ConnectionControls backend={backend} status={disabled} onChanged={() => changed++} />);
    const again = view.container;
    expect(queryTestId(again, "connection-drain"), "a disabled connection is only enabled").toBeNull();
    await click(byTestId(again, "connection-enable"));
    await click(byTestId(again, "connection-confirm"));
    await settle();
    expect(again.textContent).toContain("The connection was not changed");
    expect(changed, "no reload after a refusal").toBe(1);
  });
});
