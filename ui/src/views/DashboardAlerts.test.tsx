// @vitest-environment happy-dom
import { afterEach, describe, expect, it } from "vitest";
import { BackendError } from "../backend";
import type { AlertsOverview } from "../bindings/AlertsOverview";
import { byTestId, queryTestId, render, settle, type Rendered } from "../test/dom";
import { alert, alertsOverview, linkDown, resolvedDiskLow } from "../test/fakeAlerts";
import { FakeBackend } from "../test/fakeBackend";
import { T0 } from "../test/fixtures";
import { DashboardAlerts } from "./DashboardAlerts";

let view: Rendered | undefined;
afterEach(async () => {
  await view?.unmount();
  view = undefined;
});

async function banner(answer: () => Promise<AlertsOverview>, languages = ["en-US"]) {
  const backend = new FakeBackend();
  backend.alerts = answer;
  view = await render(<DashboardAlerts backend={backend} />, languages);
  await settle();
  return { backend, root: view.container };
}

const items = (root: HTMLElement) =>
  [...root.querySelectorAll<HTMLElement>('[data-testid="dashboard-alert"]')].map((li) => [li.dataset["rule"], li.textContent]);

describe("the dashboard's alerts banner", () => {
  it("lists each firing alert's title, marks those acknowledged, and leads to the Alerts screen", async () => {
    const acknowledged = alert(2, { acknowledgedAtMs: T0, acknowledgedBy: "Olga", acknowledgementNote: "on it" });
    const { root } = await banner(() => Promise.resolve(alertsOverview([linkDown(3), acknowledged, resolvedDiskLow(1)])));
    expect(items(root)).toEqual([
      ["link_down", "Connection primary is down"],
      ["open_exceptions", "Exceptions are piling up (acknowledged)"],
    ]);
    expect(byTestId(root, "dashboard-alerts").querySelector("h3")?.textContent).toBe("Alerts firing");
    expect(byTestId(root, "dashboard-alerts-open").getAttribute("href")).toBe("#/alerts");
  });

  it("shows nothing while none fires, nor when the alerts cannot be read, and appears when one fires", async () => {
    let current = alertsOverview([resolvedDiskLow(1)]);
    const { backend, root } = await banner(() => Promise.resolve(current));
    expect(queryTestId(root, "dashboard-alerts")).toBeNull();
    current = alertsOverview([alert(4)]);
    await settle(() => backend.emit({ entity: "alert", id: 4 }), 400);
    expect(items(root)).toEqual([["open_exceptions", "Exceptions are piling up"]]);
    await view?.unmount();
    const failing = await banner(() => Promise.reject(new BackendError("forbidden", "no")));
    expect(failing.root.textContent).toBe("");
  });

  it("speaks the operator's language", async () => {
    const { root } = await banner(() => Promise.resolve(alertsOverview([linkDown(3)])), ["ru-RU"]);
    expect(items(root)).toEqual([["link_down", "Соединение primary разорвано"]]);
    expect(byTestId(root, "dashboard-alerts-open").textContent).toBe("Открыть оповещения");
  });
});
