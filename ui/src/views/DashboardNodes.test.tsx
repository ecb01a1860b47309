// @vitest-environment happy-dom
import { afterEach, describe, expect, it } from "vitest";
import type { NodeView } from "../bindings/NodeView";
import { byTestId, queryTestId, render, settle, type Rendered } from "../test/dom";
import { FakeBackend } from "../test/fakeBackend";
import { DashboardNodes } from "./DashboardNodes";

function node(name: string, more: Partial<NodeView> = {}): NodeView {
  return {
    name,
    state: "alive",
    host: `sms-${name}`,
    pid: 4121,
    version: "1.0.0",
    httpUrl: "http://10.0.0.11:8470",
    startedAtMs: 0,
    silentMs: 2_400,
    runs: [{ connection: "acme", binds: 2, bound: 2, tps: 25, acceptedPerS: 23.94 }],
    ...more,
  };
}

let view: Rendered | undefined;
afterEach(async () => {
  await view?.unmount();
  view = undefined;
});

async function card(nodes: NodeView[], languages = ["en-US"]) {
  const backend = new FakeBackend();
  backend.nodes = () => Promise.resolve(nodes);
  view = await render(<DashboardNodes backend={backend} />, languages);
  await settle();
  return view.container;
}

const cells = (row: HTMLElement) => [...row.querySelectorAll("td")].map((td) => td.textContent);

describe("the nodes on the dashboard", () => {
  it("shows each node's state, computer, heartbeat and what it runs of each connection", async () => {
    const root = await card([
      node("a"),
      node("b", { runs: [{ connection: "acme", binds: 0, bound: 0, tps: 0, acceptedPerS: 0 }] }),
      node("c", { state: "silent", silentMs: 31_000, runs: [] }),
    ]);
    const section = byTestId(root, "dashboard-nodes");
    expect(section.querySelector("h3")?.textContent).toBe("Nodes");
    const rows = [...section.querySelectorAll<HTMLElement>('[data-testid="dashboard-node"]')];
    expect(rows.map(cells)).toEqual([
      ["a", "Running", "sms-a", "2 s", "acme: 2/2 bound, 25/s allowed, 23.9/s accepted"],
      ["b", "Running", "sms-b", "2 s", "acme: run by another node"],
      ["c", "Silent (dead to the others)", "sms-c", "31 s", "Nothing"],
    ]);
    expect(rows[2]!.querySelector(".badge-danger"), "a dead node stands out").not.toBeNull();
  });

  it("says nothing for one office on one machine", async () => {
    const root = await card([node("a")]);
    expect(queryTestId(root, "dashboard-nodes")).toBeNull();
  });

  it("speaks the reader's language", async () => {
    const root = await card([node("a"), node("b", { state: "stopped", runs: [] })], ["fr-FR"]);
    const rows = [...byTestId(root, "dashboard-nodes").querySelectorAll<HTMLElement>('[data-testid="dashboard-node"]')];
    expect(cells(rows[1]!)[1]).toBe("Arrêté");
  });
});
