// The delivery report, by an admin: with the provider drained, four messages go out on the
// backup, three of them to handsets that fail; last week's report by connection then shows the
// backup's delivered share beside the provider's, and its failed figure opens exactly its failed
// messages in the list, with the filters shown.

import assert from "node:assert/strict";
import { compose, eventually, openSection, tid } from "./story.mjs";

const link = (name) => `${tid("connection-link")}[data-connection="${name}"]`;
const row = (key) => tid("reports-row", `[data-key="${key}"]`);

/** The sandbox's handsets: 00 delivers, 01 undeliverable, 02 expired, 03 rejected. */
const ON_THE_BACKUP = [
  ["+33 6 12 34 57 00", "Votre commande 88 est prête"],
  ["+33 6 12 34 57 01", "Votre commande 89 est prête"],
  ["+33 6 12 34 57 02", "Votre commande 90 est prête"],
  ["+33 6 12 34 57 03", "Votre commande 91 est prête"],
];

/** The provider drained from the dashboard, then four messages sent, which go out on the backup. */
export async function sendOnTheBackup(ui) {
  await openSection(ui, "dashboard");
  await eventually("both connections on the dashboard", async () => (await ui.count(tid("connection-link"))) === 2, 60_000);
  await ui.click(`${link("smpp")} ${tid("connection-drain")}`);
  await ui.fill(`${link("smpp")} ${tid("connection-note")}`, "weekly report check");
  await ui.click(`${link("smpp")} ${tid("connection-confirm")}`);
  await eventually(
    "the provider shown drained",
    async () => (await ui.attr(`${link("smpp")} ${tid("connection-hold")}`, "data-hold")) === "draining",
    20_000,
  );
  for (const [number, text] of ON_THE_BACKUP) {
    await compose(ui, number, text);
  }
}

/** Last week by connection: the backup's share beside the provider's, and its failed messages. */
export async function failingConnectionInTheReport(ui) {
  const backup = async () => {
    // The report reads its figures when shown: open it again until the four have their finals.
    await openSection(ui, "dashboard");
    await openSection(ui, "reports");
    await ui.waitFor(tid("reports-table"), 30_000);
    if ((await ui.count(row("backup"))) === 0) return undefined;
    const failed = Number(await ui.attr(row("backup"), "data-failed"));
    const delivered = await ui.attr(row("backup"), "data-delivered-pct");
    return failed === 3 && Number(delivered) === 25 ? { failed, delivered: Number(delivered) } : undefined;
  };
  const seen = await eventually("the backup's four messages reported with their finals", backup, 60_000);
  // Every other connection that sent this week (the built-in sandbox, then the provider) did better.
  const others = [];
  for (let i = 0; i < (await ui.count(tid("reports-row"))); i += 1) {
    const key = await ui.attr(`${tid("reports-row")} >> nth=${i}`, "data-key");
    if (key !== "backup" && key !== "") others.push([key, Number(await ui.attr(row(key), "data-delivered-pct"))]);
  }
  assert.ok(others.length > 0, "the backup is beside another connection");
  for (const [key, delivered] of others) {
    assert.ok(delivered > seen.delivered, `${key} delivered ${delivered} %, the backup ${seen.delivered} %`);
  }
  assert.match(await ui.text(`${row("backup")} ${tid("reports-label")}`), /backup/);
  await ui.accessible?.("the delivery report");
  await ui.screenshot("reports-by-connection.png", { element: tid("reports") });

  await ui.click(`${row("backup")} ${tid("reports-failed-link")}`);
  await eventually("the list shows the backup's failed messages", async () => (await ui.count(tid("message-row"))) === 3, 30_000);
  const states = [];
  for (let i = 0; i < 3; i += 1) {
    states.push(await ui.attr(`${tid("message-row")} >> nth=${i}`, "data-state"));
  }
  assert.deepEqual(states.sort(), ["expired", "rejected", "undeliverable"], "exactly the failed and expired ones");
  const chips = [];
  for (let i = 0; i < (await ui.count(tid("narrowing-chip"))); i += 1) {
    chips.push(await ui.attr(`${tid("narrowing-chip")} >> nth=${i}`, "data-field"));
  }
  assert.deepEqual(chips.sort(), ["connection", "outcome", "period"], "the list says why it is narrowed");
  await ui.accessible?.("the list opened from the report");
  await ui.screenshot("reports-failed-messages.png");

  await openSection(ui, "dashboard");
  await ui.click(`${link("smpp")} ${tid("connection-enable")}`);
  await ui.click(`${link("smpp")} ${tid("connection-confirm")}`);
  await eventually("the hold lifted", async () => (await ui.count(`${link("smpp")} ${tid("connection-hold")}`)) === 0, 20_000);
}
