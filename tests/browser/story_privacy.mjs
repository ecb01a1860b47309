// Personal data, by an admin: a one-time code is shown masked wherever its message is read; the
// Personal data screen gives everything held about its number (a subject access request), then
// erases that number, after which the message shows its text and number removed.

import assert from "node:assert/strict";
import { eventually, openMessage, openSection, tid } from "./story.mjs";

const NUMBER = "+33 6 12 34 58 00";
const CODE = "482913";

/** Sends a one-time code from the compose form; its detail never shows the code. Returns its id. */
export async function codeShownMasked(ui) {
  await openSection(ui, "messages");
  await ui.click(tid("messages-tab-new"));
  await ui.fill(tid("send-destination"), NUMBER);
  await ui.select(tid("send-kind"), "otp");
  await ui.fill(tid("send-text"), `Votre code : ${CODE}`);
  await ui.click(tid("send-submit"));
  const id = await eventually("the form names the queued code", async () =>
    (await ui.count(tid("send-done"))) > 0 ? await ui.attr(tid("send-done"), "data-id") : undefined,
  );
  await ui.click(tid("messages-tab-list"));
  await openMessage(ui, id);
  await eventually(
    "the code accepted by the SMSC",
    async () => (await ui.attr(tid("statement-queue"), "data-status")) === "accepted",
    30_000,
  );
  await ui.waitFor(tid("message-otp-masked"));
  const shown = await ui.text(tid("message-detail"));
  assert.ok(shown.includes("••••••"), "the code is shown masked");
  assert.ok(!shown.includes(CODE), "the code itself is shown nowhere");
  await ui.screenshot("otp-masked.png", { element: tid("message-detail") });
  return id;
}

/** Everything held about the number, then its erasure; the message keeps its facts only. */
export async function accessThenErase(ui, id) {
  await openSection(ui, "privacy");
  await ui.waitFor(tid("privacy-retention"));
  await ui.fill(tid("privacy-access-number"), NUMBER);
  await ui.click(tid("privacy-access-go"));
  await ui.waitFor(tid("privacy-access-result"), 15_000);
  assert.equal(await ui.count(tid("privacy-access-message")), 1, "its one message, nothing of another number");
  assert.equal(await ui.attr(tid("privacy-access-message"), "data-id"), id);
  const csv = await ui.download(tid("privacy-access-csv"));
  assert.match(csv, new RegExp(`^message,${id},`, "m"), "the CSV has its message");
  assert.ok(!csv.includes(CODE), "and not the code");
  await ui.accessible?.("the Personal data screen with a number's record");
  await ui.screenshot("privacy-access.png");

  await ui.fill(tid("privacy-erase-number"), NUMBER);
  await ui.fill(tid("privacy-erase-note"), "Demande d'effacement reçue par courrier le 3 mai");
  await ui.click(tid("privacy-erase-confirm"));
  await ui.click(tid("privacy-erase-go"));
  await ui.waitFor(tid("privacy-erase-result"), 15_000);
  assert.equal(await ui.attr(tid("privacy-erase-result"), "data-still-sending"), "0");
  await ui.accessible?.("the Personal data screen after an erasure");
  await ui.screenshot("privacy-erased.png");

  await openMessage(ui, id);
  await ui.waitFor(tid("message-text-removed"));
  await ui.waitFor(tid("message-number-removed"));
  assert.equal(await ui.attr(tid("message-text-removed"), "data-rule"), "erasure");
  assert.ok(!(await ui.text(tid("message-detail"))).includes("58 00"), "the number is shown nowhere");
}
