// Alerts, by an admin, while the story runs: the exceptions the story left open are made to fire an
// alert (their limit set to none in Settings); it shows at the top of the dashboard and on the
// Alerts screen, is acknowledged there with a note, and once the limit is set back it resolves
// and moves to the history. The limit is left as it was found.

import assert from "node:assert/strict";
import { eventually, openSection, tid } from "./story.mjs";

const LIMIT = "alerts.open_exceptions_over";
const NOTE = "Working through the oldest exceptions first";
const FIRING = tid("alert-firing", '[data-rule="open_exceptions"]');

/** Sets the open exceptions' limit from the Settings screen, as an admin does. */
async function setLimit(ui, value) {
  await openSection(ui, "settings");
  await ui.waitFor(tid(`setting-${LIMIT}`), 30_000);
  await ui.fill(tid(`setting-${LIMIT}`), value);
  await ui.click(tid("settings-save"));
  await ui.waitFor(tid("settings-saved"), 20_000);
}

/** The alert fired, seen on the dashboard, acknowledged on the Alerts screen; then resolved. */
export async function alertFiresAndEnds(ui) {
  await eventually("an exception the story left open (the viewer's conflict)", async () => (await ui.count(tid("nav-exceptions-count"))) > 0);
  await openSection(ui, "alerts");
  const rule = tid("alert-rule", '[data-rule="open_exceptions"]');
  await ui.waitFor(rule, 15_000);
  const limit = await ui.attr(rule, "data-value");
  assert.equal(await ui.count(FIRING), 0, `the open exceptions are within their limit (${limit})`);
  await setLimit(ui, "0");

  await openSection(ui, "dashboard");
  const onDashboard = tid("dashboard-alert", '[data-rule="open_exceptions"]');
  await ui.waitFor(onDashboard, 30_000);
  assert.equal(await ui.text(onDashboard), "Exceptions are piling up");
  await ui.screenshot("dashboard-alerts.png", { element: tid("dashboard-alerts") });
  await ui.click(tid("dashboard-alerts-open"));
  await ui.waitFor(FIRING, 15_000);
  const id = await ui.attr(FIRING, "data-id");
  const card = tid("alert-firing", `[data-id="${id}"]`);
  assert.equal(await ui.text(`${card} ${tid("alert-figure-over")}`), "0");
  assert.ok(Number(await ui.text(`${card} ${tid("alert-figure-open")}`)) > 0);

  await ui.click(`${card} ${tid("alert-ack-open")}`);
  assert.match(await ui.text(`${card} ${tid("alert-ack-explain")}`), /the reminders stop, but the notice that it is resolved is still sent/);
  await ui.fill(`${card} ${tid("alert-ack-note")}`, NOTE);
  await ui.click(`${card} ${tid("alert-ack-go")}`);
  await eventually("the alert shown acknowledged", async () => (await ui.attr(card, "data-acknowledged")) === "true", 15_000);
  assert.match(await ui.text(`${card} ${tid("alert-acknowledged")}`), new RegExp(`^Acknowledged by Alice on .+: ${NOTE}$`));
  assert.equal(await ui.count(`${card} ${tid("alert-ack-open")}`), 0, "acknowledged once");

  // No SMTP server is set up here: the test e-mail says what is missing.
  await ui.click(tid("alert-test-email"));
  await ui.waitFor(tid("alert-test-result"), 30_000);
  assert.equal(await ui.attr(tid("alert-test-result"), "data-sent"), "false");
  await ui.accessible?.("the Alerts screen with an acknowledged alert");
  await ui.screenshot("alerts.png");

  await setLimit(ui, limit);
  await openSection(ui, "alerts");
  const ended = tid("alert-history-row", `[data-id="${id}"]`);
  await ui.waitFor(ended, 30_000);
  assert.equal(await ui.count(card), 0, "no longer firing");
  assert.match(await ui.text(`${ended} ${tid("alert-history-ack")}`), new RegExp(`^Alice, .+${NOTE}$`));
}
