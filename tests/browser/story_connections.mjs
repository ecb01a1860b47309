// Several connections from the screens, by an admin: a backup connection (the built-in sandbox)
// added beside the provider and a route over both, saved from Settings; the dashboard then shows
// both links with their figures, and the provider is drained from there, with why.

import assert from "node:assert/strict";
import { eventually, openSection, tid } from "./story.mjs";

const row = (name) => `${tid("connection-edit")}[data-name="${name}"]`;
const link = (name) => `${tid("connection-link")}[data-connection="${name}"]`;

/** Settings: the one `[smpp]` connection kept, a sandbox backup added, one route over both, saved. */
export async function addBackupConnection(ui) {
  await openSection(ui, "settings");
  await ui.waitFor(tid("connections-editor"), 30_000);
  await ui.waitFor(tid("connections-migration"));
  assert.equal(await ui.count(tid("connection-edit")), 1, "the provider is the one connection");
  await ui.click(tid("connection-add"));
  await ui.fill(`${row("")} ${tid("connection-name")}`, "backup");
  await ui.click(`${row("backup")} ${tid("connection-sandbox")}`);
  await ui.click(tid("route-add"));
  await ui.fill(`${tid("route-edit")} ${tid("route-name")}`, "main");
  await ui.click(`${tid("route-edit")} ${tid("route-connection-add")}`);
  await ui.click(`${tid("route-edit")} ${tid("route-connection-add")}`);
  assert.equal(await ui.count(`${tid("route-edit")} ${tid("route-connection")}`), 2);
  assert.equal(await ui.count(tid("connection-unrouted")), 0, "every connection is on the route");
  await ui.accessible?.("the connections and routes editor");
  await ui.screenshot("connections-settings.png", { element: tid("connections-editor") });
  await ui.click(tid("connections-save"));
  await ui.waitFor(tid("connections-saved"), 60_000);
}

/** The dashboard with both links; the provider drained from there, with a note. */
export async function drainTheProvider(ui) {
  await openSection(ui, "dashboard");
  await eventually("both connections on the dashboard", async () => (await ui.count(tid("connection-link"))) === 2, 60_000);
  await eventually(
    "the backup bound",
    async () => (await ui.attr(`${link("backup")} ${tid("link-state")}`, "data-state")) === "bound",
    60_000,
  );
  await ui.click(`${link("smpp")} ${tid("connection-drain")}`);
  await ui.fill(`${link("smpp")} ${tid("connection-note")}`, "provider maintenance tonight");
  await ui.click(`${link("smpp")} ${tid("connection-confirm")}`);
  await eventually(
    "the provider shown drained",
    async () => (await ui.attr(`${link("smpp")} ${tid("connection-hold")}`, "data-hold")) === "draining",
    20_000,
  );
  assert.match(await ui.text(`${link("smpp")} ${tid("connection-figures")}`), /provider maintenance tonight/);
  await ui.screenshot("connections-dashboard.png", { element: tid("dashboard-connection") });
  await ui.click(`${link("smpp")} ${tid("connection-enable")}`);
  await ui.click(`${link("smpp")} ${tid("connection-confirm")}`);
  await eventually("the hold lifted", async () => (await ui.count(`${link("smpp")} ${tid("connection-hold")}`)) === 0, 20_000);
}
